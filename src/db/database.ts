import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { backupsDirOf, formatTakenAt, newestBackup, restoreCommand } from './backup-names.js';

export type Db = Database.Database;

/** A problem that must stop start-up, with a message that tells the user what to fix. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
const DATABASE_FILE = 'antenna.db';

export function databasePath(dataDir: string): string {
  return join(dataDir, DATABASE_FILE);
}

/**
 * Makes sure the data directory exists and can be written, without touching the
 * database file inside it.
 */
export function prepareDataDir(dataDir: string): void {
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory()) {
    throw new StartupError(`Data directory ${dataDir} is not a directory; choose another with --data.`);
  }
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (error) {
    throw new StartupError(
      `Data directory ${dataDir} cannot be created (${reason(error)}); choose another with --data.`,
    );
  }
  // access(W_OK) says yes to root even on read-only mounts, so write a real probe file.
  const probe = join(dataDir, `.antenna-write-probe-${process.pid}`);
  try {
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (error) {
    throw new StartupError(
      `Data directory ${dataDir} is not writable (${reason(error)}); fix its permissions or choose another with --data.`,
    );
  }
}

/**
 * Opens (creating if needed) the library database with WAL, foreign keys and a busy
 * timeout, and applies pending migrations. An existing file that is not a readable
 * SQLite database, or that fails SQLite's quick_check, stops start-up untouched (it
 * is first opened read-only), with the command that restores the newest backup.
 */
export function openDatabase(file: string): Db {
  if (existsSync(file)) assertReadableDatabase(file);
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * A second connection to a database this process opened (and migrated) with
 * openDatabase, for a worker thread's bulk writes: the same settings, no checks or
 * migrations, and a WAL let grow to 40 MB between checkpoints (each checkpoint of a
 * 4 MB WAL halved the pace of a guide's many short transactions: 12 s for 200,000
 * programmes instead of 7 s).
 */
export function openWorkerConnection(file: string): Db {
  const db = new Database(file, { fileMustExist: true });
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('wal_autocheckpoint = 10000');
  return db;
}

/** A migrated database that lives only in memory, for generating documents and for tools. */
export function openMemoryDatabase(): Db {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

/**
 * Refuses a file SQLite cannot read or whose structure is damaged, before anything
 * writes to it. quick_check reads every page and checks each b-tree, but not index
 * contents against their tables (integrity_check, at two to three times the cost).
 * Measured once per start: 60-90 ms on a 55 MB library of 190,000 rows (0.7 s with a
 * cold disk cache), 0.2 s on 360 MB.
 */
function assertReadableDatabase(file: string): void {
  let probe: Database.Database | undefined;
  let problems: string[];
  try {
    probe = new Database(file, { readonly: true, fileMustExist: true });
    probe.prepare('SELECT count(*) FROM sqlite_schema').get();
    problems = quickCheck(probe);
  } catch (error) {
    throw new StartupError(
      `Database ${file} cannot be read (${reason(error)}). It was left untouched: ${whatNow(file, 'move it away to start with an empty library')}`,
    );
  } finally {
    probe?.close();
  }
  if (problems.length > 0) {
    const more = problems.length > 1 ? ` and ${problems.length - 1} more` : '';
    throw new StartupError(
      `Database ${file} is damaged (quick_check: ${problems[0]}${more}). It was left untouched: ${whatNow(file, 'move it away to start with an empty library, or try .recover in the sqlite3 shell on a copy of it')}`,
    );
  }
}

/** The newest backup and the command that restores it, or what to do without one. */
function whatNow(file: string, otherwise: string): string {
  const dir = backupsDirOf(file);
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    // no backups folder: no backup
  }
  const newest = newestBackup(names);
  if (newest === undefined) return `there is no backup in ${dir}; ${otherwise}.`;
  const backup = join(dir, newest.name);
  return `the newest backup is ${backup} (taken ${formatTakenAt(newest.takenAt)}); restore it with: ${restoreCommand(backup, dirname(file))} (the restore keeps the current file in ${dir} too).`;
}

/** PRAGMA quick_check's findings; [] when the database is sound. An SQLite error on the way is a finding too. */
export function quickCheck(db: Db): string[] {
  try {
    const rows = db.pragma('quick_check') as { quick_check: string }[];
    // One finding may hold several lines, under a heading naming the schema ('*** in database main ***').
    return rows
      .flatMap((row) => row.quick_check.split('\n'))
      .filter((line) => line !== 'ok' && line.trim() !== '' && !/^\*\*\* in database \w+ \*\*\*$/.test(line));
  } catch (error) {
    return [reason(error)];
  }
}

interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Numbered `NNN-name.sql` files, in order. */
export function loadMigrations(): Migration[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((file) => /^\d{3}-[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 3)),
      name: file.slice(4, -4),
      sql: readFileSync(new URL(file, MIGRATIONS_DIR), 'utf8'),
    }));
}

/** Applies every migration newer than the database, each in its own transaction. */
export function migrate(db: Db): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const current = db.prepare('SELECT coalesce(max(version), 0) FROM schema_migrations').pluck().get() as number;
  const migrations = loadMigrations();
  const latest = migrations.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new StartupError(
      `The database was written by a newer Antenna (schema ${current}, this one knows ${latest}); upgrade Antenna to open it.`,
    );
  }
  const applied: number[] = [];
  for (const migration of migrations.filter((m) => m.version > current)) {
    db.transaction(() => {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        Date.now(),
      );
    }).immediate();
    applied.push(migration.version);
  }
  return applied;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
