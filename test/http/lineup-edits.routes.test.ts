/**
 * The lineup's management routes over a real DvrService (playlist and guide files):
 * GET/PATCH /dvr/lineup, the group routes, PATCH /dvr/guides/:id; the result in
 * /api/v1/channels; JSON errors (400, 401, 404, 409 naming both channels); any body
 * (fast-check) answered without a 500.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guideIdFor, sourceIdFor } from '../../src/dvr/sources/dvr-sources.service.js';
import type { DvrService } from '../../src/dvr/dvr.service.js';
import { buildDvrApp, createDvr, writeXmltv } from '../support/dvr-app.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

const TOKEN = 'a-lineup-test-token-of-32-characters';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const T0 = Math.floor(Date.now() / 3_600_000) * 3600 + 7200;

let temp: TempLibrary;
let dvr: DvrService;
let app: FastifyInstance;
let playlist: string;
let guide: string;

const id = (number: string) => `${sourceIdFor('m3u', playlist)}-${number}`;
const patch = (channel: string, payload: unknown, headers: Record<string, string> = AUTH) =>
  app.inject({
    method: 'PATCH',
    url: `/dvr/lineup/${encodeURIComponent(channel)}`,
    headers,
    payload: payload as Record<string, unknown>,
  });
const post = (url: string, payload?: unknown) =>
  app.inject({
    method: 'POST',
    url,
    headers: AUTH,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
const getJson = async (url: string) => (await app.inject({ url, headers: AUTH })).json();

beforeAll(async () => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  playlist = join(temp.dir, 'channels.m3u');
  guide = join(temp.dir, 'guide.xml');
  const entries = [
    ['1', 'One', 'one.tv', 'News'],
    ['2', 'Two', 'two.tv', 'News'],
    ['3', 'Three', 'three.tv', 'Shopping'],
    ['4', 'Four', 'four.tv', 'Shopping'],
  ];
  writeFileSync(
    playlist,
    [
      '#EXTM3U',
      ...entries.flatMap(([n, name, tvg, group]) => [
        `#EXTINF:-1 tvg-id="${tvg}" tvg-chno="${n}" group-title="${group}",${name}`,
        `http://127.0.0.1:9/${n}`,
      ]),
      '',
    ].join('\n'),
  );
  writeXmltv(guide, [['one.tv', 'One']], [{ channel: 'one.tv', start: T0, stop: T0 + 1800, title: 'Morning' }]);
  dvr = createDvr(temp, { sources: [{ kind: 'm3u', location: playlist }], guides: [guide] });
  await dvr.sources.refreshAll();
  app = await buildDvrApp(temp, dvr, TOKEN);
});

afterAll(async () => {
  await app.close();
  await dvr.stop();
  temp.close();
});

describe('GET /dvr/lineup', () => {
  it('lists every channel with its source values, guide and placeholder flag', async () => {
    const channels = (await getJson('/dvr/lineup')) as Record<string, unknown>[];
    expect(channels.map((c) => c.number)).toEqual(['1', '2', '3', '4']);
    expect(channels[0]).toEqual({
      id: id('1'),
      source_id: sourceIdFor('m3u', playlist),
      number: '1',
      name: 'One',
      group: 'News',
      hidden: false,
      favorite: false,
      guide: { guide_id: guideIdFor(guide), xmltv_id: 'one.tv' },
      placeholder: false,
      source: { number: '1', name: 'One', group: 'News', guide_id: 'one.tv' },
      edited: [],
    });
    expect(channels[1]).toMatchObject({ placeholder: true });
    expect(await getJson('/dvr/lineup/groups')).toEqual([
      { name: 'News', channels: 2, hidden: 0 },
      { name: 'Shopping', channels: 2, hidden: 0 },
    ]);
  });
});

describe('PATCH /dvr/lineup/:id', () => {
  it('renames and renumbers; /api/v1/channels, the guide and the M3U export show it', async () => {
    const response = await patch(id('1'), { name: 'One HD', number: '101', logo: 'https://logos.test/one.png' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      number: '101',
      name: 'One HD',
      logo: 'https://logos.test/one.png',
      edited: ['number', 'name', 'logo'],
    });
    const listed = (await app.inject({ url: '/api/v1/channels' })).json() as { number: string; name: string }[];
    expect(listed.map((c) => [c.number, c.name])).toEqual([
      ['2', 'Two'],
      ['3', 'Three'],
      ['4', 'Four'],
      ['101', 'One HD'],
    ]);
    const airings = (
      await app.inject({ url: `/dvr/channels/101/guide?from=${T0}&to=${T0 + 3600}`, headers: AUTH })
    ).json() as { title: string }[];
    expect(airings.map((a) => a.title)).toEqual(['Morning']);
    expect((await app.inject({ url: '/devices/ANY/channels.m3u' })).body).toContain(
      'tvg-chno="101" tvg-name="One HD" tvg-logo="https://logos.test/one.png"',
    );
    await patch(id('1'), { name: null, number: null, logo: null });
  });

  it('answers a number another visible channel has with a 409 naming both', async () => {
    const response = await patch(id('2'), { number: '3' });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({
      status: 409,
      code: 'number_taken',
      message: expect.stringMatching(/^2 “Two” \(.+-2\) would be 3, which 3 “Three” \(.+-3\) has\. /),
    });
  });

  it('answers an unknown channel or guide with a 404, a bad body with a 400, a write without the token with a 401', async () => {
    expect((await patch('m3u-000000000000-9', { hidden: true })).json()).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    expect(
      (await patch(id('2'), { guide_channel: { guide_id: guideIdFor(guide), xmltv_id: 'nope' } })).statusCode,
    ).toBe(404);
    for (const body of [
      {},
      { number: 'ten' },
      { number: '1.2.3' },
      { hidden: 'yes' },
      { logo: 'javascript:alert(1)' },
      { colour: 'red' },
    ]) {
      const response = await patch(id('2'), body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json()).toMatchObject({ status: 400, code: expect.any(String), message: expect.any(String) });
    }
    expect((await patch(id('2'), { hidden: true }, {})).statusCode).toBe(401);
    // An empty name is no name: the source's comes back.
    await patch(id('2'), { name: 'Deux' });
    expect((await patch(id('2'), { name: '' })).json()).toMatchObject({ name: 'Two', edited: [] });
  });

  it('never answers 500 to any body', async () => {
    const value = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constantFrom('7', '7.1', '7-1', '999999'),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const body = fc.dictionary(
      fc.constantFrom(
        'number',
        'name',
        'logo',
        'group',
        'hidden',
        'favorite',
        'guide_channel',
        'guide_priority',
        'other',
      ),
      value,
      { maxKeys: 4 },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(id('3'), id('4'), 'nope', '%00'), body, async (channel, payload) => {
        const response = await patch(channel, payload);
        expect(response.statusCode, JSON.stringify(payload)).toBeLessThan(500);
        if (response.statusCode >= 400)
          expect(response.json()).toMatchObject({
            status: response.statusCode,
            code: expect.any(String),
            message: expect.any(String),
          });
      }),
      { numRuns: 150 },
    );
    // Whatever it did, no two visible channels share a number the user gave.
    const visible = ((await getJson('/dvr/lineup')) as { number: string; hidden: boolean; edited: string[] }[]).filter(
      (c) => !c.hidden,
    );
    expect(new Set(visible.map((c) => c.number)).size).toBe(visible.length);
    for (const n of ['3', '4'])
      await patch(id(n), {
        number: null,
        name: null,
        logo: null,
        group: null,
        hidden: false,
        favorite: false,
        guide_channel: null,
        guide_priority: null,
      });
  });
});

describe('groups and guides', () => {
  it('hides a group, renumbers one from a start, and sets a guide’s priority', async () => {
    const hidden = await post(`/dvr/lineup/groups/${encodeURIComponent('Shopping')}/hide`);
    expect((hidden.json() as { hidden: boolean }[]).map((c) => c.hidden)).toEqual([true, true]);
    expect(((await app.inject({ url: '/api/v1/channels' })).json() as unknown[]).length).toBe(2);
    await post('/dvr/lineup/groups/Shopping/show');
    const renumbered = await post('/dvr/lineup/groups/News/renumber', { start: 500 });
    expect((renumbered.json() as { number: string }[]).map((c) => c.number)).toEqual(['500', '501']);
    expect((await post('/dvr/lineup/groups/News/renumber', { start: 3 })).statusCode).toBe(409);
    expect((await post('/dvr/lineup/groups/News/renumber', { start: 0 })).statusCode).toBe(400);
    expect((await post('/dvr/lineup/groups/Nobody/hide')).statusCode).toBe(404);
    const priority = await app.inject({
      method: 'PATCH',
      url: `/dvr/guides/${guideIdFor(guide)}`,
      headers: AUTH,
      payload: { priority: 5 },
    });
    expect(priority.json()).toMatchObject({ id: guideIdFor(guide), priority: 5 });
    expect(
      (await app.inject({ method: 'PATCH', url: '/dvr/guides/xmltv-nope', headers: AUTH, payload: { priority: 5 } }))
        .statusCode,
    ).toBe(404);
    expect(
      (
        await app.inject({
          method: 'PATCH',
          url: `/dvr/guides/${guideIdFor(guide)}`,
          headers: AUTH,
          payload: { priority: -1 },
        })
      ).statusCode,
    ).toBe(400);
  });
});
