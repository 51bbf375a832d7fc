/**
 * Where channels and the guide come from: M3U playlists, HDHomeRun tuners and XMLTV
 * guides, from the config (re-registered at every start) or added through the
 * management interface. A refresh that fails keeps what the last good one gave and
 * records the error on the source or guide, for /dvr/sources and /dvr/guides to show.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Logger } from 'pino';
import { BadRequestError, NotFoundError } from '../common/errors.js';
import { isInsideTree } from '../common/path-boundary.js';
import { digest } from '../model/ids.js';
import type { Db } from '../db/database.js';
import { GuideWriter, deleteGuide, getGuide, type GuideRow, listGuides, removeConfigGuidesExcept, saveGuide, setGuideError } from '../repositories/guide.repository.js';
import { readHdHomeRun } from './hdhomerun.client.js';
import { parseM3u } from './m3u.parser.js';
import { isUrl, openSource, readSourceText, shownLocation } from './source-reader.js';
import {
  applyChannelFavorites,
  deleteSource,
  getSource,
  listSources,
  type Origin,
  removeConfigSourcesExcept,
  replaceSourceChannels,
  saveSource,
  setSourceError,
  type SourceKind,
  type SourceRow,
} from '../repositories/sources.repository.js';
import { parseXmltv, type XmltvProgramme } from './xmltv/xmltv.parser.js';

/** The rows a source and a guide are, as the routes show them. */
export type { GuideRow, SourceRow };

export interface SourceSpec {
  kind: SourceKind;
  location: string;
  /** Simultaneous streams (M3U only; a tuner reports its own count). */
  streams?: number | undefined;
}

export interface DvrSourcesConfig {
  sources: readonly SourceSpec[];
  guides: readonly string[];
}

export interface RefreshSummary {
  sources: { id: string; channels?: number; skipped?: number; error?: string }[];
  guides: { id: string; programmes?: number; skipped?: number; error?: string }[];
}

/** Streams an M3U source allows when nobody said. */
export const DEFAULT_M3U_STREAMS = 2;

/** Source and guide ids keep the 12 digits they have always had: jobs and favorites refer to them. */
const SOURCE_DIGEST_LENGTH = 12;

export function sourceIdFor(kind: SourceKind, location: string): string {
  return `${kind === 'm3u' ? 'm3u' : 'hdhr'}-${digest(location, SOURCE_DIGEST_LENGTH)}`;
}

export function guideIdFor(location: string): string {
  return `xmltv-${digest(location, SOURCE_DIGEST_LENGTH)}`;
}

/** A URL's host (its path may hold an account, as in /get/USER/PASS/m3u), a file's path. */
function shortLocation(location: string): string {
  try {
    return /^https?:\/\//i.test(location) ? new URL(location).host : location;
  } catch {
    return shownLocation(location);
  }
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A path with its links followed; as written (normalised) when it does not exist yet. */
function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * Why a location given through the API may not be read, if it may not: an http(s) URL
 * may, a local file only under a folder the user allowed (--allow-local-source), since
 * anyone on the network who may write could otherwise make the server read any file it
 * can (and show its lines as channel names). Config-file and flag locations are the
 * user's own and are not checked.
 */
export function managedLocationProblem(location: string, allowedDirs: readonly string[]): string | undefined {
  if (isUrl(location)) return undefined;
  if (allowedDirs.length === 0) {
    return 'Give an http:// or https:// URL: local files are accepted only under folders the server allows (start it with --allow-local-source DIR).';
  }
  if (!isAbsolute(location.trim())) return `Give an http(s) URL or an absolute path under ${allowedDirs.join(', ')}.`;
  const real = realOrResolved(location.trim());
  if (allowedDirs.some((dir) => isInsideTree(real, realOrResolved(dir)))) return undefined;
  return `${location.trim().slice(0, 200)} is not under a folder the server allows for sources (${allowedDirs.join(', ')}); move it there, give an http(s) URL, or add its folder with --allow-local-source.`;
}

export class DvrSourcesService {
  private readonly guideRefreshes = new Map<string, Promise<RefreshSummary['guides'][number]>>();

  constructor(
    private readonly db: Db,
    private readonly options: { logger?: Logger; now?: () => number; localSourceDirs?: readonly string[] } = {},
  ) {}

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** Makes the config-owned sources and guides exactly the configured ones; managed ones stay. */
  applyConfig(config: DvrSourcesConfig): void {
    const sourceIds = config.sources.map((spec) => this.saveSpec(spec, 'config').id);
    removeConfigSourcesExcept(this.db, sourceIds);
    const guideIds = config.guides.map((location) => {
      const id = guideIdFor(location);
      saveGuide(this.db, { id, location, origin: 'config' }, this.now());
      return id;
    });
    removeConfigGuidesExcept(this.db, guideIds);
    this.warnAboutRefusedLocations();
  }

  /** Sources and guides added through the API before local files needed --allow-local-source: said once at start. */
  private warnAboutRefusedLocations(): void {
    const managed = [...listSources(this.db).filter((s) => s.kind === 'm3u'), ...listGuides(this.db)].filter((row) => row.origin === 'managed');
    for (const row of managed) {
      const problem = managedLocationProblem(row.location, this.options.localSourceDirs ?? []);
      if (problem) this.options.logger?.warn({ id: row.id, location: shownLocation(row.location) }, `added source or guide will not be read: ${problem}`);
    }
  }

  private saveSpec(spec: SourceSpec, origin: Origin): SourceRow {
    const id = sourceIdFor(spec.kind, spec.location);
    const existing = getSource(this.db, id);
    // A tuner's own count replaces this at its first refresh.
    const limit = spec.kind === 'm3u' ? (spec.streams ?? DEFAULT_M3U_STREAMS) : (existing?.stream_limit ?? 1);
    // Shown in the API, logs and job errors: never the credentials a playlist URL may carry.
    const name = existing?.name ?? (spec.kind === 'm3u' ? `M3U ${shortLocation(spec.location)}` : `HDHomeRun ${shortLocation(spec.location)}`);
    saveSource(this.db, { id, kind: spec.kind, location: spec.location, name, stream_limit: limit, origin: existing?.origin === 'config' ? 'config' : origin }, this.now());
    return getSource(this.db, id) as SourceRow;
  }

  listSources(): SourceRow[] {
    return listSources(this.db);
  }

  listGuides(): GuideRow[] {
    return listGuides(this.db);
  }

  addSource(spec: SourceSpec): SourceRow {
    if (spec.kind === 'hdhomerun' && spec.streams !== undefined) {
      throw new BadRequestError('streams', 'An HDHomeRun reports its own tuner count; leave out "streams".');
    }
    // A tuner's location is an address, never read as a file.
    if (spec.kind === 'm3u') this.checkManagedLocation(spec.location);
    return this.saveSpec(spec, 'managed');
  }

  removeSource(id: string): void {
    if (!deleteSource(this.db, id)) throw new NotFoundError('source', id);
  }

  addGuide(location: string): GuideRow {
    this.checkManagedLocation(location);
    const id = guideIdFor(location);
    if (!getGuide(this.db, id)) saveGuide(this.db, { id, location, origin: 'managed' }, this.now());
    return getGuide(this.db, id) as GuideRow;
  }

  private checkManagedLocation(location: string): void {
    const problem = managedLocationProblem(location, this.options.localSourceDirs ?? []);
    if (problem) throw new BadRequestError('location', problem);
  }

  /** Checked again at every read: a file may have become a link since it was added. */
  private readableLocation(row: { location: string; origin: string }): string {
    if (row.origin !== 'managed') return row.location;
    const problem = managedLocationProblem(row.location, this.options.localSourceDirs ?? []);
    if (problem) throw new Error(problem);
    return row.location;
  }

  removeGuide(id: string): void {
    if (!deleteGuide(this.db, id)) throw new NotFoundError('guide', id);
  }

  async refreshAll(signal?: AbortSignal): Promise<RefreshSummary> {
    const summary: RefreshSummary = { sources: [], guides: [] };
    // A source or guide removed while this runs is skipped, not an error.
    for (const source of listSources(this.db)) if (getSource(this.db, source.id)) summary.sources.push(await this.refreshSource(source.id, signal));
    for (const guide of listGuides(this.db)) if (getGuide(this.db, guide.id)) summary.guides.push(await this.refreshGuide(guide.id, signal));
    return summary;
  }

  async refreshSource(id: string, signal?: AbortSignal): Promise<RefreshSummary['sources'][number]> {
    const source = getSource(this.db, id);
    if (!source) throw new NotFoundError('source', id);
    try {
      const result = source.kind === 'm3u' ? await this.readM3u(source, signal) : await this.readTuner(source, signal);
      replaceSourceChannels(this.db, id, result, this.now());
      applyChannelFavorites(this.db);
      this.options.logger?.info({ source: id, channels: result.channels.length, skipped: result.skipped }, 'source refreshed');
      return { id, channels: result.channels.length, skipped: result.skipped };
    } catch (error) {
      const message = `${source.name}: ${reason(error)}`;
      setSourceError(this.db, id, message, this.now());
      this.options.logger?.warn({ source: id, err: message }, 'source refresh failed; keeping its channels from the last refresh: the error says why; check the source\'s URL or file and the network');
      return { id, error: message };
    }
  }

  private async readM3u(source: SourceRow, signal?: AbortSignal) {
    const text = await readSourceText(this.readableLocation(source), signal ? { signal } : {});
    const playlist = parseM3u(text);
    // A web page or an error text where the playlist was must not wipe the channels; an empty playlist may.
    if (playlist.channels.length === 0 && (playlist.skipped > 0 || !/#EXTM3U|#EXTINF/i.test(text)) && text.trim() !== '') {
      throw new Error(`it is not an M3U playlist (${playlist.skipped} lines could not be read)`);
    }
    const channels = playlist.channels.map((c) => ({
      number: c.number,
      name: c.name,
      image_url: c.logo,
      hd: c.hd,
      stream_url: c.url,
      guide_id: c.guideId,
      guide_name: c.guideName,
      group_title: c.group,
    }));
    return { channels, skipped: playlist.skipped };
  }

  private async readTuner(source: SourceRow, signal?: AbortSignal) {
    const device = await readHdHomeRun(source.location, signal ? { signal } : {});
    const channels = device.channels.map((c) => ({ number: c.number, name: c.name, call_sign: c.name, hd: c.hd, stream_url: c.url }));
    const name = device.friendlyName ? `${device.friendlyName} ${device.deviceId}` : `HDHomeRun ${device.deviceId}`;
    return { channels, skipped: device.skipped, streamLimit: Math.max(1, device.tunerCount), name };
  }

  /** Reads a guide again; a refresh of it already running is shared, not started twice. */
  refreshGuide(id: string, signal?: AbortSignal): Promise<RefreshSummary['guides'][number]> {
    const running = this.guideRefreshes.get(id);
    if (running) return running;
    const refresh = this.readGuide(id, signal).finally(() => this.guideRefreshes.delete(id));
    this.guideRefreshes.set(id, refresh);
    return refresh;
  }

  private async readGuide(id: string, signal?: AbortSignal): Promise<RefreshSummary['guides'][number]> {
    const guide = getGuide(this.db, id);
    if (!guide) throw new NotFoundError('guide', id);
    const writer = new GuideWriter(this.db, id);
    // XMLTV may leave out `stop`: a programme then ends where the next one on its channel begins.
    const open = new Map<string, XmltvProgramme>();
    let skipped = 0;
    const emit = (p: XmltvProgramme) => {
      if (p.stop === undefined || p.stop <= p.start) skipped++;
      else writer.programme({ ...p, stop: p.stop });
    };
    try {
      const input = await openSource(this.readableLocation(guide), signal ? { signal } : {});
      const counts = await parseXmltv(
        input,
        {
          channel: (channel) => writer.channel(channel),
          programme: (programme) => {
            if (programme.stop !== undefined) return emit(programme);
            const before = open.get(programme.channel);
            if (before) emit({ ...before, stop: programme.start });
            open.set(programme.channel, programme);
          },
        },
        signal ? { signal } : {},
      );
      skipped += counts.skipped + open.size;
      writer.commit({ skipped }, this.now());
      this.options.logger?.info({ guide: id, programmes: writer.count, skipped }, 'guide refreshed');
      return { id, programmes: writer.count, skipped };
    } catch (error) {
      writer.abandon();
      const message = `guide ${shownLocation(guide.location)}: ${reason(error)}`;
      setGuideError(this.db, id, message, this.now());
      this.options.logger?.warn({ guide: id, err: message }, 'guide refresh failed; keeping the programmes from the last refresh: the error says why; check the guide\'s URL or file and the network');
      return { id, error: message };
    }
  }
}
