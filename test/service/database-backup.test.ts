/**
 * Backups and restores on real SQLite files: copies made while other connections
 * write, automatic backups and retention, restores refused and done, and start-up on
 * a damaged database.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
  closeSync,
  copyFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { backupToFile } from '../../src/cli/backup.commands.js';
import {
  backupFileName,
  backupsDir,
  beforeRestoreFileName,
  isBeforeRestoreName,
  parseBackupName,
} from '../../src/db/backup-names.js';
import { BackupScheduler } from '../../src/db/backup-scheduler.js';
import { BackupDeferred, BackupError } from '../../src/db/database-backup.js';
import { restoreDatabase } from '../../src/db/database-restore.js';
import {
  type Db,
  StartupError,
  databasePath,
  loadMigrations,
  openDatabase,
  prepareDataDir,
} from '../../src/db/database.js';
import { lockDataDirForServer } from '../../src/db/data-dir-lock.js';
import { until } from '../support/dvr-app.js';
import { tempDir } from '../support/temp-library.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const PREFILL = 20_000;
const cleanups: (() => void | Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A migrated library in a fresh data directory, with a table of ~10 MB whose row count a second table mirrors in the
 * same transactions.
 */
function makeData(): { dir: string; db: Db } {
  const dir = tempDir('antenna-backup-');
  prepareDataDir(dir);
  const db = openDatabase(databasePath(dir));
  db.exec('CREATE TABLE tick (n INTEGER PRIMARY KEY, pad BLOB); CREATE TABLE tick_total (total INTEGER NOT NULL)');
  db.transaction(() => {
    const insert = db.prepare('INSERT INTO tick (pad) VALUES (randomblob(400))');
    for (let i = 0; i < PREFILL; i++) insert.run();
    db.prepare('INSERT INTO tick_total VALUES (?)').run(PREFILL);
  })();
  cleanups.push(() => {
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, db };
}

/** Another process committing 20 rows and the total, in one transaction, as fast as it can. */
async function startWriter(file: string): Promise<ChildProcess> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.pragma('busy_timeout = 5000');
    const insert = db.prepare('INSERT INTO tick (pad) VALUES (randomblob(400))');
    const bump = db.prepare('UPDATE tick_total SET total = total + 20');
    const batch = db.transaction(() => { for (let i = 0; i < 20; i++) insert.run(); bump.run(); });
    let batches = 0;
    (function loop() { batch(); if (++batches === 20) process.stdout.write('writing\\n'); setImmediate(loop); })();`;
  const child = spawn(process.execPath, ['-e', script, file], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(() => void child.kill('SIGKILL'));
  await new Promise((resolve, reject) => {
    child.stdout?.once('data', resolve);
    child.once('exit', (code) => reject(new Error(`the writer ended (${code})`)));
  });
  return child;
}

const committed = (db: Db) => db.prepare('SELECT total FROM tick_total').pluck().get() as number;

/** The copy is sound and one state of the database: the rows and their mirrored count agree. */
function expectConsistentCopy(file: string, atLeast: number): number {
  const copy = new Database(file, { readonly: true, fileMustExist: true });
  try {
    expect(copy.pragma('quick_check')).toEqual([{ quick_check: 'ok' }]);
    expect(copy.pragma('journal_mode', { simple: true })).toBe('delete');
    const total = copy.prepare('SELECT total FROM tick_total').pluck().get() as number;
    expect(copy.prepare('SELECT count(*) FROM tick').pluck().get()).toBe(total);
    expect(total).toBeGreaterThanOrEqual(atLeast);
    return total;
  } finally {
    copy.close();
  }
}

function silentLogger() {
  return { info: vi.fn(), warn: vi.fn(), debug: vi.fn() };
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('a backup while others write', () => {
  it("antenna backup's way (its own read-only connection) gives one consistent state with everything committed before it began", async () => {
    const { dir, db } = makeData();
    const writer = await startWriter(databasePath(dir));
    const before = committed(db);
    const result = await backupToFile(dir, undefined);
    const total = expectConsistentCopy(result.file, before);
    expect(committed(db)).toBeGreaterThan(before);
    expect(parseBackupName(result.file.split('/').at(-1) ?? '')).toBeDefined();
    expect(readdirSync(backupsDir(dir))).toEqual([result.file.split('/').at(-1)]);
    writer.kill('SIGKILL');
    expect(total).toBeGreaterThan(PREFILL);
  });

  it("the server's way (its own connection in small steps) follows its own writes and survives another process's", async () => {
    const { dir, db } = makeData();
    const writer = await startWriter(databasePath(dir));
    // The server's own writes, between the copy's steps.
    const insert = db.prepare('INSERT INTO tick (pad) VALUES (randomblob(400))');
    const bump = db.prepare('UPDATE tick_total SET total = total + 1');
    const own = setInterval(() => db.transaction(() => (insert.run(), bump.run()))(), 1);
    cleanups.push(() => clearInterval(own));
    const before = committed(db);
    const scheduler = new BackupScheduler(db, {
      dir: backupsDir(dir),
      keep: 7,
      logger: silentLogger(),
      pagesPerStep: 10,
    });
    const result = await scheduler.backupNow();
    clearInterval(own);
    writer.kill('SIGKILL');
    expectConsistentCopy(result.file, before);
  });
});

describe('automatic backups', () => {
  it('are taken at start when the newest is a day old; retention keeps the newest and touches nothing else', async () => {
    const { dir, db } = makeData();
    const backups = backupsDir(dir);
    const now = Date.now();
    const hour = 3_600_000;
    const old = [25, 26, 27, 50].map((hours) => backupFileName(now - hours * hour));
    const others = [
      'notes.txt',
      beforeRestoreFileName(now - 100 * hour),
      'antenna-latest.db',
      `${backupFileName(now - hour)}.123.partial`,
    ];
    prepareDataDir(backups);
    for (const name of [...old, ...others]) writeFileSync(join(backups, name), 'x');
    const logger = silentLogger();
    const scheduler = new BackupScheduler(db, { dir: backups, keep: 3, logger, now: () => now });
    cleanups.push(() => scheduler.stop());
    scheduler.start();
    const fresh = backupFileName(now);
    const listing = await until(
      () => readdirSync(backups).sort(),
      (names) => names.includes(fresh) && !names.includes(old[2]!),
      10_000,
      'the old backups pruned',
      10,
    );
    expect(listing).toEqual([fresh, old[0]!, old[1]!, ...others].sort());
    expect(logger.info).toHaveBeenCalledWith(
      expect.objectContaining({ file: join(backups, fresh), removed: [old[2], old[3]] }),
      'database backup written',
    );
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('wait while the newest is younger than a day, and are off with keep 0', async () => {
    const { dir, db } = makeData();
    const backups = backupsDir(dir);
    prepareDataDir(backups);
    const recent = backupFileName(Date.now() - 3_600_000);
    writeFileSync(join(backups, recent), 'x');
    const waiting = new BackupScheduler(db, { dir: backups, keep: 3, logger: silentLogger() });
    const off = new BackupScheduler(db, { dir: join(dir, 'elsewhere'), keep: 0, logger: silentLogger() });
    waiting.start();
    off.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await waiting.stop();
    await off.stop();
    expect(readdirSync(backups)).toEqual([recent]);
    expect(existsSync(join(dir, 'elsewhere'))).toBe(false);
  });

  it('stop() ends a backup under way between two steps and leaves no file behind', async () => {
    const { dir, db } = makeData();
    const backups = backupsDir(dir);
    const logger = silentLogger();
    const scheduler = new BackupScheduler(db, { dir: backups, keep: 3, logger, pagesPerStep: 1 });
    scheduler.start();
    await until(
      () => (existsSync(backups) ? readdirSync(backups) : []),
      (names) => names.some((name) => name.endsWith('.partial')),
      10_000,
      'a backup under way',
      10,
    );
    const stopping = Date.now();
    await scheduler.stop();
    expect(Date.now() - stopping).toBeLessThan(1000);
    expect(readdirSync(backups)).toEqual([]);
    expect(logger.warn).not.toHaveBeenCalled();
    expect(db.prepare('SELECT count(*) FROM tick').pluck().get()).toBe(PREFILL);
  });

  it('wait while another connection of the server writes in bulk (a guide refresh thread), and are made once it is done', async () => {
    const { dir, db } = makeData();
    const backups = backupsDir(dir);
    let writing = true;
    const logger = silentLogger();
    const scheduler = new BackupScheduler(db, { dir: backups, keep: 3, logger, othersWriting: () => writing });
    cleanups.push(() => scheduler.stop());
    // Asked while the thread writes: deferred, no file, no warning.
    await expect(scheduler.backupNow()).rejects.toThrow(BackupDeferred);
    expect(existsSync(backups) ? readdirSync(backups) : []).toEqual([]);
    // A copy under way when the thread's writes restart it stops rather than copy the rest in one step.
    const other = new Database(databasePath(dir));
    cleanups.push(() => {
      other.close();
    });
    writing = false;
    const slow = new BackupScheduler(db, {
      dir: backups,
      keep: 3,
      logger,
      pagesPerStep: 1,
      othersWriting: () => writing,
    });
    const copying = slow.backupNow();
    await until(
      () => readdirSync(backups),
      (names) => names.some((name) => name.endsWith('.partial')),
      10_000,
      'a copy under way',
      10,
    );
    writing = true;
    other.transaction(() => {
      other.prepare('INSERT INTO tick (pad) VALUES (randomblob(400))').run();
      other.prepare('UPDATE tick_total SET total = total + 1').run();
    })();
    await expect(copying).rejects.toThrow(BackupDeferred);
    expect(readdirSync(backups)).toEqual([]);
    writing = false;
    const made = await scheduler.backupNow();
    expectConsistentCopy(made.file, committed(db));
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('that fail are a warning saying what to do, and the server goes on', async () => {
    const { dir, db } = makeData();
    const notAFolder = join(dir, 'backups');
    writeFileSync(notAFolder, 'a file where the folder should be');
    const logger = silentLogger();
    const scheduler = new BackupScheduler(db, { dir: notAFolder, keep: 3, logger });
    cleanups.push(() => scheduler.stop());
    scheduler.start();
    await until(
      () => logger.warn.mock.calls.length,
      (calls) => calls > 0,
      10_000,
      'the warning',
      10,
    );
    const message = String(logger.warn.mock.calls[0]?.[1]);
    expect(message).toMatch(
      /^automatic database backup failed: the backups folder .*backups cannot be made \(.*\): make sure that path is a folder Antenna may write to\. The server keeps running and tries again in 60 min\.$/,
    );
    expect(db.prepare('SELECT count(*) FROM tick').pluck().get()).toBe(PREFILL);
  });
});

describe('restore', () => {
  it('is refused while a server holds the data directory or another program has the database open, and the database stays as it was', async () => {
    const { dir, db } = makeData();
    const { file } = await backupToFile(dir, undefined);
    const lock = lockDataDirForServer(dir);
    cleanups.push(() => lock.release());
    // A second server is refused the same way.
    expect(() => lockDataDirForServer(dir)).toThrow(
      new StartupError(
        `Another Antenna process (pid ${process.pid}) is using the data directory ${dir} (a server, or antenna restore): stop it first, or give this server another --data.`,
      ),
    );
    await expect(restoreDatabase(dir, file)).rejects.toThrow(
      new BackupError(
        `An Antenna server (pid ${process.pid}) is running on ${dir}: stop it, then run antenna restore again (a running server's database cannot be replaced).`,
      ),
    );
    lock.release();
    await expect(restoreDatabase(dir, file)).rejects.toThrow(
      /antenna\.db is open in another program \(an antenna scan or backup, or a sqlite3 shell\): let it finish or close it, then run antenna restore again\./,
    );
    db.close();
    const before = sha256(databasePath(dir));
    expect(existsSync(databasePath(dir))).toBe(true);
    const done = await restoreDatabase(dir, file);
    expect(done.keptAs && sha256(done.keptAs)).toBe(before);
  });

  it('keeps the database it replaces, leaves no -wal or -shm, and the next open migrates an older backup', async () => {
    const { dir, db } = makeData();
    db.prepare("INSERT INTO shows (id, name, created_at, updated_at) VALUES ('now', 'Current Show', 0, 0)").run();
    db.close();
    // Left by a server killed hard: they belong to the old database and must not meet the new one.
    writeFileSync(`${databasePath(dir)}-shm`, Buffer.alloc(32768, 7));
    const old = join(dir, 'old-antenna.db');
    const legacy = new Database(old);
    legacy.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
    );
    for (const migration of loadMigrations().slice(0, 5)) {
      legacy.exec(migration.sql);
      legacy.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(migration.version, migration.name);
    }
    legacy.prepare("INSERT INTO shows (id, name, created_at, updated_at) VALUES ('then', 'Old Show', 0, 0)").run();
    legacy.close();

    const result = await restoreDatabase(dir, old, () => Date.UTC(2025, 4, 6, 7, 8, 9));
    expect(result).toMatchObject({
      file: old,
      schema: 5,
      latest: loadMigrations().at(-1)?.version,
      database: databasePath(dir),
      keptAs: join(backupsDir(dir), 'antenna-2025-05-06T07-08-09Z.before-restore.db'),
    });
    expect(isBeforeRestoreName(result.keptAs?.split('/').at(-1) ?? '')).toBe(true);
    expect(readdirSync(dir).filter((name) => name.startsWith('antenna.db'))).toEqual(['antenna.db']);
    const kept = new Database(result.keptAs!, { readonly: true });
    expect(kept.prepare('SELECT name FROM shows').pluck().all()).toEqual(['Current Show']);
    kept.close();

    const reopened = openDatabase(databasePath(dir));
    cleanups.push(() => void reopened.close());
    expect(reopened.prepare('SELECT max(version) FROM schema_migrations').pluck().get()).toBe(
      loadMigrations().at(-1)?.version,
    );
    expect(reopened.prepare('SELECT name FROM shows').pluck().all()).toEqual(['Old Show']);
  });

  it('refuses what is not a sound Antenna database of this version or older, touching nothing', async () => {
    const { dir, db } = makeData();
    db.close();
    const before = sha256(databasePath(dir));
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'not a database'.repeat(100));
    const foreign = join(dir, 'other.db');
    const other = new Database(foreign);
    other.exec('CREATE TABLE things (x)');
    other.close();
    const newer = join(dir, 'newer.db');
    copyFileSync(databasePath(dir), newer);
    const future = new Database(newer);
    future.prepare("INSERT INTO schema_migrations VALUES (999, 'from-the-future', 0)").run();
    future.close();
    await expect(restoreDatabase(dir, join(dir, 'missing.db'))).rejects.toThrow(
      /missing\.db does not exist: give the path of a backup/,
    );
    await expect(restoreDatabase(dir, text)).rejects.toThrow(
      /notes\.txt is not a readable SQLite database \(.*\): give a backup Antenna made/,
    );
    await expect(restoreDatabase(dir, foreign)).rejects.toThrow(/other\.db is a SQLite database but not Antenna's/);
    await expect(restoreDatabase(dir, newer)).rejects.toThrow(
      /newer\.db was written by a newer Antenna \(schema 999, this one knows \d+\): upgrade Antenna first/,
    );
    await expect(restoreDatabase(dir, databasePath(dir))).rejects.toThrow(/is the database itself/);
    expect(sha256(databasePath(dir))).toBe(before);
    expect(existsSync(backupsDir(dir))).toBe(false);
  });
});

describe('start-up on a damaged database', () => {
  it('stops with a StartupError naming the newest backup and the command that restores it, which works', async () => {
    const { dir, db } = makeData();
    await backupToFile(dir, undefined, Date.UTC(2025, 0, 1));
    const newest = await backupToFile(dir, undefined, Date.UTC(2025, 0, 2, 3, 4, 5));
    const root = db.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'tick'").pluck().get() as number;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const file = databasePath(dir);
    damagePage(file, root, pageSize);
    const damaged = sha256(file);

    let error: unknown;
    try {
      openDatabase(file);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(StartupError);
    const message = (error as Error).message;
    expect(message).toMatch(
      /^Database .*antenna\.db is damaged \(quick_check: .+\)\. It was left untouched: the newest backup is /,
    );
    expect(message).toContain(
      `${newest.file} (taken 2025-01-02 03:04 UTC); restore it with: antenna restore ${newest.file} --data ${dir} `,
    );
    expect(sha256(file)).toBe(damaged);

    const restored = await restoreDatabase(dir, newest.file);
    const reopened = openDatabase(file);
    cleanups.push(() => void reopened.close());
    expect(reopened.prepare('SELECT count(*) FROM tick').pluck().get()).toBe(PREFILL);
    // The damaged file is kept, and never offered as the one to restore.
    expect(restored.keptAs && sha256(restored.keptAs)).toBe(damaged);
  });

  it('says so when there is no backup, and names it for a file that is not a database at all', async () => {
    const { dir, db } = makeData();
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const root = db.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'tick'").pluck().get() as number;
    db.close();
    const file = databasePath(dir);
    damagePage(file, root, pageSize);
    expect(() => openDatabase(file)).toThrow(
      /is damaged .* there is no backup in .*backups; move it away to start with an empty library, or try \.recover in the sqlite3 shell on a copy of it\.$/,
    );
    prepareDataDir(backupsDir(dir));
    writeFileSync(join(backupsDir(dir), backupFileName(Date.UTC(2024, 11, 24))), '');
    writeFileSync(file, 'not a database'.repeat(1000));
    expect(() => openDatabase(file)).toThrow(
      /cannot be read \(.*\)\. It was left untouched: the newest backup is .*antenna-2024-12-24T00-00-00Z\.db/,
    );
  });
});

/** Overwrites a b-tree page's header: quick_check sees a page that is no b-tree page. */
function damagePage(file: string, page: number, pageSize: number): void {
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(64, 0xa5), 0, 64, (page - 1) * pageSize);
  closeSync(fd);
}
