/**
 * A batch of the importer is written in one transaction; a file whose write fails rolls
 * the batch back, and it is written again with each file in a savepoint of its own. The
 * rollback must leave the run as it was: the show its first episode wrote is written
 * again, a moved file still finds the file it was, nothing is counted twice, and a
 * problem is reported once. Real folders, a real SQLite file; the failing write is made
 * by a temporary trigger that refuses one path.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ImportService, type ScanSummary } from '../../src/importer/import.service.js';
import type { ImportRoot } from '../../src/model/import-root.js';
import { type TempLibrary, createTempLibrary, tempDir } from '../support/temp-library.js';

let temp: TempLibrary;
let media: string;
let roots: ImportRoot[];

function put(relative: string, content = 'x'.repeat(100)): string {
  const path = join(media, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return path;
}

const scan = (): Promise<ScanSummary> =>
  new ImportService(temp.db, { logger: pino({ level: 'silent' }), probe: false }).scan(roots);
const itemOf = (relative: string) =>
  temp.db.prepare('SELECT item_id FROM import_files WHERE path = ?').pluck().get(join(media, relative)) as
    | string
    | undefined;
const importedPaths = () =>
  (temp.db.prepare('SELECT path FROM import_files ORDER BY path').pluck().all() as string[]).map((path) =>
    path.slice(media.length + 1),
  );

/** Writes of this file's record (a new one, or a moved one's) fail, as a constraint would make them. */
function refuse(relative: string): void {
  for (const event of ['INSERT', 'UPDATE']) {
    temp.db.exec(
      `CREATE TEMP TRIGGER refuse_${event} BEFORE ${event} ON import_files WHEN NEW.path = '${join(media, relative)}' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
    );
  }
}

function accept(): void {
  for (const event of ['INSERT', 'UPDATE']) temp.db.exec(`DROP TRIGGER temp.refuse_${event}`);
}

beforeEach(() => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  media = tempDir('antenna-batch-rollback-');
  roots = [
    { kind: 'tv', path: join(media, 'TV') },
    { kind: 'videos', path: join(media, 'Videos') },
  ];
});

afterEach(() => {
  temp.close();
  rmSync(media, { recursive: true, force: true });
});

it('leaves out only the file whose write fails, writing its show again, each file counted once and the problems reported once', async () => {
  put('TV/Harbour (2020)/Season 01/Harbour - S01E01 - One.mkv', 'one');
  // An NFO that cannot be read as one: a problem found while writing the episode, in the batch rolled back.
  put('TV/Harbour (2020)/Season 01/Harbour - S01E01 - One.nfo', '<episodedetails><title>One');
  put('TV/Harbour (2020)/Season 01/Harbour - S01E02 - Two.mkv', 'two');
  put('TV/Harbour (2020)/Season 01/Harbour - S01E03 - Three.mkv', 'three');
  refuse('TV/Harbour (2020)/Season 01/Harbour - S01E02 - Two.mkv');

  const summary = await scan();
  expect(importedPaths()).toEqual([
    'TV/Harbour (2020)/Season 01/Harbour - S01E01 - One.mkv',
    'TV/Harbour (2020)/Season 01/Harbour - S01E03 - Three.mkv',
  ]);
  expect(summary).toMatchObject({ added: 2, updated: 0, moved: 0, removed: 0 });
  expect(summary.failed.map(({ path, reason }) => [path.slice(media.length + 1), reason.replace(/:.*/, '')])).toEqual([
    ['TV/Harbour (2020)/Season 01/Harbour - S01E01 - One.nfo', expect.any(String)],
    ['TV/Harbour (2020)/Season 01/Harbour - S01E02 - Two.mkv', 'not imported'],
  ]);
  expect(summary.failed[1]?.reason).toContain('refused by the test');
  // The show the first episode wrote in the rolled-back attempt was written again: both episodes hang from it.
  const shows = temp.db
    .prepare('SELECT s.name, count(i.id) AS episodes FROM shows s JOIN items i ON i.show_id = s.id GROUP BY s.id')
    .all();
  expect(shows).toEqual([{ name: 'Harbour', episodes: 2 }]);

  // Once the write is accepted, the next scan imports it.
  accept();
  expect(await scan()).toMatchObject({ added: 1, unchanged: 2, failed: [] });
  expect(importedPaths()).toHaveLength(3);
});

it('keeps a moved file its item when the batch holding the move is written again', async () => {
  put('Videos/Trips/Lake.mp4', 'lake');
  put('Videos/Trips/Coast.mp4', 'coast');
  await scan();
  const lake = itemOf('Videos/Trips/Lake.mp4');
  expect(lake).toBeDefined();

  // A rescan: the moved file and a new one that fails (after it) are held to the end and written in one batch.
  mkdirSync(join(media, 'Videos', 'Holidays'));
  renameSync(join(media, 'Videos/Trips/Lake.mp4'), join(media, 'Videos/Holidays/Lake.mp4'));
  put('Videos/Holidays/Woods.mp4', 'woods');
  refuse('Videos/Holidays/Woods.mp4');
  const summary = await scan();

  expect(summary).toMatchObject({ added: 0, moved: 1, removed: 0 });
  expect(itemOf('Videos/Holidays/Lake.mp4')).toBe(lake);
  expect(importedPaths()).toEqual(['Videos/Holidays/Lake.mp4', 'Videos/Trips/Coast.mp4']);
  expect(summary.failed.map(({ reason }) => reason)).toEqual([expect.stringContaining('refused by the test')]);
});

it('keeps the item of a moved file whose own write fails, for the next scan to move', async () => {
  put('Videos/Trips/Lake.mp4', 'lake');
  await scan();
  const lake = itemOf('Videos/Trips/Lake.mp4');
  mkdirSync(join(media, 'Videos', 'Holidays'));
  renameSync(join(media, 'Videos/Trips/Lake.mp4'), join(media, 'Videos/Holidays/Lake.mp4'));
  refuse('Videos/Holidays/Lake.mp4');

  // Neither moved nor removed: the item stays where it was recorded, with its watch state.
  const refused = await scan();
  expect(refused).toMatchObject({ added: 0, moved: 0, removed: 0 });
  expect(refused.failed.map(({ reason }) => reason)).toEqual([expect.stringContaining('refused by the test')]);
  expect(itemOf('Videos/Trips/Lake.mp4')).toBe(lake);

  accept();
  expect(await scan()).toMatchObject({ added: 0, moved: 1, removed: 0, failed: [] });
  expect(itemOf('Videos/Holidays/Lake.mp4')).toBe(lake);
});
