/**
 * Automatic backups while the server runs: into DATA/backups, one when the newest is a
 * day old (so at start after a day or more down, then daily), the `keep` newest kept.
 * Started and stopped by app/server.lifecycle.ts; stop() ends a backup under way
 * between two steps and waits for it, so SIGTERM is not held up by a large copy.
 *
 * The copy is made through the server's own connection in small steps: the event loop
 * runs between them, and SQLite carries the server's own writes into the copy as it
 * goes (database-backup.ts). Whether one is due is read from the folder at each check
 * (hourly), not remembered, so a clock change, a suspended machine or an `antenna
 * backup` by hand are all taken into account. A failed backup is a warning that says
 * what to do; the server keeps running and tries again at the next check.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { freshBackupName, untilDue } from './backup-names.js';
import {
  BackupDeferred,
  type CopyResult,
  backupFailureAdvice,
  copyDatabase,
  ensureBackupsDir,
  listBackupsDir,
  pruneBackups,
  removeStalePartials,
} from './database-backup.js';
import type { Db } from './database.js';

export const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** A backup deferred while a guide refresh writes is tried again this soon (a refresh is a minute or so). */
const DEFERRED_RETRY_MS = 60_000;

export interface BackupSchedulerOptions {
  /** DATA/backups. */
  dir: string;
  /** How many automatic backups to keep; 0 turns them off (and removes none). */
  keep: number;
  logger: Pick<Logger, 'info' | 'warn' | 'debug'>;
  /** Age of the newest backup at which the next is due (default a day). */
  intervalMs?: number;
  /** How often the folder is looked at, and when a failed backup is tried again (default an hour). */
  checkEveryMs?: number;
  /** Pages copied between two turns of the event loop (default 100: 400 KB, about 1 ms). */
  pagesPerStep?: number;
  /**
   * Whether another connection of this process writes in bulk now (a guide refresh's thread): a backup waits for it
   * (CopyOptions.othersWriting).
   */
  othersWriting?: () => boolean;
  now?: () => number;
}

export class BackupScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private stopped = false;
  private readonly intervalMs: number;
  private readonly checkEveryMs: number;
  private readonly now: () => number;

  constructor(
    private readonly db: Db,
    private readonly options: BackupSchedulerOptions,
  ) {
    this.intervalMs = options.intervalMs ?? DAY_MS;
    this.checkEveryMs = options.checkEveryMs ?? HOUR_MS;
    this.now = options.now ?? Date.now;
  }

  start(): void {
    if (this.options.keep === 0) {
      this.options.logger.info('automatic backups are off (--backup-keep 0); antenna backup still makes one by hand');
      return;
    }
    this.schedule(0);
  }

  /** Ends a backup under way (its partial file is removed) and stops the checks. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort.abort(new Error('the server is stopping'));
    await this.running;
  }

  /** Makes a backup now, then removes those beyond `keep`; throws what went wrong. */
  async backupNow(): Promise<CopyResult & { removed: string[] }> {
    const { dir, keep } = this.options;
    ensureBackupsDir(dir);
    removeStalePartials(dir, this.now());
    const target = join(dir, freshBackupName(listBackupsDir(dir), this.now()));
    const others = this.options.othersWriting;
    const copy = await copyDatabase(this.db, target, {
      pagesPerStep: this.options.pagesPerStep ?? 100,
      signal: this.abort.signal,
      ...(others ? { othersWriting: others } : {}),
    });
    const removed = pruneBackups(dir, keep);
    this.options.logger.info({ file: copy.file, bytes: copy.bytes, ms: copy.ms, removed }, 'database backup written');
    return { ...copy, removed };
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.check().finally(() => (this.running = undefined));
    }, delay);
    // stop() ends it; a test that forgets to must not be kept alive by it.
    this.timer.unref();
  }

  private async check(): Promise<void> {
    let next = this.checkEveryMs;
    try {
      if (untilDue(listBackupsDir(this.options.dir), this.now(), this.intervalMs) === 0) {
        await this.backupNow();
        // Whatever the folder then says (a clock set wrong, files moved in): not again before the next look.
        next = this.checkEveryMs;
      } else
        next = Math.min(this.checkEveryMs, untilDue(listBackupsDir(this.options.dir), this.now(), this.intervalMs));
    } catch (error) {
      if (error instanceof BackupDeferred) {
        this.options.logger.debug(`automatic database backup deferred: ${error.message}`);
        this.schedule(DEFERRED_RETRY_MS);
        return;
      }
      if (this.stopped) {
        this.options.logger.debug('backup under way stopped: the server is stopping (its partial file was removed)');
        return;
      }
      const retry = `${Math.round(this.checkEveryMs / 60_000)} min`;
      this.options.logger.warn(
        { err: error, dir: this.options.dir },
        `automatic database backup failed: ${backupFailureAdvice(error, this.options.dir)}. The server keeps running and tries again in ${retry}.`,
      );
    }
    // Never a busy loop, whatever the clock says.
    this.schedule(Math.max(1000, next));
  }
}
