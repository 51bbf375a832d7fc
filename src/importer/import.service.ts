/**
 * Scans import roots into the library, and keeps it current as files change:
 * - `reconcile(roots)`: a whole walk of the roots (folder-walk.ts, in a process of its
 *   own), each batch imported as it comes (import-run.ts): items appear as they are
 *   named;
 * - `applyChanges(changes)`: what a watched change touched (change-jobs.ts), at once,
 *   even while a long reconcile runs;
 * - probing and thumbnails: the background queue (media-queue.ts), woken by both,
 *   never holding either back;
 * - `scan(roots)`: a reconcile and then the queue's work for it (`antenna scan`, tests).
 *
 * Never writes inside a root: every filesystem call here reads.
 */
import type { Db } from '../db/database.js';
import type { ImportRoot } from '../model/import-root.js';
import { SerialQueue } from '../common/concurrency.js';
import { PathBoundary } from '../common/path-boundary.js';
import { rmSync } from 'node:fs';
import { sep } from 'node:path';
import { deleteItem } from '../repositories/library/items.repository.js';
import {
  type ImportFileState,
  deleteEmptyImportedParents,
  getImportFile,
  listImportFileStates,
  listImportFileStatesUnder,
  listImportsUnder,
} from '../repositories/library/import-files.repository.js';
import { type ChangedPath, changeJobs } from './change-jobs.js';
import { type WalkJob, type WalkProblem, walkFolders } from './folder-walk.js';
import { ImportRun } from './import-run.js';
import { MediaQueue, type MediaQueueOptions } from './media-queue.js';
import { type ScanProgress, type ScanSummary, emptySummary } from './scan-summary.js';
import { RateMeter, secondsLeft } from './progress-rate.js';

export type { ScanProgress, ScanSummary } from './scan-summary.js';
export type { ChangedPath } from './change-jobs.js';

/** The media queue's settings (probing, thumbnails) and the importer's own. */
export interface ImportServiceOptions extends Omit<MediaQueueOptions, 'onWork'> {
  onProgress?: (progress: ScanProgress) => void;
  /**
   * Where symbolic links may lead (the import roots and the recordings folder, or
   * anywhere with --follow-external-links); default: the roots being scanned.
   */
  boundary?: PathBoundary;
}

/**
 * Held new files (a rescan's, which may be moved ones) written per transaction. Between
 * batches the importer yields to the event loop, so a server scanning a large library
 * keeps answering; small batches also keep each batch's garbage young, which holds a
 * 100,000-file first scan's memory down. The walk's own files come in messages of at
 * most 256 (folder-walk.child.js), each written as it comes.
 */
const WRITE_BATCH = 500;

export class ImportService {
  readonly media: MediaQueue;
  private walk: { phase: 'idle' | 'walking' | 'importing' | 'done'; filesSeen: number } = {
    phase: 'idle',
    filesSeen: 0,
  };
  private readonly rates = { walked: new RateMeter(), probed: new RateMeter(), thumbnails: new RateMeter() };
  private abort = new AbortController();
  /** The whole-root run under way: a watched change tells it what it wrote, so the run does not undo it. */
  private fullRun: ImportRun | undefined;
  private readonly changes = new SerialQueue();

  constructor(
    private readonly db: Db,
    private readonly options: ImportServiceOptions,
  ) {
    this.media = new MediaQueue(db, { ...options, onWork: () => this.options.onProgress?.(this.progress()) });
  }

  progress(): ScanProgress {
    const media = this.media.status();
    const walking = this.walk.phase === 'walking' || this.walk.phase === 'importing';
    const phase = walking
      ? this.walk.phase
      : media.running
        ? media.toProbe > 0
          ? 'probing'
          : 'thumbnails'
        : this.walk.phase;
    const now = performance.now();
    this.rates.walked.sample(this.walk.filesSeen, now);
    this.rates.probed.sample(media.probed, now);
    this.rates.thumbnails.sample(media.thumbnails, now);
    const probeRate = this.rates.probed.perSecond();
    const thumbnailRate = this.rates.thumbnails.perSecond();
    const perSecond = walking
      ? this.rates.walked.perSecond()
      : phase === 'probing'
        ? probeRate
        : phase === 'thumbnails'
          ? thumbnailRate
          : undefined;
    const progress: ScanProgress = {
      phase,
      filesSeen: this.walk.filesSeen,
      probed: media.probedThisRun,
      thumbnails: media.thumbnailsThisRun,
      toProbe: media.toProbe,
      toThumbnail: media.toThumbnail,
    };
    if (perSecond !== undefined) progress.perSecond = Math.round(perSecond * 10) / 10;
    // The phase's own time left: thumbnails come after probing, and their rate is not known before the first is made.
    const left =
      phase === 'probing'
        ? secondsLeft(media.toProbe, probeRate)
        : phase === 'thumbnails'
          ? secondsLeft(media.toThumbnail, thumbnailRate)
          : undefined;
    if (left !== undefined) progress.secondsLeft = left;
    return progress;
  }

  /**
   * Stops a running scan at its next step and kills its walk, ffprobe and ffmpeg; the scan then rejects with
   * ScanCancelledError.
   */
  cancel(): void {
    this.abort.abort();
    void this.media.stop();
  }

  private checkCancelled(): void {
    if (this.abort.signal.aborted) throw new ScanCancelledError();
  }

  /** A reconcile, then the probing and thumbnails it brought (what `antenna scan` waits for). */
  async scan(roots: readonly ImportRoot[]): Promise<ScanSummary> {
    const started = performance.now();
    const before = this.media.status();
    const summary = await this.reconcile(roots);
    const stopListening = this.media.onProblem((path, reason) => summary.failed.push({ path, reason }));
    try {
      await this.media.idle();
    } finally {
      stopListening();
    }
    this.checkCancelled();
    const after = this.media.status();
    summary.probed = after.probed - before.probed;
    summary.probeMs = after.probeMs - before.probeMs;
    summary.thumbnails = after.thumbnails - before.thumbnails;
    summary.durationMs = Math.round(performance.now() - started);
    this.report({ ...this.walk, phase: 'done' });
    return summary;
  }

  /** Walks the roots whole and brings the library in line with them; probing follows in the background. */
  async reconcile(roots: readonly ImportRoot[]): Promise<ScanSummary> {
    if (this.abort.signal.aborted) this.abort = new AbortController();
    const started = performance.now();
    const summary = emptySummary();
    this.report({ phase: 'walking', filesSeen: 0 });
    const run = this.newRun(summary, listImportFileStates(this.db), false);
    this.fullRun = run;
    try {
      const jobs = roots.map((root) => ({ root: root.path, start: root.path, recursive: true }));
      const available = await this.walkInto(run, roots, jobs, { holdNew: run.known.size > 0, wholeRoots: true });
      await run.settle(available, WRITE_BATCH);
      this.media.wake(
        available,
        [],
        roots.map((root) => root.path).filter((root) => !available.has(root)),
      );
    } finally {
      this.fullRun = undefined;
    }
    summary.durationMs = Math.round(performance.now() - started);
    this.report({ ...this.walk, phase: 'done' });
    this.options.logger.info(
      {
        added: summary.added,
        updated: summary.updated,
        moved: summary.moved,
        removed: summary.removed,
        failed: summary.failed.length,
        ms: summary.durationMs,
      },
      'scan finished',
    );
    return summary;
  }

  /**
   * Imports what watched changes touched, now: a run of its own beside any reconcile
   * under way (one change run at a time). Nothing is removed under a root that is not
   * there or is empty where it held media (an unmounted share).
   */
  applyChanges(changes: readonly ChangedPath[]): Promise<ScanSummary> {
    return this.changes.run(async () => {
      if (this.abort.signal.aborted) this.abort = new AbortController();
      const started = performance.now();
      const summary = emptySummary();
      // A path that is gone and was a recorded file is a file: its folder is walked, not a tree below it.
      const jobs = changeJobs(
        changes.map((change) =>
          change.folder === undefined && getImportFile(this.db, change.path) ? { ...change, folder: false } : change,
        ),
      );
      const known = new Map<string, ImportFileState>();
      for (const job of jobs)
        for (const [path, state] of listImportFileStatesUnder(this.db, job.start, job.recursive))
          known.set(path, state);
      const run = this.newRun(summary, known, true);
      const roots = [...new Map(changes.map((change) => [change.root.path, change.root])).values()];
      const available = await this.walkInto(run, roots, jobs, { holdNew: true, wholeRoots: false });
      await run.settle(available, WRITE_BATCH);
      this.tellFullRun(run);
      this.media.wake(available, run.written.keys());
      summary.durationMs = Math.round(performance.now() - started);
      const { added, updated, moved, removed } = summary;
      if (added + updated + moved + removed > 0)
        this.options.logger.info(
          { changes: changes.length, folders: jobs.length, added, updated, moved, removed, ms: summary.durationMs },
          'imported a watched change',
        );
      return summary;
    });
  }

  private newRun(summary: ScanSummary, known: Map<string, ImportFileState>, trackWrites: boolean): ImportRun {
    return new ImportRun(this.db, {
      summary,
      known,
      now: this.options.now?.() ?? Date.now(),
      thumbnailsDir: this.options.thumbnailsDir,
      fail: (path, reason) => this.fail(summary, path, reason),
      checkCancelled: () => this.checkCancelled(),
      trackWrites,
    });
  }

  /**
   * What a change run wrote and removed, told to the whole-root run under way, so it neither adds it twice nor removes
   * it.
   */
  private tellFullRun(changeRun: ImportRun): void {
    const full = this.fullRun;
    if (!full) return;
    for (const [path, state] of changeRun.written) {
      full.known.set(path, state);
      full.seen.add(path);
      full.removedElsewhere.delete(path);
    }
    for (const path of changeRun.removed) {
      full.known.delete(path);
      // The walk may have listed it before it went, and write it after the change run removed it.
      full.removedElsewhere.add(path);
    }
  }

  /**
   * Walks the jobs and imports their files as they come, in batches. Returns the roots
   * that are there: a root missing, unreadable or looking unmounted (empty where it held
   * media) is skipped, and nothing under it may be removed.
   */
  private async walkInto(
    run: ImportRun,
    roots: readonly ImportRoot[],
    jobs: readonly WalkJob[],
    mode: { holdNew: boolean; wholeRoots: boolean },
  ): Promise<Set<string>> {
    const rootOf = new Map(roots.map((root) => [root.path, root]));
    const available = new Set(roots.map((root) => root.path));
    const skip = (root: string, reason: string) => {
      if (!available.delete(root)) return;
      run.summary.skippedRoots.push({ path: root, reason });
      this.options.logger.warn(
        { root, reason },
        'import root skipped; nothing under it is removed: check that it is mounted and readable (the reason says why)',
      );
    };
    const problems: WalkProblem[] = [];
    const found = new Map<string, number>();
    // A message of the walk never spans two jobs: its files are the last started job's.
    let root: ImportRoot | undefined;
    for await (const event of walkFolders(jobs, this.boundary(roots), problems, run.sidecars, this.abort.signal)) {
      if (event.type === 'start') {
        const job = jobs[event.job] as WalkJob;
        root = rootOf.get(job.root);
        const rootJob = job.start === job.root;
        if (rootJob && event.status !== 'ok')
          skip(job.root, event.status === 'not-a-folder' ? 'not a folder' : 'missing or unreadable');
        else if (rootJob && event.empty && this.heldMedia(run, job.root))
          skip(job.root, 'holds no media files now but did before: unmounted? nothing removed');
        else if (event.status === 'unreadable') run.unreadable.push(job.start);
        continue;
      }
      if (!root) continue;
      found.set(root.path, (found.get(root.path) ?? 0) + event.files.length);
      // Each message is a batch (at most a few hundred files, or what a slow disk gave in a quarter second): items
      // appear as they are named.
      await run.take(root, event.files, mode.holdNew);
      this.report({ phase: 'importing', filesSeen: run.seen.size });
      if (mode.wholeRoots) this.media.wake([root.path]);
      this.checkCancelled();
    }
    this.checkCancelled();
    for (const problem of problems) {
      this.fail(run.summary, problem.path, problem.reason);
      if (problem.unreadable) run.unreadable.push(problem.path);
    }
    if (mode.wholeRoots)
      for (const root of available)
        if (!found.get(root) && this.heldMedia(run, root))
          skip(root, 'holds no media files now but did before: unmounted? nothing removed');
    return available;
  }

  private heldMedia(run: ImportRun, root: string): boolean {
    for (const state of run.known.values()) if (state.root === root) return true;
    return false;
  }

  private boundary(roots: readonly ImportRoot[]): PathBoundary {
    return this.options.boundary ?? new PathBoundary(() => roots.map((root) => root.path));
  }

  private report(walk: ImportService['walk']): void {
    this.walk = walk;
    this.options.onProgress?.(this.progress());
  }

  private fail(summary: ScanSummary, path: string, reason: string): void {
    summary.failed.push({ path, reason });
    this.options.logger.warn(
      { path, reason },
      'import problem: fix what the reason names (permissions, a broken link, a damaged file); the next scan tries again',
    );
  }

  /** Removes everything imported from roots inside `dir` (the sample media, once real roots are configured). */
  forgetImportsUnder(dir: string): number {
    let removed = 0;
    this.db
      .transaction(() => {
        for (const { item_id, thumbnail } of listImportsUnder(this.db, dir)) {
          if (deleteItem(this.db, item_id)) removed++;
          const own = this.options.thumbnailsDir;
          if (thumbnail && own !== undefined && thumbnail.startsWith(own + sep)) rmSync(thumbnail, { force: true });
        }
        deleteEmptyImportedParents(this.db);
      })
      .immediate();
    return removed;
  }
}

export class ScanCancelledError extends Error {
  override readonly name = 'ScanCancelledError';
  constructor() {
    super('scan cancelled');
  }
}
