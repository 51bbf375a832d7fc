/**
 * Commercial detection through the whole DVR, in real time: a show with one commercial
 * break (test/support/commercial-clip.ts) served as a live channel, an M3U and an XMLTV
 * guide for it, a series rule, and the real server recording the programme, then
 * post-processing it with ffprobe and comskip. The stream server starts every
 * connection at the clip's first byte and the programme is as long as the clip, so the
 * recording is the clip (less the last moment) and its break is where the clip's is.
 * About three minutes.
 */
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/app/server.lifecycle.js';
import { resolveServerConfig } from '../../src/config/server-config.js';
import { makeClipWithBreak } from '../support/commercial-clip.js';
import { callJson, type Json, until, writeXmltv } from '../support/dvr-app.js';
import { tempDir } from '../support/temp-library.js';
import { type StreamServer, startStreamServer } from '../support/ts-stream-server.js';

/** comskip cuts inside the black separators; the clip's break is their outer edges. */
const TOLERANCE_S = 3;
const TITLE = 'Ad Break Show';

let work: string;
let streams: StreamServer;
let server: RunningServer;
let clip: { path: string; breaks: [number, number][] };
/** Programme start (epoch seconds) and length (seconds). */
let T: number;
let length: number;
let ruleId: string;

const call = (method: string, path: string, body?: unknown) => callJson(server.url, method, path, body);

const recordedEpisode = async () =>
  ((await call('GET', '/api/v1/episodes?source=recordings')).json as Json[]).find((e) => e.title === TITLE) ?? {};

beforeAll(async () => {
  work = tempDir('antenna-dvr-commercials-');
  clip = await makeClipWithBreak(join(work, 'clip'));
  streams = await startStreamServer(clip.path);
  // 176 s: the clip's bytes at the pace the server plays them.
  length = Math.round(statSync(clip.path).size / streams.byteRate);
  writeFileSync(
    join(work, 'channels.m3u'),
    ['#EXTM3U', `#EXTINF:-1 tvg-id="ads.test" tvg-chno="9",Ads\n${streams.url('ads')}`].join('\n'),
  );
  T = Math.floor(Date.now() / 1000) + 10;
  writeXmltv(
    join(work, 'guide.xml'),
    [['ads.test', 'Ads']],
    [
      { channel: 'ads.test', start: T, stop: T + length, title: TITLE },
      { channel: 'ads.test', start: T + length, stop: T + length + 3600, title: 'Late News' },
    ],
  );
  const config = resolveServerConfig([
    {
      data: join(work, 'data'),
      host: '127.0.0.1',
      port: 0,
      sample: false,
      m3u: [join(work, 'channels.m3u')],
      m3uStreams: 2,
      xmltv: [join(work, 'guide.xml')],
      logLevel: 'silent',
    },
  ]);
  server = await startServer(config, pino({ level: 'silent' }));
  await until(
    () => call('GET', '/dvr/guides'),
    (r) => (r.json[0]?.programmes as number) > 0,
    15_000,
    'guide read',
  );
  const rule = await call('POST', '/dvr/rules', { type: 'series', title: TITLE });
  expect(rule.status).toBe(201);
  ruleId = String(rule.json.id);
  expect(Math.floor(Date.now() / 1000)).toBeLessThan(T);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await streams?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('commercials in a recording', () => {
  it('records a show with a break in real time and finds the break where the show has it', async () => {
    expect(length).toBe(176);
    const jobId = `${T}-${ruleId}`;
    const planned = (await call('GET', `/api/v1/jobs/${jobId}`)).json;
    expect(planned).toMatchObject({ name: TITLE, start_time: T, end_time: T + length, channel: '9', failed: false });

    // While it records: one connection, from the clip's first byte.
    await until(
      () => Date.now() / 1000,
      (now) => now >= T + 3,
      20_000,
    );
    expect(streams.connections('ads')).toBe(1);
    expect(await recordedEpisode()).toMatchObject({ completed: false, channel: '9' });

    const episode = await until(
      recordedEpisode,
      (e) => e.processed === true,
      (length + 90) * 1000,
      'recording processed',
    );
    expect(streams.totalConnections('ads')).toBe(1);
    expect(episode).toMatchObject({ completed: true, corrupted: false, delayed: false, cancelled: false });
    expect(Math.abs((episode.duration as number) - length)).toBeLessThan(3);

    const commercials = episode.commercials as number[];
    expect(Array.isArray(commercials)).toBe(true);
    expect(commercials.every((n) => typeof n === 'number')).toBe(true);
    const [[start, end]] = clip.breaks as [[number, number]];
    expect(commercials).toHaveLength(2);
    expect(Math.abs(commercials[0]! - start)).toBeLessThanOrEqual(TOLERANCE_S);
    expect(Math.abs(commercials[1]! - end)).toBeLessThanOrEqual(TOLERANCE_S);

    // The file says the marks are final (live ones, if any, replaced).
    const file = (await call('GET', `/dvr/files/${encodeURIComponent(episode.id as string)}`)).json;
    expect(file.file).toMatchObject({ commercial_detection: { state: 'done' } });
    expect(file.commercials).toEqual(commercials);

    const finished = (await call('GET', `/api/v1/jobs/${jobId}`)).json;
    expect(finished).toMatchObject({ failed: false });
    expect(finished.item).toMatchObject({ completed: true, corrupted: false });
  }, 300_000);
});
