/**
 * The guide's refresh writes from a worker thread through a connection of its own. A
 * transaction of the main thread that reads before it writes must wait for that
 * thread's write lock, not fail: a deferred one got SQLITE_BUSY at once (SQLite calls no
 * busy handler when a read turns into a write), and a first scan running beside the
 * start-up guide refresh lost the files of that batch until the next rescan (a fresh-clone
 * CI run found the episode missing from the player tests' library). Real SQLite file,
 * real folders, the lock held by a real second connection in a worker thread.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import pino from 'pino';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { databasePath } from '../../src/db/database.js';
import { ImportService } from '../../src/importer/import.service.js';
import { LibraryEditsService } from '../../src/management/library-edits.service.js';
import type { ImportRoot } from '../../src/model/import-root.js';
import { type TempLibrary, createTempLibrary, tempDir } from '../support/temp-library.js';

const HOLD_MS = 400;
const BETTER_SQLITE3 = createRequire(import.meta.url).resolve('better-sqlite3');

/**
 * A second connection that takes the write lock, says so, and holds it until the main
 * thread is about to begin its transaction (`begun`), then `holdMs` longer: the main
 * thread surely meets the lock (as it meets a guide slice), whatever the machine's pace.
 */
const HOLDER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.exec('BEGIN IMMEDIATE');
parentPort.postMessage('locked');
Atomics.wait(workerData.begun, 0, 0, 20000);
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.holdMs);
db.exec('COMMIT');
db.close();
parentPort.postMessage('released');
`;

let temp: TempLibrary;
let media: string;
let videos: ImportRoot;

beforeEach(() => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  media = tempDir('antenna-write-lock-');
  videos = { kind: 'videos', path: join(media, 'Videos') };
  mkdirSync(join(media, 'Videos', 'Trips'), { recursive: true });
  for (const name of ['Lake', 'Coast', 'Forest']) writeFileSync(join(media, 'Videos', 'Trips', `${name}.mp4`), name);
});

afterEach(() => {
  temp.close();
  rmSync(media, { recursive: true, force: true });
});

/**
 * Resolves once the worker holds the write lock. The next transaction the main thread
 * begins on temp.db tells the worker, which lets go `HOLD_MS` later; `released` says when.
 */
async function holdWriteLock(): Promise<{ released: Promise<void>; waitedMs: () => number }> {
  const begun = new Int32Array(new SharedArrayBuffer(4));
  let beganAt = 0;
  let releasedAt = 0;
  const worker = new Worker(HOLDER, {
    eval: true,
    workerData: { module: BETTER_SQLITE3, file: databasePath(temp.dir), holdMs: HOLD_MS, begun },
  });
  const transaction = temp.db.transaction.bind(temp.db);
  const spy = vi.spyOn(temp.db, 'transaction').mockImplementation((fn) => {
    if (beganAt === 0) {
      beganAt = performance.now();
      Atomics.store(begun, 0, 1);
      Atomics.notify(begun, 0);
    }
    return transaction(fn);
  });
  const released = new Promise<void>((resolve, reject) => {
    worker.on('message', (message) => {
      if (message !== 'released') return;
      releasedAt = performance.now();
      resolve();
    });
    worker.on('error', reject);
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  return {
    released: released.then(async () => {
      spy.mockRestore();
      await worker.terminate();
    }),
    // How long the main thread's first transaction waited for the lock to be let go.
    waitedMs: () => releasedAt - beganAt,
  };
}

it("imports every file of a scan that meets the guide thread's write lock, waiting for it", async () => {
  const importer = new ImportService(temp.db, { logger: pino({ level: 'silent' }), probe: false });
  const lock = await holdWriteLock();
  const summary = await importer.reconcile([videos]);
  await lock.released;
  // The first transaction began while the lock was held, well before it was let go.
  expect(lock.waitedMs()).toBeGreaterThan(HOLD_MS / 2);
  expect(summary.failed).toEqual([]);
  expect(summary.added).toBe(3);
  expect(temp.db.prepare('SELECT count(*) FROM import_files').pluck().get()).toBe(3);
});

it('edits a playlist (read, change, write) while the guide thread holds the write lock, waiting for it', async () => {
  await new ImportService(temp.db, { logger: pino({ level: 'silent' }), probe: false }).reconcile([videos]);
  const ids = temp.db.prepare('SELECT item_id FROM import_files ORDER BY path').pluck().all() as string[];
  const edits = new LibraryEditsService(temp.db);
  const playlist = edits.createPlaylist({ name: 'Trips', item_ids: [ids[0] as string] });
  const lock = await holdWriteLock();
  edits.addItems(playlist, [ids[1] as string, ids[2] as string], 0);
  await lock.released;
  expect(lock.waitedMs()).toBeGreaterThan(HOLD_MS / 2);
  expect(
    temp.db.prepare('SELECT item_id FROM playlist_items WHERE playlist_id = ? ORDER BY position').pluck().all(playlist),
  ).toEqual([ids[1], ids[2], ids[0]]);
});
