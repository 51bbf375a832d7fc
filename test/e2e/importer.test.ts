/**
 * The importer end to end: real media made by ffmpeg, `antenna server` as a process
 * scanning it, interface A read field by field; the watcher; `antenna scan`; and
 * the promise that nothing under an import root is ever changed.
 */
import { copyFileSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chaptersOf } from '../../src/repositories/library/import-files.repository.js';
import { makeClip, makeImage, snapshotTree, writeText } from '../support/media-tree.js';
import { runAntenna, type StartedServer, startAntennaServer } from '../support/server-process.js';
import { tempDir } from '../support/temp-library.js';

let media: string;
let data: string;
let server: StartedServer;
let before: ReturnType<typeof snapshotTree>;

type Json = Record<string, unknown>;

async function get<T = Json>(path: string): Promise<T> {
  const response = await fetch(server.url + path);
  expect(response.headers.get('content-type')).toMatch(/json/);
  return (await response.json()) as T;
}

/** Waits until the server is idle after at least `scans` finished scans' worth of progress. */
async function scanSettled(predicate: (status: Json) => boolean = () => true, timeoutMs = 30_000): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await get('/status');
    const scan = status.scan as Json | undefined;
    if (scan && scan.running === false && scan.last && predicate(status)) return status;
    if (Date.now() > deadline) throw new Error(`scan did not settle: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function until<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  timeoutMs: number,
): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (ok(value)) return { value, ms: Date.now() - started };
    if (Date.now() - started > timeoutMs)
      throw new Error(`condition not met in ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  media = tempDir('antenna-media-');
  data = join(tempDir('antenna-data-'), 'data');
  const show = join(media, 'TV/Harbour Lights (2019)');
  makeClip(join(show, 'Season 01/Harbour Lights - S01E01 - Arrival.mkv'), { width: 1280, height: 720, chapters: true });
  makeClip(join(show, 'Season 01/Harbour Lights - S01E02E03 - Fog.mkv'));
  writeText(
    join(show, 'Season 01/Harbour Lights - S01E01 - Arrival.nfo'),
    '<episodedetails><title>Arrival</title><plot>The keepers arrive.</plot><aired>2019-04-02</aired><director>J. Doe</director></episodedetails>',
  );
  writeText(
    join(show, 'tvshow.nfo'),
    '<tvshow><title>Harbour Lights</title><plot>Two keepers.</plot><genre>Drama</genre><premiered>2019-04-02</premiered></tvshow>',
  );
  makeImage(join(show, 'poster.jpg'));
  makeClip(join(media, 'Movies/Quiet Harbor (1999)/Quiet Harbor (1999).mkv'), { audio: 'ac3-5.1' });
  writeText(
    join(media, 'Movies/Quiet Harbor (1999)/movie.nfo'),
    '<movie><title>Quiet Harbor</title><plot>A calm film.</plot><mpaa>PG</mpaa><set><name>Harbor Films</name></set><genre>Drama</genre><tag>calm</tag></movie>',
  );
  makeImage(join(media, 'Movies/Quiet Harbor (1999)/poster.jpg'));
  makeClip(join(media, 'Movies/Quiet Harbor (1999)/Extras/Making of.mkv'));
  writeFileSync(join(media, 'Movies/Broken (2001).mkv'), Buffer.alloc(4096, 7)); // not media at all
  writeFileSync(join(media, 'Movies/Empty (2002).mkv'), ''); // zero bytes
  // The first half of a real file, as an interrupted copy leaves it.
  const whole = join(media, 'Videos/Holidays/Sunset.mp4');
  makeClip(whole, { seconds: 2 });
  const bytes = readFileSync(whole);
  writeFileSync(whole, bytes.subarray(0, Math.floor(bytes.length / 2)));
  makeClip(join(media, 'Videos/Holidays/Beach day.mp4'));
  writeText(join(media, 'Videos/Holidays/Beach day.nfo'), '<movie><title>broken</movie>'); // malformed
  before = snapshotTree(media);

  server = await startAntennaServer([
    '--data',
    data,
    '--tv',
    join(media, 'TV'),
    '--movies',
    join(media, 'Movies'),
    '--videos',
    join(media, 'Videos'),
  ]);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(media, { recursive: true, force: true });
});

describe('a scanned library in interface A', () => {
  it('answers at once and reports the scan in /status', async () => {
    const status = await scanSettled();
    const last = (status.scan as Json).last as Json;
    expect(last).toMatchObject({ added: 7, removed: 0 });
    // The two movies that are not media, the malformed NFO; the truncated clip may or may not be readable.
    expect(last.failed).toBeGreaterThanOrEqual(3);
  });

  it('has the show from its folder and tvshow.nfo, with its poster served', async () => {
    const [show] = await get<Json[]>('/api/v1/shows');
    expect(show).toMatchObject({
      name: 'Harbour Lights',
      summary: 'Two keepers.',
      genres: ['Drama'],
      release_year: 2019,
      release_date: '2019-04-02',
      episode_count: 2,
      number_unwatched: 2,
    });
    const image = await fetch(String(show?.image_url));
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/jpeg');
    expect((await image.arrayBuffer()).byteLength).toBeGreaterThan(100);
  });

  it('has the episodes with numbers, NFO fields and what ffprobe found', async () => {
    const show = (await get<Json[]>('/api/v1/shows'))[0] as Json;
    const episodes = await get<Json[]>(`/api/v1/shows/${show.id}/episodes`);
    expect(episodes.map((e) => [e.season_number, e.episode_number, e.episode_title])).toEqual([
      [1, 1, 'Arrival'],
      [1, 2, 'Fog'],
    ]);
    expect(episodes[0]).toMatchObject({
      summary: 'The keepers arrive.',
      original_air_date: '2019-04-02',
      directors: ['J. Doe'],
      tags: ['HD'],
      completed: true,
      processed: true,
      corrupted: false,
      watched: false,
    });
    expect(Number(episodes[0]?.duration)).toBeCloseTo(1, 0);
    expect(episodes[1]).toMatchObject({ tags: ['SD'], processed: true });
    // The chapters ffprobe found are kept for the player's skip.
    const db = new Database(join(data, 'antenna.db'), { readonly: true });
    try {
      expect(chaptersOf(db, String(episodes[0]?.id))).toEqual([
        { start: 0, end: 0.5, title: 'Cold open' },
        { start: 0.5, end: 1, title: 'Story' },
      ]);
    } finally {
      db.close();
    }
  });

  it('has a thumbnail per item, made under the data directory and served by the server', async () => {
    const videos = await get<Json[]>('/api/v1/videos');
    const movies = await get<Json[]>('/api/v1/movies');
    const thumbnailUrl = String(videos.find((v) => v.video_title === 'Beach day')?.thumbnail_url);
    expect(thumbnailUrl).toMatch(/\/thumbnails\//);
    const image = await fetch(thumbnailUrl);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/jpeg');
    const bytes = Buffer.from(await image.arrayBuffer());
    expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8])); // a JPEG
    // The unreadable file gets none.
    expect(movies.find((m) => m.title === 'Broken')?.thumbnail_url).toBeUndefined();
    expect((await fetch(`${server.url}/thumbnails/no-such-item`)).status).toBe(404);
  });

  it('has the movie with its NFO, collection, audio tags and poster; extras are not movies', async () => {
    const movies = await get<Json[]>('/api/v1/movies');
    const titles = movies.map((m) => m.title).sort();
    expect(titles).toEqual(['Broken', 'Empty', 'Quiet Harbor']);
    expect(movies.find((m) => m.title === 'Empty')).toMatchObject({ corrupted: true, processed: true });
    const movie = movies.find((m) => m.title === 'Quiet Harbor') as Json;
    expect(movie).toMatchObject({
      release_year: 1999,
      summary: 'A calm film.',
      content_rating: 'PG',
      genres: ['Drama'],
      labels: ['calm'],
      corrupted: false,
    });
    expect(movie.tags).toEqual(['SD', 'Dolby Digital', '5.1']);
    // What the file holds, as the probe read it (in-process: ts-ebml for Matroska), for players and the app.
    const file = await get<{ file: Json }>(`/dvr/files/${encodeURIComponent(String(movie.id))}`);
    expect(file.file.media).toMatchObject({
      container: 'matroska',
      video: { codec: 'h264' },
      audio: [{ codec: 'ac3', channels: 6 }],
      subtitles: [],
      closedCaptions: false,
    });
    expect((await fetch(String(movie.image_url))).status).toBe(200);
    const broken = movies.find((m) => m.title === 'Broken') as Json;
    expect(broken).toMatchObject({ corrupted: true, processed: true });
    const collections = await get<Json[]>('/api/v1/collections');
    const set = collections.find((c) => c.name === 'Harbor Films') as Json;
    expect(set).toMatchObject({ collection_type: 'movies', content_count: 1 });
  });

  it('has the video in a group named after its folder, imported by name despite a malformed NFO', async () => {
    const groups = await get<Json[]>('/api/v1/video_groups');
    expect(groups.map((g) => g.name)).toEqual(['Holidays']);
    const videos = await get<Json[]>(`/api/v1/video_groups/${groups[0]?.id}/videos`);
    expect(videos.map((v) => v.video_title).sort()).toEqual(['Beach day', 'Sunset']);
  });

  it('changed nothing under the import roots', () => {
    expect(snapshotTree(media)).toEqual(before);
  });
});

describe('watching the roots', () => {
  it('shows a copied file within 5 s, keeps a renamed one as the same item, and drops a deleted one', async () => {
    await scanSettled();
    const target = join(media, 'Videos/Holidays/Harbour walk.mp4');
    copyFileSync(join(media, 'Videos/Holidays/Beach day.mp4'), `${target}.tmp`);
    const copied = Date.now();
    renameSync(`${target}.tmp`, target);
    const titles = () => get<Json[]>('/api/v1/videos').then((videos) => videos.map((v) => v.video_title));
    const seen = await until(titles, (list) => list.includes('Harbour walk'), 5_000);
    expect(Date.now() - copied).toBeLessThanOrEqual(5_000);
    expect(seen.value).toContain('Harbour walk');

    const idOf = async (title: string) =>
      ((await get<Json[]>('/api/v1/videos')).find((v) => v.video_title === title) as Json).id;
    const id = await idOf('Beach day');
    renameSync(join(media, 'Videos/Holidays/Beach day.mp4'), join(media, 'Videos/Holidays/Beach day (2024).mp4'));
    await until(titles, (list) => list.includes('Beach day (2024)') && !list.includes('Beach day'), 8_000);
    expect(await idOf('Beach day (2024)')).toBe(id);

    rmSync(target);
    await until(titles, (list) => !list.includes('Harbour walk'), 8_000);

    // A file replaced by a longer one is probed again, under the same id.
    const replaced = join(media, 'Videos/Holidays/Beach day (2024).mp4');
    const hidden = join(media, 'Videos/Holidays/.replacing.mp4'); // hidden: neither watched nor imported
    makeClip(hidden, { seconds: 3 });
    renameSync(hidden, replaced);
    const duration = async () =>
      Number(((await get<Json[]>('/api/v1/videos')).find((v) => v.id === id) as Json | undefined)?.duration);
    await until(duration, (seconds) => seconds > 2.5, 8_000);
  });

  it('removes nothing when a root disappears (an unmounted disk)', async () => {
    await scanSettled();
    const count = (await get<Json[]>('/api/v1/movies')).length;
    renameSync(join(media, 'Movies'), join(media, 'Movies-away'));
    try {
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      await scanSettled();
      expect((await get<Json[]>('/api/v1/movies')).length).toBe(count);
    } finally {
      renameSync(join(media, 'Movies-away'), join(media, 'Movies'));
    }
  });
});

describe('antenna scan', () => {
  it('scans once, prints a JSON summary and exits 0; a second run finds nothing changed', async () => {
    const scanData = join(tempDir('antenna-scan-'), 'data');
    const args = ['scan', '--data', scanData, '--tv', join(media, 'TV'), '--json'];
    const first = await runAntenna(args).done;
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ added: 2, removed: 0, probed: 2, failed: [] });
    const second = await runAntenna(args).done;
    expect(JSON.parse(second.stdout)).toMatchObject({ added: 0, updated: 0, unchanged: 2, probed: 0 });
    const human = await runAntenna(args.slice(0, -1)).done;
    expect(human.stdout).toMatch(/^Scan finished in [\d.]+ s: 0 added, 0 updated, 0 moved, 0 removed, 2 unchanged/);
  });
});
