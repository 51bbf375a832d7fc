/**
 * The importer on real folders and a real SQLite file, probing off (the e2e test
 * probes real media): what a scan adds, what a rescan re-reads, moves that keep
 * watch state, removals, and roots that vanish.
 */
import { mkdirSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ImportService, type ScanSummary } from '../../src/importer/import.service.js';
import type { ImportRoot } from '../../src/model/import-root.js';
import { type TempLibrary, createTempLibrary, tempDir } from '../support/temp-library.js';

let temp: TempLibrary;
let media: string;
let roots: ImportRoot[];

function put(relative: string, content: string | Buffer = 'x'.repeat(100)): string {
  const path = join(media, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return path;
}

function scan(): Promise<ScanSummary> {
  return new ImportService(temp.db, { logger: pino({ level: 'silent' }), probe: false }).scan(roots);
}

function read<T>(text: Buffer | string): T {
  return JSON.parse(text.toString()) as T;
}

interface EpisodeJson {
  id: string;
  show_id: string;
  season_number?: number;
  episode_number?: number;
  episode_title?: string;
  watched: boolean;
  playback_time: number;
  favorited: boolean;
  completed: boolean;
  processed: boolean;
}

function episodes(): EpisodeJson[] {
  const all = read<EpisodeJson[]>(temp.library.listEpisodes({} as never, { baseUrl: 'http://x' }));
  return all.sort(
    (a, b) => (a.season_number ?? 0) - (b.season_number ?? 0) || (a.episode_number ?? 0) - (b.episode_number ?? 0),
  );
}

beforeEach(() => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  media = tempDir('antenna-media-');
  roots = [
    { kind: 'tv', path: join(media, 'TV') },
    { kind: 'movies', path: join(media, 'Movies') },
    { kind: 'videos', path: join(media, 'Videos') },
  ];
  put('TV/Show Name (2005)/Season 01/Show Name - S01E01 - Pilot.mkv', 'pilot');
  put('TV/Show Name (2005)/Season 01/Show Name - S01E02 - Second.mkv', 'second');
  put('TV/Show Name (2005)/Season 01/Show Name - S01E02 - Second.nfo', '<episodedetails/>');
  put('Movies/Quiet Harbor (1999)/Quiet Harbor (1999).mp4', 'movie');
  put('Movies/Quiet Harbor (1999)/Extras/Making Of.mp4', 'extra');
  put('Videos/Holidays/Beach day.mov', 'beach');
  put('Videos/loose clip.webm', 'loose');
});

afterEach(() => {
  temp.close();
  rmSync(media, { recursive: true, force: true });
});

describe('a first scan', () => {
  it('adds episodes under their show, movies and videos under their groups, and counts what it skipped', async () => {
    const summary = await scan();
    expect(summary).toMatchObject({
      added: 5,
      updated: 0,
      removed: 0,
      moved: 0,
      ignored: 1,
      failed: [],
      skippedRoots: [],
    });

    const shows = temp.library.listShows({} as never, { baseUrl: 'http://x' });
    expect(shows).toHaveLength(1);
    expect(shows[0]).toMatchObject({ name: 'Show Name', release_year: 2005, episode_count: 2, number_unwatched: 2 });
    expect(episodes().map((e) => [e.season_number, e.episode_number, e.episode_title])).toEqual([
      [1, 1, 'Pilot'],
      [1, 2, 'Second'],
    ]);
    expect(episodes()[0]).toMatchObject({ completed: true, processed: false });
    expect(
      read<unknown[]>(temp.library.listEpisodes({ source: 'imports' } as never, { baseUrl: 'http://x' })),
    ).toHaveLength(2);

    const movies = read<{ title: string; release_year: number }[]>(
      temp.library.listMovies({} as never, { baseUrl: 'http://x' }),
    );
    expect(movies.map((m) => [m.title, m.release_year])).toEqual([['Quiet Harbor', 1999]]);

    const groups = temp.library.listVideoGroups({} as never, { baseUrl: 'http://x' });
    expect(groups.map((g) => g.name).sort()).toEqual(['Holidays', 'Videos']);
    expect(groups.every((g) => /^videos-[0-9a-f]{16}$/.test(g.id ?? ''))).toBe(true);
  });

  it("gives every item a program_id: its NFO's unique id when there is one, else its own id", async () => {
    put(
      'Movies/Quiet Harbor (1999)/Quiet Harbor (1999).nfo',
      '<movie><uniqueid type="tmdb">4412</uniqueid><uniqueid type="imdb" default="true">tt0000042</uniqueid></movie>',
    );
    await scan();
    const [movie] = read<{ id: string; program_id: string }[]>(
      temp.library.listMovies({} as never, { baseUrl: 'http://x' }),
    );
    expect(movie?.program_id).toBe('tt0000042');
    const pilot = read<{ id: string; program_id: string; episode_title: string; duration: number }[]>(
      temp.library.listEpisodes({} as never, { baseUrl: 'http://x' }),
    ).find((e) => e.episode_title === 'Pilot');
    expect(pilot?.program_id).toBe(pilot?.id);
    expect(pilot?.duration).toBe(0);
  });

  it('gives the same folder the same video group id in another library', async () => {
    await scan();
    const first = temp.library
      .listVideoGroups({} as never, { baseUrl: 'http://x' })
      .map((g) => g.id)
      .sort();
    const other = createTempLibrary();
    try {
      await new ImportService(other.db, { logger: pino({ level: 'silent' }), probe: false }).scan(roots);
      expect(
        other.library
          .listVideoGroups({} as never, { baseUrl: 'http://x' })
          .map((g) => g.id)
          .sort(),
      ).toEqual(first);
    } finally {
      other.close();
    }
  });
});

describe('a rescan', () => {
  it('re-reads nothing when nothing changed, and keeps ids', async () => {
    await scan();
    const ids = episodes().map((e) => e.id);
    const summary = await scan();
    expect(summary).toMatchObject({ added: 0, updated: 0, removed: 0, moved: 0, unchanged: 5 });
    expect(episodes().map((e) => e.id)).toEqual(ids);
  });

  it('updates a changed file in place, keeping its id and watch state', async () => {
    await scan();
    const [pilot] = episodes();
    temp.db.prepare('UPDATE items SET watched = 1, playback_time = 42, favorited = 1 WHERE id = ?').run(pilot?.id);
    const path = put('TV/Show Name (2005)/Season 01/Show Name - S01E01 - Pilot.mkv', 'pilot, re-encoded and longer');
    utimesSync(path, new Date(), new Date(Date.now() + 5000));
    const summary = await scan();
    expect(summary).toMatchObject({ updated: 1, added: 0, removed: 0 });
    expect(episodes()[0]).toMatchObject({ id: pilot?.id, watched: true, playback_time: 42, favorited: true });
  });

  it('keeps a renamed or moved file as the same item, with its watch state', async () => {
    await scan();
    const [pilot] = episodes();
    temp.db.prepare('UPDATE items SET watched = 1, playback_time = 42 WHERE id = ?').run(pilot?.id);
    mkdirSync(join(media, 'TV/Show Name (2005)/Season 1'), { recursive: true });
    renameSync(
      join(media, 'TV/Show Name (2005)/Season 01/Show Name - S01E01 - Pilot.mkv'),
      join(media, 'TV/Show Name (2005)/Season 1/Show Name - S01E01 - The Pilot.mkv'),
    );
    const summary = await scan();
    expect(summary).toMatchObject({ moved: 1, added: 0, removed: 0 });
    expect(episodes()[0]).toMatchObject({
      id: pilot?.id,
      watched: true,
      playback_time: 42,
      episode_title: 'The Pilot',
    });
  });

  it('recognises a copy to another folder and back as the same content', async () => {
    await scan();
    const [pilot] = episodes();
    const from = join(media, 'TV/Show Name (2005)/Season 01/Show Name - S01E01 - Pilot.mkv');
    rmSync(from);
    put('TV/Show Name (2005)/Pilot copy S01E01.mkv', 'pilot'); // same bytes, new inode
    const summary = await scan();
    expect(summary).toMatchObject({ moved: 1, added: 0, removed: 0 });
    expect(episodes().map((e) => e.id)).toContain(pilot?.id);
  });

  it('removes deleted files, and the show once it is empty', async () => {
    put('TV/Other Show/Other Show - S02E01.mkv', 'other');
    await scan();
    rmSync(join(media, 'TV/Show Name (2005)'), { recursive: true });
    const summary = await scan();
    expect(summary).toMatchObject({ removed: 2, added: 0 });
    expect(episodes().map((e) => e.episode_number)).toEqual([1]);
    expect(temp.library.listShows({} as never, { baseUrl: 'http://x' }).map((s) => s.name)).toEqual(['Other Show']);
  });

  it('removes nothing when a root is missing, or empty where it held media (unmounted)', async () => {
    await scan();
    renameSync(join(media, 'TV'), join(media, 'TV-away'));
    const missing = await scan();
    expect(missing.removed).toBe(0);
    expect(missing.skippedRoots.map((r) => r.path)).toEqual([join(media, 'TV')]);
    expect(episodes()).toHaveLength(2);

    mkdirSync(join(media, 'TV')); // the mount point, without the mount
    const unmounted = await scan();
    expect(unmounted.removed).toBe(0);
    expect(unmounted.skippedRoots).toHaveLength(1);
    expect(episodes()).toHaveLength(2);
  });
});

describe('bad input', () => {
  it('reports a symlink loop and an unreadable folder once each, and imports the rest', async () => {
    symlinkSync(join(media, 'TV'), join(media, 'TV/Show Name (2005)/loop'));
    const locked = join(media, 'Videos/Locked');
    mkdirSync(locked);
    put('Videos/Locked/secret.mp4');
    const { chmodSync } = await import('node:fs');
    chmodSync(locked, 0o000);
    try {
      const summary = await scan();
      expect(summary.added).toBeGreaterThanOrEqual(5);
      const reasons = summary.failed.map((f) => f.reason);
      expect(reasons.some((r) => r.includes('loop'))).toBe(true);
      // root ignores permissions; only check the refusal when the walk really was refused
      if (process.getuid?.() !== 0) expect(reasons).toContain('permission denied');
    } finally {
      chmodSync(locked, 0o755);
    }
  });

  it('imports names with newlines and invalid UTF-8 without failing', async () => {
    put('Videos/odd/line\nbreak.mp4');
    const invalid = Buffer.concat([
      Buffer.from(join(media, 'Videos/odd/')),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('.mp4'),
    ]);
    writeFileSync(invalid, 'bytes');
    const summary = await scan();
    expect(summary.added).toBe(6);
    expect(summary.failed).toHaveLength(1);
    expect(summary.failed[0]?.reason).toMatch(/not valid UTF-8/);
    const videos = read<{ video_title: string }[]>(temp.library.listVideos({} as never, { baseUrl: 'http://x' }));
    expect(videos.map((v) => v.video_title)).toContain('line\nbreak');
  });
});

describe('files that change kind, and folders that cannot be read', () => {
  it('makes a file moved from a TV root into a movies root a new movie, and scans on', async () => {
    await scan();
    renameSync(
      join(media, 'TV/Show Name (2005)/Season 01/Show Name - S01E02 - Second.mkv'),
      join(media, 'Movies/Second (2010).mkv'),
    );
    const summary = await scan();
    expect(summary).toMatchObject({ added: 1, removed: 1, moved: 0 });
    expect(summary.failed).toEqual([]);
    const movies = read<{ title: string }[]>(temp.library.listMovies({} as never, { baseUrl: 'http://x' }));
    expect(movies.map((m) => m.title).sort()).toEqual(['Quiet Harbor', 'Second']);
  });

  it('replaces the items of a folder that was a videos root and is now a movies root', async () => {
    await scan();
    roots = roots.map((root) => (root.kind === 'videos' ? { kind: 'movies', path: root.path } : root));
    put('Videos/Holidays/Beach day.mov', 'beach, edited');
    utimesSync(join(media, 'Videos/Holidays/Beach day.mov'), new Date(), new Date(Date.now() + 5000));
    const summary = await scan();
    expect(summary.failed).toEqual([]);
    // A movie in a folder without a year is named after the folder; one in the root after its file.
    const titles = read<{ title: string }[]>(temp.library.listMovies({} as never, { baseUrl: 'http://x' })).map(
      (m) => m.title,
    );
    expect(titles.sort()).toEqual(['Holidays', 'Quiet Harbor', 'loose clip']);
    expect(read<unknown[]>(temp.library.listVideos({} as never, { baseUrl: 'http://x' }))).toEqual([]);
    expect(temp.library.listVideoGroups({} as never, { baseUrl: 'http://x' })).toEqual([]);
  });

  it('keeps what it imported from a folder it can no longer read', async () => {
    await scan();
    // A season folder that cannot be read (here: replaced by a link to itself, ELOOP;
    // permissions cannot stand in, since tests may run as root).
    const season = join(media, 'TV/Show Name (2005)/Season 01');
    renameSync(season, join(media, 'elsewhere'));
    symlinkSync(season, season);
    const summary = await scan();
    expect(summary.removed).toBe(0);
    expect(summary.failed.some((f) => f.path === season)).toBe(true);
    expect(episodes()).toHaveLength(2);
  });
});
