/**
 * When `antenna server` scans: a whole walk of the roots once at start-up (in the
 * background, so interface A answers at once) and every `rescanIntervalMs` to catch
 * what watching misses (network shares, changes made while the server was down); whole
 * walks never overlap, a request during one runs after it, merged with any other
 * waiting. A change the watcher sees is imported on its own shortly after (the
 * folders it touched, ImportService.applyChanges), even while a whole walk runs: a
 * file copied in during a first scan of 100,000 files shows within seconds.
 */
import type { EventSink, NewEvent } from '../model/events/event.schemas.js';
import type { Logger } from 'pino';
import type { ImportRoot } from '../model/import-root.js';
import { FolderWatch } from './folder-watch.js';
import {
  type ChangedPath,
  type ImportService,
  ScanCancelledError,
  type ScanProgress,
  type ScanSummary,
} from './import.service.js';

/**
 * A scan's outcome as library.scanned (pure); undefined for a rescan that found nothing new: no change, and no file it
 * could not import that the last scan had not met already (`known`, its paths), so one bad file is told once.
 */
export function scannedEvent(
  roots: readonly ImportRoot[],
  summary: ScanSummary,
  known: ReadonlySet<string> = new Set(),
): NewEvent | undefined {
  const { added, updated, moved, removed } = summary;
  const failed = summary.failed.filter((problem) => !known.has(problem.path)).length;
  if (added + updated + moved + removed + failed === 0) return undefined;
  const parts = [`${added} added`, `${updated + moved} updated`, `${removed} removed`];
  if (failed > 0) parts.push(`${failed} more could not be imported (see Settings)`);
  return {
    kind: 'library.scanned',
    severity: failed > 0 ? 'warning' : 'info',
    message: `The library scan finished: ${parts.join(', ')}.`,
    data: { path: roots.map((root) => root.path).join(', '), added, updated: updated + moved, removed },
  };
}

export interface ScanSchedulerOptions {
  logger: Logger;
  /** Watch the roots for changes (default true). */
  watch?: boolean;
  /** Full rescan period; 0 turns it off. */
  rescanIntervalMs: number;
  /** How long the watcher waits after the last change before scanning. */
  debounceMs?: number;
  /** How long a growing file must keep its size before it counts as copied. */
  writeFinishMs?: number;
  /** Where a scan that changed something (or found problems) is told as library.scanned. */
  emit?: EventSink;
}

export interface ScanStatus extends ScanProgress {
  running: boolean;
  last?: { finishedAt: number; summary: ScanSummary };
}

const DEFAULT_DEBOUNCE_MS = 300;
const DEFAULT_WRITE_FINISH_MS = 1000;
const MEDIA_PROBLEMS_KEPT = 1000;
const WATCH_READY_WAIT_MS = 10_000;
const MAX_GATHER_MS = 2_000;
/**
 * How much longer than writeFinishMs a move's second half may take to come: the file at
 * its new place is reported once the watcher (a child process) has seen its size hold
 * still for writeFinishMs, polling every 100 ms; on a busy machine that came more than
 * the debounce after the window closed, and the move was imported as a removal and a
 * new item (its watch state lost). A deletion alone shows this much later.
 */
const MOVE_GRACE_MS = 2_000;

/** What the gathered changes are, for when to import them (see gatherDelayMs). */
export interface Gathered {
  now: number;
  firstChangeAt: number;
  /** The first removal among them (a move's first half), if any. */
  firstRemovalAt: number | undefined;
  /**
   * Whether a file came (or changed) after that removal, late enough to be its move's second half (see
   * mayBeSecondHalf).
   */
  addedSinceRemoval: boolean;
  debounceMs: number;
  writeFinishMs: number;
}

/**
 * Whether a file event at `now` may be the second half of a move whose first half came at
 * `firstRemovalAt`: not before writeFinishMs, as the watcher reports a file only once its
 * size has held still that long (an earlier one is another file, a download finishing).
 */
export function mayBeSecondHalf(now: number, firstRemovalAt: number | undefined, writeFinishMs: number): boolean {
  return firstRemovalAt !== undefined && now - firstRemovalAt >= writeFinishMs;
}

/**
 * How long gathered changes wait before they are imported: the debounce after the last
 * (at most MAX_GATHER_MS after the first). After a removal: never before its move's other
 * half can have come (writeFinishMs and the debounce); then until it has had time to come
 * (MOVE_GRACE_MS more), or, once a file has come that may be it, the debounce after that
 * (for the halves of other files moved with it), within the same bound.
 */
export function gatherDelayMs(g: Gathered): number {
  const debounce = Math.min(g.debounceMs, Math.max(0, g.firstChangeAt + MAX_GATHER_MS - g.now));
  if (g.firstRemovalAt === undefined) return debounce;
  const earliest = g.firstRemovalAt + g.writeFinishMs + g.debounceMs;
  const windowEnd = earliest + MOVE_GRACE_MS;
  const until = g.addedSinceRemoval ? Math.min(g.now + g.debounceMs, windowEnd) : windowEnd;
  return Math.max(debounce, Math.max(earliest, until) - g.now);
}

/**
 * What a path is, from two events about it in one window: what either says when the
 * other does not know (a path that is gone), not known when they disagree (a file
 * replaced by a folder).
 */
export function mergedKind(earlier: boolean | undefined, now: boolean | undefined): boolean | undefined {
  if (earlier === undefined) return now;
  if (now === undefined) return earlier;
  return earlier === now ? now : undefined;
}

export class ScanScheduler {
  private watcher: FolderWatch | undefined;
  private timer: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly waiting = new Set<ImportRoot>();
  /** Watched changes not imported yet, by path. */
  private readonly changes = new Map<string, ChangedPath>();
  private applying: Promise<void> | undefined;
  /** When the first removal among the gathered changes came (a move's first half). */
  private firstRemovalAt: number | undefined;
  /** When the first of the gathered changes came. */
  private firstChangeAt: number | undefined;
  /** A file came or changed after firstRemovalAt (see gatherDelayMs). */
  private addedSinceRemoval = false;
  /** What probing and thumbnails could not read since the last whole walk began (the last ones, bounded). */
  private mediaProblems: { path: string; reason: string }[] = [];
  private readonly stopListening: () => void;
  private last: ScanStatus['last'];
  /** The files the last scan could not import: told then, not again at each rescan. */
  private toldProblems: ReadonlySet<string> = new Set();
  private stopped = false;

  constructor(
    private readonly importer: ImportService,
    private readonly roots: readonly ImportRoot[],
    private readonly options: ScanSchedulerOptions,
  ) {
    this.stopListening = importer.media.onProblem((path, reason) => {
      this.mediaProblems.push({ path, reason });
      if (this.mediaProblems.length > MEDIA_PROBLEMS_KEPT) this.mediaProblems.shift();
    });
  }

  start(): void {
    // stop() may come first (a shutdown while the sample library was being made).
    if (this.stopped || this.roots.length === 0) return;
    if (this.options.watch !== false) this.firstScanOnceWatching();
    else this.request(this.roots);
    if (this.options.rescanIntervalMs > 0) {
      this.timer = setInterval(() => this.request(this.roots), this.options.rescanIntervalMs);
      this.timer.unref();
    }
  }

  status(): ScanStatus {
    // Running until the last file is probed and has its thumbnail: the library is complete then.
    const running = this.running !== undefined || this.applying !== undefined || this.importer.media.status().running;
    const last = this.last && {
      ...this.last,
      summary: { ...this.last.summary, failed: [...this.last.summary.failed, ...this.mediaProblems] },
    };
    return { ...this.importer.progress(), running, ...(last ? { last } : {}) };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.debounce);
    this.debounce = undefined;
    this.waiting.clear();
    this.changes.clear();
    this.stopListening();
    this.importer.cancel();
    await this.watcher?.close();
    await Promise.all([this.running, this.applying, this.importer.media.idle()]);
  }

  /** Queues a scan of these roots; it starts when the current one (if any) ends. */
  request(roots: readonly ImportRoot[]): void {
    if (this.stopped) return;
    for (const root of roots) this.waiting.add(root);
    // With nothing waiting, drain() would finish before returning, and the promise stored
    // after it would mark a scan as running for ever: no scan would start again.
    if (!this.running && this.waiting.size > 0) this.running = this.drain();
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.size > 0 && !this.stopped) {
        const roots = [...this.waiting];
        this.waiting.clear();
        this.mediaProblems = [];
        try {
          const summary = await this.importer.reconcile(roots);
          this.last = { finishedAt: Date.now(), summary };
          const told = scannedEvent(roots, summary, this.toldProblems);
          this.toldProblems = new Set(summary.failed.map((problem) => problem.path));
          if (told) this.options.emit?.(told);
        } catch (error) {
          if (error instanceof ScanCancelledError) return;
          // A failing scan must not take the server down; the next request tries again.
          this.options.logger.error({ err: error }, 'scan failed');
        }
      }
    } finally {
      this.running = undefined;
    }
  }

  /**
   * The first walk starts once the watcher watches every folder: a change made during
   * the walk is then either walked or seen. A watcher slow to get ready (a huge or slow
   * tree) does not hold the walk back longer than WATCH_READY_WAIT_MS; a change made in
   * that gap is caught by one more walk once it is ready.
   */
  private firstScanOnceWatching(): void {
    const watcher = this.startWatching();
    let waited = false;
    const timer = setTimeout(() => {
      waited = true;
      this.request(this.roots);
    }, WATCH_READY_WAIT_MS);
    void watcher.ready.then(() => {
      clearTimeout(timer);
      this.request(this.roots);
      if (waited)
        this.options.logger.info(
          'watching the import roots took long to start; walking them once more to catch changes made meanwhile',
        );
    });
  }

  private startWatching(): FolderWatch {
    return (this.watcher = new FolderWatch(
      this.roots.map((root) => root.path),
      {
        logger: this.options.logger,
        writeFinishMs: this.options.writeFinishMs ?? DEFAULT_WRITE_FINISH_MS,
        onChange: ({ path, folder, removed }) => this.changed(path, folder, removed),
      },
    ));
  }

  /**
   * Gathers a change; the gathered ones are imported DEBOUNCE_MS after the last. A
   * removal waits longer: the other half of a move (the file at its new place) is
   * reported only once its size holds still (writeFinishMs), and both halves must be
   * imported together for the item to be kept, with its watch state.
   */
  private changed(path: string, folder: boolean | undefined, removed = false): void {
    if (this.stopped) return;
    for (const root of this.roots) {
      if (path !== root.path && !path.startsWith(`${root.path}/`)) continue;
      this.changes.set(path, { root, path, folder: mergedKind(this.changes.get(path)?.folder, folder) });
    }
    const now = Date.now();
    if (removed) this.firstRemovalAt ??= now;
    else if (
      folder !== true &&
      mayBeSecondHalf(now, this.firstRemovalAt, this.options.writeFinishMs ?? DEFAULT_WRITE_FINISH_MS)
    )
      this.addedSinceRemoval = true;
    this.firstChangeAt ??= now;
    const delay = gatherDelayMs({
      now,
      firstChangeAt: this.firstChangeAt,
      firstRemovalAt: this.firstRemovalAt,
      addedSinceRemoval: this.addedSinceRemoval,
      debounceMs: this.options.debounceMs ?? DEFAULT_DEBOUNCE_MS,
      writeFinishMs: this.options.writeFinishMs ?? DEFAULT_WRITE_FINISH_MS,
    });
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.applyChanges();
    }, delay);
  }

  /** Imports the waiting changes, one batch of them at a time; a whole walk under way does not hold them back. */
  private applyChanges(): void {
    if (this.applying || this.changes.size === 0 || this.stopped) return;
    const changes = [...this.changes.values()];
    this.changes.clear();
    this.firstRemovalAt = undefined;
    this.firstChangeAt = undefined;
    this.addedSinceRemoval = false;
    this.applying = this.importer
      .applyChanges(changes)
      .then(() => undefined)
      .catch((error: unknown) => {
        if (error instanceof ScanCancelledError) return;
        // A change that could not be imported is caught by the next whole walk.
        this.options.logger.error({ err: error }, 'importing a watched change failed; the next rescan tries again');
        this.request(this.roots.filter((root) => changes.some((change) => change.root === root)));
      })
      .finally(() => {
        this.applying = undefined;
        // Changes gathered meanwhile wait for their own timer (a move's other half may still come).
        if (this.debounce === undefined) this.applyChanges();
      });
  }
}
