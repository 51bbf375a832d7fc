/**
 * Watched changes imported at once, beside a whole walk under way (ImportService
 * .applyChanges), on real folders and a real SQLite file: added, moved and removed files,
 * roots that are away, and a long reconcile that neither doubles nor resurrects what a
 * change did meanwhile. Probing in the background: items first, durations after.
 */
import { linkSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ImportService } from '../../src/importer/import.service.js';
import type { ImportRoot } from '../../src/model/import-root.js';
import { makeClip } from '../support/media-tree.js';
import { type TempLibrary, createTempLibrary, tempDir } from '../support/temp-library.js';

let temp: TempLibrary;
let media: string;
let videos: ImportRoot;
const silent = pino({ level: 'silent' });

function put(relative: string, content = 'x'.repeat(100)): string {
  const path = join(media, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return path;
}

function items(): { id: string; path: string; duration: number | null }[] {
  return temp.db
    .prepare('SELECT i.id, f.path, i.duration FROM import_files f JOIN items i ON i.id = f.item_id ORDER BY f.path')
    .all() as never;
}

beforeEach(() => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  media = tempDir('antenna-changes-');
  videos = { kind: 'videos', path: join(media, 'Videos') };
  put('Videos/Trips/Lake.mp4', 'lake');
  put('Videos/Trips/Coast.mp4', 'coast');
});

afterEach(() => {
  temp.close();
  rmSync(media, { recursive: true, force: true });
});

describe('ImportService.applyChanges', () => {
  it('adds, moves (same item) and removes what the changes touched', async () => {
    const importer = new ImportService(temp.db, { logger: silent, probe: false });
    await importer.scan([videos]);
    const lake = items().find((item) => item.path.endsWith('Lake.mp4'));

    const added = put('Videos/Trips/Forest.mp4', 'forest');
    expect(await importer.applyChanges([{ root: videos, path: added, folder: false }])).toMatchObject({
      added: 1,
      removed: 0,
    });

    mkdirSync(join(media, 'Videos/Lakes'));
    renameSync(join(media, 'Videos/Trips/Lake.mp4'), join(media, 'Videos/Lakes/Lake.mp4'));
    rmSync(join(media, 'Videos/Trips/Coast.mp4'));
    const summary = await importer.applyChanges([
      { root: videos, path: join(media, 'Videos/Trips/Lake.mp4'), folder: false },
      { root: videos, path: join(media, 'Videos/Lakes'), folder: true },
      { root: videos, path: join(media, 'Videos/Trips/Coast.mp4'), folder: undefined },
    ]);
    expect(summary).toMatchObject({ moved: 1, removed: 1, added: 0 });
    expect(items().map((item) => item.path.slice(media.length))).toEqual([
      '/Videos/Lakes/Lake.mp4',
      '/Videos/Trips/Forest.mp4',
    ]);
    expect(items()[0]?.id).toBe(lake?.id);
  });

  it('removes nothing under a root that is away or empty (an unmounted share)', async () => {
    const importer = new ImportService(temp.db, { logger: silent, probe: false });
    await importer.scan([videos]);
    renameSync(videos.path, `${videos.path}-away`);
    const away = await importer.applyChanges([{ root: videos, path: join(videos.path, 'Trips'), folder: true }]);
    expect(away.removed).toBe(0);
    mkdirSync(videos.path);
    const empty = await importer.applyChanges([{ root: videos, path: join(videos.path, 'Trips'), folder: undefined }]);
    expect(empty).toMatchObject({ removed: 0, skippedRoots: [{ path: videos.path }] });
    expect(items()).toHaveLength(2);
  });

  it('imports beside a long walk under way, which neither doubles nor brings back what the change did', async () => {
    for (let n = 0; n < 3_000; n++) put(`Videos/Bulk ${Math.floor(n / 100)}/Clip ${n}.mp4`, String(n));
    const importer = new ImportService(temp.db, { logger: silent, probe: false });
    const walk = importer.reconcile([videos]);
    // While the walk runs: a new file in, a file out.
    const added = put('Videos/Trips/Forest.mp4', 'forest');
    await importer.applyChanges([{ root: videos, path: added, folder: false }]);
    // In the library at once (with its folder's other files, which the walk has not reached yet).
    expect(items().map((item) => item.path)).toContain(added);
    rmSync(join(media, 'Videos/Trips/Lake.mp4'));
    await importer.applyChanges([{ root: videos, path: join(media, 'Videos/Trips/Lake.mp4'), folder: false }]);
    expect(importer.progress().phase).toMatch(/walking|importing/);
    const summary = await walk;
    expect(summary.failed).toEqual([]);
    const paths = items().map((item) => item.path);
    expect(paths).toHaveLength(3_002);
    expect(new Set(paths).size).toBe(paths.length);
    expect(paths).toContain(added);
    expect(paths.some((path) => path.endsWith('Lake.mp4'))).toBe(false);
    // Nothing left to do: a rescan finds every file as it is.
    expect(await importer.reconcile([videos])).toMatchObject({ added: 0, removed: 0, updated: 0, unchanged: 3_002 });
  });

  it('lists items before probing them, then fills in their durations in the background', async () => {
    makeClip(join(media, 'Videos/Real/Clip.mp4'), { seconds: 2 });
    const importer = new ImportService(temp.db, { logger: silent });
    await importer.reconcile([videos]);
    const real = () => items().find((item) => item.path.endsWith('Clip.mp4'));
    expect(real()).toMatchObject({ duration: null });
    await importer.media.idle();
    expect(real()?.duration).toBeCloseTo(2, 0);
    expect(importer.media.status()).toMatchObject({ running: false, toProbe: 0 });
    expect(importer.media.status().probed).toBeGreaterThanOrEqual(1);
  });

  it('keeps a show’s NFO title and artwork when a season folder is added, and removes two deleted hard links of one file', async () => {
    const tv: ImportRoot = { kind: 'tv', path: join(media, 'TV') };
    put('TV/harbour/tvshow.nfo', '<tvshow><title>Harbour Lights</title></tvshow>');
    put('TV/harbour/Season 01/harbour - S01E01.mkv', 'one');
    const importer = new ImportService(temp.db, { logger: silent, probe: false });
    await importer.scan([tv, videos]);
    const showNames = () => temp.db.prepare('SELECT name FROM shows').pluck().all();
    expect(showNames()).toEqual(['Harbour Lights']);
    put('TV/harbour/Season 02/harbour - S02E01.mkv', 'two');
    expect(
      await importer.applyChanges([{ root: tv, path: join(media, 'TV/harbour/Season 02'), folder: true }]),
    ).toMatchObject({ added: 1 });
    expect(showNames()).toEqual(['Harbour Lights']);

    linkSync(join(media, 'Videos/Trips/Lake.mp4'), join(media, 'Videos/Trips/Lake again.mp4'));
    await importer.applyChanges([{ root: videos, path: join(media, 'Videos/Trips/Lake again.mp4'), folder: false }]);
    rmSync(join(media, 'Videos/Trips/Lake.mp4'));
    rmSync(join(media, 'Videos/Trips/Lake again.mp4'));
    const removed = await importer.applyChanges([
      { root: videos, path: join(media, 'Videos/Trips/Lake.mp4'), folder: false },
      { root: videos, path: join(media, 'Videos/Trips/Lake again.mp4'), folder: false },
    ]);
    expect(removed.removed).toBe(2);
    expect(items().map((item) => item.path.slice(media.length))).toEqual([
      '/TV/harbour/Season 01/harbour - S01E01.mkv',
      '/TV/harbour/Season 02/harbour - S02E01.mkv',
      '/Videos/Trips/Coast.mp4',
    ]);
  });

  it('reads names in any script whole, however the walk’s output is cut into chunks', async () => {
    // Three-byte characters, and messages longer than a pipe's 64 KiB: a chunk boundary falls inside one.
    const long = '夜明けの海と空の記録'.repeat(6);
    const names = Array.from({ length: 5_000 }, (_, n) => `Videos/東京の夜 ${n % 7}/${long} ${n}.mp4`);
    for (const name of names) put(name, name);
    const summary = await new ImportService(temp.db, { logger: silent, probe: false }).scan([videos]);
    expect(summary.failed).toEqual([]);
    expect(summary.added).toBe(5_002);
    const paths = new Set(items().map((item) => item.path));
    for (const name of names) expect(paths.has(join(media, name))).toBe(true);
  });
});
