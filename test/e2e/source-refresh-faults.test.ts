/**
 * "A refresh never loses what it cannot replace", against the real `bin/antenna` and a
 * real HTTP source: a node:http server in the test serves the M3U playlist and the XMLTV
 * guide, and fails in each way in turn (an HTTP 500, no answer, a web page with a 200,
 * an empty body, a truncated guide, an empty guide, an empty playlist, a playlist that
 * drops most channels). A recording rule's job survives every one; each is a 200 with
 * the reason, stored on the source or guide and logged. Then `?accept=true` applies the
 * drops. Runs the built code: `npm run build` first.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, type Json, until, xmlTime } from '../support/dvr-app.js';
import { type StartedServer, startAntennaServer } from '../support/server-process.js';
import { tempDir } from '../support/temp-library.js';

/** What the source answers at a path: a status and body, or nothing at all. */
type Answer = { status: number; body: string } | 'hang';

let work: string;
let feed: Server;
let feedUrl: string;
let antenna: StartedServer;
const answers = new Map<string, Answer>();
/** Programmes start here (epoch seconds): an hour from now, so jobs are planned and nothing records. */
const T = Math.floor(Date.now() / 60_000) * 60 + 3600;
const NOWHERE = 'http://127.0.0.1:9/stream';

const m3u = (numbers: string[]) =>
  [
    '#EXTM3U',
    ...numbers.flatMap((n) => [`#EXTINF:-1 tvg-id="ch${n}.test" tvg-chno="${n}",Channel ${n}`, `${NOWHERE}/${n}`]),
  ].join('\n') + '\n';

function xmltv(count: number): string {
  const programmes = Array.from({ length: count }, (_, i) => {
    const channel = ['2', '3', '4', '5'][i % 4] as string;
    const start = T + Math.floor(i / 4) * 1800;
    const title = channel === '2' ? 'Harbour Lights' : `Show ${i}`;
    return `<programme start="${xmlTime(start)}" stop="${xmlTime(start + 1800)}" channel="ch${channel}.test"><title>${title}</title></programme>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<tv generator-info-name="antenna-e2e">',
    ...['2', '3', '4', '5'].map((n) => `<channel id="ch${n}.test"><display-name>Channel ${n}</display-name></channel>`),
    ...programmes,
    '</tv>',
    '',
  ].join('\n');
}

const GOOD_PLAYLIST = m3u(['2', '3', '4', '5']);
const GOOD_GUIDE = xmltv(16);
const ok = (body: string): Answer => ({ status: 200, body });

const call = (method: string, path: string) => callJson(antenna.url, method, path);
const source = async () => (await call('GET', '/dvr/sources')).json[0] as Json;
const guide = async () => (await call('GET', '/dvr/guides')).json[0] as Json;
const jobIds = async () =>
  ((await call('GET', '/api/v1/jobs')).json as Json[]).filter((job) => job.skipped !== true).map((job) => job.id);

/** The server's JSON log lines at warn level (stdout, not a terminal). */
function warnings(): Json[] {
  return antenna
    .output()
    .stdout.split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Json)
    .filter((line) => line.level === 40);
}

beforeAll(async () => {
  work = tempDir('antenna-refresh-faults-');
  answers.set('/channels.m3u', ok(GOOD_PLAYLIST));
  answers.set('/guide.xml', ok(GOOD_GUIDE));
  feed = createServer((request, response) => {
    const answer = answers.get(request.url ?? '') ?? { status: 404, body: 'no such feed' };
    if (answer === 'hang') return; // the server's own time limit ends it
    response.writeHead(answer.status, { 'content-type': 'text/plain; charset=utf-8' }).end(answer.body);
  });
  await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
  feedUrl = `http://127.0.0.1:${(feed.address() as AddressInfo).port}`;
  antenna = await startAntennaServer([
    '--data',
    join(work, 'data'),
    '--no-sample',
    '--m3u',
    `${feedUrl}/channels.m3u`,
    '--xmltv',
    `${feedUrl}/guide.xml`,
    // Only on request: no periodic refresh to race the test's.
    '--guide-refresh',
    '0',
  ]);
  // The refresh at start runs in the background.
  await until(guide, (g) => (g?.programmes as number) === 16, 15_000, 'the first refresh');
  expect(await source()).toMatchObject({ channels: 4 });
  const rule = await callJson(antenna.url, 'POST', '/dvr/rules', { type: 'series', title: 'Harbour Lights' });
  expect(rule.status).toBe(201);
}, 60_000);

afterAll(async () => {
  await antenna?.stop();
  feed?.closeAllConnections();
  await new Promise((resolve) => feed?.close(resolve));
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('a source or guide that fails in every way', () => {
  const FAULTS: ['source' | 'guide', string, Answer, string, RegExp][] = [
    ['source', 'an HTTP 500', { status: 500, body: 'Internal Server Error' }, 'unreadable', /answered HTTP 500/],
    [
      'source',
      'a web page with a 200',
      ok('<!DOCTYPE html>\n<html><body><h1>Your subscription has expired</h1></body></html>'),
      'not_recognised',
      /web page/,
    ],
    ['source', 'an empty body', ok(''), 'not_recognised', /the playlist is empty \(0 bytes\)/],
    ['source', 'an empty playlist', ok('#EXTM3U\n'), 'empty', /lists no channels, where the last good refresh gave 4/],
    ['source', 'a playlist that drops most channels', ok(m3u(['2'])), 'shrinks', /would remove 3 of the 4 channels/],
    ['guide', 'an HTTP 500', { status: 500, body: 'Internal Server Error' }, 'unreadable', /answered HTTP 500/],
    [
      'guide',
      'a web page with a 200',
      ok('<!DOCTYPE html><html><body>502 Bad Gateway</body></html>'),
      'not_recognised',
      /Not an XMLTV document: the root element is <html>/,
    ],
    ['guide', 'an empty body', ok(''), 'not_recognised', /Not an XMLTV document: it is empty/],
    [
      'guide',
      'a truncated guide',
      ok(GOOD_GUIDE.slice(0, Math.floor(GOOD_GUIDE.length * 0.6))),
      'incomplete',
      /XMLTV document cut short/,
    ],
    [
      'guide',
      'an empty, well-formed guide',
      ok(xmltv(0)),
      'empty',
      /no programmes, where the last good refresh gave 16/,
    ],
    [
      'guide',
      'a guide that drops most programmes',
      ok(xmltv(4)),
      'shrinks',
      /4 programmes still to come where the guide has 16/,
    ],
  ];

  it.each(FAULTS)(
    '%s: %s is not applied, the job survives, the reason is stored and logged',
    async (what, _name, answer, kind, message) => {
      const jobs = await jobIds();
      expect(jobs.length).toBeGreaterThan(0);
      const before = what === 'source' ? await source() : await guide();
      const warned = warnings().length;
      answers.set(what === 'source' ? '/channels.m3u' : '/guide.xml', answer);
      const response = await call('POST', `/dvr/${what}s/${String(before.id)}/refresh`);
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({ id: before.id, rejected: kind, error: expect.stringMatching(message) });
      const after = what === 'source' ? await source() : await guide();
      // The list says what the answer said: the reason, its kind, and whether confirming would apply it.
      const { needs_confirmation: _held, ...rest } = before;
      expect(after).toEqual({
        ...rest,
        error: response.json.error,
        rejected: kind,
        ...(kind === 'empty' || kind === 'shrinks' ? { needs_confirmation: true } : {}),
      });
      expect(await jobIds()).toEqual(jobs);
      await until(
        () => warnings().slice(warned),
        (lines) => lines.some((line) => line.reason === kind && line.err === response.json.error),
        5000,
        'the warning',
      );
      if (kind === 'empty' || kind === 'shrinks')
        expect(response.json.error).toContain(`POST /dvr/${what}s/${String(before.id)}/refresh?accept=true`);
    },
  );

  it('a source and a guide that never answer: not applied after the time limit (30 s), the job survives', async () => {
    const jobs = await jobIds();
    const [s, g] = [await source(), await guide()];
    answers.set('/channels.m3u', 'hang');
    answers.set('/guide.xml', 'hang');
    const [bySource, byGuide] = await Promise.all([
      call('POST', `/dvr/sources/${String(s.id)}/refresh`),
      call('POST', `/dvr/guides/${String(g.id)}/refresh`),
    ]);
    for (const response of [bySource, byGuide]) {
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({
        rejected: 'unreadable',
        error: expect.stringMatching(/did not answer within 30 s/),
      });
    }
    const { needs_confirmation: _sourceHeld, ...sourceRest } = s;
    const { needs_confirmation: _guideHeld, ...guideRest } = g;
    expect(await source()).toEqual({ ...sourceRest, error: bySource.json.error, rejected: 'unreadable' });
    expect(await guide()).toEqual({ ...guideRest, error: byGuide.json.error, rejected: 'unreadable' });
    expect(await jobIds()).toEqual(jobs);
  }, 90_000);

  it('?accept=true applies the drops the user confirms; the series job on the channel kept records on', async () => {
    const jobs = await jobIds();
    const [s, g] = [await source(), await guide()];
    answers.set('/channels.m3u', ok(m3u(['2'])));
    answers.set('/guide.xml', ok(xmltv(4)));
    // Not confirmed: nothing changes.
    expect((await call('POST', `/dvr/sources/${String(s.id)}/refresh`)).json).toMatchObject({
      rejected: 'shrinks',
      needs_confirmation: true,
    });
    expect((await call('POST', '/dvr/refresh')).json).toMatchObject({
      sources: [{ rejected: 'shrinks' }],
      guides: [{ rejected: 'shrinks' }],
    });
    expect(await source()).toMatchObject({ channels: 4, refreshed_at: s.refreshed_at });

    const source2 = await call('POST', `/dvr/sources/${String(s.id)}/refresh?accept=true`);
    expect(source2).toEqual({ status: 200, json: { id: s.id, channels: 1, skipped: 0 } });
    const guide2 = await call('POST', `/dvr/guides/${String(g.id)}/refresh?accept=true`);
    expect(guide2).toEqual({ status: 200, json: { id: g.id, programmes: 4, skipped: 0 } });
    const [sAfter, gAfter] = [await source(), await guide()];
    expect(sAfter).toMatchObject({ channels: 1 });
    expect(sAfter).not.toHaveProperty('error');
    expect(sAfter.refreshed_at).toBeGreaterThan(s.refreshed_at as number);
    expect(gAfter).toMatchObject({ programmes: 4 });
    expect(gAfter).not.toHaveProperty('error');
    expect(((await call('GET', '/api/v1/channels')).json as Json[]).map((c) => c.number)).toEqual(['2']);
    // The guide now lists one Harbour Lights: its job is the first of those planned before.
    expect(await jobIds()).toEqual(jobs.slice(0, 1));
    expect(warnings().map((line) => line.msg)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^source refresh applied as the user confirmed: /),
        expect.stringMatching(/^guide refresh applied as the user confirmed: /),
      ]),
    );
  });
});
