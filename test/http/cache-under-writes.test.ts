/**
 * Interface A's cache under item state writes (issue 19): positions, watched marks,
 * favorites and labels are patched into the cached answers holding those items instead
 * of every cached answer being built again. For random runs of writes and reads (plain,
 * gzip and brotli clients), every answer of the cached app is, decompressed, byte for
 * byte what an app without a cache renders at that moment, and ETags change exactly when
 * the bytes do. Unrelated answers keep their bytes
 * and their ETag, and a big list is not built again after a write.
 */
import { PathBoundary } from '../../src/common/path-boundary.js';
import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LibraryEditsService } from '../../src/management/library-edits.service.js';
import { MediaFilesService } from '../../src/management/media-files.service.js';
import { COLLECTIONS, EPISODES, MOVIES, PLAYLISTS, seedLibrary, SHOWS, VIDEO_GROUPS, VIDEOS } from '../support/seed-library.js';
import { type TempLibrary, buildTestApp, createTempLibrary } from '../support/temp-library.js';

let temp: TempLibrary;
let cached: FastifyInstance;
let uncached: FastifyInstance;

beforeAll(async () => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  seedLibrary(temp.db);
  const stateLog = temp.library.stateLog;
  const management = {
    files: new MediaFilesService(temp.db, { recordingsDir: join(temp.dir, 'recordings'), boundary: PathBoundary.closed(), ...(stateLog ? { stateLog } : {}) }),
    edits: new LibraryEditsService(temp.db, stateLog),
    token: undefined,
    roots: () => [],
  };
  // Lists cut into pieces of a few hundred bytes: patches and answers go across pieces.
  cached = await buildTestApp(temp, { management, cacheChunkBytes: 300 });
  // The reference: the same library rendered afresh for every request.
  uncached = await buildTestApp(temp, { cacheBytes: 0 });
});

afterAll(async () => {
  await cached.close();
  await uncached.close();
  temp.close();
});

/** An answer's body, decompressed as its Content-Encoding says. */
function decoded(response: { headers: Record<string, unknown>; rawPayload: Buffer; body: string }): string {
  const encoding = response.headers['content-encoding'];
  if (encoding === 'gzip') return gunzipSync(response.rawPayload).toString();
  if (encoding === 'br') return brotliDecompressSync(response.rawPayload).toString();
  return response.body;
}

const itemIds = [...EPISODES.map((e) => e.id), ...MOVIES.map((m) => m.id), ...VIDEOS.map((v) => v.id)];

const READS = [
  '/api/v1/episodes',
  '/api/v1/episodes?sort=title',
  '/api/v1/episodes?watched=false',
  '/api/v1/episodes?favorited=true',
  '/api/v1/movies',
  '/api/v1/movies?watched=true',
  '/api/v1/videos',
  '/api/v1/all',
  '/api/v1/shows',
  '/api/v1/shows?watched=false',
  `/api/v1/shows/${SHOWS[0]?.id ?? ''}`,
  `/api/v1/shows/${SHOWS[0]?.id ?? ''}/episodes`,
  `/api/v1/episodes/${EPISODES[0]?.id ?? ''}`,
  `/api/v1/movies/${MOVIES[0]?.id ?? ''}`,
  '/api/v1/collections',
  '/api/v1/playlists',
  '/api/v1/video_groups',
  `/api/v1/video_groups/${VIDEO_GROUPS[0]?.id ?? ''}`,
  `/api/v1/video_groups/${VIDEO_GROUPS[0]?.id ?? ''}/videos`,
  `/api/v1/collections/${COLLECTIONS[0]?.id ?? ''}/content`,
  `/api/v1/collections/${COLLECTIONS[1]?.id ?? ''}/content`,
  `/api/v1/playlists/${PLAYLISTS[0]?.id ?? ''}/content`,
];

const write = fc.oneof(
  fc.record({ kind: fc.constant('position' as const), id: fc.constantFrom(...itemIds), seconds: fc.integer({ min: 0, max: 5000 }) }),
  fc.record({ kind: fc.constantFrom('watch' as const, 'unwatch' as const), id: fc.constantFrom(...itemIds) }),
  fc.record({ kind: fc.constant('edit' as const), id: fc.constantFrom(...itemIds), favorited: fc.boolean(), labels: fc.option(fc.array(fc.constantFrom('kids', 'news', 'later'), { maxLength: 2 }), { nil: null }) }),
);
type Write = typeof write extends fc.Arbitrary<infer T> ? T : never;

async function apply(w: Write): Promise<void> {
  const url = `/dvr/files/${w.id}`;
  const response =
    w.kind === 'position'
      ? await cached.inject({ method: 'PUT', url: `${url}/playback_time/${String(w.seconds)}` })
      : w.kind === 'edit'
        ? await cached.inject({ method: 'PATCH', url, payload: { favorited: w.favorited, labels: w.labels } })
        : await cached.inject({ method: 'PUT', url: `${url}/${w.kind}` });
  expect(response.statusCode).toBe(200);
}

describe('the cache under item state writes', () => {
  it('answers every read as a fresh render would, after any run of writes', async () => {
    // Reads as plain clients, gzip clients and browsers (brotli or gzip) make them: a patched list is gzipped piece by piece.
    const accept = fc.constantFrom(undefined, 'gzip', 'br, gzip');
    const step = fc.oneof(write.map((w) => ({ write: w })), fc.tuple(fc.constantFrom(...READS), accept).map(([read, encoding]) => ({ read, encoding })));
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        const etags = new Map<string, { etag: string; body: string }>();
        for (const s of steps) {
          if ('write' in s) {
            await apply(s.write);
            continue;
          }
          const headers = s.encoding ? { 'accept-encoding': s.encoding } : {};
          const got = await cached.inject({ url: s.read, headers });
          const fresh = await uncached.inject({ url: s.read });
          expect(got.statusCode).toBe(200);
          const body = decoded(got);
          expect(body, `${s.read} (${s.encoding ?? 'identity'})`).toBe(fresh.body);
          // Same ETag ⇒ same bytes, for this URL across the run.
          const etag = String(got.headers.etag);
          const before = etags.get(etag);
          if (before) expect(body).toBe(before.body);
          etags.set(etag, { etag, body });
          // A client holding the ETag it was just given is answered 304.
          expect((await cached.inject({ url: s.read, headers: { ...headers, 'if-none-match': etag } })).statusCode).toBe(304);
        }
      }),
      // The whole run, shrinking a failure included, ends (as a failure) after a minute: a property driving an app must not spin for long.
      { numRuns: 60, interruptAfterTimeLimit: 60_000, markInterruptAsFailure: true },
    );
  });

  it('patches a list holding the item without building it again, and leaves other answers as they were', async () => {
    const episodes = await cached.inject({ url: '/api/v1/episodes' });
    const movies = await cached.inject({ url: '/api/v1/movies' });
    const missesBefore = (await cached.inject({ url: '/status' })).json<{ cache: { misses: number } }>().cache.misses;
    const episodeId = EPISODES[1]?.id ?? '';
    await cached.inject({ method: 'PUT', url: `/dvr/files/${episodeId}/playback_time/321` });

    const patched = await cached.inject({ url: '/api/v1/episodes' });
    expect(patched.headers.etag).not.toBe(episodes.headers.etag);
    expect(patched.json<{ id: string; playback_time: number }[]>().find((e) => e.id === episodeId)?.playback_time).toBe(321);
    // The movies list does not hold it: same bytes, same ETag, a 304 for its holders.
    const sameMovies = await cached.inject({ url: '/api/v1/movies', headers: { 'if-none-match': String(movies.headers.etag) } });
    expect(sameMovies.statusCode).toBe(304);
    // Neither read was a cache miss: nothing was built again.
    const missesAfter = (await cached.inject({ url: '/status' })).json<{ cache: { misses: number } }>().cache.misses;
    expect(missesAfter).toBe(missesBefore);
  });

  it('gzips a patched list at once, deflating again only the pieces it changed; brotli once the list has stayed current', async () => {
    const gzip = { 'accept-encoding': 'gzip' };
    // The first gzip of a list in pieces deflates every piece off the event loop (answered as it is meanwhile, when patched).
    let encoding: unknown;
    for (let tries = 0; tries < 50 && encoding !== 'gzip'; tries++) {
      encoding = (await cached.inject({ url: '/api/v1/episodes', headers: gzip })).headers['content-encoding'];
      if (encoding !== 'gzip') await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(encoding).toBe('gzip');
    for (const seconds of [12, 13]) {
      await cached.inject({ method: 'PUT', url: `/dvr/files/${EPISODES[2]?.id ?? ''}/playback_time/${String(seconds)}` });
      const fresh = (await uncached.inject({ url: '/api/v1/episodes' })).body;
      // A browser (brotli or gzip) is given the gzip made at once rather than wait for brotli.
      for (const headers of [gzip, { 'accept-encoding': 'br, gzip' }]) {
        const patched = await cached.inject({ url: '/api/v1/episodes', headers });
        expect(patched.headers['content-encoding']).toBe('gzip');
        expect(gunzipSync(patched.rawPayload).toString()).toBe(fresh);
      }
    }
    // A client taking brotli alone is sent the bytes as they are until the list has stayed current a second, then brotli.
    const brOnly = { 'accept-encoding': 'br' };
    expect((await cached.inject({ url: '/api/v1/episodes', headers: brOnly })).headers['content-encoding']).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await cached.inject({ url: '/api/v1/episodes', headers: brOnly });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const br = await cached.inject({ url: '/api/v1/episodes', headers: brOnly });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe((await uncached.inject({ url: '/api/v1/episodes' })).body);
  });

  it('sends a patched list in pieces over a real port, through the router and the answer front alike', async () => {
    const address = await cached.listen({ port: 0, host: '127.0.0.1' });
    const episodeId = EPISODES[3]?.id ?? '';
    for (const seconds of [7, 604_000]) {
      expect((await cached.inject({ method: 'PUT', url: `/dvr/files/${episodeId}/playback_time/${String(seconds)}` })).statusCode).toBe(200);
      // Rendered for the same host: image URLs carry it.
      const fresh = (await uncached.inject({ url: '/api/v1/episodes', headers: { host: new URL(address).host } })).body;
      // The first read goes through the router (and patches); the second is answered before routing.
      for (let n = 0; n < 2; n++) {
        const response = await fetch(`${address}/api/v1/episodes`, { headers: { 'accept-encoding': 'identity' } });
        expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(fresh)));
        expect(await response.text()).toBe(fresh);
      }
    }
  });
});
