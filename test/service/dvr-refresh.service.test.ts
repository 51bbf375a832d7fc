/**
 * "A refresh never loses what it cannot replace": DvrService on a real temp SQLite file,
 * its M3U source and XMLTV guide served by a tiny HTTP server in the test that fails in
 * each way in turn. Each rejected refresh keeps the channels or programmes, the time of
 * the last good refresh and a recording rule's jobs, stores the reason and logs a warning
 * saying what to do; `accept` applies only what is believable but removes much.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sourceIdFor, guideIdFor } from '../../src/dvr/sources/dvr-sources.service.js';
import type { DvrService } from '../../src/dvr/dvr.service.js';
import { listJobs } from '../../src/repositories/dvr/jobs.repository.js';
import { sourceOut } from '../../src/dvr/dvr-resource-mappers.js';
import { getSource, replaceSourceChannels } from '../../src/repositories/dvr/sources.repository.js';
import { createDvr, xmlTime } from '../support/dvr-app.js';
import type { NewEvent } from '../../src/model/events/event.schemas.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

/** Epoch seconds of the guide's first programme (2030): the clock stays before it. */
const T0 = 1_900_000_000;
const NOWHERE = 'http://127.0.0.1:9/stream';

/** What the feed server answers at a path. */
interface Feed {
  status?: number;
  body?: string | Buffer;
  /** Never answer (the refresh's time limit ends it). */
  hang?: boolean;
  /** Answer after this long. */
  delayMs?: number;
}

let temp: TempLibrary;
let server: Server;
let base: string;
const feeds = new Map<string, Feed>();
const hits = new Map<string, number>();
let dvr: DvrService;
let clock: number;
let logs: { level: number; msg: string; reason?: string; err?: string }[];
let told: NewEvent[];

function m3u(numbers: readonly string[]): string {
  return (
    [
      '#EXTM3U',
      ...numbers.flatMap((n) => [`#EXTINF:-1 tvg-id="ch${n}.test" tvg-chno="${n}",Channel ${n}`, `${NOWHERE}/${n}`]),
    ].join('\n') + '\n'
  );
}

interface Programme {
  channel: string;
  start: number;
  stop: number;
  title: string;
}

function xmltv(programmes: readonly Programme[], channels = ['2', '3', '4', '5']): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<tv generator-info-name="antenna-test">',
    ...channels.map((n) => `<channel id="ch${n}.test"><display-name>Channel ${n}</display-name></channel>`),
    ...programmes.map(
      (p) =>
        `<programme start="${xmlTime(p.start)}" stop="${xmlTime(p.stop)}" channel="ch${p.channel}.test"><title>${p.title}</title></programme>`,
    ),
    '</tv>',
    '',
  ].join('\n');
}

/** Eight half-hour programmes: Harbour Lights on channel 2 four times, films on channel 4. */
const PROGRAMMES: Programme[] = Array.from({ length: 8 }, (_, i) => ({
  channel: i % 2 === 0 ? '2' : '4',
  start: T0 + Math.floor(i / 2) * 1800,
  stop: T0 + Math.floor(i / 2) * 1800 + 1800,
  title: i % 2 === 0 ? 'Harbour Lights' : 'Night Movie',
}));
const GOOD_GUIDE = xmltv(PROGRAMMES);
const CHANNELS = ['2', '3', '4', '5'];

const url = (path: string) => `${base}${path}`;
const sourceId = () => sourceIdFor('m3u', url('/channels.m3u'));
const guideId = () => guideIdFor(url('/guide.xml'));

beforeEach(async () => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  feeds.clear();
  hits.clear();
  server = createServer((request, response) => {
    const path = request.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const feed = feeds.get(path);
    if (!feed) return void response.writeHead(404).end();
    if (feed.hang) return;
    setTimeout(
      () => response.writeHead(feed.status ?? 200, { 'content-type': 'text/plain' }).end(feed.body ?? ''),
      feed.delayMs ?? 0,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  clock = (T0 - 3600) * 1000;
  logs = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void logs.push(JSON.parse(line) as (typeof logs)[number]) },
  );
  feeds.set('/channels.m3u', { body: m3u(CHANNELS) });
  feeds.set('/guide.xml', { body: GOOD_GUIDE });
  told = [];
  dvr = createDvr(temp, {
    sources: [{ kind: 'm3u', location: url('/channels.m3u'), streams: 2 }],
    guides: [url('/guide.xml')],
    emit: (event) => told.push(event),
    now: () => clock,
    logger,
    sourceTimeoutMs: 300,
  });
  const first = await dvr.sources.refreshAll();
  expect(first).toEqual({
    sources: [{ id: sourceId(), channels: 4, skipped: 0 }],
    guides: [{ id: guideId(), programmes: 8, skipped: 0 }],
  });
});

afterEach(async () => {
  await dvr.stop();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  temp.close();
});

/** Everything a rejected refresh must leave as it was. */
function snapshot() {
  dvr.schedule.replan();
  return {
    // The reason and its kind change with each rejection; the rest must not.
    source: dvr.sources.listSources().map(({ error: _error, rejected: _rejected, ...rest }) => rest),
    guide: dvr.sources.listGuides().map(({ error: _error, rejected: _rejected, ...rest }) => rest),
    channels: dvr.live.channels(),
    programmes: CHANNELS.flatMap((n) => dvr.live.guide(n, T0 - 86400, T0 + 86400)),
    jobs: listJobs(temp.db),
  };
}

/** A series rule on channel 2 and a one-time recording on channel 4: jobs that must survive. */
function rules(): void {
  dvr.rules.create({ type: 'series', title: 'Harbour Lights' });
  dvr.rules.create({ type: 'program', channel: '4', start_time: T0 + 1800 });
  expect(listJobs(temp.db).map((job) => job.channel)).toEqual(['2', '2', '4', '2', '2']);
}

const warnings = () => logs.filter((line) => line.level === 40);

const truncated = GOOD_GUIDE.slice(0, GOOD_GUIDE.indexOf('Night Movie', GOOD_GUIDE.length / 2));

describe('what a refresh tells', () => {
  it('tells a source that starts failing once, and that it is back; each guide refresh, failed or applied', async () => {
    expect(told.map((e) => e.kind)).toEqual(['guide.applied']);
    told.length = 0;
    feeds.set('/channels.m3u', { status: 500, body: 'oops' });
    await dvr.refreshSource(sourceId());
    await dvr.refreshSource(sourceId());
    expect(told).toEqual([
      expect.objectContaining({
        kind: 'source.failing',
        severity: 'error',
        data: { source_id: sourceId(), reason: expect.stringMatching(/answered HTTP 500/) },
      }),
    ]);
    feeds.set('/channels.m3u', { body: m3u(CHANNELS) });
    await dvr.refreshSource(sourceId());
    expect(told.map((e) => e.kind)).toEqual(['source.failing', 'source.back']);
    told.length = 0;
    feeds.set('/guide.xml', { status: 404 });
    await dvr.refreshGuide(guideId());
    feeds.set('/guide.xml', { body: GOOD_GUIDE });
    await dvr.refreshGuide(guideId());
    expect(told.map((e) => [e.kind, e.data.guide_id])).toEqual([
      ['guide.failed', guideId()],
      ['guide.applied', guideId()],
    ]);
    expect(told[0]!.message).toMatch(/HTTP 404/);
  });
});

const SOURCE_FAULTS: [string, Feed, string, RegExp][] = [
  ['an HTTP 500', { status: 500, body: 'oops' }, 'unreadable', /answered HTTP 500/],
  ['a 404', { status: 404 }, 'unreadable', /answered HTTP 404/],
  ['no answer in time', { hang: true }, 'unreadable', /did not answer within 0\.3 s/],
  [
    'a web page with a 200',
    { body: '<!doctype html>\n<html><body>Your subscription has expired</body></html>' },
    'not_recognised',
    /web page or other markup, not an M3U playlist/,
  ],
  ['an empty body', { body: '' }, 'not_recognised', /the playlist is empty \(0 bytes\)/],
  ['an error text', { body: 'Too many connections\n' }, 'not_recognised', /not an M3U playlist/],
  [
    'a playlist with no entries',
    { body: '#EXTM3U\n' },
    'empty',
    /it lists no channels, where the last good refresh gave 4; it was not applied/,
  ],
  [
    'a playlist that drops most channels',
    { body: m3u(['2']) },
    'shrinks',
    /it would remove 3 of the 4 channels \(3, 4, 5\), more than 50 % of them/,
  ],
  ['a renumbered playlist', { body: m3u(['102', '103', '104', '105']) }, 'shrinks', /remove 4 of the 4 channels/],
];

describe('a source refresh that cannot be believed is not applied', () => {
  it.each(SOURCE_FAULTS)(
    '%s: channels, their time, the jobs kept; the reason stored and logged',
    async (_what, feed, kind, message) => {
      rules();
      const before = snapshot();
      feeds.set('/channels.m3u', feed);
      clock += 60_000;
      const result = await dvr.refreshSource(sourceId());
      const confirm = kind === 'empty' || kind === 'shrinks';
      expect(result).toEqual({
        id: sourceId(),
        error: expect.stringMatching(message),
        rejected: kind,
        ...(confirm ? { needs_confirmation: true } : {}),
      });
      expect(result.error).toMatch(/^M3U 127\.0\.0\.1:\d+: /);
      if (confirm)
        expect(result.error).toContain(
          `if the source really changed, confirm it: POST /dvr/sources/${sourceId()}/refresh?accept=true (antenna refresh --source ${sourceId()} --accept)`,
        );
      expect(getSource(temp.db, sourceId())).toMatchObject({
        error: result.error,
        rejected: kind,
        refreshed_at: (T0 - 3600) * 1000,
        channels: 4,
      });
      // The list says so too, for a client that did not see this answer (a scheduled refresh).
      expect(sourceOut(getSource(temp.db, sourceId())!)).toMatchObject({
        rejected: kind,
        ...(confirm ? { needs_confirmation: true } : {}),
      });
      expect(snapshot()).toEqual(before);
      expect(warnings()).toEqual([
        expect.objectContaining({
          reason: kind,
          err: result.error,
          msg: expect.stringMatching(
            kind === 'unreadable'
              ? /^source refresh failed; keeping its channels from the last refresh: /
              : /^source refresh not applied; keeping its channels from the last refresh: /,
          ),
        }),
      ]);
    },
  );

  it('applies a believable refresh: one channel of four gone, one added', async () => {
    rules();
    feeds.set('/channels.m3u', { body: m3u(['2', '3', '4', '9']) });
    clock += 60_000;
    expect(await dvr.refreshSource(sourceId())).toEqual({ id: sourceId(), channels: 4, skipped: 0 });
    expect(getSource(temp.db, sourceId())).toMatchObject({ error: null, refreshed_at: clock });
    expect(dvr.live.channels().map((c) => c.number)).toEqual(['2', '3', '4', '9']);
  });

  it('applies what the user confirms: most channels gone, then none', async () => {
    rules();
    feeds.set('/channels.m3u', { body: m3u(['2']) });
    expect((await dvr.refreshSource(sourceId())).rejected).toBe('shrinks');
    clock += 60_000;
    expect(await dvr.refreshSource(sourceId(), true)).toEqual({ id: sourceId(), channels: 1, skipped: 0 });
    expect(getSource(temp.db, sourceId())).toMatchObject({ error: null, refreshed_at: clock, channels: 1 });
    expect(dvr.live.channels().map((c) => c.number)).toEqual(['2']);
    // The recording on channel 4 has no channel any more; the series on 2 records on.
    expect(
      listJobs(temp.db)
        .filter((job) => job.skipped === 0)
        .map((job) => job.channel),
    ).toEqual(['2', '2', '2', '2']);
    expect(warnings().at(-1)?.msg).toBe(
      'source refresh applied as the user confirmed: it would remove 3 of the 4 channels (3, 4, 5), more than 50 % of them',
    );

    feeds.set('/channels.m3u', { body: '#EXTM3U\n' });
    expect((await dvr.refreshSource(sourceId())).rejected).toBe('empty');
    expect(await dvr.refreshSource(sourceId(), true)).toEqual({ id: sourceId(), channels: 0, skipped: 0 });
    expect(dvr.live.channels()).toEqual([]);
  });

  it('never applies, confirmed or not, what is not a playlist', async () => {
    for (const feed of [{ status: 500 }, { body: '' }, { body: '<html></html>' }] as Feed[]) {
      feeds.set('/channels.m3u', feed);
      expect((await dvr.refreshSource(sourceId(), true)).error).toEqual(expect.any(String));
      expect(dvr.live.channels().map((c) => c.number)).toEqual(CHANNELS);
    }
  });

  it('runs one refresh of a source at a time: calls meanwhile share it, one that accepts follows it', async () => {
    feeds.set('/channels.m3u', { body: m3u(['2']), delayMs: 100 });
    const id = sourceId();
    const [a, b, confirmed] = [
      dvr.sources.refreshSource(id),
      dvr.sources.refreshSource(id),
      dvr.sources.refreshSource(id, { accept: true }),
    ];
    const again = dvr.sources.refreshSource(id, { accept: true });
    expect(await a).toBe(await b);
    expect((await a).rejected).toBe('shrinks');
    expect(await confirmed).toEqual({ id, channels: 1, skipped: 0 });
    expect(await again).toBe(await confirmed);
    // The first refresh and the accepted one after it: one read each.
    expect(hits.get('/channels.m3u')).toBe(1 + 2);
  });

  it('replaces a lineup in one transaction: a write that fails half-way leaves the old lineup whole', () => {
    const before = dvr.live.channels();
    const channel = (number: string) => ({
      number,
      name: `New ${number}`,
      hd: false,
      stream_url: `${NOWHERE}/${number}`,
    });
    const broken = { number: '7', name: null as unknown as string, hd: false, stream_url: `${NOWHERE}/7` };
    expect(() =>
      replaceSourceChannels(temp.db, sourceId(), { channels: [channel('6'), broken, channel('8')], skipped: 0 }),
    ).toThrow(/NOT NULL/);
    expect(dvr.live.channels()).toEqual(before);
  });
});

const GUIDE_FAULTS: [string, Feed, string, RegExp][] = [
  ['an HTTP 500', { status: 500 }, 'unreadable', /answered HTTP 500/],
  ['no answer in time', { hang: true }, 'unreadable', /did not answer within 0\.3 s/],
  [
    'a web page with a 200',
    { body: '<!DOCTYPE html><html><body>502 Bad Gateway</body></html>' },
    'not_recognised',
    /Not an XMLTV document: the root element is <html>, not <tv>/,
  ],
  ['an empty body', { body: '' }, 'not_recognised', /Not an XMLTV document: it is empty/],
  [
    'a document cut short',
    { body: truncated },
    'incomplete',
    /XMLTV document cut short: it ends before its closing <\/tv>/,
  ],
  ['a gzipped document cut short', { body: gzipSync(GOOD_GUIDE).subarray(0, 60) }, 'incomplete', /.+/],
  [
    'a document with entities',
    { body: '<?xml version="1.0"?><!DOCTYPE tv [<!ENTITY x "y">]><tv></tv>' },
    'not_recognised',
    /XMLTV document refused/,
  ],
  [
    'an empty <tv></tv>',
    { body: xmltv([]) },
    'empty',
    /it has no programmes, where the last good refresh gave 8; it was not applied/,
  ],
  [
    'a guide that drops most programmes',
    { body: xmltv(PROGRAMMES.slice(0, 3)) },
    'shrinks',
    /it has 3 programmes still to come where the guide has 8: it would remove more than 50 % of them/,
  ],
  [
    'a guide of programmes that have ended',
    { body: xmltv(PROGRAMMES.map((p) => ({ ...p, start: p.start - 86400, stop: p.stop - 86400 }))) },
    'shrinks',
    /it has 0 programmes still to come where the guide has 8/,
  ],
];

describe('a guide refresh that cannot be believed is not applied', () => {
  it.each(GUIDE_FAULTS)(
    '%s: programmes, their time, the jobs kept; the reason stored and logged',
    async (_what, feed, kind, message) => {
      rules();
      const before = snapshot();
      feeds.set('/guide.xml', feed);
      clock += 60_000;
      const result = await dvr.refreshGuide(guideId());
      const confirm = kind === 'empty' || kind === 'shrinks';
      expect(result).toEqual({
        id: guideId(),
        error: expect.stringMatching(message),
        rejected: kind,
        ...(confirm ? { needs_confirmation: true } : {}),
      });
      expect(result.error).toMatch(new RegExp(`^guide ${base}/guide.xml: `));
      if (confirm) expect(result.error).toContain(`confirm it: POST /dvr/guides/${guideId()}/refresh?accept=true`);
      expect(dvr.sources.listGuides()[0]).toMatchObject({
        error: result.error,
        refreshed_at: (T0 - 3600) * 1000,
        programmes: 8,
      });
      expect(snapshot()).toEqual(before);
      expect(warnings()).toEqual([
        expect.objectContaining({
          reason: kind,
          err: result.error,
          msg: expect.stringMatching(
            /^guide refresh (failed|not applied); keeping the programmes from the last refresh: /,
          ),
        }),
      ]);
    },
  );

  it('applies what the user confirms, and never what is cut short', async () => {
    rules();
    feeds.set('/guide.xml', { body: truncated });
    expect((await dvr.refreshGuide(guideId(), true)).rejected).toBe('incomplete');
    feeds.set('/guide.xml', { body: xmltv(PROGRAMMES.slice(0, 2)) });
    expect((await dvr.refreshGuide(guideId())).needs_confirmation).toBe(true);
    clock += 60_000;
    expect(await dvr.refreshGuide(guideId(), true)).toEqual({ id: guideId(), programmes: 2, skipped: 0 });
    expect(dvr.sources.listGuides()[0]).toMatchObject({ error: null, refreshed_at: clock, programmes: 2 });
    // The series keeps its one airing left; the one-time recording follows its film to the time the guide now gives.
    expect(
      listJobs(temp.db)
        .filter((job) => job.skipped === 0)
        .map((job) => [job.channel, job.start_time]),
    ).toEqual([
      ['2', T0],
      ['4', T0],
    ]);
  });

  it('keeps the programmes whatever point the download stops at (property)', async () => {
    rules();
    const before = snapshot();
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: GOOD_GUIDE.lastIndexOf('</tv>') }),
        fc.boolean(),
        async (at, gzipped) => {
          const cut = GOOD_GUIDE.slice(0, at);
          feeds.set('/guide.xml', { body: gzipped ? gzipSync(cut) : cut });
          const result = await dvr.refreshGuide(guideId());
          expect(result.rejected).toMatch(/^(incomplete|not_recognised)$/);
          expect(snapshot()).toEqual(before);
        },
      ),
      { numRuns: 40 },
    );
  });
});
