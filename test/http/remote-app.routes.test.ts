/**
 * What Channels' remote-control apps read of the guide and the channel collections, over
 * a real DvrService fed a playlist and an XMLTV guide: /devices/ANY/guide/now and
 * /guide?time=&duration= in Channels' shape (per source too), collections with the
 * favorites first, made, changed and removed in words; and bad input is a 400.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DvrService } from '../../src/dvr/dvr.service.js';
import { airingKinds } from '../../src/dvr/lineup/channels-guide.js';
import { buildDvrApp, createDvr, writeM3u, writeXmltv } from '../support/dvr-app.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

let temp: TempLibrary;
let dvr: DvrService;
let app: FastifyInstance;
/** A whole hour an hour ago: the first programmes start there. */
let T: number;

beforeAll(async () => {
  temp = createTempLibrary();
  const feeds = join(temp.dir, 'feeds');
  mkdirSync(feeds);
  const now = Math.floor(Date.now() / 1000);
  T = now - (now % 3600) - 3600;
  const m3u = join(feeds, 'channels.m3u');
  writeM3u(m3u, [
    { number: '2', name: 'Two', url: 'http://127.0.0.1:9/two.ts', tvgId: 'two.test' },
    { number: '3', name: 'Three', url: 'http://127.0.0.1:9/three.ts', tvgId: 'three.test' },
    { number: '9.1', name: 'No Guide', url: 'http://127.0.0.1:9/nine.ts' },
  ]);
  const guide = join(feeds, 'guide.xml');
  writeXmltv(
    guide,
    [
      ['two.test', 'Two'],
      ['three.test', 'Three'],
    ],
    [
      {
        channel: 'two.test',
        start: T,
        stop: T + 3 * 3600,
        title: 'Harbour Lights',
        extra:
          '<sub-title>Fog at dawn</sub-title><desc>It rolls in.</desc><category>Drama</category>' +
          '<episode-num system="xmltv_ns">1.4.</episode-num><episode-num system="dd_progid">EP00000001.0005</episode-num><new/>',
      },
      {
        channel: 'two.test',
        start: T + 3 * 3600,
        stop: T + 4 * 3600,
        title: 'Late News',
        extra: '<category>News</category>',
      },
      {
        channel: 'three.test',
        start: T,
        stop: T + 4 * 3600,
        title: 'Film du soir',
        extra: '<date>1999</date><category>Movie</category>',
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

const get = async (url: string) => {
  const answer = await app.inject({ method: 'GET', url });
  return { status: answer.statusCode, json: answer.json() as Record<string, unknown> & Record<string, unknown>[] };
};

describe("the guide in Channels' shape", () => {
  it('answers what airs now on every channel, with Channel and Airings', async () => {
    const { status, json } = await get('/devices/ANY/guide/now');
    expect(status).toBe(200);
    expect(json.map((entry) => (entry.Channel as { Number: string }).Number)).toEqual(['2', '3', '9.1']);
    expect(json[0]).toEqual({
      Channel: { Number: '2', Name: 'Two', ChannelID: '2', Station: 'two.test', HD: false, Favorite: false },
      Airings: [
        {
          Channel: '2',
          Time: T,
          Duration: 3 * 3600,
          Title: 'Harbour Lights',
          EpisodeTitle: 'Fog at dawn',
          Summary: 'It rolls in.',
          SeasonNumber: 2,
          EpisodeNumber: 5,
          Categories: ['Series'],
          Genres: ['Drama'],
          Tags: ['New'],
          ProgramID: 'EP000000010005',
          SeriesID: expect.any(String),
        },
      ],
    });
    expect(json[1]?.Airings).toMatchObject([
      { Title: 'Film du soir', Categories: ['Movie'], Genres: ['Movie'], ReleaseYear: 1999 },
    ]);
    // A channel no guide describes: listed, with nothing made up for it.
    expect(json[2]).toMatchObject({ Channel: { Number: '9.1', Name: 'No Guide' }, Airings: [] });
  });

  it('answers a window of the guide from time for duration seconds', async () => {
    const { json } = await get(`/devices/ANY/guide?time=${T + 2 * 3600}&duration=${2 * 3600}`);
    const two = json.find((entry) => (entry.Channel as { Number: string }).Number === '2');
    expect((two?.Airings as { Title: string }[]).map((a) => a.Title)).toEqual(['Harbour Lights', 'Late News']);
    expect((two?.Airings as { Categories: string[] }[])[1]?.Categories).toEqual(['News']);
    // Four hours by default.
    const later = await get(`/devices/ANY/guide/now?time=${T + 3 * 3600 + 60}`);
    expect((later.json[0]?.Airings as { Title: string }[])[0]?.Title).toBe('Late News');
  });

  it("answers one source's channels, and 404 for a source it does not have", async () => {
    const [source] = dvr.listSources();
    const { status, json } = await get(`/devices/${String(source?.id)}/guide/now`);
    expect(status).toBe(200);
    expect(json).toHaveLength(3);
    const unknown = await get('/devices/nosuchsource/guide/now');
    expect(unknown.status).toBe(404);
    expect(unknown.json.message).toMatch(/source/);
  });

  it('refuses a window it cannot serve with a 400 that names the parameter', async () => {
    for (const query of ['duration=0', 'duration=86401', 'time=-1', 'time=soon', 'extra=1']) {
      const { status, json } = await get(`/devices/ANY/guide?${query}`);
      expect(status, query).toBe(400);
      expect(json).toMatchObject({ status: 400, code: expect.any(String), message: expect.any(String) });
    }
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), async (time, duration) => {
        const answer = await app.inject({
          method: 'GET',
          url: `/devices/ANY/guide?time=${encodeURIComponent(time)}&duration=${encodeURIComponent(duration)}`,
        });
        expect([200, 400]).toContain(answer.statusCode);
      }),
      { numRuns: 50 },
    );
  });

  it('calls a programme with episodes a Series, a film a Movie, sport Sports', () => {
    expect(airingKinds(['Drama'], true)).toEqual(['Series']);
    expect(airingKinds(['Movie', 'Drama'], false)).toEqual(['Movie']);
    expect(airingKinds(['Sports event'], true)).toEqual(['Series', 'Sports']);
    expect(airingKinds(['news'], false)).toEqual(['News']);
    expect(airingKinds([], false)).toEqual([]);
  });
});

describe('channel collections', () => {
  it('lists the favorites first, following the stars', async () => {
    expect((await get('/dvr/collections/channels')).json).toEqual([{ id: 'favorites', name: 'Favorites', items: [] }]);
    await app.inject({ method: 'PUT', url: '/dvr/channels/3/favorite' });
    expect((await get('/dvr/collections/channels')).json[0]).toEqual({
      id: 'favorites',
      name: 'Favorites',
      items: ['3'],
    });
  });

  it('makes, changes and removes a collection of its own', async () => {
    const made = await app.inject({
      method: 'POST',
      url: '/dvr/collections/channels',
      payload: { name: ' Kids ', items: ['3', '2', '3', '9-1'] },
    });
    expect(made.statusCode).toBe(201);
    const id = (made.json() as { id: string }).id;
    expect(made.json()).toEqual({ id, name: 'Kids', items: ['3', '2', '9.1'] });
    expect((await get('/dvr/collections/channels')).json.map((c) => c.name)).toEqual(['Favorites', 'Kids']);
    const changed = await app.inject({
      method: 'PUT',
      url: `/dvr/collections/channels/${id}`,
      payload: { name: 'Children', items: ['2'] },
    });
    expect(changed.json()).toEqual({ id, name: 'Children', items: ['2'] });
    expect((await get(`/dvr/collections/channels/${id}`)).json).toEqual({ id, name: 'Children', items: ['2'] });
    expect((await app.inject({ method: 'DELETE', url: `/dvr/collections/channels/${id}` })).statusCode).toBe(204);
    expect((await app.inject({ method: 'DELETE', url: `/dvr/collections/channels/${id}` })).statusCode).toBe(404);
  });

  it('says in words why it refuses: an unknown channel, a name taken, the favorites edited', async () => {
    const unknown = await app.inject({
      method: 'POST',
      url: '/dvr/collections/channels',
      payload: { name: 'Sport', items: ['77'] },
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().message).toMatch(/No channel 77 in the lineup/);
    await app.inject({ method: 'POST', url: '/dvr/collections/channels', payload: { name: 'Sport', items: ['2'] } });
    const taken = await app.inject({
      method: 'POST',
      url: '/dvr/collections/channels',
      payload: { name: 'SPORT', items: [] },
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toMatchObject({ code: 'name_taken' });
    const favorites = await app.inject({
      method: 'PUT',
      url: '/dvr/collections/channels/favorites',
      payload: { name: 'Mine', items: [] },
    });
    expect(favorites.statusCode).toBe(409);
    expect(favorites.json().message).toMatch(/star or unstar a channel/);
    const reserved = await app.inject({
      method: 'POST',
      url: '/dvr/collections/channels',
      payload: { name: 'favorites', items: [] },
    });
    expect(reserved.statusCode).toBe(409);
    for (const payload of [
      {},
      { name: '', items: [] },
      { name: 'x', items: ['abc'] },
      { name: 'x', items: [], more: 1 },
    ]) {
      const bad = await app.inject({ method: 'POST', url: '/dvr/collections/channels', payload });
      expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
    }
    expect((await get('/dvr/collections/channels/nope')).status).toBe(404);
  });
});
