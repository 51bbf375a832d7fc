/**
 * Where channels and the guide come from: M3U playlists, HDHomeRun tuners and XMLTV
 * guides, from the config (re-registered at every start) or added through the
 * management interface. A refresh is applied only when what it read is believable
 * (refresh-checks.ts); one that is not keeps everything the last good one gave (and
 * `refreshed_at`, that refresh's time), records why as the source's or guide's `error`
 * for /dvr/sources and /dvr/guides to show, and logs what to do.
 */
import { type EventSink, NO_EVENTS } from '../../model/events/event.schemas.js';
import { realpathSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Logger } from 'pino';
import { BadRequestError, NotFoundError } from '../../common/errors.js';
import { isInsideTree } from '../../common/path-boundary.js';
import { digest } from '../../model/ids.js';
import type { Db } from '../../db/database.js';
import {
  deleteGuide,
  getGuide,
  type GuideRow,
  listGuides,
  removeConfigGuidesExcept,
  saveGuide,
} from '../../repositories/dvr/guide.repository.js';
import { MAX_REMOVED_SHARE } from './refresh-checks.js';
import { isUrl, shownLocation } from './source-reader.js';
import {
  type GuideRefresh,
  type GuideWrites,
  type RefreshOptions,
  type RefreshSummary,
  type SourceRefresh,
  SourceRefresher,
} from './source-refresh.js';
import {
  deleteSource,
  getSource,
  listSources,
  type Origin,
  removeConfigSourcesExcept,
  saveSource,
  type SourceKind,
  type SourceRow,
} from '../../repositories/dvr/sources.repository.js';

/** The rows a source and a guide are, as the routes show them. */
export type { GuideRefresh, GuideRow, RefreshOptions, RefreshSummary, SourceRefresh, SourceRow };

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
  private readonly refresher: SourceRefresher;

  constructor(
    private readonly db: Db,
    private readonly options: {
      logger?: Logger;
      now?: () => number;
      localSourceDirs?: readonly string[];
      /** The share a refresh may remove unconfirmed (refresh-checks.ts); default one half. */
      maxRemovedShare?: number;
      /** Longest wait for a source's or guide's answer and each chunk of it (the source reader's default: 30 s). */
      readTimeoutMs?: number;
      /** Told of a guide refresh's commits (source-refresh.ts). */
      guideWrites?: GuideWrites;
      /** Where source failing / back and guide failed / applied are told. */
      emit?: EventSink;
    } = {},
  ) {
    this.refresher = new SourceRefresher(db, {
      logger: options.logger,
      now: () => this.now(),
      maxRemovedShare: options.maxRemovedShare ?? MAX_REMOVED_SHARE,
      timeoutMs: options.readTimeoutMs,
      readable: (row) => this.readableLocation(row),
      guideWrites: options.guideWrites,
      emit: options.emit ?? NO_EVENTS,
    });
  }

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
    const managed = [...listSources(this.db).filter((s) => s.kind === 'm3u'), ...listGuides(this.db)].filter(
      (row) => row.origin === 'managed',
    );
    for (const row of managed) {
      const problem = managedLocationProblem(row.location, this.options.localSourceDirs ?? []);
      if (problem)
        this.options.logger?.warn(
          { id: row.id, location: shownLocation(row.location) },
          `added source or guide will not be read: ${problem}`,
        );
    }
  }

  private saveSpec(spec: SourceSpec, origin: Origin): SourceRow {
    const id = sourceIdFor(spec.kind, spec.location);
    const existing = getSource(this.db, id);
    // A tuner's own count replaces this at its first refresh.
    const limit = spec.kind === 'm3u' ? (spec.streams ?? DEFAULT_M3U_STREAMS) : (existing?.stream_limit ?? 1);
    // Shown in the API, logs and job errors: never the credentials a playlist URL may carry.
    const name =
      existing?.name ??
      (spec.kind === 'm3u' ? `M3U ${shortLocation(spec.location)}` : `HDHomeRun ${shortLocation(spec.location)}`);
    saveSource(
      this.db,
      {
        id,
        kind: spec.kind,
        location: spec.location,
        name,
        stream_limit: limit,
        origin: existing?.origin === 'config' ? 'config' : origin,
      },
      this.now(),
    );
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
    const options = signal ? { signal } : {};
    // A source or guide removed while this runs is skipped, not an error.
    for (const source of listSources(this.db))
      if (getSource(this.db, source.id)) summary.sources.push(await this.refreshSource(source.id, options));
    for (const guide of listGuides(this.db))
      if (getGuide(this.db, guide.id)) summary.guides.push(await this.refreshGuide(guide.id, options));
    return summary;
  }

  /**
   * Reads a source again and applies what it read if that is believable (refresh-checks.ts);
   * `accept` applies a lineup that removes much too. One refresh of a source runs at a
   * time: a call while one runs shares it, or, to accept what that one may not, follows it.
   */
  refreshSource(id: string, options: RefreshOptions = {}): Promise<SourceRefresh> {
    return this.refresher.refreshSource(id, options);
  }

  /** Reads a guide again, as refreshSource does a source. */
  refreshGuide(id: string, options: RefreshOptions = {}): Promise<GuideRefresh> {
    return this.refresher.refreshGuide(id, options);
  }

  /**
   * After the re-plan that follows guide refreshes: the programmes they replaced are deleted
   * (SourceRefresher.dropReplacedProgrammes).
   */
  dropReplacedProgrammes(): void {
    this.refresher.dropReplacedProgrammes();
  }
}
