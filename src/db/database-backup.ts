/**
 * Copies of the database: made with SQLite's online backup API, so a copy is one
 * consistent state of the database even while a server writes to it, written to a
 * `.partial` name, checked (PRAGMA quick_check) and only then renamed to its own
 * name: a backup under its final name is always whole and readable.
 */
import Database from 'better-sqlite3';
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { backupsToRemove, isPartialName, partialFileName } from './backup-names.js';
import { type Db, quickCheck } from './database.js';

/** A backup or restore that cannot be done; the message says why and what to do. */
export class BackupError extends Error {
  override readonly name = 'BackupError';
}

/** SQLite's largest step: everything in one go. */
export const ALL_PAGES = 0x7fffffff;

export interface CopyOptions {
  /**
   * Pages per step (better-sqlite3 yields to the event loop between steps). On the
   * server's own connection, small steps keep it answering: SQLite carries the
   * connection's own writes into the copy as it goes. A write by another connection
   * makes SQLite start the copy again, so after a restart the rest is copied in one
   * step (a snapshot), or a busy writer would keep it from ever finishing.
   */
  pagesPerStep?: number;
  /** Stops the copy between two steps; the partial file is removed. */
  signal?: AbortSignal;
  /**
   * Whether another connection of this process is writing in bulk (a guide refresh's
   * thread). Its writes restart the copy, whose rest would then be copied in one step on
   * this thread (seconds for a large library, every request waiting): the copy stops
   * instead (BackupDeferred), to be made once that writing is done.
   */
  othersWriting?: () => boolean;
}

/**
 * A copy stopped because another connection of this process writes in bulk (CopyOptions.othersWriting): to be tried
 * again shortly.
 */
export class BackupDeferred extends Error {
  override readonly name = 'BackupDeferred';
}

export interface CopyResult {
  file: string;
  bytes: number;
  ms: number;
}

/**
 * Copies `db` to `target` (which must not exist yet): backup API into a partial file,
 * rollback-journal mode (a single file, readable by any SQLite tool, even from
 * read-only media), quick_check, fsync, rename. Throws BackupError when the copy
 * fails its check; I/O errors (a full disk) are thrown as they come.
 */
export async function copyDatabase(db: Db, target: string, options: CopyOptions = {}): Promise<CopyResult> {
  const started = performance.now();
  const partial = partialFileName(target, process.pid);
  const step = options.pagesPerStep ?? ALL_PAGES;
  let remaining = Number.POSITIVE_INFINITY;
  try {
    rmSync(partial, { force: true });
    const deferred = () =>
      new BackupDeferred('a guide refresh is writing to the database; the backup is made once it is done');
    if (options.othersWriting?.()) throw deferred();
    await db.backup(partial, {
      progress({ remainingPages }) {
        if (options.signal?.aborted)
          throw options.signal.reason instanceof Error ? options.signal.reason : new Error('the backup was stopped');
        const restarted = remainingPages > remaining;
        if (restarted && options.othersWriting?.()) throw deferred();
        remaining = remainingPages;
        return restarted ? ALL_PAGES : step;
      },
    });
    verifyCopy(partial);
    syncFile(partial);
    renameSync(partial, target);
    syncFile(dirname(target));
    return { file: target, bytes: statSync(target).size, ms: Math.round(performance.now() - started) };
  } catch (error) {
    for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${partial}${suffix}`, { force: true });
    throw error;
  }
}

/** A copy in rollback-journal mode that passes quick_check, or BackupError. */
function verifyCopy(file: string): void {
  const copy = new Database(file, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
  // Checked read-only: quick_check runs in less than half the time there (measured: 100 ms against 250 ms on 55 MB),
  // and on the server it holds the event loop for all of it.
  const reader = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const problems = quickCheck(reader);
    if (problems.length > 0) {
      throw new BackupError(
        `The copy fails SQLite's check (${problems[0]}): the database itself is probably damaged; stop the server if one runs on it: the next start checks the database and names the backup to restore.`,
      );
    }
  } finally {
    reader.close();
  }
}

/** Opens a database file read-only for copying (never writes to it, never migrates it). */
export function openForCopy(file: string): Db {
  return new Database(file, { readonly: true, fileMustExist: true });
}

/** The names in a backups folder ([] when there is none). */
export function listBackupsDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Makes the backups folder, with a message that says what to do when it cannot. */
export function ensureBackupsDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new BackupError(
      `The backups folder ${dir} cannot be made (${reasonOf(error)}): make sure that path is a folder Antenna may write to.`,
    );
  }
}

/** Removes the backups beyond the `keep` newest (names of any other shape are left alone); the names removed. */
export function pruneBackups(dir: string, keep: number): string[] {
  const removed: string[] = [];
  for (const name of backupsToRemove(listBackupsDir(dir), keep, Date.now())) {
    rmSync(join(dir, name), { force: true });
    removed.push(name);
  }
  return removed;
}

/**
 * Removes partial copies a crash left, once they are a day old (a younger one may be an `antenna backup` running now).
 */
export function removeStalePartials(dir: string, now: number): string[] {
  return listBackupsDir(dir).filter((name) => {
    if (!isPartialName(name)) return false;
    try {
      if (now - statSync(join(dir, name)).mtimeMs < 86_400_000) return false;
      rmSync(join(dir, name), { force: true });
      return true;
    } catch {
      return false;
    }
  });
}

/** What to do about a failed backup, in words (a full disk, a folder that cannot be written, a damaged database). */
export function backupFailureAdvice(error: unknown, dir: string): string {
  const code = String((error as { code?: unknown } | undefined)?.code ?? '');
  const reason = reasonOf(error);
  // Said after "backup failed: ", so as the rest of a sentence.
  if (error instanceof BackupError) return `${reason.charAt(0).toLowerCase()}${reason.slice(1).replace(/\.$/, '')}`;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || /disk is full|no space/i.test(reason)) {
    return `the disk of ${dir} is full (${reason}): free space there, or keep fewer backups with --backup-keep`;
  }
  if (
    /^(EACCES|EPERM|EROFS|ENOTDIR|EEXIST|SQLITE_CANTOPEN|SQLITE_READONLY|SQLITE_PERM)/.test(code) ||
    /directory does not exist/.test(reason)
  ) {
    return `${dir} cannot be written (${reason}): make sure it is a folder Antenna may write to`;
  }
  if (/^SQLITE_(CORRUPT|NOTADB)/.test(code)) {
    return `the database looks damaged (${reason}): stop the server; its next start checks the database and names the backup to restore`;
  }
  return `${reason}: check the disk and the folder ${dir}`;
}

function syncFile(path: string): void {
  // Durability, not correctness: a file system that cannot fsync a folder still has the file.
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    fsyncSync(fd);
  } catch {
    // ignored, see above
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
