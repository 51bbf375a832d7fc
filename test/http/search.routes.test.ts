/**
 * GET /dvr/search through app.inject(), over a real temp library and a DVR fed by M3U
 * and XMLTV files: the answer's groups, items byte-identical to interface A's, guide
 * programmes with their channel and recording job, the limit, and the validation of
 * q and limit (any value answers 200 or a JSON 400, never a 500).
 */
import fc from 'fast-check';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DvrService } from '../../src/dvr/dvr.service.js';
import { upsertEpisode, upsertMovie, upsertVideo } from '../../src/repositories/library/items.repository.js';
import { upsertShow, upsertVideoGroup } from '../../src/repositories/library/parents.repository.js';
import { buildDvrApp, createDvr, writeM3u, writeXmltv } from '../support/dvr-app.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

type Json = Record<string, unknown>;
const NOW = Math.floor(Date.now() / 60_000) * 60;
let temp: TempLibrary;
let dvr: DvrService;
let app: FastifyInstance;

beforeAll(async () => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  upsertShow(temp.db, { id: 'show-light', name: 'The Lighthouse Keepers' });
  for (let e = 1; e <= 25; e++)
    upsertEpisode(temp.db, {
      id: `ep-${e}`,
      show_id: 'show-light',
      source: 'imports',
      season_number: 1,
      episode_number: e,
      episode_title: `Lights ${e}`,
    });
  upsertMovie(temp.db, { id: 'mov-north', title: 'Northern Lights', source: 'imports', release_year: 2001 });
  upsertVideoGroup(temp.db, { id: 'grp-lights', name: 'Lights Out' });
  upsertVideo(temp.db, { id: 'vid-1', video_group_id: 'grp-lights', source: 'imports', video_title: 'Candle' });
  const m3u = join(temp.dir, 'channels.m3u');
  const guide = join(temp.dir, 'guide.xml');
  writeM3u(m3u, [{ number: '5', name: 'Five', tvgId: 'five', url: 'http://127.0.0.1:9/five' }]);
  writeXmltv(
    guide,
    [['five', 'Five']],
    [
      { channel: 'five', start: NOW - 7200, stop: NOW - 3600, title: 'Harbour Lights' },
      {
        channel: 'five',
        start: NOW + 3600,
        stop: NOW + 5400,
        title: 'Harbour Lights',
        extra: '<sub-title>Fog</sub-title>',
      },
    ],
  );
  dvr = createDvr(temp, { sources: [{ kind: 'm3u', location: m3u, streams: 2 }], guides: [guide] });
  await dvr.sources.refreshAll();
  app = await buildDvrApp(temp, dvr);
});

afterAll(async () => {
  await app?.close();
  await dvr?.stop();
  temp?.close();
});

const get = (url: string) => app.inject({ method: 'GET', url });

describe('GET /dvr/search', () => {
  it('answers every group, items exactly as interface A serves them', async () => {
    const response = await get('/dvr/search?q=LIGHTS');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('application/json');
    const body = response.json<
      Json & {
        episodes: Json[];
        movies: Json[];
        videos: Json[];
        shows: Json[];
        video_groups: Json[];
        programmes: Json[];
      }
    >();
    expect(Object.keys(body)).toEqual(['query', 'shows', 'video_groups', 'episodes', 'movies', 'videos', 'programmes']);
    expect(body.query).toBe('LIGHTS');
    expect(body.movies).toEqual([(await get('/api/v1/movies/mov-north')).json()]);
    expect(body.video_groups).toEqual([(await get('/api/v1/video_groups/grp-lights')).json()]);
    expect(body.videos).toEqual([(await get('/api/v1/videos/vid-1')).json()]);
    expect(body.shows).toEqual([]);
    expect(body.episodes).toHaveLength(20);
    expect(body.episodes[0]).toEqual((await get(`/api/v1/episodes/${String(body.episodes[0]?.id)}`)).json());
    expect(body.programmes).toEqual([
      {
        start_time: NOW + 3600,
        end_time: NOW + 5400,
        title: 'Harbour Lights',
        episode_title: 'Fog',
        new: false,
        channel: '5',
        channel_name: 'Five',
        on_now: false,
      },
    ]);
  });

  it('gives at most `limit` of each kind', async () => {
    const body = (await get('/dvr/search?q=light&limit=3')).json<Record<string, unknown[]>>();
    expect(body.episodes).toHaveLength(3);
    expect(body.shows).toHaveLength(1);
    expect((await get('/dvr/search?q=light&limit=100')).json<Record<string, unknown[]>>().episodes).toHaveLength(25);
  });

  it('says which job records a programme once a program rule is added', async () => {
    const rule = await app.inject({
      method: 'POST',
      url: '/dvr/rules',
      payload: { type: 'program', channel: '5', start_time: NOW + 3600 },
    });
    expect(rule.statusCode, rule.body).toBe(201);
    const [programme] = (await get('/dvr/search?q=harbour%20fog')).json<{ programmes: Json[] }>().programmes;
    expect(programme?.job).toEqual({ id: `${NOW + 3600}-${rule.json<Json>().id}`, state: 'scheduled', skipped: false });
    const jobs = (await get('/api/v1/jobs')).json<Json[]>();
    expect(jobs.map((job) => job.id)).toContain((programme?.job as Json).id);
  });

  it('refuses a missing, empty or too long q, and a limit out of range, with a JSON 400 naming it', async () => {
    for (const url of [
      '/dvr/search',
      '/dvr/search?q=',
      `/dvr/search?q=${'a'.repeat(201)}`,
      '/dvr/search?q=a&limit=0',
      '/dvr/search?q=a&limit=101',
      '/dvr/search?q=a&limit=ten',
      '/dvr/search?q=a&sort=x',
    ]) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(400);
      expect(response.json(), url).toMatchObject({
        status: 400,
        code: 'invalid_parameter',
        message: expect.any(String),
        parameter: expect.any(String),
      });
    }
    expect((await get(`/dvr/search?q=${'a'.repeat(200)}`)).statusCode).toBe(200);
    expect((await get('/dvr/search?q=%20%20')).json()).toMatchObject({ shows: [], episodes: [], programmes: [] });
  });

  it('answers any q and limit with a 200 or a JSON 400, never anything else', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(
          fc.string({
            maxLength: 220,
            unit: fc.constantFrom(
              'a',
              'L',
              'é',
              '"',
              '*',
              ' ',
              '-',
              '(',
              ')',
              ':',
              '^',
              'ß',
              '漢',
              '\u0301',
              '%',
              'N',
              'O',
              'R',
            ),
          }),
          { nil: undefined },
        ),
        fc.option(fc.oneof(fc.integer({ min: -5, max: 200 }).map(String), fc.string({ maxLength: 6 })), {
          nil: undefined,
        }),
        async (q, limit) => {
          const params = new URLSearchParams();
          if (q !== undefined) params.set('q', q);
          if (limit !== undefined) params.set('limit', limit);
          const response = await get(`/dvr/search?${params.toString()}`);
          expect([200, 400], response.body).toContain(response.statusCode);
          const body = response.json<Json>();
          if (response.statusCode === 400) {
            expect(body).toMatchObject({ status: 400, code: 'invalid_parameter', message: expect.any(String) });
            return;
          }
          const max = limit === undefined ? 20 : Number(limit);
          for (const group of ['shows', 'video_groups', 'episodes', 'movies', 'videos', 'programmes']) {
            expect((body[group] as unknown[]).length).toBeLessThanOrEqual(max);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
