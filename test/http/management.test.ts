/**
 * The management interface: watch state and its effect on interface A, file facts,
 * deletes (recordings only), scans, streaming with byte ranges from real files, and
 * who may write (token, private addresses).
 */
import type { FastifyInstance } from 'fastify';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { PathBoundary } from '../../src/common/path-boundary.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertEpisode, upsertMovie } from '../../src/repositories/library/items.repository.js';
import type { ImportRoot } from '../../src/model/import-root.js';
import { LibraryEditsService } from '../../src/management/library-edits.service.js';
import { MediaFilesService } from '../../src/management/media-files.service.js';
import { EPISODES, MOVIES, seedLibrary } from '../support/seed-library.js';
import { type TempLibrary, buildTestApp, createTempLibrary } from '../support/temp-library.js';

const TOKEN = 'a-test-token-of-32-characters-xx';
const ROOTS: ImportRoot[] = [{ kind: 'movies', path: '/media/movies' }];

let temp: TempLibrary;
let open: FastifyInstance; // no token: private addresses may write
let guarded: FastifyInstance; // with a token
let mediaFile: string;
let recordingFile: string;
const scansRequested: (string | undefined)[] = [];
const BYTES = Buffer.from(Array.from({ length: 10_000 }, (_, i) => i % 251));

async function build(token: string | undefined): Promise<FastifyInstance> {
  return buildTestApp(temp, {
    management: {
      files: new MediaFilesService(temp.db, {
        recordingsDir: join(temp.dir, 'recordings'),
        boundary: new PathBoundary(() => [join(temp.dir, 'media'), join(temp.dir, 'recordings')]),
        now: () => 1_800_000_000_000,
      }),
      edits: new LibraryEditsService(temp.db),
      token,
      roots: () => ROOTS,
      requestScan: (path) => {
        scansRequested.push(path);
        return path === undefined || path === '/media/movies' ? ROOTS : undefined;
      },
    },
  });
}

beforeAll(async () => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  seedLibrary(temp.db);
  mkdirSync(join(temp.dir, 'media'));
  mkdirSync(join(temp.dir, 'recordings'));
  mediaFile = join(temp.dir, 'media', 'Streamed (2020).mkv');
  writeFileSync(mediaFile, BYTES);
  recordingFile = join(temp.dir, 'recordings', 'news.ts');
  writeFileSync(recordingFile, 'recorded');
  const movie = MOVIES.find((m) => m.id === 'mov-1');
  upsertMovie(temp.db, { ...movie!, path: mediaFile });
  const recording = EPISODES.find((e) => e.source === 'recordings');
  upsertEpisode(temp.db, { ...recording!, path: recordingFile });
  open = await build(undefined);
  guarded = await build(TOKEN);
});

afterAll(async () => {
  await open.close();
  await guarded.close();
  temp.close();
});

describe('watch state', () => {
  it('marks watched and unwatched, and interface A shows it at once, derived fields included', async () => {
    const show = () =>
      open
        .inject({ url: '/api/v1/shows/show-b' })
        .then((r) => r.json<{ number_unwatched: number; last_watched_at?: number }>());
    const before = await show();
    const episodeId = EPISODES.find((e) => e.show_id === 'show-b' && !e.watched)?.id ?? '';
    const watched = await open.inject({ method: 'PUT', url: `/dvr/files/${episodeId}/watch` });
    expect(watched.statusCode).toBe(200);
    expect(watched.json()).toMatchObject({
      id: episodeId,
      watched: true,
      playback_time: 0,
      last_watched_at: 1_800_000_000_000,
    });
    const after = await show();
    expect(after.number_unwatched).toBe(before.number_unwatched - 1);
    expect(after.last_watched_at).toBe(1_800_000_000_000);
    const episode = (await open.inject({ url: `/api/v1/episodes/${episodeId}` })).json();
    expect(episode).toMatchObject({ watched: true });

    await open.inject({ method: 'PUT', url: `/dvr/files/${episodeId}/unwatch` });
    expect((await show()).number_unwatched).toBe(before.number_unwatched);
  });

  it('sets the playback position, and refuses negative, NaN, huge and malformed positions with a 400', async () => {
    const ok = await open.inject({ method: 'PUT', url: '/dvr/files/mov-1/playback_time/754.25' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ playback_time: 754.25 });
    expect((await open.inject({ url: '/api/v1/movies/mov-1' })).json()).toMatchObject({ playback_time: 754.25 });
    for (const bad of ['-1', 'NaN', 'Infinity', '1e5', '99999999', '12.', 'abc', '1.1234567']) {
      const response = await open.inject({ method: 'PUT', url: `/dvr/files/mov-1/playback_time/${bad}` });
      expect(response.statusCode, bad).toBe(400);
      expect(response.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'seconds' });
    }
  });

  it('answers 404 JSON for unknown ids', async () => {
    for (const url of ['/dvr/files/nope/watch', '/dvr/files/nope/unwatch', '/dvr/files/nope/playback_time/5']) {
      const response = await open.inject({ method: 'PUT', url });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ status: 404, code: 'not_found' });
    }
    expect((await open.inject({ url: '/dvr/files/nope' })).statusCode).toBe(404);
    expect((await open.inject({ url: '/dvr/files/nope/stream' })).statusCode).toBe(404);
    // Known to the library but without a file, or with one gone from disk: a 404 JSON that says so.
    const movie = MOVIES.find((m) => m.id === 'mov-3');
    upsertMovie(temp.db, { ...movie!, path: join(temp.dir, 'media', 'gone.mkv') });
    for (const id of ['mov-2', 'mov-3']) {
      const gone = await open.inject({ url: `/dvr/files/${id}/stream` });
      expect(gone.statusCode, id).toBe(404);
      expect(gone.json()).toMatchObject({ code: 'not_found', message: expect.stringMatching(/on disk/i) });
    }
  });

  it('never answers 500 to any position text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 30 }), async (text) => {
        const response = await open.inject({
          method: 'PUT',
          url: `/dvr/files/mov-1/playback_time/${encodeURIComponent(text)}`,
        });
        expect([200, 400, 404]).toContain(response.statusCode);
        expect(() => response.json()).not.toThrow();
      }),
      { numRuns: 200 },
    );
  });
});

describe('file facts and deletes', () => {
  it('gives the item with its file: size, availability, stream URL, chapters', async () => {
    const response = await open.inject({ url: '/dvr/files/mov-1', headers: { host: 'tv.local:8089' } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      id: 'mov-1',
      file: {
        size: BYTES.length,
        available: true,
        stream_url: 'http://tv.local:8089/dvr/files/mov-1/stream',
        chapters: [],
      },
    });
    const missing = await open.inject({ url: '/dvr/files/mov-2' });
    expect(missing.json().file).toMatchObject({ available: false });
  });

  it('refuses to delete an imported file (409) and leaves it alone', async () => {
    const response = await open.inject({ method: 'DELETE', url: '/dvr/files/mov-1' });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ code: 'not_a_recording' });
    expect(existsSync(mediaFile)).toBe(true);
    expect((await open.inject({ url: '/api/v1/movies/mov-1' })).statusCode).toBe(200);
  });

  it('deletes a recording: its file in the recordings folder and its entry', async () => {
    const id = EPISODES.find((e) => e.source === 'recordings')?.id ?? '';
    const response = await open.inject({ method: 'DELETE', url: `/dvr/files/${id}` });
    expect(response.statusCode).toBe(204);
    expect(existsSync(recordingFile)).toBe(false);
    expect((await open.inject({ url: `/api/v1/episodes/${id}` })).statusCode).toBe(404);
  });
});

describe('scans', () => {
  it('queues all roots or the one named, and names the roots when asked for another', async () => {
    const all = await open.inject({ method: 'POST', url: '/dvr/scans', payload: {} });
    expect(all.statusCode).toBe(202);
    expect(all.json()).toEqual({ roots: ROOTS });
    expect(
      (await open.inject({ method: 'POST', url: '/dvr/scans', payload: { root: '/media/movies' } })).statusCode,
    ).toBe(202);
    const other = await open.inject({ method: 'POST', url: '/dvr/scans', payload: { root: '/elsewhere' } });
    expect(other.statusCode).toBe(400);
    expect(other.json()).toMatchObject({ parameter: 'root', allowed: ['/media/movies'] });
    expect(
      (
        await open.inject({
          method: 'POST',
          url: '/dvr/scans',
          payload: '{bad json',
          headers: { 'content-type': 'application/json' },
        })
      ).statusCode,
    ).toBe(400);
    expect(
      (await open.inject({ method: 'POST', url: '/dvr/scans', payload: { root: 'x'.repeat(2 * 1024 * 1024) } }))
        .statusCode,
    ).toBe(413);
  });
});

describe('streaming', () => {
  const stream = (
    headers: Record<string, string> = {},
    method: 'GET' | 'HEAD' = 'GET',
    url = '/dvr/files/mov-1/stream',
  ) => open.inject({ method, url, headers });

  it('serves the whole file with its type and Accept-Ranges, also under an extension', async () => {
    for (const url of ['/dvr/files/mov-1/stream', '/dvr/files/mov-1/stream.mkv']) {
      const response = await stream({}, 'GET', url);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('video/x-matroska');
      expect(response.headers['accept-ranges']).toBe('bytes');
      expect(Number(response.headers['content-length'])).toBe(BYTES.length);
      expect(response.rawPayload.equals(BYTES)).toBe(true);
    }
  });

  it('serves single byte ranges as 206, open-ended and suffix ranges included', async () => {
    const cases: [string, number, number][] = [
      ['bytes=0-99', 0, 99],
      ['bytes=9990-', 9990, 9999],
      ['bytes=-10', 9990, 9999],
      ['bytes=5000-5000', 5000, 5000],
    ];
    for (const [range, start, end] of cases) {
      const response = await stream({ range });
      expect(response.statusCode, range).toBe(206);
      expect(response.headers['content-range']).toBe(`bytes ${start}-${end}/${BYTES.length}`);
      expect(response.rawPayload.equals(BYTES.subarray(start, end + 1))).toBe(true);
    }
  });

  it('answers 416 JSON to a range outside the file, naming its length', async () => {
    const response = await stream({ range: 'bytes=20000-30000' });
    expect(response.statusCode).toBe(416);
    expect(response.headers['content-range']).toBe(`bytes */${BYTES.length}`);
    expect(response.json()).toMatchObject({ status: 416, code: 'range_not_satisfiable' });
  });

  it('honours If-Range: the range while the validator matches, the whole file once it does not', async () => {
    const etag = String((await stream()).headers.etag);
    expect((await stream({ range: 'bytes=0-9', 'if-range': etag })).statusCode).toBe(206);
    const stale = await stream({ range: 'bytes=0-9', 'if-range': '"something-else"' });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.length).toBe(BYTES.length);
  });

  it('answers HEAD with the headers alone', async () => {
    const response = await stream({}, 'HEAD');
    expect(response.statusCode).toBe(200);
    expect(Number(response.headers['content-length'])).toBe(BYTES.length);
    expect(response.rawPayload.length).toBe(0);
  });

  it('serves nothing but the files the library knows: path tricks in the id are just unknown ids', async () => {
    for (const id of ['..%2F..%2Fetc%2Fpasswd', '%2Fetc%2Fpasswd', 'mov-1%00.mkv']) {
      const response = await open.inject({ url: `/dvr/files/${id}/stream` });
      expect(response.statusCode, id).toBe(404);
    }
  });
});

describe('who may write', () => {
  it('accepts writes from loopback and private addresses when there is no token, and refuses public ones', async () => {
    for (const remoteAddress of [
      '127.0.0.1',
      '::1',
      '192.168.1.20',
      '10.1.2.3',
      '172.20.0.5',
      '::ffff:192.168.0.9',
      'fd00::1',
    ]) {
      const response = await open.inject({ method: 'PUT', url: '/dvr/files/mov-1/playback_time/1', remoteAddress });
      expect(response.statusCode, remoteAddress).toBe(200);
    }
    for (const remoteAddress of ['8.8.8.8', '2001:db8::1', '::ffff:8.8.8.8', '172.32.0.1']) {
      const response = await open.inject({ method: 'PUT', url: '/dvr/files/mov-1/playback_time/1', remoteAddress });
      expect(response.statusCode, remoteAddress).toBe(401);
      expect(response.json()).toMatchObject({ status: 401, code: 'unauthorized' });
    }
  });

  it('needs the token when there is one, from any address, and keeps reads open', async () => {
    const url = '/dvr/files/mov-1/playback_time/2';
    expect((await guarded.inject({ method: 'PUT', url })).statusCode).toBe(401);
    expect(
      (await guarded.inject({ method: 'PUT', url, headers: { authorization: 'Bearer wrong-token-wrong-token-xx' } }))
        .statusCode,
    ).toBe(401);
    const ok = await guarded.inject({
      method: 'PUT',
      url,
      remoteAddress: '8.8.8.8',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(ok.statusCode).toBe(200);
    expect((await guarded.inject({ url: '/dvr/files/mov-1', remoteAddress: '8.8.8.8' })).statusCode).toBe(200);
    expect((await guarded.inject({ url: '/api/v1/movies', remoteAddress: '8.8.8.8' })).statusCode).toBe(200);
  });

  it('refuses before reading the body', async () => {
    const response = await guarded.inject({
      method: 'POST',
      url: '/dvr/scans',
      payload: '{broken',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(401);
  });

  it('refuses a write from another site’s web page with 403, with or without the token, and takes its own pages and native clients', async () => {
    const url = '/dvr/files/mov-1/playback_time/3';
    const evil = { origin: 'http://evil.example', host: '192.168.1.20:8089' };
    for (const [method, target] of [
      ['PUT', url],
      ['DELETE', '/dvr/files/mov-1'],
      ['POST', '/dvr/scans'],
    ] as const) {
      const refused = await open.inject({ method, url: target, headers: evil });
      expect(refused.statusCode, method).toBe(403);
      expect(refused.json()).toMatchObject({
        status: 403,
        code: 'forbidden_origin',
        message: expect.stringContaining('--allow-origin'),
      });
    }
    const withToken = await guarded.inject({
      method: 'PUT',
      url,
      headers: { ...evil, authorization: `Bearer ${TOKEN}` },
    });
    expect(withToken.statusCode).toBe(403);
    // The scan was not queued: refused before anything ran.
    const before = scansRequested.length;
    expect((await open.inject({ method: 'POST', url: '/dvr/scans', headers: evil })).statusCode).toBe(403);
    expect(scansRequested.length).toBe(before);

    expect((await open.inject({ method: 'PUT', url, headers: { host: '192.168.1.20:8089' } })).statusCode).toBe(200);
    expect(
      (
        await open.inject({
          method: 'PUT',
          url,
          headers: { origin: 'http://192.168.1.20:8089', host: '192.168.1.20:8089' },
        })
      ).statusCode,
    ).toBe(200);
    const rebound = await open.inject({
      method: 'PUT',
      url,
      headers: { origin: 'http://tv.attacker.example:8089', host: 'tv.attacker.example:8089' },
    });
    expect(rebound.json()).toMatchObject({ status: 403, code: 'forbidden_host' });
    // Reads stay open to any page.
    expect((await open.inject({ url: '/dvr/files/mov-1', headers: evil })).statusCode).toBe(200);
  });
});

describe('what is served', () => {
  it('serves the whole file as 206 for a suffix longer than the file (RFC 9110), and 416 for an empty suffix', async () => {
    const response = await open.inject({ url: '/dvr/files/mov-1/stream', headers: { range: 'bytes=-99999999' } });
    expect(response.statusCode).toBe(206);
    expect(response.headers['content-range']).toBe(`bytes 0-${BYTES.length - 1}/${BYTES.length}`);
    expect(response.rawPayload.equals(BYTES)).toBe(true);
    expect((await open.inject({ url: '/dvr/files/mov-1/stream', headers: { range: 'bytes=-0' } })).statusCode).toBe(
      416,
    );
  });

  it('never serves an imported file ffprobe could not read (409 not_media)', async () => {
    const movie = MOVIES.find((m) => m.id === 'mov-2');
    const notMedia = join(temp.dir, 'media', 'Not Media (2001).mkv');
    writeFileSync(notMedia, 'root:x:0:0:root:/root:/bin/bash\n');
    upsertMovie(temp.db, { ...movie!, source: 'imports', path: notMedia, corrupted: true });
    const response = await open.inject({ url: '/dvr/files/mov-2/stream' });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ status: 409, code: 'not_media' });
    expect(response.body).not.toContain('root:x');
  });

  it('refuses a file that has become a link out of the library since it was imported (403), and follows one that stays inside', async () => {
    const movie = MOVIES.find((m) => m.id === 'mov-3');
    const linked = join(temp.dir, 'media', 'Linked (2003).mkv');
    const secret = join(temp.dir, 'secret.txt');
    writeFileSync(secret, 'secret bytes');
    symlinkSync(secret, linked);
    upsertMovie(temp.db, { ...movie!, path: linked });
    const refused = await open.inject({ url: '/dvr/files/mov-3/stream' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ status: 403, code: 'outside_library' });
    expect(refused.body).not.toContain('secret bytes');

    rmSync(linked);
    symlinkSync(mediaFile, linked);
    const inside = await open.inject({ url: '/dvr/files/mov-3/stream' });
    expect(inside.statusCode).toBe(200);
    expect(inside.rawPayload.equals(BYTES)).toBe(true);
  });
});
