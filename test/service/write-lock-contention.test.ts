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
import { afterEach, beforeEach, expect, it } from 'vitest';
import { databasePath } from '../../src/db/database.js';
import { ImportService } from '../../src/importer/import.service.js';
import { LibraryEditsService } from '../../src/management/library-edits.service.js';
import type { ImportRoot } from '../../src/model/import-root.js';
import { type TempLibrary, createTempLibrary, tempDir } from '../support/temp-library.js';

const HOLD_MS = 400;
const BETTER_SQLITE3 = createRequire(import.meta.url).resolve('better-sqlite3');

/** A second connection that takes the write lock, says so, holds it `holdMs` and lets go (as a guide slice does, longer). */
const HOLDER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.exec('BEGIN IMMEDIATE');
parentPort.postMessage('locked');
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

/** Resolves once the worker holds the write lock; `released` once it has let go. */
async function holdWriteLock(): Promise<{ released: Promise<void> }> {
  const worker = new Worker(HOLDER, { eval: true, workerData: { module: BETTER_SQLITE3, file: databasePath(temp.dir), holdMs: HOLD_MS } });
  const released = new Promise<void>((resolve, reject) => {
    worker.on('message', (message) => message === 'released' && resolve());
    worker.on('error', reject);
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  return { released: released.then(() => worker.terminate()).then(() => undefined) };
}

it("imports every file of a scan that meets the guide thread's write lock, waiting for it", async () => {
  const importer = new ImportService(temp.db, { logger: pino({ level: 'silent' }), probe: false });
  const lock = await holdWriteLock();
  const started = performance.now();
  const summary = await importer.reconcile([videos]);
  await lock.released;
  expect(summary.failed).toEqual([]);
  expect(summary.added).toBe(3);
  expect(temp.db.prepare('SELECT count(*) FROM import_files').pluck().get()).toBe(3);
  // It waited for the lock (the busy timeout), rather than finding it free.
  expect(performance.now() - started).toBeGreaterThan(HOLD_MS / 2);
});

it("edits a playlist (read, change, write) while the guide thread holds the write lock, waiting for it", async () => {
  await new ImportService(temp.db, { logger: pino({ level: 'silent' }), probe: false }).reconcile([videos]);
  const ids = temp.db.prepare('SELECT item_id FROM import_files ORDER BY path').pluck().all() as string[];
  const edits = new LibraryEditsService(temp.db);
  const playlist = edits.createPlaylist({ name: 'Trips', item_ids: [ids[0] as string] });
  const lock = await holdWriteLock();
  edits.addItems(playlist, [ids[1] as string, ids[2] as string], 0);
  await lock.released;
  expect(temp.db.prepare('SELECT item_id FROM playlist_items WHERE playlist_id = ? ORDER BY position').pluck().all(playlist)).toEqual([ids[1], ids[2], ids[0]]);
});
