/**
 * GET /dvr/guide, the guide grid's pages, through app.inject() over a real DvrService:
 * 120 channels from an M3U file, two days of half-hour programmes from an XMLTV file
 * around now. Paging, windows, the bounds (400 with a JSON message past them), jobs
 * marked once a rule plans them, favorites, and any query at all answering 200 or 400.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DvrService } from '../../src/dvr/dvr.service.js';
import { buildDvrApp, createDvr, writeM3u, writeXmltv } from '../support/dvr-app.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

type Json = Record<string, unknown>;
interface Airing {
  start_time: number;
  end_time: number;
  title: string;
  episode_title?: string;
  season_number?: number;
  episode_number?: number;
  job_id?: string;
}
interface Page {
  start: number;
  end: number;
  offset: number;
  limit: number;
  total: number;
  channels: { number: string; name: string; favorited: boolean; airings: Airing[] }[];
}

const COUNT = 120;
let temp: TempLibrary;
let dvr: DvrService;
let app: FastifyInstance;
/** The guide's first programme, an hour before the half hour now is in. */
let T0: number;

beforeAll(async () => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  const feeds = join(temp.dir, 'feeds');
  mkdirSync(feeds);
  const numbers = Array.from({ length: COUNT }, (_, i) => String(i + 1));
  writeM3u(
    join(feeds, 'channels.m3u'),
    numbers.map((number) => ({
      number,
      name: `Channel ${number}`,
      tvgId: `c${number}.test`,
      url: `http://127.0.0.1:9/${number}`,
    })),
  );
  const now = Math.floor(Date.now() / 1000);
  T0 = now - (now % 1800) - 3600;
  writeXmltv(
    join(feeds, 'guide.xml'),
    numbers.map((number) => [`c${number}.test`, `Channel ${number}`]),
    numbers.flatMap((number) =>
      Array.from({ length: 96 }, (_, slot) => ({
        channel: `c${number}.test`,
        start: T0 + slot * 1800,
        stop: T0 + (slot + 1) * 1800,
        title: `Show ${number}`,
        extra: `<sub-title>Part ${slot}</sub-title><episode-num system="xmltv_ns">0.${slot}.</episode-num>`,
      })),
    ),
  );
  dvr = createDvr(temp, {
    sources: [{ kind: 'm3u', location: join(feeds, 'channels.m3u'), streams: 2 }],
    guides: [join(feeds, 'guide.xml')],
  });
  await dvr.sources.refreshAll();
  dvr.schedule.replan();
  app = await buildDvrApp(temp, dvr);
}, 60_000);

afterAll(async () => {
  await app?.close();
  await dvr?.stop();
  temp?.close();
});

const get = (url: string) => app.inject({ method: 'GET', url });
async function page(query: string): Promise<Page> {
  const response = await get(`/dvr/guide?${query}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Page>();
}
function expectBadRequest(response: { statusCode: number; json: () => unknown }, pattern: RegExp): void {
  expect(response.statusCode).toBe(400);
  const body = response.json() as Json;
  expect(body).toMatchObject({ status: 400, code: expect.any(String) });
  expect(String(body.message)).toMatch(pattern);
}

describe('GET /dvr/guide', () => {
  it('answers what is on now on the first 50 channels when asked nothing', async () => {
    const result = await page('');
    expect(result.total).toBe(COUNT);
    expect(result.channels).toHaveLength(50);
    expect(result.channels.map((c) => c.number).slice(0, 3)).toEqual(['1', '2', '3']);
    const now = Math.floor(Date.now() / 1000);
    for (const channel of result.channels) {
      expect(channel.airings).toHaveLength(1);
      expect(channel.airings[0]!.start_time).toBeLessThanOrEqual(now + 1);
      expect(channel.airings[0]!.end_time).toBeGreaterThan(now - 1);
      expect(channel.airings[0]!.title).toBe(`Show ${channel.number}`);
    }
  });

  it('pages channels by offset and limit, and windows of time by start and end', async () => {
    const start = T0 + 3 * 3600 + 600;
    const pages = await Promise.all(
      [0, 100].map((offset) => page(`start=${start}&end=${start + 2 * 3600}&offset=${offset}&limit=100`)),
    );
    expect(pages.map((p) => p.channels.length)).toEqual([100, COUNT - 100]);
    expect(pages[1]!.channels[0]!.number).toBe('101');
    const channel = pages[0]!.channels[6]!;
    expect(channel.number).toBe('7');
    expect(channel.airings.map((a) => a.start_time)).toEqual([0, 1, 2, 3, 4].map((i) => T0 + 3 * 3600 + i * 1800));
    expect(channel.airings[0]).toMatchObject({
      title: 'Show 7',
      episode_title: 'Part 6',
      season_number: 1,
      episode_number: 7,
    });
    expect((await page(`start=${start}&end=${start + 60}&offset=500`)).channels).toEqual([]);
  });

  it('refuses windows longer than a day, backwards windows, big pages and unknown parameters, with a message', async () => {
    expectBadRequest(await get(`/dvr/guide?start=${T0}&end=${T0 + 86401}`), /at most 24 hours/);
    expectBadRequest(await get(`/dvr/guide?start=${T0}&end=${T0}`), /"end" must be after "start"/);
    expectBadRequest(await get('/dvr/guide?limit=101'), /limit/);
    expectBadRequest(await get('/dvr/guide?limit=0'), /limit/);
    expectBadRequest(await get('/dvr/guide?offset=-1'), /offset/);
    expectBadRequest(await get('/dvr/guide?start=soon'), /start/);
    expectBadRequest(await get('/dvr/guide?channel=5'), /channel/);
    expect((await page(`start=${T0}&end=${T0 + 86400}&limit=100`)).channels[0]!.airings).toHaveLength(48);
  });

  it('marks the airings a rule records', async () => {
    const created = await app.inject({
      method: 'POST',
      url: '/dvr/rules',
      payload: { type: 'series', title: 'Show 12' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const result = await page(`start=${T0 + 86400}&end=${T0 + 86400 + 3600}&offset=10&limit=3`);
    const [eleven, twelve, thirteen] = result.channels;
    expect(twelve!.airings.map((a) => a.job_id)).toEqual([
      `${T0 + 86400}-${created.json<Json>().id}`,
      `${T0 + 86400 + 1800}-${created.json<Json>().id}`,
    ]);
    expect([...eleven!.airings, ...thirteen!.airings].some((a) => a.job_id)).toBe(false);
  });

  it('lists only favorites when asked, the favorite flag on each channel', async () => {
    expect((await app.inject({ method: 'PUT', url: '/dvr/channels/33/favorite' })).statusCode).toBe(204);
    const favorites = await page('favorites=true');
    expect(favorites.total).toBe(1);
    expect(favorites.channels.map((c) => [c.number, c.favorited])).toEqual([['33', true]]);
    expect((await page('offset=32&limit=2')).channels.map((c) => c.favorited)).toEqual([true, false]);
  });

  it('answers any query with 200 or a 400 JSON error, never 500', async () => {
    const value = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.integer({ min: -10, max: 2_000_000_000 }).map(String),
      fc.constantFrom('true', 'false', '', '1e3', '0x10', '253402300800'),
    );
    const key = fc.constantFrom('start', 'end', 'offset', 'limit', 'favorites', 'other');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(key, value), { maxLength: 5 }), async (pairs) => {
        const response = await get(`/dvr/guide?${new URLSearchParams(pairs).toString()}`);
        expect([200, 400]).toContain(response.statusCode);
        if (response.statusCode === 400)
          expect(response.json()).toMatchObject({ status: 400, message: expect.any(String) });
      }),
      { numRuns: 150 },
    );
  });
});
