/**
 * Every read of a library file goes through one checked open (PathBoundary.open): what
 * was opened is what was checked, whatever the path turns into afterwards. On real
 * folders and links, a named pipe, and the importer's probing queue on a real SQLite
 * file with real ffprobe, where a file swapped for a link after the walk is not read.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PathBoundary } from '../../src/common/path-boundary.js';
import { ImportService } from '../../src/importer/import.service.js';
import { MediaQueue } from '../../src/importer/media-queue.js';
import type { ImportRoot } from '../../src/model/import-root.js';
import { makeClip } from '../support/media-tree.js';
import { type TempLibrary, createTempLibrary, tempDir } from '../support/temp-library.js';

let base: string;
let inside: string;
let outside: string;
let boundary: PathBoundary;
const opened: { handle: { close(): Promise<void> } }[] = [];

beforeEach(() => {
  base = tempDir('antenna-opening-');
  inside = join(base, 'library');
  outside = join(base, 'outside');
  mkdirSync(inside, { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(inside, 'film.mkv'), 'inside');
  writeFileSync(join(outside, 'secret'), 'secret');
  boundary = new PathBoundary(() => [inside]);
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((file) => file.handle.close()));
});

async function open(path: string, on = boundary) {
  const opening = await on.open(path);
  if (opening.ok) opened.push(opening.file);
  return opening;
}

describe('PathBoundary.open', () => {
  it('opens a file inside, naming its real path and its identity', async () => {
    const opening = await open(join(inside, 'film.mkv'));
    if (!opening.ok) throw new Error(opening.reason);
    expect(opening.file.realPath).toBe(join(inside, 'film.mkv'));
    expect(opening.file.identity).toMatch(/^\d+:\d+$/);
    expect(readFileSync(`/proc/self/fd/${opening.file.fd}`, 'utf8')).toBe('inside');
  });

  it('refuses a link leading out, follows one that stays inside, and opens a link out only when links may go anywhere', async () => {
    symlinkSync(join(outside, 'secret'), join(inside, 'out.mkv'));
    symlinkSync(join(inside, 'film.mkv'), join(inside, 'alias.mkv'));
    expect(await open(join(inside, 'out.mkv'))).toMatchObject({ ok: false, reason: 'outside' });
    expect(await open(join(inside, 'alias.mkv'))).toMatchObject({
      ok: true,
      file: { realPath: join(inside, 'film.mkv'), knownAs: join(inside, 'alias.mkv') },
    });
    expect(await open(join(inside, 'out.mkv'), new PathBoundary(() => [inside], true))).toMatchObject({ ok: true });
  });

  it('refuses a named pipe, a folder and a missing file at once, without waiting on the pipe', async () => {
    execFileSync('mkfifo', [join(inside, 'pipe.mkv')]);
    mkdirSync(join(inside, 'folder.mkv'));
    const started = Date.now();
    expect(await open(join(inside, 'pipe.mkv'))).toMatchObject({ ok: false, reason: 'not_a_file' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await open(join(inside, 'folder.mkv'))).toMatchObject({ ok: false, reason: 'not_a_file' });
    expect(await open(join(inside, 'gone.mkv'))).toMatchObject({ ok: false, reason: 'missing' });
  });

  it('keeps reading the file it opened after its name is swapped for a link out', async () => {
    const opening = await open(join(inside, 'film.mkv'));
    if (!opening.ok) throw new Error(opening.reason);
    renameSync(join(inside, 'film.mkv'), join(inside, 'film.away'));
    symlinkSync(join(outside, 'secret'), join(inside, 'film.mkv'));
    // What a program given the descriptor as /dev/fd/3 reads: the file checked.
    expect(readFileSync(`/proc/self/fd/${opening.file.fd}`, 'utf8')).toBe('inside');
    expect(await open(join(inside, 'film.mkv'))).toMatchObject({ ok: false, reason: 'outside' });
  });
});

describe('probing reads only what the boundary admits now', () => {
  let temp: TempLibrary;

  beforeEach(() => {
    temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  });

  afterEach(() => {
    temp.db.close();
  });

  it('does not probe or take a thumbnail of a file swapped for a link out after the walk, and probes the rest', async () => {
    const movies = join(base, 'movies');
    makeClip(join(movies, 'Kept (2001).mkv'));
    makeClip(join(movies, 'Swapped (2002).mkv'));
    makeClip(join(outside, 'secret.mkv'), { width: 320, height: 80 });
    const roots: ImportRoot[] = [{ kind: 'movies', path: movies }];
    await new ImportService(temp.db, { logger: pino({ level: 'silent' }), probe: false }).scan(roots);
    renameSync(join(movies, 'Swapped (2002).mkv'), join(base, 'swapped.away'));
    symlinkSync(join(outside, 'secret.mkv'), join(movies, 'Swapped (2002).mkv'));

    const problems: { path: string; reason: string }[] = [];
    const thumbnails = join(base, 'thumbnails');
    const queue = new MediaQueue(temp.db, {
      logger: pino({ level: 'silent' }),
      boundary: PathBoundary.forLibrary(roots, join(base, 'recordings'), false),
      thumbnailsDir: thumbnails,
    });
    queue.onProblem((path, reason) => problems.push({ path, reason }));
    queue.wake([movies]);
    await queue.idle();

    const rows = temp.db
      .prepare(
        'SELECT f.path, i.duration, i.corrupted, f.problem, f.thumbnail FROM import_files f JOIN items i ON i.id = f.item_id ORDER BY f.path',
      )
      .all() as {
      path: string;
      duration: number | null;
      corrupted: number;
      problem: string | null;
      thumbnail: string | null;
    }[];
    const [kept, swapped] = rows;
    expect(kept).toMatchObject({ corrupted: 0, problem: null, thumbnail: expect.stringContaining(thumbnails) });
    expect(kept?.duration).toBeCloseTo(1, 0);
    expect(swapped).toMatchObject({ duration: null, corrupted: 1, thumbnail: null });
    expect(swapped?.problem).toMatch(/leads outside the import roots/);
    expect(problems.map((p) => p.path)).toEqual([join(movies, 'Swapped (2002).mkv')]);
  }, 60_000);
});
