/**
 * Probing and thumbnails, in the background: a queue that never holds back a scan's
 * walk or a watched change. Items are in the library as soon as they are named; this
 * fills in their duration, tags and chapters (ffprobe), then a thumbnail (one ffmpeg
 * still at a time: playback matters more).
 *
 * The work is found in the database, not handed over: a sweep pages through the
 * unprobed files of the roots it was woken for, in path order, so a 100,000-file first
 * scan never holds a list of them in memory. Files a watched change brought come first
 * (`wake` with paths). A wake during a sweep makes another sweep follow, so files added
 * behind the cursor are not missed; a file that failed for a passing reason (ffprobe
 * timed out) is tried again at the next wake, not in a loop.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, sep } from 'node:path';
import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { forEachConcurrently } from '../common/concurrency.js';
import { setProbeResults, setThumbnailUrl } from '../repositories/library/items.repository.js';
import {
  type ThumbnailWork,
  type UnprobedFile,
  countMediaWork,
  listFilesNeedingThumbnails,
  listUnprobedFiles,
  saveProbeRecord,
  saveThumbnail,
  unprobedAmong,
} from '../repositories/library/import-files.repository.js';
import { makeThumbnail } from '../media-tools/thumbnail-maker.js';
import { HeaderReaderPool, type ProbeReader, probeMedia } from '../media-tools/media-header.js';
import type { ProbeOutcome } from '../media-tools/media-probe.js';
import { type OpenedFile, PathBoundary } from '../common/path-boundary.js';

export interface MediaQueueOptions {
  logger: Logger;
  /**
   * What may be read: every file is opened and checked against it before a reader or program sees it. Default: the
   * roots woken for.
   */
  boundary?: PathBoundary | undefined;
  /** Probe new and changed files (default true). */
  probe?: boolean;
  ffprobePath?: string;
  /** Where thumbnails go (under the data directory); none are made without it. */
  thumbnailsDir?: string;
  /** Make thumbnails (default true): `antenna scan --no-thumbnails` leaves them to the server. */
  makeThumbnails?: boolean;
  ffmpegPath?: string;
  probeConcurrency?: number;
  /**
   * Read MP4, Matroska and AVI headers in a reading process (mp4box, ts-ebml, MediaInfo; default true); false: ffprobe
   * for every file.
   */
  inProcessProbe?: boolean;
  now?: () => number;
  /** Called after each file probed or thumbnail made (a progress line). */
  onWork?: () => void;
}

/** What the queue has done since it started, and what waits. */
export interface MediaWork {
  running: boolean;
  probed: number;
  thumbnails: number;
  /** Files waiting for a probe, as of the last page taken. */
  toProbe: number;
  /** Probed files waiting for a thumbnail, as of the last page taken (0 when none are made). */
  toThumbnail: number;
  /** Of `probed` and `thumbnails`: those of the work under way, or of the last (a progress bar's numerator). */
  probedThisRun: number;
  thumbnailsThisRun: number;
  /** Time spent probing, in milliseconds. */
  probeMs: number;
}

type Problem = (path: string, reason: string) => void;

/** Files probed per page of a sweep: many rounds of the probe concurrency (a page waits for its slowest file). */
const PROBE_PAGE = 128;
/**
 * Reads under way per MediaInfo process: two keep each one busy while an answer travels
 * back and the next request comes (ffprobe fallbacks then run as many at once).
 */
const READS_PER_PROCESS = 2;
const THUMBNAIL_PAGE = 8;

export class MediaQueue {
  private readonly roots = new Set<string>();
  private readonly urgent = new Set<string>();
  private dirty = false;
  private loop: Promise<void> | undefined;
  private abort = new AbortController();
  private mediaInfo: HeaderReaderPool | undefined;
  private readonly problemListeners = new Set<Problem>();
  private readonly counts: Omit<MediaWork, 'probedThisRun' | 'thumbnailsThisRun'> = {
    running: false,
    probed: 0,
    thumbnails: 0,
    toProbe: 0,
    toThumbnail: 0,
    probeMs: 0,
  };
  private runStart = { probed: 0, thumbnails: 0 };
  private readonly boundary: PathBoundary;

  constructor(
    private readonly db: Db,
    private readonly options: MediaQueueOptions,
  ) {
    this.boundary = options.boundary ?? new PathBoundary(() => [...this.roots]);
  }

  status(): MediaWork {
    const { probed, thumbnails } = this.counts;
    return {
      ...this.counts,
      running: this.loop !== undefined,
      probedThisRun: probed - this.runStart.probed,
      thumbnailsThisRun: thumbnails - this.runStart.thumbnails,
    };
  }

  /**
   * There is work under these roots (the ones present now: a root that is away is
   * forgotten until it is back, its files would only fail); `paths` first.
   */
  wake(roots: Iterable<string>, paths: Iterable<string> = [], away: Iterable<string> = []): void {
    if (this.options.probe === false) return;
    for (const root of roots) this.roots.add(root);
    for (const root of away) this.roots.delete(root);
    for (const path of paths) this.urgent.add(path);
    this.dirty = true;
    if (this.abort.signal.aborted) this.abort = new AbortController();
    if (!this.loop) this.runStart = { probed: this.counts.probed, thumbnails: this.counts.thumbnails };
    this.loop ??= this.run().finally(() => (this.loop = undefined));
  }

  /** Resolves when nothing waits (or the queue was stopped). */
  async idle(): Promise<void> {
    while (this.loop) await this.loop;
  }

  /** Reports each file the queue could not read, while subscribed. */
  onProblem(listener: Problem): () => void {
    this.problemListeners.add(listener);
    return () => this.problemListeners.delete(listener);
  }

  /** Stops at once: running ffprobe and ffmpeg processes are killed; the work stays in the database for later. */
  async stop(): Promise<void> {
    this.abort.abort();
    // A MediaInfo read stuck in a dead share would otherwise hold the stop until it times out.
    this.mediaInfo?.close();
    await this.loop;
  }

  private async run(): Promise<void> {
    const signal = this.abort.signal;
    // MediaInfo's processes live while there is work: an idle server keeps no extra memory.
    this.mediaInfo = this.options.inProcessProbe === false ? undefined : new HeaderReaderPool(this.concurrency());
    try {
      while (this.dirty && !signal.aborted) {
        this.dirty = false;
        await this.sweepProbes(signal);
        if (this.options.thumbnailsDir !== undefined && this.options.makeThumbnails !== false)
          await this.sweepThumbnails(this.options.thumbnailsDir, signal);
      }
    } catch (error) {
      // A database error must not leave the queue for dead: the next wake tries again.
      if (!signal.aborted)
        this.options.logger.error(
          { err: error },
          'probing or thumbnails failed; they are tried again at the next scan',
        );
    } finally {
      this.mediaInfo?.close();
      this.mediaInfo = undefined;
    }
  }

  private concurrency(): number {
    return this.options.probeConcurrency ?? availableParallelism();
  }

  private async sweepProbes(signal: AbortSignal): Promise<void> {
    let after = '';
    for (;;) {
      if (signal.aborted) return;
      const roots = [...this.roots];
      const urgent = this.takeUrgent();
      const page = urgent.length > 0 ? urgent : listUnprobedFiles(this.db, roots, after, PROBE_PAGE);
      if (page.length === 0) {
        // What is left is what failed for a passing reason (tried at the next wake): the progress says so, not the last
        // page's count.
        this.counts.toProbe = countMediaWork(this.db, roots).unprobed;
        return;
      }
      if (urgent.length === 0) after = (page.at(-1) as UnprobedFile).path;
      const work = countMediaWork(this.db, roots);
      this.counts.toProbe = work.unprobed;
      if (this.options.thumbnailsDir !== undefined && this.options.makeThumbnails !== false)
        this.counts.toThumbnail = work.withoutThumbnail + work.unprobed;
      const started = performance.now();
      await forEachConcurrently(page, this.concurrency() * (this.mediaInfo ? READS_PER_PROCESS : 1), async (file) => {
        const outcome = await this.withFile(file.path, (opened) =>
          probeMedia(
            opened,
            this.mediaInfo,
            { ffprobe: this.options.ffprobePath, ffmpeg: this.options.ffmpegPath },
            signal,
          ),
        );
        if (signal.aborted) return;
        this.saveProbe(file, outcome, 'reader' in outcome ? outcome.reader : null);
      });
      this.counts.probeMs += Math.round(performance.now() - started);
    }
  }

  private takeUrgent(): UnprobedFile[] {
    if (this.urgent.size === 0) return [];
    const paths = [...this.urgent];
    this.urgent.clear();
    return unprobedAmong(this.db, paths);
  }

  private async sweepThumbnails(dir: string, signal: AbortSignal): Promise<void> {
    let after = '';
    mkdirSync(dir, { recursive: true });
    for (;;) {
      // Probing comes first: a wake meanwhile (a new file) is probed before more thumbnails.
      if (signal.aborted || this.dirty) return;
      const page: ThumbnailWork[] = listFilesNeedingThumbnails(this.db, [...this.roots], after, THUMBNAIL_PAGE);
      this.counts.toThumbnail = page.length === 0 ? 0 : countMediaWork(this.db, [...this.roots]).withoutThumbnail;
      if (page.length === 0) return;
      after = (page.at(-1) as ThumbnailWork).path;
      for (const file of page) {
        if (signal.aborted) return;
        await this.makeThumbnail(dir, file, signal);
      }
    }
  }

  private async makeThumbnail(dir: string, file: ThumbnailWork, signal: AbortSignal): Promise<void> {
    const target = join(dir, `${file.item_id}.jpg`);
    const result = await this.withFile(file.path, (opened) =>
      makeThumbnail(opened, target, file.duration, this.options.ffmpegPath, signal),
    );
    if (signal.aborted) return;
    if (result.ok) {
      // The file may have been removed meanwhile: then the thumbnail goes too.
      saveThumbnail(this.db, file.path, target, null);
      if (
        !setThumbnailUrl(this.db, file.item_id, `/thumbnails/${encodeURIComponent(file.item_id)}`) &&
        target.startsWith(dir + sep)
      )
        rmSync(target, { force: true });
      else this.counts.thumbnails++;
      this.counts.toThumbnail = Math.max(0, this.counts.toThumbnail - 1);
      this.options.onWork?.();
    } else {
      if (!result.transient) saveThumbnail(this.db, file.path, null, result.reason);
      this.problem(file.path, result.reason);
    }
  }

  /**
   * Runs `use` on the file opened and checked against the boundary now (it may have
   * been swapped for a link leading out since the walk), closing it after; a file that
   * may not be read is a failure of its own, never handed to a reader or program.
   */
  private async withFile<T>(
    path: string,
    use: (file: OpenedFile) => Promise<T>,
  ): Promise<T | { ok: false; reason: string; transient: boolean }> {
    const opening = await this.boundary.open(path);
    if (!opening.ok) {
      const why = {
        missing: 'it is gone (the next scan removes it)',
        outside:
          'it now leads outside the import roots and recordings folder (a link swapped in); Antenna does not read it',
        not_a_file: 'it is not a regular file',
        unreadable: `it cannot be read (${opening.error?.code ?? 'error'}): check its permissions`,
      };
      return {
        ok: false,
        reason: `not read: ${why[opening.reason]}`,
        transient: opening.reason === 'missing' || opening.error?.code === 'ECHANGED',
      };
    }
    try {
      return await use(opening.file);
    } finally {
      await opening.file.handle.close().catch(() => undefined);
    }
  }

  private saveProbe(file: UnprobedFile, outcome: ProbeOutcome, reader: ProbeReader | null): void {
    const now = this.options.now?.() ?? Date.now();
    if (!outcome.ok && outcome.transient) {
      // Left unprobed: the next wake tries again.
      this.problem(file.path, outcome.reason);
      return;
    }
    this.db
      .transaction(() => {
        if (outcome.ok) {
          const damaged = outcome.result.damaged ?? null;
          setProbeResults(this.db, file.item_id, {
            duration: outcome.result.duration,
            tags: outcome.result.tags,
            corrupted: damaged !== null,
            updatedAt: now,
          });
          saveProbeRecord(this.db, file.path, {
            probedAt: now,
            chapters: outcome.result.chapters,
            details: outcome.result.details ?? null,
            problem: null,
            reader,
            damaged,
          });
          if (damaged !== null) this.problem(file.path, damaged);
        } else {
          setProbeResults(this.db, file.item_id, { duration: null, tags: null, corrupted: true, updatedAt: now });
          saveProbeRecord(this.db, file.path, {
            probedAt: now,
            chapters: null,
            details: null,
            problem: outcome.reason,
            reader,
          });
          this.problem(file.path, outcome.reason);
        }
      })
      .immediate();
    this.counts.probed++;
    this.options.onWork?.();
  }

  private problem(path: string, reason: string): void {
    this.options.logger.warn(
      { path, reason },
      'import problem: fix what the reason names (permissions, a broken link, a damaged file); the next scan tries again',
    );
    for (const listener of this.problemListeners) listener(path, reason);
  }
}
