/**
 * `antenna restore FILE`: puts a backup in place of DATA/antenna.db.
 *
 * In order: FILE is checked (a SQLite database of Antenna's, not from a newer
 * Antenna, passing quick_check); the data directory's lock is taken, so no server
 * runs on it now or starts until the restore is done (data-dir-lock.ts); the database
 * must not be open in any other program either (an `antenna scan`, a sqlite3 shell):
 * SQLite's own lock says so; the current database is checkpointed and kept in
 * DATA/backups as `antenna-<time>.before-restore.db` (with its -wal if it could not be
 * checkpointed), so the restore can be undone; FILE is copied beside the database,
 * checked, and renamed over it; the old database's -wal, -shm and -journal go, since
 * SQLite would otherwise apply them to the restored file. The file is not migrated
 * here: the next start migrates it, as any older database.
 */
import Database from 'better-sqlite3';
import { chownSync, copyFileSync, existsSync, readdirSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { backupsDir, beforeRestoreFileName, freshBackupName } from './backup-names.js';
import {
  BackupError,
  backupFailureAdvice,
  copyDatabase,
  ensureBackupsDir,
  listBackupsDir,
  openForCopy,
  reasonOf,
} from './database-backup.js';
import { type Db, databasePath, loadMigrations, prepareDataDir, quickCheck } from './database.js';
import { isLocked, tryLockDataDir } from './data-dir-lock.js';

export interface RestoreSource {
  file: string;
  /** The newest migration the file has. */
  schema: number;
  /** The newest migration this Antenna has (the next start migrates up to it). */
  latest: number;
}

export interface RestoreResult extends RestoreSource {
  database: string;
  /** Where the database it replaced was kept (undefined when there was none). */
  keptAs: string | undefined;
}

const SIDE_FILES = ['-wal', '-shm', '-journal'] as const;

/** FILE as a restore source, or BackupError saying what is wrong with it. */
export function inspectRestoreSource(file: string): RestoreSource {
  if (!existsSync(file))
    throw new BackupError(`${file} does not exist: give the path of a backup, such as one listed in DATA/backups.`);
  if (!statSync(file).isFile())
    throw new BackupError(`${file} is not a file: give the path of a backup file (antenna-<time>.db).`);
  const hadSideFiles = SIDE_FILES.filter((suffix) => existsSync(`${file}${suffix}`));
  let db: Db | undefined;
  try {
    try {
      db = openForCopy(file);
      db.prepare('SELECT count(*) FROM sqlite_schema').get();
    } catch (error) {
      throw new BackupError(
        `${file} is not a readable SQLite database (${reasonOf(error)}): give a backup Antenna made (DATA/backups/antenna-<time>.db).`,
      );
    }
    const schema = schemaOf(db, file);
    const latest = loadMigrations().at(-1)?.version ?? 0;
    if (schema > latest) {
      throw new BackupError(
        `${file} was written by a newer Antenna (schema ${schema}, this one knows ${latest}): upgrade Antenna first, then restore it.`,
      );
    }
    const problems = quickCheck(db);
    if (problems.length > 0)
      throw new BackupError(`${file} is damaged (quick_check: ${problems[0]}): restore an older backup instead.`);
    return { file, schema, latest };
  } finally {
    db?.close();
    // Opening a WAL-mode file read-only leaves empty -wal and -shm beside it; they were not the user's.
    for (const suffix of SIDE_FILES)
      if (!hadSideFiles.includes(suffix) && existsSync(`${file}${suffix}`) && statSync(`${file}${suffix}`).size === 0)
        rmSync(`${file}${suffix}`);
  }
}

/** The file's newest migration; BackupError when it is not Antenna's. */
function schemaOf(db: Db, file: string): number {
  const notOurs = `${file} is a SQLite database but not Antenna's (no migrations of Antenna's in it): give a backup Antenna made (DATA/backups/antenna-<time>.db).`;
  let rows: { version: number; name: string }[];
  try {
    rows = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all() as {
      version: number;
      name: string;
    }[];
  } catch {
    throw new BackupError(notOurs);
  }
  const known = new Map(loadMigrations().map((migration) => [migration.version, migration.name]));
  // Each migration this Antenna knows must carry its name: another program's schema_migrations table is not ours.
  if (rows[0]?.version !== 1 || rows.some((row) => known.has(row.version) && known.get(row.version) !== row.name))
    throw new BackupError(notOurs);
  return rows.at(-1)?.version ?? 0;
}

/** Restores `file` into `dataDir`; see the module comment for the order of things. */
export async function restoreDatabase(
  dataDir: string,
  file: string,
  now: () => number = Date.now,
): Promise<RestoreResult> {
  const database = databasePath(dataDir);
  if (existsSync(database) && existsSync(file) && realpathSync(file) === realpathSync(database)) {
    throw new BackupError(`${file} is the database itself: give a backup, such as one in ${backupsDir(dataDir)}.`);
  }
  const source = inspectRestoreSource(file);
  prepareDataDir(dataDir);
  const lock = tryLockDataDir(dataDir);
  if (isLocked(lock)) {
    const who = lock.heldBy === undefined ? 'An Antenna server' : `An Antenna server (pid ${lock.heldBy})`;
    throw new BackupError(
      `${who} is running on ${dataDir}: stop it, then run antenna restore again (a running server's database cannot be replaced).`,
    );
  }
  const incoming = `${database}.${process.pid}.restoring`;
  try {
    // Left by a restore stopped midway (Ctrl-C, a crash); with the lock held, no other restore is under way.
    for (const name of readdirSync(dataDir))
      if (/^antenna\.db\.\d+\.restoring$/.test(name)) rmSync(join(dataDir, name), { force: true });
    if (existsSync(database)) checkpointAlone(database);
    // The copy first: a full disk or a bad read stops here, with the current database untouched.
    const reader = openForCopy(file);
    try {
      await copyDatabase(reader, incoming);
    } catch (error) {
      throw new BackupError(
        `${file} could not be copied into ${dataDir}, so nothing was replaced: ${backupFailureAdvice(error, dataDir)}.`,
        { cause: error },
      );
    } finally {
      reader.close();
    }
    const keptAs = existsSync(database) ? keepCurrent(dataDir, database, now()) : undefined;
    for (const suffix of SIDE_FILES) rmSync(`${database}${suffix}`, { force: true });
    renameOver(incoming, database);
    return { ...source, database, keptAs };
  } finally {
    rmSync(incoming, { force: true });
    lock.release();
  }
}

/**
 * Checks that nobody else has the database open and folds its -wal into it. EXCLUSIVE
 * locking mode makes SQLite lock the file itself, which fails while any other
 * connection (another process, or this one's) has it open. A database that SQLite
 * cannot read at all is kept as it is (that is often why it is being restored).
 */
function checkpointAlone(database: string): void {
  let db: Db | undefined;
  try {
    db = new Database(database, { timeout: 0, fileMustExist: true });
    db.pragma('locking_mode = EXCLUSIVE');
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      throw new BackupError(
        `${database} is open in another program (an antenna scan or backup, or a sqlite3 shell): let it finish or close it, then run antenna restore again.`,
      );
    }
  } finally {
    db?.close();
  }
}

/** Copies the current database (and what of it is still in its -wal) into DATA/backups; the path kept. */
function keepCurrent(dataDir: string, database: string, at: number): string {
  const dir = backupsDir(dataDir);
  ensureBackupsDir(dir);
  const kept = join(dir, freshBackupName(listBackupsDir(dir), at, beforeRestoreFileName));
  try {
    copyFileSync(database, kept);
    // Owned as the database it copies (a restore run with sudo must not leave root's files in a service's folder).
    if (process.getuid?.() === 0) {
      const owner = statSync(database);
      chownSync(kept, owner.uid, owner.gid);
    }
    // Beside the copy under SQLite's names, so opening the copy applies them as it would have.
    for (const suffix of ['-wal', '-journal']) {
      if (existsSync(`${database}${suffix}`) && statSync(`${database}${suffix}`).size > 0)
        copyFileSync(`${database}${suffix}`, `${kept}${suffix}`);
    }
  } catch (error) {
    for (const suffix of ['', '-wal', '-journal']) rmSync(`${kept}${suffix}`, { force: true });
    throw new BackupError(
      `The current database cannot be kept in ${dir} (${reasonOf(error)}), so it was not replaced: free space on that disk, then run antenna restore again.`,
    );
  }
  return kept;
}

function renameOver(from: string, to: string): void {
  try {
    // Run as root (sudo, for a service's data directory): the restored file goes to the data
    // directory's owner, or the service could not write its own database afterwards.
    if (process.getuid?.() === 0) {
      const owner = statSync(dirname(to));
      chownSync(from, owner.uid, owner.gid);
    }
    // Same folder, so one atomic rename: there is never a half-written database under its name.
    renameSync(from, to);
  } catch (error) {
    throw new BackupError(
      `The restored copy could not be put in place (${reasonOf(error)}); the database it replaces is kept in DATA/backups (.before-restore.db): restore that one to go back.`,
    );
  }
}
