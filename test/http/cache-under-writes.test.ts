/**
 * Interface A's cache under item state writes (issue 19): positions, watched marks,
 * favorites and labels are patched into the cached answers holding those items instead
 * of every cached answer being built again. For random runs of writes and reads (plain,
 * gzip and brotli clients), every answer of the cached app is, decompressed, byte for
 * byte what an app without a cache renders at that moment, and ETags change exactly when
 * the bytes do. Unrelated answers keep their bytes
 * and their ETag, and a big list is not built again after a write. Under a stream of
 * progress reports a list moves at most once per hold: what it holds meanwhile differs
 * from a fresh render only in the reported items' positions and times.
 */
import { PathBoundary } from '../../src/common/path-boundary.js';
import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LibraryEditsService } from '../../src/management/library-edits.service.js';
import { MediaFilesService } from '../../src/management/media-files.service.js';
import {
  COLLECTIONS,
  EPISODES,
  MOVIES,
  PLAYLISTS,
  seedLibrary,
  SHOWS,
  VIDEO_GROUPS,
  VIDEOS,
} from '../support/seed-library.js';
import { until } from '../support/dvr-app.js';
import { type TempLibrary, buildTestApp, createTempLibrary } from '../support/temp-library.js';

let temp: TempLibrary;
let cached: FastifyInstance;
let uncached: FastifyInstance;
/** Holds lists under progress reports for a minute (longer than any test): what it holds is seen deterministically. */
let holding: FastifyInstance;

beforeAll(async () => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  seedLibrary(temp.db);
  const stateLog = temp.library.stateLog;
  const management = {
    files: new MediaFilesService(temp.db, {
      recordingsDir: join(temp.dir, 'recordings'),
      boundary: PathBoundary.closed(),
      ...(stateLog ? { stateLog } : {}),
    }),
    edits: new LibraryEditsService(temp.db, stateLog),
    token: undefined,
    roots: () => [],
  };
  // Lists cut into pieces of a few hundred bytes: patches and answers go across pieces. No
  // hold: every answer is current (the hold has tests of its own, below).
  cached = await buildTestApp(temp, { management, cacheChunkBytes: 300, progressHoldMs: 0 });
  holding = await buildTestApp(temp, { management, cacheChunkBytes: 300, progressHoldMs: 60_000 });
  // The reference: the same library rendered afresh for every request.
  uncached = await buildTestApp(temp, { cacheBytes: 0 });
});

afterAll(async () => {
  await cached.close();
  await uncached.close();
  await holding.close();
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
  fc.record({
    kind: fc.constant('position' as const),
    id: fc.constantFrom(...itemIds),
    seconds: fc.integer({ min: 0, max: 5000 }),
  }),
  fc.record({ kind: fc.constantFrom('watch' as const, 'unwatch' as const), id: fc.constantFrom(...itemIds) }),
  fc.record({
    kind: fc.constant('edit' as const),
    id: fc.constantFrom(...itemIds),
    favorited: fc.boolean(),
    labels: fc.option(fc.array(fc.constantFrom('kids', 'news', 'later'), { maxLength: 2 }), { nil: null }),
  }),
);
type Write = typeof write extends fc.Arbitrary<infer T> ? T : never;

async function apply(w: Write, app = cached): Promise<void> {
  const url = `/dvr/files/${w.id}`;
  const response =
    w.kind === 'position'
      ? await app.inject({ method: 'PUT', url: `${url}/playback_time/${String(w.seconds)}` })
      : w.kind === 'edit'
        ? await app.inject({ method: 'PATCH', url, payload: { favorited: w.favorited, labels: w.labels } })
        : await app.inject({ method: 'PUT', url: `${url}/${w.kind}` });
  expect(response.statusCode).toBe(200);
}

describe('the cache under item state writes', () => {
  it('answers every read as a fresh render would, after any run of writes', async () => {
    // Reads as plain clients, gzip clients and browsers (brotli or gzip) make them: a patched list is gzipped piece by
    // piece.
    const accept = fc.constantFrom(undefined, 'gzip', 'br, gzip');
    const step = fc.oneof(
      write.map((w) => ({ write: w })),
      fc.tuple(fc.constantFrom(...READS), accept).map(([read, encoding]) => ({ read, encoding })),
    );
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
          expect(
            (await cached.inject({ url: s.read, headers: { ...headers, 'if-none-match': etag } })).statusCode,
          ).toBe(304);
        }
      }),
      // The whole run, shrinking a failure included, ends (as a failure) after a minute: a property driving an app must
      // not spin for long.
      { numRuns: 60, interruptAfterTimeLimit: 60_000, markInterruptAsFailure: true },
    );
  }, 90_000);

  it('patches a list holding the item without building it again, and leaves other answers as they were', async () => {
    const episodes = await cached.inject({ url: '/api/v1/episodes' });
    const movies = await cached.inject({ url: '/api/v1/movies' });
    const missesBefore = (await cached.inject({ url: '/status' })).json<{ cache: { misses: number } }>().cache.misses;
    const episodeId = EPISODES[1]?.id ?? '';
    await cached.inject({ method: 'PUT', url: `/dvr/files/${episodeId}/playback_time/321` });

    const patched = await cached.inject({ url: '/api/v1/episodes' });
    expect(patched.headers.etag).not.toBe(episodes.headers.etag);
    expect(patched.json<{ id: string; playback_time: number }[]>().find((e) => e.id === episodeId)?.playback_time).toBe(
      321,
    );
    // The movies list does not hold it: same bytes, same ETag, a 304 for its holders.
    const sameMovies = await cached.inject({
      url: '/api/v1/movies',
      headers: { 'if-none-match': String(movies.headers.etag) },
    });
    expect(sameMovies.statusCode).toBe(304);
    // Neither read was a cache miss: nothing was built again.
    const missesAfter = (await cached.inject({ url: '/status' })).json<{ cache: { misses: number } }>().cache.misses;
    expect(missesAfter).toBe(missesBefore);
  });

  it('gzips a patched list at once, deflating again only the pieces it changed; brotli once the list has stayed current', async () => {
    const gzip = { 'accept-encoding': 'gzip' };
    // The first gzip of a list in pieces deflates every piece off the event loop (answered as it is meanwhile, when
    // patched).
    await until(
      async () => (await cached.inject({ url: '/api/v1/episodes', headers: gzip })).headers['content-encoding'],
      (encoding) => encoding === 'gzip',
      10_000,
      'the first gzip',
      20,
    );
    for (const seconds of [12, 13]) {
      await cached.inject({
        method: 'PUT',
        url: `/dvr/files/${EPISODES[2]?.id ?? ''}/playback_time/${String(seconds)}`,
      });
      const fresh = (await uncached.inject({ url: '/api/v1/episodes' })).body;
      // A browser (brotli or gzip) is given the gzip made at once rather than wait for brotli.
      for (const headers of [gzip, { 'accept-encoding': 'br, gzip' }]) {
        const patched = await cached.inject({ url: '/api/v1/episodes', headers });
        expect(patched.headers['content-encoding']).toBe('gzip');
        expect(gunzipSync(patched.rawPayload).toString()).toBe(fresh);
      }
    }
    // A client taking brotli alone is sent the bytes as they are until the list has stayed current a second, then
    // brotli.
    const brOnly = { 'accept-encoding': 'br' };
    expect(
      (await cached.inject({ url: '/api/v1/episodes', headers: brOnly })).headers['content-encoding'],
    ).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    // Brotli is made in the background from the read after that second: asked until it is there (zlib's pool may be
    // busy).
    const br = await until(
      () => cached.inject({ url: '/api/v1/episodes', headers: brOnly }),
      (answer) => answer.headers['content-encoding'] === 'br',
      10_000,
      'brotli',
      100,
    );
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(
      (await uncached.inject({ url: '/api/v1/episodes' })).body,
    );
  });

  it('sends a patched list in pieces over a real port, through the router and the answer front alike', async () => {
    const address = await cached.listen({ port: 0, host: '127.0.0.1' });
    const episodeId = EPISODES[3]?.id ?? '';
    for (const seconds of [7, 604_000]) {
      expect(
        (await cached.inject({ method: 'PUT', url: `/dvr/files/${episodeId}/playback_time/${String(seconds)}` }))
          .statusCode,
      ).toBe(200);
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

/** The fields a progress report changes (an item's position and times, its show's or group's last watched). */
const PROGRESS_FIELDS = new Set(['playback_time', 'updated_at', 'last_watched_at']);

/** An item's show or video group, whose entry a report on the item changes too (its last watched). */
const PARENTS = new Map<string, string>([
  ...EPISODES.map((e) => [e.id, e.show_id] as [string, string]),
  ...VIDEOS.filter((v) => v.video_group_id).map((v) => [v.id, v.video_group_id] as [string, string]),
]);

/**
 * Where two answers differ outside what progress reports on `reported` items change
 * (their position and times, their show's or group's times), and the items whose
 * position differs.
 */
function differences(
  got: unknown,
  fresh: unknown,
  reported: ReadonlySet<string>,
): { other: string[]; positions: string[] } {
  const touched = new Set([...reported, ...[...reported].map((id) => PARENTS.get(id) ?? id)]);
  const other: string[] = [];
  const positions: string[] = [];
  if (!Array.isArray(got) || !Array.isArray(fresh) || got.length !== fresh.length)
    return { other: ['shape'], positions };
  got.forEach((item: Record<string, unknown>, i) => {
    const now = fresh[i] as Record<string, unknown>;
    for (const key of new Set([...Object.keys(item), ...Object.keys(now)])) {
      if (JSON.stringify(item[key]) === JSON.stringify(now[key])) continue;
      if (!PROGRESS_FIELDS.has(key) || !touched.has(String(now.id))) other.push(`${String(now.id)}.${key}`);
      else if (key === 'playback_time') positions.push(String(now.id));
    }
  });
  return { other, positions };
}

describe('lists under a stream of progress reports', () => {
  async function put(url: string): Promise<void> {
    expect((await holding.inject({ method: 'PUT', url })).statusCode).toBe(200);
  }
  const episodesOf = async (app: FastifyInstance) =>
    (await app.inject({ url: '/api/v1/episodes' })).json<{ id: string; playback_time: number; watched: boolean }[]>();

  it('shows a report made after a quiet while at once, holds the next ones, and never holds a mark or a single item', async () => {
    const [first, second] = [EPISODES[4]?.id ?? '', EPISODES[5]?.id ?? ''];
    const item = () => holding.inject({ url: `/api/v1/episodes/${second}` });
    const positionOf = (answer: { json: <T>() => T }) => answer.json<{ playback_time: number }>().playback_time;
    // A mark first: the list is current, and its next report is the first since. The item is cached too.
    await put(`/dvr/files/${first}/unwatch`);
    await episodesOf(holding);
    await item();
    await put(`/dvr/files/${second}/playback_time/100`);
    const shown = await holding.inject({ url: '/api/v1/episodes' });
    expect(shown.json<{ id: string; playback_time: number }[]>().find((e) => e.id === second)?.playback_time).toBe(100);
    // The item changed with the list: were single items held, it would be from now on.
    expect(positionOf(await item())).toBe(100);
    // The next report within the hold (a position no random write makes): the list is answered as it was, ETag and all.
    await put(`/dvr/files/${second}/playback_time/200.5`);
    const held = await holding.inject({
      url: '/api/v1/episodes',
      headers: { 'if-none-match': String(shown.headers.etag) },
    });
    expect(held.statusCode).toBe(304);
    expect((await episodesOf(holding)).find((e) => e.id === second)?.playback_time).toBe(100);
    // The item itself is current.
    expect(positionOf(await item())).toBe(200.5);
    // A mark is shown at once, with every report held until then.
    await put(`/dvr/files/${first}/watch`);
    const marked = await episodesOf(holding);
    expect(marked.find((e) => e.id === first)?.watched).toBe(true);
    expect(marked.find((e) => e.id === second)?.playback_time).toBe(200.5);
    expect(marked).toEqual(await episodesOf(uncached));
  });

  it('differs from a fresh render only in the positions and times of items reported since the last mark, after any run of writes', async () => {
    const step = fc.oneof(
      write.map((w) => ({ write: w })),
      fc.constantFrom(...READS).map((read) => ({ read })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        // A mark first: every list is current when the run starts.
        await put(`/dvr/files/${itemIds[0] ?? ''}/unwatch`);
        const reported = new Set<string>();
        const etags = new Map<string, string>();
        for (const s of steps) {
          if ('write' in s) {
            await apply(s.write, holding);
            if (s.write.kind === 'position') reported.add(s.write.id);
            else reported.clear();
            continue;
          }
          const got = await holding.inject({ url: s.read });
          const fresh = await uncached.inject({ url: s.read });
          expect(got.statusCode).toBe(200);
          if (got.body !== fresh.body) {
            const { other, positions } = differences(got.json(), fresh.json(), reported);
            expect(other, s.read).toEqual([]);
            for (const id of positions) expect(reported, `${s.read}: ${id}`).toContain(id);
          }
          const etag = String(got.headers.etag);
          const before = etags.get(etag);
          if (before !== undefined) expect(got.body).toBe(before);
          etags.set(etag, got.body);
          expect((await holding.inject({ url: s.read, headers: { 'if-none-match': etag } })).statusCode).toBe(304);
        }
        // A mark brings every answer up to date.
        await put(`/dvr/files/${itemIds[0] ?? ''}/watch`);
        for (const read of READS)
          expect((await holding.inject({ url: read })).body, read).toBe((await uncached.inject({ url: read })).body);
      }),
      { numRuns: 40, interruptAfterTimeLimit: 60_000, markInterruptAsFailure: true },
    );
  }, 90_000);
});
