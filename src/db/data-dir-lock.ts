/**
 * Who is using a data directory: the server holds DATA/antenna.lock for as long as it
 * runs, and `antenna restore` takes it before it replaces the database.
 *
 * Why a lock and not a pid file: a pid file outlives a server killed with `kill -9` (or
 * a power cut), and its pid may by then belong to another process (in a container,
 * the next server is often pid 1 again). The lock is SQLite's: antenna.lock is a tiny
 * SQLite database that the holder opens in EXCLUSIVE locking mode, so the operating
 * system holds a POSIX lock on it that ends with the process, however it ends. A
 * leftover antenna.lock file is just a file; nothing has to clean it up. SQLite also
 * keeps two connections of one process apart, so service tests see the same refusal.
 * The holder writes its pid into the file's header (user_version), which others read
 * as bytes to name it in their messages; the decision never depends on that number.
 */
import Database from 'better-sqlite3';
import { closeSync, openSync, readSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { StartupError } from './database.js';

export const LOCK_FILE = 'antenna.lock';

export interface DataDirLock {
  readonly file: string;
  release(): void;
}

/** The directory is in use; `pid` is the holder's as it wrote it (undefined when unreadable). */
export interface LockedBy {
  readonly heldBy: number | undefined;
}

/**
 * Lock files this process holds: reading one with fs would drop SQLite's lock on it (POSIX closes drop a process's
 * locks).
 */
const heldHere = new Set<string>();

/** Takes the data directory's lock, or says who holds it. The directory must exist. */
export function tryLockDataDir(dataDir: string): DataDirLock | LockedBy {
  const file = join(dataDir, LOCK_FILE);
  try {
    return acquire(file);
  } catch (error) {
    if (isBusy(error)) return { heldBy: heldHere.has(file) ? process.pid : readHolderPid(file) };
    // Only a lock file damaged by a crash mid-write is made again. Any other failure (no
    // right to write it, a read-only disk) says nothing about whether a server holds it.
    if (!isDamaged(error)) {
      throw new StartupError(
        `Cannot lock ${file} (${error instanceof Error ? error.message : String(error)}): run as the user that owns the data directory, or put --data on a disk that supports file locks.`,
        { cause: error },
      );
    }
    rmSync(file, { force: true });
    rmSync(`${file}-journal`, { force: true });
    try {
      return acquire(file);
    } catch (again) {
      if (isBusy(again)) return { heldBy: readHolderPid(file) };
      throw new StartupError(
        `Cannot lock ${file} (${again instanceof Error ? again.message : String(again)}): put --data on a disk that supports file locks (SQLite needs them for the database too).`,
        { cause: again },
      );
    }
  }
}

/** The server's lock on its data directory for as long as it runs; StartupError when another process has it. */
export function lockDataDirForServer(dataDir: string): DataDirLock {
  const lock = tryLockDataDir(dataDir);
  if (!isLocked(lock)) return lock;
  const who = lock.heldBy === undefined ? 'Another Antenna process' : `Another Antenna process (pid ${lock.heldBy})`;
  throw new StartupError(
    `${who} is using the data directory ${dataDir} (a server, or antenna restore): stop it first, or give this server another --data.`,
  );
}

export function isLocked(result: DataDirLock | LockedBy): result is LockedBy {
  return 'heldBy' in result;
}

function acquire(file: string): DataDirLock {
  // timeout 0: a held lock is an immediate SQLITE_BUSY, not a wait.
  const db = new Database(file, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // No journal file beside the lock while it is held; the one write is a single page.
    db.pragma('journal_mode = MEMORY');
    db.exec('BEGIN EXCLUSIVE');
    db.pragma(`user_version = ${process.pid}`);
    // In EXCLUSIVE locking mode the lock outlives the transaction, until close.
    db.exec('COMMIT');
  } catch (error) {
    db.close();
    throw error;
  }
  heldHere.add(file);
  let released = false;
  return {
    file,
    release() {
      if (released) return;
      released = true;
      heldHere.delete(file);
      db.close();
    },
  };
}

function isDamaged(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT';
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/**
 * The holder's pid from the SQLite header (user_version: 4 bytes big-endian at offset 60), read as bytes since SQLite
 * cannot read a locked file.
 */
function readHolderPid(file: string): number | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const header = Buffer.alloc(64);
    if (readSync(fd, header, 0, 64, 0) < 64) return undefined;
    const pid = header.readInt32BE(60);
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
