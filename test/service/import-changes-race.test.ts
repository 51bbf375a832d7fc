/**
 * A first scan that listed and read a file before a watched change removed it must not
 * write it back afterwards (a CI run found the deleted file in the library again: the
 * walk's batch was being read while the change ran). The interleaving is made certain
 * here: the first scan's reads wait at a gate while the changes run, on real folders and
 * a real SQLite file.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { ImportRoot } from '../../src/model/import-root.js';
import { type TempLibrary, createTempLibrary, tempDir } from '../support/temp-library.js';

/** Reads made while `gate.closed` hand their result on only at `gate.open()`; later ones (the change runs') pass. */
const gate = vi.hoisted(() => {
  let release: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (release = resolve));
  return { closed: true, held: 0, opened, open: () => release() };
});

vi.mock('../../src/importer/file-reads.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/importer/file-reads.js')>();
  return {
    ...original,
    // The file is read, then its write waits: as a busy machine's batch read before a change and written after it.
    readFingerprint: async (path: string, size: number) => {
      const fingerprint = await original.readFingerprint(path, size);
      if (gate.closed) {
        gate.held++;
        await gate.opened;
      }
      return fingerprint;
    },
  };
});

const { ImportService } = await import('../../src/importer/import.service.js');

let temp: TempLibrary;
let media: string;
let videos: ImportRoot;

function put(relative: string, content: string): string {
  const path = join(media, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return path;
}

const paths = () =>
  (
    temp.db
      .prepare('SELECT f.path FROM import_files f JOIN items i ON i.id = f.item_id ORDER BY f.path')
      .pluck()
      .all() as string[]
  ).map((path) => path.slice(media.length));

beforeEach(() => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  media = tempDir('antenna-changes-race-');
  videos = { kind: 'videos', path: join(media, 'Videos') };
  put('Videos/Trips/Lake.mp4', 'lake');
  put('Videos/Trips/Coast.mp4', 'coast');
});

afterEach(() => {
  gate.open();
  temp.close();
  rmSync(media, { recursive: true, force: true });
});

it('a file removed by a watched change while the first scan was reading it is not written back', async () => {
  const importer = new ImportService(temp.db, { logger: pino({ level: 'silent' }), probe: false });
  const walk = importer.reconcile([videos]);
  // The first scan has listed Trips and is reading its files.
  await vi.waitFor(() => expect(gate.held).toBeGreaterThan(0), { timeout: 10_000 });
  gate.closed = false;

  const added = put('Videos/Trips/Forest.mp4', 'forest');
  await importer.applyChanges([{ root: videos, path: added, folder: false }]);
  rmSync(join(media, 'Videos/Trips/Lake.mp4'));
  await importer.applyChanges([{ root: videos, path: join(media, 'Videos/Trips/Lake.mp4'), folder: false }]);
  expect(paths()).toEqual(['/Videos/Trips/Coast.mp4', '/Videos/Trips/Forest.mp4']);

  gate.open();
  const summary = await walk;
  expect(summary.failed).toEqual([]);
  expect(paths()).toEqual(['/Videos/Trips/Coast.mp4', '/Videos/Trips/Forest.mp4']);
  // A file put back at the same path afterwards is imported again.
  const back = put('Videos/Trips/Lake.mp4', 'lake again');
  await importer.applyChanges([{ root: videos, path: back, folder: false }]);
  expect(paths()).toEqual(['/Videos/Trips/Coast.mp4', '/Videos/Trips/Forest.mp4', '/Videos/Trips/Lake.mp4']);
});
