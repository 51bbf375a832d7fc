/**
 * Record what you are watching, from its start: a channel is watched through its live
 * buffer (a real paced MPEG-TS source) while the guide says its programme began half an
 * hour ago; "record now" then makes a recording that starts where the buffer does (all of
 * the programme it holds), whose file begins with the buffer's first segment, goes on live
 * without a packet lost or repeated where the copy meets the live stream, and is not
 * flagged late.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DvrService } from '../../src/dvr/dvr.service.js';
import { PACKET } from '../../src/dvr/live/ts-segmenter.js';
import { TsIntegrity } from '../../src/dvr/recording/ts-packets.js';
import { buildDvrApp, createDvr, until, writeM3u, writeXmltv } from '../support/dvr-app.js';
import { type TempLibrary, createTempLibrary, tempDir } from '../support/temp-library.js';
import { makeTsClip, type StreamServer, startStreamServer } from '../support/ts-stream-server.js';

let work: string;
let streams: StreamServer;
let temp: TempLibrary;
let dvr: DvrService;
let app: FastifyInstance;

beforeAll(async () => {
  work = tempDir('antenna-record-from-buffer-');
  // Longer than the test runs: the source does not loop (a loop is a discontinuity of its own).
  const clip = await makeTsClip(join(work, 'clip.ts'), { seconds: 40 });
  streams = await startStreamServer(clip.path);
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  const m3u = join(temp.dir, 'channels.m3u');
  writeM3u(m3u, [{ number: '2', name: 'Two', tvgId: 'two.test', url: streams.url('two') }]);
  const guide = join(temp.dir, 'guide.xml');
  const now = Math.floor(Date.now() / 1000);
  writeXmltv(
    guide,
    [['two.test', 'Two']],
    [{ channel: 'two.test', start: now - 1800, stop: now + 3600, title: 'On Now' }],
  );
  dvr = createDvr(temp, {
    sources: [{ kind: 'm3u', location: m3u, streams: 2 }],
    guides: [guide],
    liveBuffers: { dir: join(work, 'buffers'), targetSeconds: 1 },
  });
  await dvr.refresh();
  app = await buildDvrApp(temp, dvr);
});

afterAll(async () => {
  await app?.close();
  await dvr?.stop();
  temp?.close();
  await streams?.close();
  rmSync(work, { recursive: true, force: true });
});

const get = (url: string) => app.inject({ method: 'GET', url });
const tsFilesIn = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(dir, name));

describe('record what you are watching from its start', () => {
  it('records from where the buffer begins, the file beginning with its first segment, and goes on live', async () => {
    expect((await get('/devices/ANY/channels/2/buffer.m3u8')).statusCode).toBe(200);
    const playlist = await until(
      async () => (await get('/devices/ANY/channels/2/buffer.m3u8')).body,
      () => (dvr.liveBufferState()[0]?.seconds ?? 0) >= 5,
      20_000,
      'five seconds buffered',
    );
    const heldSince = Date.parse(/#EXT-X-PROGRAM-DATE-TIME:(\S+)/.exec(playlist)![1]!);
    const firstName = playlist.split('\n').find((line) => line.startsWith('buffer/'))!;
    const firstSegment = (await get(`/devices/ANY/channels/2/${firstName}`)).rawPayload;

    const started = await app.inject({ method: 'POST', url: '/dvr/channels/2/recording' });
    expect(started.statusCode).toBe(201);
    const job = started.json() as { id: string; start_time: number; name: string };
    expect(job.name).toBe('On Now');
    // The programme began long before the buffer: the recording begins with all of it the buffer holds.
    expect(job.start_time).toBe(Math.floor(heldSince / 1000));
    expect(job.start_time).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) - 4);

    await new Promise((resolve) => setTimeout(resolve, 2500));
    // What records the channel names its file and the moment the file begins with (the app's start over from it).
    const now = (await get('/dvr/channels/2/recording')).json() as { file_id?: string; file_begins_at?: number };
    expect(now.file_id).toMatch(/^rec-/);
    expect(now.file_begins_at).toBe(Math.floor(heldSince / 1000));
    expect((await app.inject({ method: 'DELETE', url: '/dvr/channels/2/recording' })).statusCode).toBe(204);
    const [file] = await until(
      () => tsFilesIn(join(temp.dir, 'recordings')),
      (files) => files.length === 1,
      10_000,
      'the recording file',
    );
    await until(
      async () => (await get('/dvr/channels/2/recording')).statusCode,
      (status) => status === 404,
      10_000,
      'the recording stopped',
    );
    let size = -1;
    await until(
      () => statSync(file!).size,
      (now) => {
        const still = now === size;
        size = now;
        return still;
      },
      10_000,
      'the file closed',
      500,
    );
    const bytes = readFileSync(file!);
    // Its first bytes are the buffer's first segment: the tables, then the keyframe it was cut at.
    expect(bytes.subarray(0, 40 * PACKET).equals(firstSegment.subarray(0, 40 * PACKET))).toBe(true);
    const integrity = new TsIntegrity();
    integrity.push(bytes);
    expect(integrity.continuityErrors).toBe(0);
    expect(integrity.syncLosses).toBe(0);
    const seconds = Number(
      execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file!], {
        encoding: 'utf8',
      }),
    );
    // Five seconds held before "record", two and a half after.
    expect(seconds).toBeGreaterThanOrEqual(7);
    // Bytes the buffer held are on time: the recording is not flagged late.
    const episodes = (await get('/api/v1/episodes')).json() as {
      path?: string;
      delayed?: boolean;
      cancelled?: boolean;
    }[];
    const recorded = episodes.find((episode) => episode.path === file);
    expect(recorded?.cancelled).toBe(true);
    expect(recorded?.delayed ?? false).toBe(false);
  });
});
