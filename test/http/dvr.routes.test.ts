/**
 * The DVR's management routes over a real DvrService: rules, jobs, sources, guides,
 * channels, record now and live TV, driven through app.inject() (and one real port for
 * a live stream). Channels stream from a real MPEG-TS server, some of them misbehaving;
 * the M3U playlist and XMLTV guide are files in a temp directory. Guide programmes
 * start two hours from now, so jobs are planned but nothing records on its own.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DvrService } from '../../src/dvr/dvr.service.js';
import { upsertMovie } from '../../src/repositories/library/items.repository.js';
import { insertRecording, rememberRecordedEpisode } from '../../src/repositories/dvr/recordings.repository.js';
import { buildDvrApp, createDvr, type M3uEntry, writeM3u, writeXmltv } from '../support/dvr-app.js';
import { type TempLibrary, createTempLibrary, tempDir } from '../support/temp-library.js';
import { makeTsClip, type StreamServer, startStreamServer } from '../support/ts-stream-server.js';

type Json = Record<string, unknown>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

const TOKEN = 'a-dvr-test-token-of-32-characters';

let work: string;
let streams: StreamServer;
/** Start of the guide's first programmes: two hours from now, on a whole minute. */
let T: number;

beforeAll(async () => {
  work = tempDir('antenna-dvr-http-');
  const clip = await makeTsClip(join(work, 'clip.ts'), { seconds: 2 });
  streams = await startStreamServer(clip.path);
  streams.set('html', { kind: 'html' });
  streams.set('missing', { kind: 'status', status: 404 });
  T = Math.floor(Date.now() / 60_000) * 60 + 2 * 3600;
});

afterAll(async () => {
  await streams?.close();
  rmSync(work, { recursive: true, force: true });
});

const lineup = (): M3uEntry[] => [
  { number: '2', name: 'Two', tvgId: 'two.test', url: streams.url('two') },
  { number: '3', name: 'Three', tvgId: 'three.test', url: streams.url('three') },
  { number: '4', name: 'Four', tvgId: 'four.test', url: streams.url('html') },
  { number: '6', name: 'Six', tvgId: 'six.test', url: streams.url('missing') },
  { number: '7.1', name: 'Seven', tvgId: 'seven.test', url: streams.url('seven') },
];

function writeGuide(path: string): void {
  writeXmltv(
    path,
    [
      ['two.test', 'Two'],
      ['three.test', 'Three'],
      ['four.test', 'Four'],
      ['six.test', 'Six'],
      ['seven.test', '7.1'],
    ],
    [
      {
        channel: 'two.test',
        start: T,
        stop: T + 1800,
        title: 'Harbour Lights',
        extra:
          '<sub-title>Fog</sub-title><desc>Fog rolls in.</desc><episode-num system="dd_progid">EP00000001.0002</episode-num>',
      },
      { channel: 'two.test', start: T + 1800, stop: T + 3600, title: 'Late News' },
      { channel: 'three.test', start: T, stop: T + 3600, title: 'Night Movie', extra: '<category>Movie</category>' },
      { channel: 'four.test', start: T, stop: T + 1800, title: 'Broken Page' },
      { channel: 'seven.test', start: T, stop: T + 1800, title: 'Tuner Show' },
    ],
  );
}
const GUIDE_PROGRAMMES = 5;

interface Fixture {
  temp: TempLibrary;
  dvr: DvrService;
  app: FastifyInstance;
  feeds: string;
  m3u: string;
  guide: string;
}

async function setup(token?: string): Promise<Fixture> {
  const temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  const feeds = join(temp.dir, 'feeds');
  mkdirSync(feeds);
  const m3u = join(feeds, 'channels.m3u');
  const guide = join(feeds, 'guide.xml');
  writeM3u(m3u, lineup());
  writeGuide(guide);
  const dvr = createDvr(temp, { sources: [{ kind: 'm3u', location: m3u, streams: 4 }], guides: [guide] });
  await dvr.sources.refreshAll();
  dvr.schedule.replan();
  const app = await buildDvrApp(temp, dvr, token);
  return { temp, dvr, app, feeds, m3u, guide };
}

async function teardown(f: Fixture | undefined): Promise<void> {
  if (!f) return;
  await f.app.close();
  await f.dvr.stop();
  f.temp.close();
}

let f: Fixture;
beforeEach(async () => {
  f = await setup();
});
afterEach(async () => {
  await teardown(f);
});

const send = (method: Method, url: string, payload?: unknown, app: FastifyInstance = f.app) =>
  app.inject({
    method,
    url,
    ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
  } as InjectOptions);
/** A raw JSON text as the body, whatever it holds. */
const sendJson = (method: Method, url: string, text: string) =>
  f.app.inject({ method, url, payload: text, headers: { 'content-type': 'application/json' } });
const get = async <T = Json>(url: string) => (await send('GET', url)).json<T>();
const jobs = () => get<Json[]>('/api/v1/jobs');
const addRule = async (body: Json) => {
  const response = await send('POST', '/dvr/rules', body);
  expect(response.statusCode, response.body).toBe(201);
  return String(response.json<Json>().id);
};

function expectJsonError(response: { statusCode: number; json: () => unknown }, status: number): Json {
  expect(response.statusCode).toBe(status);
  const body = response.json() as Json;
  expect(body).toMatchObject({ status, code: expect.any(String), message: expect.any(String) });
  return body;
}

describe('rules', () => {
  const definitions: Json[] = [];
  beforeAll(() => {
    definitions.push(
      { type: 'series', title: 'Harbour Lights', padding_after: 60, keep: 3 },
      { type: 'keyword', keyword: 'news', channels: ['2'], new_only: false },
      { type: 'slot', channel: '3', start_time: T + 7200, duration: 600, weekly: false, name: 'Slot' },
      { type: 'program', channel: '3', start_time: T, priority: 5 },
    );
  });

  it('creates each of the four types with a 201, a numeric string id and the body echoed, then lists and reads them', async () => {
    const created: Json[] = [];
    for (const definition of definitions) {
      const response = await send('POST', '/dvr/rules', definition);
      expect(response.statusCode, response.body).toBe(201);
      const body = response.json<Json>();
      expect(body.id).toMatch(/^[0-9]+$/);
      // A program rule keeps what the guide says of its airing (here a film without a programme id: its title).
      expect(body).toEqual({
        id: body.id,
        ...definition,
        ...(definition.type === 'program' ? { title: 'Night Movie' } : {}),
      });
      created.push(body);
    }
    expect(new Set(created.map((r) => r.id)).size).toBe(4);
    expect(await get('/dvr/rules')).toEqual(created);
    for (const rule of created) expect(await get(`/dvr/rules/${String(rule.id)}`)).toEqual(rule);
  });

  it('replaces a rule whole with PUT: nothing of the old definition stays', async () => {
    const id = await addRule({ type: 'series', title: 'Harbour Lights', padding_after: 60, paused: true });
    const replacement = { type: 'keyword', keyword: 'harbour', priority: 3 };
    const response = await send('PUT', `/dvr/rules/${id}`, replacement);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ id, ...replacement });
    expect(await get(`/dvr/rules/${id}`)).toEqual({ id, ...replacement });
    expect((await get<Json[]>('/dvr/rules')).length).toBe(1);
  });

  it('deletes a rule with a 204; it is then a 404, and so is a second delete', async () => {
    const id = await addRule({ type: 'keyword', keyword: 'movie' });
    const deleted = await send('DELETE', `/dvr/rules/${id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expectJsonError(await send('GET', `/dvr/rules/${id}`), 404);
    expectJsonError(await send('DELETE', `/dvr/rules/${id}`), 404);
    expect(await get('/dvr/rules')).toEqual([]);
  });

  it('answers an unknown rule id with a 404 JSON error on GET, PUT and DELETE', async () => {
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const response = await send(
        method,
        '/dvr/rules/424242',
        method === 'PUT' ? { type: 'keyword', keyword: 'news' } : undefined,
      );
      const body = expectJsonError(response, 404);
      expect(body.code, method).toBe('not_found');
      expect(body.message).toMatch(/424242/);
    }
  });

  it.each([
    ['an unknown type', { type: 'movie', title: 'Night Movie' }, 'type'],
    ['an unknown extra field', { type: 'series', title: 'Harbour Lights', colour: 'red' }, 'colour'],
    ['a one-character keyword', { type: 'keyword', keyword: 'a' }, 'keyword'],
    ['a slot without a duration', { type: 'slot', channel: '3', start_time: 1_900_000_000 }, 'duration'],
    ['padding out of range', { type: 'series', title: 'Harbour Lights', padding_before: 99_999 }, 'padding_before'],
    [
      'a program rule with a malformed channel',
      { type: 'program', channel: 'two', start_time: 1_900_000_000 },
      'channel',
    ],
  ])('refuses %s with a 400 whose message names the field', async (_what, body, field) => {
    for (const [method, url] of [
      ['POST', '/dvr/rules'],
      ['PUT', `/dvr/rules/${await addRule({ type: 'keyword', keyword: 'news' })}`],
    ] as const) {
      const response = await send(method, url, body);
      const error = expectJsonError(response, 400);
      expect(error.message, `${method} ${JSON.stringify(error)}`).toContain(field);
    }
    // Nothing was stored by the refusals.
    expect((await get<Json[]>('/dvr/rules')).every((r) => r.type === 'keyword' && r.keyword === 'news')).toBe(true);
  });

  it('refuses a series rule with neither title nor series_id: 400 on parameter series_id', async () => {
    const response = await send('POST', '/dvr/rules', { type: 'series', padding_after: 30 });
    expect(expectJsonError(response, 400)).toMatchObject({ code: 'invalid_parameter', parameter: 'series_id' });
    expect(await get('/dvr/rules')).toEqual([]);
  });

  it('never answers 500 to any body on POST /dvr/rules and PUT /dvr/rules/:id', async () => {
    const existing = await addRule({ type: 'keyword', keyword: 'news' });
    const outcomes = new Set<number>();
    const value = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.integer({ min: -5000, max: 300_000 }),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.constantFrom('99', '99.1', '12-1', 'x', ''), { maxLength: 3 }),
      fc.jsonValue({ maxDepth: 2 }),
    );
    // Close to real rules: each type with its own fields, mostly valid values, on channels no source carries
    // (so nothing starts recording).
    const maybe = <T>(valid: fc.Arbitrary<T>) =>
      fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: value });
    const common = {
      name: maybe(fc.string({ minLength: 1, maxLength: 8 })),
      channels: maybe(fc.array(fc.constantFrom('99', '99.1', '12-1'), { maxLength: 3 })),
      new_only: maybe(fc.boolean()),
      padding_before: maybe(fc.integer({ min: 0, max: 3600 })),
      padding_after: maybe(fc.integer({ min: 0, max: 3 * 3600 })),
      keep: maybe(fc.integer({ min: 0, max: 10_000 })),
      priority: maybe(fc.integer({ min: -1000, max: 1000 })),
      paused: maybe(fc.boolean()),
    };
    const channel = maybe(fc.constantFrom('99', '99.1', '12-1', '98765'));
    const startTime = maybe(fc.integer({ min: 0, max: 253402300799 }));
    const fields: Record<string, Record<string, fc.Arbitrary<unknown>>> = {
      series: {
        series_id: maybe(fc.string({ minLength: 1, maxLength: 8 })),
        title: maybe(fc.string({ minLength: 1, maxLength: 8 })),
      },
      keyword: { keyword: maybe(fc.string({ minLength: 2, maxLength: 8 })) },
      slot: {
        channel,
        start_time: startTime,
        duration: maybe(fc.integer({ min: 60, max: 86400 })),
        weekly: maybe(fc.boolean()),
      },
      program: { channel, start_time: startTime },
    };
    const required: Record<string, string[]> = {
      series: [],
      keyword: ['keyword'],
      slot: ['channel', 'start_time', 'duration'],
      program: ['channel', 'start_time'],
    };
    const ruleLike = fc.constantFrom('series', 'keyword', 'slot', 'program').chain((type) => {
      const model: Record<string, fc.Arbitrary<unknown>> = {
        type: maybe(fc.constant(type)),
        ...fields[type],
        ...common,
      };
      return fc.record(model, { requiredKeys: ['type', ...(required[type] ?? [])] });
    });
    const misfit = fc.record(
      {
        type: fc.oneof(fc.constantFrom('series', 'keyword', 'slot', 'program', 'Series', ''), value),
        title: value,
        keyword: value,
        channel: value,
        duration: value,
        id: value,
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      { weight: 3, arbitrary: ruleLike.map((rule) => JSON.stringify(rule)) },
      misfit.map((rule) => JSON.stringify(rule)),
      fc
        .dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 })
        .map((d) => JSON.stringify(d)),
      fc.anything().map((v) => JSON.stringify(v) ?? 'null'),
      fc.string({ maxLength: 40 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('POST', 'PUT'), body, async (method, text) => {
        const url = method === 'POST' ? '/dvr/rules' : `/dvr/rules/${existing}`;
        const response = await sendJson(method, url, text);
        expect([method === 'POST' ? 201 : 200, 400], `${method} ${text}: ${response.body}`).toContain(
          response.statusCode,
        );
        outcomes.add(response.statusCode);
        const answer = response.json<Json>();
        if (response.statusCode === 400)
          expect(answer).toMatchObject({ status: 400, code: expect.any(String), message: expect.any(String) });
        else expect(answer.id).toMatch(/^[0-9]+$/);
      }),
      { numRuns: 300 },
    );
    // The bodies reached both the refusals and the service.
    expect([...outcomes].sort()).toEqual([200, 201, 400]);
  });

  it('never answers 500 to any rule id: a 400 or a 404', async () => {
    const id = fc
      .oneof(
        fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent),
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).map(encodeURIComponent),
        fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map(String),
        fc.constantFrom('%', '%zz', '0', '-1', '1.5', '1e3', '9'.repeat(16), '9'.repeat(15), 'a'.repeat(3000), '%00'),
        // "/dvr/rules/." and "/dvr/rules/.." are dot segments: the URL resolves to the rule list or to GET /dvr (200s),
        // not to an id.
      )
      .filter((raw) => raw !== '.' && raw !== '..');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'PUT', 'DELETE'), id, async (method, raw) => {
        const response = await send(
          method,
          `/dvr/rules/${raw}`,
          method === 'PUT' ? { type: 'keyword', keyword: 'news' } : undefined,
        );
        expect([400, 404], `${method} ${raw}: ${response.body}`).toContain(response.statusCode);
        expect(response.json()).toMatchObject({ status: response.statusCode, code: expect.any(String) });
      }),
      { numRuns: 300 },
    );
  });
});

describe('jobs', () => {
  it('plans jobs as soon as a rule is added, with ids <start>-<rule id> (the padded start)', async () => {
    expect(await jobs()).toEqual([]);
    const series = await addRule({ type: 'series', series_id: 'SH00000001', padding_before: 120 });
    const movie = await addRule({ type: 'program', channel: '3', start_time: T });
    const list = await jobs();
    expect(list.map((j) => j.id)).toEqual([`${T - 120}-${series}`, `${T}-${movie}`]);
    expect(list[0]).toMatchObject({
      name: 'Harbour Lights',
      start_time: T - 120,
      end_time: T + 1800,
      channels: ['2'],
      channel: '2',
      skipped: false,
      failed: false,
    });
    expect(list[0]?.item).toMatchObject({
      title: 'Harbour Lights',
      episode_title: 'Fog',
      program_id: 'EP000000010002',
    });
    expect(list[1]).toMatchObject({ name: 'Night Movie', channel: '3', start_time: T, end_time: T + 3600 });
    // A rule's removal takes its planned jobs with it.
    expect((await send('DELETE', `/dvr/rules/${series}`)).statusCode).toBe(204);
    expect((await jobs()).map((j) => j.id)).toEqual([`${T}-${movie}`]);
  });

  it('skips a planned job on DELETE /dvr/jobs/:id, and it stays skipped through a refresh and re-planning', async () => {
    const rule = await addRule({ type: 'series', title: 'harbour lights' });
    const id = `${T}-${rule}`;
    expect(await get(`/api/v1/jobs/${id}`)).toMatchObject({ skipped: false });
    const skipped = await send('DELETE', `/dvr/jobs/${id}`);
    expect(skipped.statusCode).toBe(204);
    expect(await get(`/api/v1/jobs/${id}`)).toMatchObject({ id, skipped: true, error: 'skipped by the user' });
    expect((await send('POST', '/dvr/refresh')).statusCode).toBe(200);
    expect(
      (await send('PUT', `/dvr/rules/${rule}`, { type: 'series', title: 'Harbour Lights', name: 'Renamed' }))
        .statusCode,
    ).toBe(200);
    expect(await get(`/api/v1/jobs/${id}`)).toMatchObject({
      name: 'Renamed',
      skipped: true,
      error: 'skipped by the user',
    });
    expect(await get(`/dvr/jobs/${id}/why`)).toEqual({
      id,
      outcome: 'skipped',
      why: '“Renamed” will not be recorded: you skipped it.',
    });
    // Skipping twice is still a 204.
    expect((await send('DELETE', `/dvr/jobs/${id}`)).statusCode).toBe(204);
  });

  it('takes a channel written 7-1 in a rule (as the schema allows) for channel 7.1', async () => {
    const program = await addRule({ type: 'program', channel: '7-1', start_time: T });
    const slot = await addRule({ type: 'slot', channel: '7-1', start_time: T + 1800, duration: 600 });
    const series = await addRule({ type: 'series', title: 'Tuner Show', channels: ['7-1'] });
    for (const [rule, start] of [
      [program, T],
      [slot, T + 1800],
      [series, T],
    ] as const) {
      expect(await get(`/api/v1/jobs/${start}-${rule}`), `rule ${rule}`).toMatchObject({
        channel: '7.1',
        skipped: false,
      });
    }
  });

  it('refuses a malformed job id with a 400 and answers an unknown one with a 404', async () => {
    for (const bad of ['abc', '123', '1-2-3', `${T}-`, `-${T}`, '1234567890123-1', `${T}-1x`]) {
      expect(expectJsonError(await send('DELETE', `/dvr/jobs/${encodeURIComponent(bad)}`), 400).code, bad).toBe(
        'invalid_parameter',
      );
    }
    const unknown = expectJsonError(await send('DELETE', `/dvr/jobs/${T}-99999`), 404);
    expect(unknown.code).toBe('not_found');
    for (const bad of ['abc', '1-2-3', `${T}-`])
      expect(expectJsonError(await send('GET', `/dvr/jobs/${encodeURIComponent(bad)}/why`), 400).code, bad).toBe(
        'invalid_parameter',
      );
    expect(expectJsonError(await send('GET', `/dvr/jobs/${T}-99999/why`), 404).code).toBe('not_found');
  });

  it('never answers 500 to any job id: a 400 or a 404', async () => {
    const id = fc
      .oneof(
        fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent),
        fc
          .tuple(fc.bigInt({ min: 0n, max: 10n ** 16n }), fc.bigInt({ min: 0n, max: 10n ** 17n }))
          .map(([a, b]) => `${a}-${b}`),
        fc.constantFrom('%', '%zz', '0-0', '-1-1', '1.5-2', `${T}-${2 ** 53}`, 'a'.repeat(3000), '%00'),
      )
      .filter((raw) => raw !== '.' && raw !== '..');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'DELETE'), id, async (method, raw) => {
        const response = await send(method, method === 'GET' ? `/dvr/jobs/${raw}/why` : `/dvr/jobs/${raw}`);
        expect([400, 404], `${method} ${raw}: ${response.body}`).toContain(response.statusCode);
        expect(response.json()).toMatchObject({ status: response.statusCode, code: expect.any(String) });
      }),
      { numRuns: 300 },
    );
  });

  it('says in one sentence where and when a planned job records', async () => {
    const rule = await addRule({ type: 'series', series_id: 'SH00000001' });
    const why = await get(`/dvr/jobs/${T}-${rule}/why`);
    expect(why).toMatchObject({ id: `${T}-${rule}`, outcome: 'will_record' });
    expect(why.why).toMatch(
      /^“Harbour Lights” will record on channel 2 \(.+\) from \w{3} \d{1,2} \w{3}, \d\d:\d\d to \w{3} \d{1,2} \w{3}, \d\d:\d\d\.$/,
    );
  });
});

describe('sources', () => {
  it('lists the configured source with its stream limit and last refresh', async () => {
    const sources = await get<Json[]>('/dvr/sources');
    expect(sources).toHaveLength(1);
    expect(sources[0]).toEqual({
      id: expect.stringMatching(/^m3u-[0-9a-f]{12}$/),
      kind: 'm3u',
      location: f.m3u,
      name: `M3U ${f.m3u}`,
      streams: 4,
      origin: 'config',
      skipped: 0,
      channels: 5,
      refreshed_at: expect.any(Number),
    });
  });

  it('adds an M3U file with POST (201, channels read at once) and removes it with DELETE (its channels go too)', async () => {
    const path = join(f.feeds, 'extra.m3u');
    writeFileSync(
      path,
      [
        '#EXTM3U',
        `#EXTINF:-1 tvg-chno="20",Twenty\n${streams.url('twenty')}`,
        '#EXTINF:-1 tvg-chno="22",an entry without a url',
        `#EXTINF:-1 tvg-chno="21",Twenty-One HD\n${streams.url('twentyone')}`,
      ].join('\n'),
    );
    const response = await send('POST', '/dvr/sources', { kind: 'm3u', location: path, streams: 3 });
    expect(response.statusCode, response.body).toBe(201);
    const source = response.json<Json>();
    expect(source).toMatchObject({
      kind: 'm3u',
      location: path,
      streams: 3,
      origin: 'managed',
      skipped: 1,
      refreshed_at: expect.any(Number),
    });
    expect(source).not.toHaveProperty('error');
    const numbers = async () => (await get<Json[]>('/api/v1/channels')).map((c) => c.number);
    expect(await numbers()).toEqual(['2', '3', '4', '6', '7.1', '20', '21']);
    expect((await get<Json[]>('/api/v1/channels')).find((c) => c.number === '21')).toMatchObject({
      name: 'Twenty-One HD',
      hd: true,
    });
    expect(await get<Json[]>('/dvr/sources')).toHaveLength(2);

    expect((await send('DELETE', `/dvr/sources/${String(source.id)}`)).statusCode).toBe(204);
    expect(await numbers()).toEqual(['2', '3', '4', '6', '7.1']);
    expectJsonError(await send('DELETE', `/dvr/sources/${String(source.id)}`), 404);
  });

  it('refuses "streams" for an HDHomeRun with a 400 naming it, and stores nothing', async () => {
    const response = await send('POST', '/dvr/sources', { kind: 'hdhomerun', location: '127.0.0.1:1', streams: 2 });
    expect(expectJsonError(response, 400)).toMatchObject({ parameter: 'streams' });
    expect(await get<Json[]>('/dvr/sources')).toHaveLength(1);
  });

  it('refuses malformed source bodies with a 400', async () => {
    for (const body of [
      { kind: 'rtsp', location: 'x' },
      { kind: 'm3u' },
      { kind: 'm3u', location: '' },
      { kind: 'm3u', location: 'x', streams: 0 },
      { kind: 'm3u', location: 'x', extra: 1 },
    ]) {
      expectJsonError(await send('POST', '/dvr/sources', body), 400);
    }
    expect(await get<Json[]>('/dvr/sources')).toHaveLength(1);
  });

  it('answers DELETE of an unknown source with a 404 JSON error', async () => {
    expect(expectJsonError(await send('DELETE', '/dvr/sources/m3u-000000000000'), 404).code).toBe('not_found');
  });

  it('refreshes every source and guide on POST /dvr/refresh and answers a summary', async () => {
    const response = await send('POST', '/dvr/refresh');
    expect(response.statusCode).toBe(200);
    const [source] = await get<Json[]>('/dvr/sources');
    const [guide] = await get<Json[]>('/dvr/guides');
    expect(response.json()).toEqual({
      sources: [{ id: source?.id, channels: 5, skipped: 0 }],
      guides: [{ id: guide?.id, programmes: GUIDE_PROGRAMMES, skipped: 0 }],
    });
  });

  it('reports a source file that no longer exists in the refresh summary and in GET /dvr/sources, keeping its channels', async () => {
    await addRule({ type: 'series', title: 'Harbour Lights' });
    rmSync(f.m3u);
    const response = await send('POST', '/dvr/refresh');
    expect(response.statusCode).toBe(200);
    const summary = response.json<{ sources: Json[]; guides: Json[] }>();
    expect(summary.sources[0]?.error).toMatch(/does not exist/);
    expect(summary.sources[0]).not.toHaveProperty('channels');
    const [source] = await get<Json[]>('/dvr/sources');
    expect(source?.error).toBe(summary.sources[0]?.error);
    expect((await get<Json[]>('/api/v1/channels')).map((c) => c.number)).toEqual(['2', '3', '4', '6', '7.1']);
    expect((await jobs()).map((j) => j.channel)).toEqual(['2']);

    // A new source that cannot be read is still added: a 201 that carries the error.
    const added = await send('POST', '/dvr/sources', { kind: 'm3u', location: join(f.feeds, 'nowhere.m3u') });
    expect(added.statusCode).toBe(201);
    expect(added.json()).toMatchObject({
      streams: 2,
      origin: 'managed',
      error: expect.stringMatching(/does not exist/),
    });
    expect(added.json()).not.toHaveProperty('refreshed_at');
  });

  it('refreshes one source or guide on POST /dvr/sources/:id/refresh and /dvr/guides/:id/refresh; ?accept=true applies what removes most', async () => {
    await addRule({ type: 'series', title: 'Harbour Lights' });
    const [source] = await get<Json[]>('/dvr/sources');
    const [guide] = await get<Json[]>('/dvr/guides');
    writeM3u(f.m3u, lineup().slice(0, 1));
    const refused = await send('POST', `/dvr/sources/${String(source?.id)}/refresh`);
    expect(refused.statusCode).toBe(200);
    expect(refused.json()).toEqual({
      id: source?.id,
      error: expect.stringMatching(/would remove 4 of the 5 channels/),
      rejected: 'shrinks',
      needs_confirmation: true,
    });
    expect(await get<Json[]>('/dvr/sources')).toEqual([
      { ...source, error: refused.json<Json>().error, rejected: 'shrinks', needs_confirmation: true },
    ]);
    expect((await jobs()).map((j) => j.channel)).toEqual(['2']);
    // POST /dvr/refresh says the same, and never confirms.
    expect((await send('POST', '/dvr/refresh')).json<{ sources: Json[] }>().sources).toEqual([refused.json()]);

    const accepted = await send('POST', `/dvr/sources/${String(source?.id)}/refresh?accept=true`);
    expect(accepted.json()).toEqual({ id: source?.id, channels: 1, skipped: 0 });
    expect((await get<Json[]>('/api/v1/channels')).map((c) => c.number)).toEqual(['2']);

    writeXmltv(f.guide, [], []);
    expect((await send('POST', `/dvr/guides/${String(guide?.id)}/refresh`)).json()).toMatchObject({
      rejected: 'empty',
      needs_confirmation: true,
      error: expect.stringMatching(/no programmes/),
    });
    expect((await jobs()).map((j) => j.channel)).toEqual(['2']);
    expect((await send('POST', `/dvr/guides/${String(guide?.id)}/refresh?accept=true`)).json()).toEqual({
      id: guide?.id,
      programmes: 0,
      skipped: 0,
    });
    expect((await jobs()).map((j) => [j.skipped, j.error])).toEqual([
      [true, expect.stringMatching(/the guide no longer lists this programme/)],
    ]);

    expectJsonError(await send('POST', `/dvr/guides/${String(guide?.id)}/refresh?accept=perhaps`), 400);
    expect(expectJsonError(await send('POST', '/dvr/sources/m3u-000000000000/refresh'), 404).code).toBe('not_found');
    expect(expectJsonError(await send('POST', '/dvr/guides/xmltv-000000000000/refresh?accept=true'), 404).code).toBe(
      'not_found',
    );
  });
});

describe('guides', () => {
  it('adds a guide file with POST (201, programmes counted) and removes it with DELETE', async () => {
    const path = join(f.feeds, 'other.xml');
    writeXmltv(
      path,
      [['other.test', 'Other']],
      [
        { channel: 'other.test', start: T, stop: T + 600, title: 'One' },
        { channel: 'other.test', start: T + 600, stop: T + 1200, title: 'Two' },
        { channel: 'other.test', start: T + 1200, stop: T + 1200, title: 'Zero length' },
      ],
    );
    const response = await send('POST', '/dvr/guides', { location: path });
    expect(response.statusCode, response.body).toBe(201);
    const guide = response.json<Json>();
    expect(guide).toEqual({
      id: expect.stringMatching(/^xmltv-/),
      location: path,
      origin: 'managed',
      programmes: 2,
      skipped: 1,
      priority: 100,
      refreshed_at: expect.any(Number),
    });
    expect(await get<Json[]>('/dvr/guides')).toHaveLength(2);
    expect((await send('DELETE', `/dvr/guides/${String(guide.id)}`)).statusCode).toBe(204);
    expect((await get<Json[]>('/dvr/guides')).map((g) => g.location)).toEqual([f.guide]);
    expectJsonError(await send('DELETE', `/dvr/guides/${String(guide.id)}`), 404);
  });

  it('removing a guide takes its programmes; the jobs planned from them stay listed, skipped, saying why', async () => {
    await addRule({ type: 'series', title: 'Harbour Lights' });
    expect(await jobs()).toHaveLength(1);
    const [guide] = await get<Json[]>('/dvr/guides');
    expect((await send('DELETE', `/dvr/guides/${String(guide?.id)}`)).statusCode).toBe(204);
    expect(await jobs()).toEqual([
      expect.objectContaining({
        skipped: true,
        error: expect.stringMatching(/^the guide no longer lists this programme/),
      }),
    ]);
    // No guide describes channel 2 now: its guide is placeholder hours named after it.
    const hours = await get<Json[]>(`/dvr/channels/2/guide?from=${T}&to=${T + 3600}`);
    expect(hours.length).toBeGreaterThan(0);
    expect(hours.every((hour) => hour.placeholder === true && hour.title === 'Two')).toBe(true);
  });

  it('adds a malformed guide (an HTML page) with a 201 that carries the error, not a 500', async () => {
    const path = join(f.feeds, 'login.xml');
    writeFileSync(
      path,
      '<!doctype html>\n<html><head><title>Sign in</title></head><body><p>Sign in</p></body></html>\n',
    );
    const response = await send('POST', '/dvr/guides', { location: path });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({ location: path, programmes: 0, error: expect.stringMatching(/XMLTV/) });
    expect(response.json()).not.toHaveProperty('refreshed_at');
    const missing = await send('POST', '/dvr/guides', { location: join(f.feeds, 'absent.xml') });
    expect(missing.statusCode).toBe(201);
    expect(missing.json()).toMatchObject({ error: expect.stringMatching(/does not exist/) });
  });

  it('refuses malformed guide bodies with a 400', async () => {
    for (const body of [
      {},
      { location: '' },
      { location: {} },
      { location: 'x'.repeat(2049) },
      { location: 'x', kind: 'xmltv' },
    ]) {
      expectJsonError(await send('POST', '/dvr/guides', body), 400);
    }
    expect(await get<Json[]>('/dvr/guides')).toHaveLength(1);
  });
});

describe('channels', () => {
  const favorited = async () =>
    (await get<Json[]>('/api/v1/channels')).filter((c) => c.favorited === true).map((c) => c.number);

  it('favorites and un-favorites a channel (204), and interface A shows it', async () => {
    expect(await favorited()).toEqual([]);
    expect((await send('PUT', '/dvr/channels/3/favorite')).statusCode).toBe(204);
    expect((await send('PUT', '/dvr/channels/7-1/favorite')).statusCode).toBe(204); // 7-1 is 7.1
    expect(await favorited()).toEqual(['3', '7.1']);
    expect((await send('PUT', '/dvr/channels/3/favorite')).statusCode).toBe(204); // twice is once
    expect((await send('DELETE', '/dvr/channels/3/favorite')).statusCode).toBe(204);
    expect(await favorited()).toEqual(['7.1']);
    // A favorite outlives a refresh that re-creates the channel rows.
    expect((await send('POST', '/dvr/refresh')).statusCode).toBe(200);
    expect(await favorited()).toEqual(['7.1']);
  });

  it('answers an unknown channel number with a 404 and a malformed one with a 400', async () => {
    for (const method of ['PUT', 'DELETE'] as const) {
      expect(expectJsonError(await send(method, '/dvr/channels/42/favorite'), 404).code).toBe('not_found');
      for (const bad of ['abc', '1.2.3', '123456', '2.', '%20']) {
        expect(expectJsonError(await send(method, `/dvr/channels/${bad}/favorite`), 400).parameter, bad).toBe('number');
      }
    }
    expect(await favorited()).toEqual([]);
  });

  it("answers a channel's programmes between two times", async () => {
    const both = await send('GET', `/dvr/channels/2/guide?from=${T}&to=${T + 3600}`);
    expect(both.statusCode).toBe(200);
    expect(both.json()).toEqual([
      {
        start_time: T,
        end_time: T + 1800,
        title: 'Harbour Lights',
        episode_title: 'Fog',
        summary: 'Fog rolls in.',
        program_id: 'EP000000010002',
        series_id: 'SH00000001',
        new: false,
      },
      { start_time: T + 1800, end_time: T + 3600, title: 'Late News', new: false },
    ]);
    // Programmes overlapping [from, to): one that ends at `from` is not in it.
    expect((await get<Json[]>(`/dvr/channels/2/guide?from=${T + 1800}&to=${T + 3600}`)).map((a) => a.title)).toEqual([
      'Late News',
    ]);
    expect((await get<Json[]>(`/dvr/channels/3/guide?from=${T + 100}&to=${T + 200}`)).map((a) => a.title)).toEqual([
      'Night Movie',
    ]);
    expect(await get(`/dvr/channels/2/guide?from=${T - 7200}&to=${T - 3600}`)).toEqual([]);
    expect((await get<Json[]>('/dvr/channels/7-1/guide?from=' + T + '&to=' + (T + 60))).map((a) => a.title)).toEqual([
      'Tuner Show',
    ]);
  });

  it('refuses a guide window that is empty, reversed or longer than 15 days with a 400; an unknown channel is a 404', async () => {
    for (const [from, to] of [
      [T, T],
      [T, T - 1],
    ]) {
      expect(expectJsonError(await send('GET', `/dvr/channels/2/guide?from=${from}&to=${to}`), 400).parameter).toBe(
        'to',
      );
    }
    expect(
      expectJsonError(await send('GET', `/dvr/channels/2/guide?from=${T}&to=${T + 15 * 86400 + 1}`), 400).parameter,
    ).toBe('to');
    expect((await send('GET', `/dvr/channels/2/guide?from=${T}&to=${T + 15 * 86400}`)).statusCode).toBe(200);
    for (const query of ['from=abc', 'from=-1', 'to=1.5', 'since=1'])
      expectJsonError(await send('GET', `/dvr/channels/2/guide?${query}`), 400);
    expectJsonError(await send('GET', `/dvr/channels/42/guide?from=${T}&to=${T + 60}`), 404);
  });
});

describe('record now', () => {
  it.each([
    ['a web page', '4'],
    ['HTTP 404', '6'],
  ])('refuses with a 409 and a message to record a channel whose stream answers %s', async (_what, number) => {
    try {
      const response = await send('POST', `/dvr/channels/${number}/recording`);
      const body = expectJsonError(response, 409);
      expect(body.message).toMatch(new RegExp(`channel ${number}`));
      // Nothing is left behind: no rule, no job in the plan.
      expect(await get('/dvr/rules')).toEqual([]);
      expect((await jobs()).filter((j) => j.channel === number && j.failed !== true)).toEqual([]);
    } finally {
      f.dvr.live.stopRecording(number);
    }
  });

  it('answers an unknown channel with a 404, and stopping a channel nothing records with a 404 not_recording', async () => {
    expect(expectJsonError(await send('POST', '/dvr/channels/42/recording'), 404).code).toBe('not_found');
    const idle = expectJsonError(await send('DELETE', '/dvr/channels/3/recording'), 404);
    expect(idle.code).toBe('not_recording');
    expect(idle.message).toMatch(/channel 3/);
    expect(expectJsonError(await send('POST', '/dvr/channels/x/recording'), 400).parameter).toBe('number');
  });

  it('records a working channel at once (201, the same job when asked again) and stops it with DELETE (204)', async () => {
    const started = await send('POST', '/dvr/channels/2/recording');
    expect(started.statusCode, started.body).toBe(201);
    const job = started.json<Json>();
    // Nothing is on in the guide now: the channel's name, for an hour.
    expect(job).toMatchObject({ id: expect.stringMatching(/^[0-9]+-[0-9]+$/), name: 'Two 2', channel: '2' });
    expect((job.end_time as number) - (job.start_time as number)).toBe(3600);
    expect((await send('POST', '/dvr/channels/2-0/recording')).statusCode).toBe(404);
    expect((await send('POST', '/dvr/channels/2/recording')).json()).toMatchObject({ id: job.id });
    expect((await send('DELETE', '/dvr/channels/2/recording')).statusCode).toBe(204);
  });
});

describe('live TV', () => {
  it('answers an unknown channel with a 404 JSON error', async () => {
    const response = await send('GET', '/devices/ANY/channels/42/stream.mpg');
    expect(response.headers['content-type']).toMatch(/application\/json/);
    expect(expectJsonError(response, 404).code).toBe('not_found');
  });

  it('answers 503 JSON when the source answers 404 or a web page', async () => {
    const missing = await send('GET', '/devices/ANY/channels/6/stream.mpg');
    expect(missing.headers['content-type']).toMatch(/application\/json/);
    expect(expectJsonError(missing, 503)).toMatchObject({
      code: 'stream_unavailable',
      message: expect.stringMatching(/HTTP 404/),
    });
    const page = await send('GET', '/devices/ANY/channels/4/stream.mpg');
    expect(expectJsonError(page, 503)).toMatchObject({
      code: 'stream_unavailable',
      message: expect.stringMatching(/web page/),
    });
  });

  it('refuses a malformed channel number with a 400', async () => {
    expect(expectJsonError(await send('GET', '/devices/ANY/channels/two/stream.mpg'), 400).parameter).toBe('number');
  });

  it('streams MPEG-TS from a working channel over a real port, and lets go of the source when the viewer leaves', async () => {
    const address = await f.app.listen({ host: '127.0.0.1', port: 0 });
    const viewer = new AbortController();
    const response = await fetch(`${address}/devices/ANY/channels/7-1/stream.mpg`, { signal: viewer.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('video/mp2t');
    const reader = response.body!.getReader();
    let bytes = Buffer.alloc(0);
    while (bytes.length < 188 * 20) bytes = Buffer.concat([bytes, Buffer.from((await reader.read()).value!)]);
    expect(bytes[0]).toBe(0x47);
    expect(streams.connections('seven')).toBe(1);
    viewer.abort();
    const deadline = Date.now() + 5000;
    while (streams.connections('seven') > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(streams.connections('seven')).toBe(0);
  });
});

describe('write access', () => {
  let guarded: Fixture | undefined;
  afterEach(async () => {
    await teardown(guarded);
    guarded = undefined;
  });

  it('with a token configured, refuses DVR writes without it (401) and accepts them with it', async () => {
    guarded = await setup(TOKEN);
    const rule = { type: 'keyword', keyword: 'news' };
    const without = await send('POST', '/dvr/rules', rule, guarded.app);
    expect(expectJsonError(without, 401).code).toBe('unauthorized');
    expect(without.headers['www-authenticate']).toBe('Bearer');
    const wrong = await guarded.app.inject({
      method: 'POST',
      url: '/dvr/rules',
      payload: rule,
      headers: { authorization: 'Bearer nope' },
    });
    expect(wrong.statusCode).toBe(401);
    for (const [method, url] of [
      ['DELETE', '/dvr/jobs/1-1'],
      ['PUT', '/dvr/channels/2/favorite'],
      ['POST', '/dvr/refresh'],
      ['POST', '/dvr/sources/m3u-1/refresh?accept=true'],
      ['POST', '/dvr/guides/xmltv-1/refresh'],
      ['POST', '/dvr/channels/2/recording'],
    ] as const) {
      expect((await send(method, url, undefined, guarded.app)).statusCode, `${method} ${url}`).toBe(401);
    }
    expect((await send('GET', '/dvr/rules', undefined, guarded.app)).json()).toEqual([]);
    const allowed = await guarded.app.inject({
      method: 'POST',
      url: '/dvr/rules',
      payload: rule,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(allowed.statusCode).toBe(201);
    expect((await send('GET', '/dvr/rules', undefined, guarded.app)).json()).toHaveLength(1);
  });
});

describe('the routes desktop clients call', () => {
  it('gives the free space of the disk the recordings folder will be made on before it exists, and the import folders', async () => {
    rmSync(join(f.temp.dir, 'recordings'), { recursive: true, force: true });
    const body = await get('/dvr');
    expect((body.disk as { free: number; total: number }).total).toBeGreaterThan(0);
    expect(Array.isArray(body.roots)).toBe(true);
  });

  it('describes the DVR at GET /dvr: its recordings folder, version and free space', async () => {
    mkdirSync(join(f.temp.dir, 'recordings'), { recursive: true });
    const body = await get('/dvr');
    expect(body).toMatchObject({
      path: expect.stringMatching(/recordings$/),
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
    expect((body.disk as { free: number; total: number }).free).toBeLessThanOrEqual(
      (body.disk as { total: number }).total,
    );
  });

  it("lists the guides' channels with their ids, names and numbers", async () => {
    const channels = await get<Json[]>('/dvr/guide/channels');
    expect(channels.map((c) => c.id).sort()).toEqual(['four.test', 'seven.test', 'six.test', 'three.test', 'two.test']);
    expect(channels.find((c) => c.id === 'seven.test')).toMatchObject({ names: ['7.1'], number: '7.1' });
  });

  it("gives a file record the PascalCase fields clients read: a recording's rule and job, an import's empty ones", async () => {
    upsertMovie(f.temp.db, {
      id: 'rec-1',
      source: 'recordings',
      title: 'Night Movie',
      path: '/recordings/Movies/Night Movie.ts',
      program_id: 'MV000000010000',
      duration: 5400,
    });
    insertRecording(f.temp.db, {
      item_id: 'rec-1',
      job_id: `${T}-4`,
      rule_id: 4,
      channel: '3',
      source_id: null,
      episode_key: 'pid:MV000000010000',
      started_at: Date.now(),
    });
    const record = await get('/dvr/files/rec-1');
    expect(record).toMatchObject({
      id: 'rec-1',
      ID: 'rec-1',
      RuleID: '4',
      JobID: `${T}-4`,
      GroupID: '',
      Path: '/recordings/Movies/Night Movie.ts',
      Duration: 5400,
      CreatedAt: expect.any(Number),
    });
    expect(record.file).toMatchObject({ available: false });
    upsertMovie(f.temp.db, { id: 'imp-1', source: 'imports', title: 'Own Film', path: '/media/Own Film.mkv' });
    expect(await get('/dvr/files/imp-1')).toMatchObject({ ID: 'imp-1', RuleID: '', JobID: '', Duration: 0 });
    expectJsonError(await send('GET', '/dvr/files/rec-1/preview.jpg'), 404);
  });

  it('forgets a recorded programme on DELETE /dvr/programs/:id, so its next airing is planned again', async () => {
    const rule = await addRule({ type: 'series', title: 'Harbour Lights' });
    const planned = async () => (await jobs()).filter((job) => String(job.id).endsWith(`-${rule}`) && !job.skipped);
    expect(await planned()).toHaveLength(1);
    rememberRecordedEpisode(f.temp.db, ['pid:EP000000010002']);
    f.dvr.schedule.replan();
    expect(await planned()).toHaveLength(0);
    expect((await send('DELETE', '/dvr/programs/EP000000010002')).statusCode).toBe(204);
    expect(await planned()).toHaveLength(1);
    expectJsonError(await send('DELETE', '/dvr/programs/EP000000010002'), 404);
    expectJsonError(await send('DELETE', '/dvr/programs/EP999'), 404);
  });
});
