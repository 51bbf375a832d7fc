/**
 * Nothing outside the library is ever read, whatever a file in it turns into (issue 36):
 * `antenna server` as a process over real folders holding a long film whose file is
 * swapped for a link to a secret mid-session, text files that are playlists, concat
 * lists and SDP pointing at the secret, a copy cut short, and a clip swapped for a link
 * after its import. Every route that reads a library file is asked about every item,
 * and what comes back is checked by content: the secret has a marker in its bytes and
 * a picture no library file has (320x80), so neither its bytes nor anything ffmpeg made
 * of it (a segment, a thumbnail) can pass unseen, whatever the status code.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClip, writeText } from '../support/media-tree.js';
import { type StartedServer, startAntennaServer } from '../support/server-process.js';
import { tempDir } from '../support/temp-library.js';

type Json = Record<string, unknown>;
type Movie = {
  id: string;
  title: string;
  duration?: number;
  corrupted?: boolean;
  thumbnail_url?: string;
  image_url?: string;
};

const MARKER = 'ANTENNA-SECRET-7F3A';
const SECRET_SIZE = { width: 320, height: 80 };
let base: string;
let secret: string;
let movies: string;
let server: StartedServer;
let status: Json;

function ffmpeg(args: string[]): void {
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
}

async function get(path: string): Promise<{ status: number; type: string; body: Buffer; json: Json }> {
  const response = await fetch(path.startsWith('http') ? path : server.url + path);
  const body = Buffer.from(await response.arrayBuffer());
  let json: Json = {};
  try {
    json = JSON.parse(body.toString('utf8')) as Json;
  } catch {
    // a media body
  }
  return { status: response.status, type: response.headers.get('content-type') ?? '', body, json };
}

/** The picture size of media or image bytes, as ffprobe reads them (undefined when it reads none). */
function pictureOf(bytes: Buffer): { width: number; height: number } | undefined {
  const file = join(base, `probe-${createHash('sha1').update(bytes).digest('hex')}`);
  writeFileSync(file, bytes);
  try {
    const out = execFileSync('ffprobe', [
      '-v',
      'error',
      '-select_streams',
      'v:0',
      '-show_entries',
      'stream=width,height',
      '-of',
      'json',
      file,
    ]).toString();
    const stream = (JSON.parse(out) as { streams?: { width: number; height: number }[] }).streams?.[0];
    return stream ? { width: stream.width, height: stream.height } : undefined;
  } catch {
    return undefined;
  } finally {
    rmSync(file, { force: true });
  }
}

/** Fails when bytes are, or were made from, the secret. */
function expectNotSecret(bytes: Buffer, what: string): void {
  expect(bytes.includes(MARKER), `${what} holds the secret's bytes`).toBe(false);
  // Playlists, subtitles and JSON are text: their marker check is the whole check.
  if (/^(#EXTM3U|WEBVTT|\{)/.test(bytes.subarray(0, 8).toString('latin1'))) return;
  const picture = pictureOf(bytes);
  if (picture)
    expect(picture.width / picture.height, `${what} shows the secret's picture`).not.toBeCloseTo(
      SECRET_SIZE.width / SECRET_SIZE.height,
      1,
    );
}

async function scanned(): Promise<Json> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const current = (await get('/status')).json;
    const scan = current.scan as Json | undefined;
    if (scan?.last && scan.running === false && scan.to_probe === 0) return current;
    if (Date.now() > deadline) throw new Error(`the scan did not finish: ${JSON.stringify(current)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function movieList(): Promise<Movie[]> {
  return (await get('/api/v1/movies')).json as unknown as Movie[];
}

async function movieNamed(title: string): Promise<Movie> {
  const movie = (await movieList()).find((m) => m.title === title);
  if (!movie) throw new Error(`no movie ${title}: ${JSON.stringify(await movieList())}`);
  return movie;
}

/** The URLs a playlist lists, resolved against it. */
function listed(playlist: string, url: string): string[] {
  return playlist
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => new URL(line, url).href);
}

beforeAll(async () => {
  base = tempDir('antenna-library-reads-');
  movies = join(base, 'movies');
  secret = join(base, 'outside', 'secret.mkv');
  mkdirSync(join(base, 'outside'), { recursive: true });
  mkdirSync(join(movies, 'Long Film (2015)'), { recursive: true });
  // The secret: a picture no library file has, and a marker in its bytes (its title tag is stored as text).
  ffmpeg([
    '-f',
    'lavfi',
    '-i',
    `color=c=red:size=${SECRET_SIZE.width}x${SECRET_SIZE.height}:rate=2:duration=600`,
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-g',
    '10',
    '-metadata',
    `title=${MARKER}`,
    secret,
  ]);
  // Ten minutes: segment 90 exists, far enough ahead of a transcode that asking for it restarts ffmpeg there.
  ffmpeg([
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=320x240:rate=5:duration=600',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-g',
    '30',
    join(movies, 'Long Film (2015)', 'Long Film (2015).mkv'),
  ]);
  writeText(
    join(movies, 'Playlist (2013).ts'),
    `#EXTM3U\n#EXT-X-TARGETDURATION:600\n#EXTINF:600,\nfile:${secret}\n#EXTINF:600,\n${secret}\n#EXT-X-ENDLIST\n`,
  );
  writeText(join(movies, 'Concat (2014).mkv'), `ffconcat version 1.0\nfile '${secret}'\n`);
  writeText(join(movies, 'Listed (2012).mp4'), `#EXTM3U\n#EXTINF:40,secret\n${secret}\n`);
  writeText(
    join(movies, 'Session (2016).mp4'),
    `v=0\no=- 0 0 IN IP4 127.0.0.1\ns=x\nc=IN IP4 127.0.0.1\nt=0 0\nm=video 5004 RTP/AVP 96\na=rtpmap:96 H264/90000\n`,
  );
  // A 20 s film of which only the first 60 KB arrived.
  const whole = join(base, 'whole.mkv');
  makeClip(whole, { seconds: 20 });
  writeFileSync(join(movies, 'Cut Short (2018).mkv'), execFileSync('head', ['-c', '61440', whole]));
  // A clip with subtitles, swapped for a link to the secret after its import.
  const plain = join(base, 'plain.mkv');
  makeClip(plain, { seconds: 12 });
  writeText(join(base, 'subs.srt'), '1\n00:00:01,000 --> 00:00:05,000\nHello\n');
  ffmpeg([
    '-i',
    plain,
    '-i',
    join(base, 'subs.srt'),
    '-map',
    '0',
    '-map',
    '1',
    '-c',
    'copy',
    '-c:s',
    'srt',
    join(movies, 'Swapped (2019).mkv'),
  ]);

  server = await startAntennaServer([
    '--data',
    join(base, 'data'),
    '--movies',
    movies,
    '--no-sample',
    '--guide-refresh',
    '0',
    '--rescan-interval',
    '0',
  ]);
  status = await scanned();
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

describe('a live HLS session reads the file it opened', () => {
  it('serves a far segment of the film it began, not the link swapped in for it mid-session; new requests are refused', async () => {
    const film = await movieNamed('Long Film');
    const masterUrl = `${server.url}/dvr/files/${film.id}/hls/master.m3u8`;
    const master = await get(masterUrl);
    expect(master.status).toBe(200);
    // A transcode: a remux of so small a film would be written whole before the swap, and nothing restarted.
    const variantUrl = listed(master.body.toString(), masterUrl).find((url) => !url.includes('/remux/')) as string;
    const playlist = await get(variantUrl);
    const segments = listed(playlist.body.toString(), variantUrl);
    expect(segments.length).toBeGreaterThan(90);
    expect((await get(segments[0] as string)).status).toBe(200);

    const path = join(movies, 'Long Film (2015)', 'Long Film (2015).mkv');
    renameSync(path, `${path}.away`);
    symlinkSync(secret, path);
    try {
      const far = await get(segments[90] as string);
      expect(far.status).toBe(200);
      expect(far.type).toMatch(/video\/mp2t/);
      expectNotSecret(far.body, 'segment 90');
      const picture = pictureOf(far.body);
      expect((picture?.width ?? 0) / (picture?.height ?? 1)).toBeCloseTo(4 / 3, 1);
      const stream = await get(`/dvr/files/${film.id}/stream`);
      expect(stream.status).toBe(403);
      expectNotSecret(stream.body, '/stream');
      const again = await get(masterUrl);
      expect(again.status).toBe(403);
      expect(again.json).toMatchObject({ status: 403, code: 'outside_library' });
    } finally {
      rmSync(path);
      renameSync(`${path}.away`, path);
    }
  }, 120_000);
});

describe('files that point at other files', () => {
  it.each(['Playlist', 'Concat', 'Listed', 'Session'])(
    'imports %s as not media, saying it is a playlist or reference file, and serves nothing of it',
    async (title) => {
      const movie = await movieNamed(title);
      expect(movie.corrupted).toBe(true);
      expect(movie.duration ?? 0).toBe(0);
      expect(movie.thumbnail_url).toBeUndefined();
      const notMedia = (status.scan as { not_media: { files: { id: string; reason: string }[] } }).not_media.files;
      expect(notMedia.find((file) => file.id === movie.id)?.reason).toMatch(
        /playlist or reference file|could not read it/,
      );
      for (const route of [`/dvr/files/${movie.id}/stream`, `/dvr/files/${movie.id}/hls/master.m3u8`]) {
        const answer = await get(route);
        expect(answer.status, route).toBe(409);
        expect(answer.json).toMatchObject({ code: 'not_media' });
      }
    },
  );

  it('names the HLS playlist for what it is', async () => {
    const movie = await movieNamed('Playlist');
    const notMedia = (status.scan as { not_media: { files: { id: string; reason: string }[] } }).not_media.files;
    expect(notMedia.find((file) => file.id === movie.id)?.reason).toMatch(/playlist or reference file/);
  });
});

describe('a copy cut short', () => {
  it('is imported as corrupted, with the length its data plays, not the 20 s its container declares', async () => {
    const movie = await movieNamed('Cut Short');
    expect(movie.corrupted).toBe(true);
    expect(movie.duration).toBeGreaterThan(1);
    expect(movie.duration).toBeLessThan(10);
    const problems = ((status.scan as Json).last as { problems: { path: string; reason: string }[] }).problems;
    expect(problems.find((p) => p.path.endsWith('Cut Short (2018).mkv'))?.reason).toMatch(/cut short/);
    expect((status.scan as { not_media: { files: { id: string }[] } }).not_media.files.map((f) => f.id)).not.toContain(
      movie.id,
    );
  });

  it.each(['remux', 'transcode'])(
    'plays as HLS (%s) only as far as its data goes: no empty and no repeated segments',
    async (mode) => {
      const movie = await movieNamed('Cut Short');
      const masterUrl = `${server.url}/dvr/files/${movie.id}/hls/master.m3u8${mode === 'remux' ? '?encoder=remux' : ''}`;
      const master = await get(masterUrl);
      expect(master.status).toBe(200);
      const variants = listed(master.body.toString(), masterUrl);
      const variantUrl = (mode === 'remux' ? variants[0] : variants.find((url) => !url.includes('/remux/'))) as string;
      const playlist = (await get(variantUrl)).body.toString();
      const listedSeconds = [...playlist.matchAll(/#EXTINF:([\d.]+)/g)].reduce(
        (sum, match) => sum + Number(match[1]),
        0,
      );
      expect(listedSeconds).toBeLessThanOrEqual((movie.duration ?? 0) + 0.5);
      expect(playlist).toContain('#EXT-X-ENDLIST');
      const hashes = new Set<string>();
      for (const url of listed(playlist, variantUrl)) {
        const segment = await get(url);
        expect(segment.status, url).toBe(200);
        expect(segment.body.length, url).toBeGreaterThan(1000);
        hashes.add(createHash('sha1').update(segment.body).digest('hex'));
      }
      expect(hashes.size).toBe(listed(playlist, variantUrl).length);
    },
    60_000,
  );
});

describe('every route that reads a library file, for every item, after a file became a link to the secret', () => {
  /**
   * The bodies a client can get for an item: its file, its HLS (master, variants, first and last segments, subtitles),
   * its images.
   */
  async function everythingOf(id: string): Promise<{ what: string; status: number; body: Buffer }[]> {
    const answers: { what: string; status: number; body: Buffer }[] = [];
    const take = async (what: string, url: string) => {
      const answer = await get(url);
      answers.push({ what, status: answer.status, body: answer.body });
      return answer;
    };
    for (const route of ['stream', 'preview.jpg']) await take(route, `/dvr/files/${id}/${route}`);
    await take('thumbnail', `/thumbnails/${id}`);
    await take('artwork', `/artwork/${id}`);
    for (const query of ['?encoder=remux', '']) {
      const masterUrl = `${server.url}/dvr/files/${id}/hls/master.m3u8${query}`;
      const master = await take(`master${query}`, masterUrl);
      if (master.status !== 200) continue;
      for (const variantUrl of listed(master.body.toString(), masterUrl).slice(0, 2)) {
        const playlist = await take(variantUrl, variantUrl);
        const segments = listed(playlist.body.toString(), variantUrl);
        for (const url of [segments[0], segments.at(-1)]) if (url) await take(url, url);
      }
      for (const match of master.body.toString().matchAll(/URI="([^"]+)"/g)) {
        const subtitleUrl = new URL(match[1] as string, masterUrl).href;
        const playlist = await take(subtitleUrl, subtitleUrl);
        for (const url of listed(playlist.body.toString(), subtitleUrl)) await take(url, url);
      }
    }
    return answers;
  }

  it('never answers with the secret or anything made of it', async () => {
    const swapped = join(movies, 'Swapped (2019).mkv');
    // Listed before the swap, the swapped one first: the watcher drops it from the library within seconds (its link
    // leads out).
    const items = (await movieList()).sort((a, b) => Number(b.title === 'Swapped') - Number(a.title === 'Swapped'));
    expect(items.map((item) => item.title)).toEqual([
      'Swapped',
      'Concat',
      'Cut Short',
      'Listed',
      'Long Film',
      'Playlist',
      'Session',
    ]);
    renameSync(swapped, `${swapped}.away`);
    symlinkSync(secret, swapped);
    try {
      expect((await get(`/dvr/files/${items[0]?.id}/stream`)).status).toBe(403);
      for (const item of items) {
        for (const answer of await everythingOf(item.id)) {
          expect(answer.status, `${item.title} ${answer.what}`).toBeLessThan(500);
          expectNotSecret(answer.body, `${item.title} ${answer.what}`);
        }
      }
    } finally {
      rmSync(swapped);
      renameSync(`${swapped}.away`, swapped);
    }
  }, 240_000);
});
