/**
 * When `antenna server` scans: once at start-up (in the background, so interface A
 * answers at once), shortly after the watcher sees a change under a root, and every
 * `rescanIntervalMs` to catch what watching misses (network shares, changes made
 * while the server was down). Scans never overlap: a request during a scan runs
 * after it, merged with any other waiting requests.
 */
import { type FSWatcher, watch } from 'chokidar';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Logger } from 'pino';
import type { ImportRoot } from '../model/import-root.js';
import { type ImportService, ScanCancelledError, type ScanProgress, type ScanSummary } from './import.service.js';

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
}

export interface ScanStatus extends ScanProgress {
  running: boolean;
  last?: { finishedAt: number; summary: ScanSummary };
}

const DEFAULT_DEBOUNCE_MS = 300;
const DEFAULT_WRITE_FINISH_MS = 1000;
/** A path with a hidden file or folder in it. */
const HIDDEN = /(^|[/\\])\.[^/\\]/;

export class ScanScheduler {
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly waiting = new Set<ImportRoot>();
  private last: ScanStatus['last'];
  private stopped = false;

  constructor(
    private readonly importer: ImportService,
    private readonly roots: readonly ImportRoot[],
    private readonly options: ScanSchedulerOptions,
  ) {}

  start(): void {
    // stop() may come first (a shutdown while the sample library was being made).
    if (this.stopped || this.roots.length === 0) return;
    this.request(this.roots);
    if (this.options.watch !== false) this.startWatching();
    if (this.options.rescanIntervalMs > 0) {
      this.timer = setInterval(() => this.request(this.roots), this.options.rescanIntervalMs);
      this.timer.unref();
    }
  }

  status(): ScanStatus {
    return { ...this.importer.progress(), running: this.running !== undefined, ...(this.last ? { last: this.last } : {}) };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.debounce);
    this.debounce = undefined;
    this.waiting.clear();
    this.importer.cancel();
    await this.watcher?.close();
    await this.running;
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
        try {
          const summary = await this.importer.scan(roots);
          this.last = { finishedAt: Date.now(), summary };
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

  private startWatching(): void {
    const paths = this.roots.map((root) => root.path);
    this.watcher = watch(paths, {
      ignoreInitial: true,
      // Hidden files and folders are never imported, so their churn (.part files, editors) is not a change.
      ignored: (path) => HIDDEN.test(path),
      awaitWriteFinish: { stabilityThreshold: this.options.writeFinishMs ?? DEFAULT_WRITE_FINISH_MS, pollInterval: 100 },
    });
    this.watcher.on('all', (_event, path) => this.changed(path));
    // A file removed while chokidar still waits for its write to finish gets neither 'add' nor
    // 'unlink' (chokidar drops it on ENOENT): the raw event of a path that is gone says it.
    this.watcher.on('raw', (event, name, details) => {
      if (event !== 'rename') return;
      const watched = (details as { watchedPath?: string }).watchedPath ?? '';
      const path = basename(watched) === name ? watched : join(watched, name);
      if (!HIDDEN.test(path) && !existsSync(path)) this.changed(path);
    });
    this.watcher.on('error', (error) => this.options.logger.warn({ err: error }, 'watching the import roots failed; periodic rescans still run'));
  }

  private changed(path: string): void {
    const roots = this.roots.filter((root) => path === root.path || path.startsWith(`${root.path}/`));
    for (const root of roots) this.waiting.add(root);
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.request([]);
    }, this.options.debounceMs ?? DEFAULT_DEBOUNCE_MS);
  }
}
