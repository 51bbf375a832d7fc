/**
 * A channel's live buffer over HTTP, from a real paced MPEG-TS source (an ffmpeg clip,
 * a keyframe each second, looped): the first playlist request tunes the channel, the
 * playlist grows with the time of each segment, its segments are the channel as received
 * and play on their own, viewers of the buffer and of the raw stream share one upstream
 * connection, a dropped source leaves a marked gap and the buffer goes on, the depth
 * slides the window, and a buffer nobody asks for is closed and its folder removed.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DvrService } from '../../src/dvr/dvr.service.js';
import { SHORT_WINDOW } from '../../src/dvr/live/channel-buffer.js';
import { buildDvrApp, createDvr, until, writeM3u } from '../support/dvr-app.js';
import { type TempLibrary, createTempLibrary, tempDir } from '../support/temp-library.js';
import { makeTsClip, type StreamServer, startStreamServer } from '../support/ts-stream-server.js';

let work: string;
let streams: StreamServer;
let temp: TempLibrary;
let dvr: DvrService;
let app: FastifyInstance;

beforeAll(async () => {
  work = tempDir('antenna-live-buffer-');
  const clip = await makeTsClip(join(work, 'clip.ts'), { seconds: 8 });
  streams = await startStreamServer(clip.path);
});

afterAll(async () => {
  await streams?.close();
  rmSync(work, { recursive: true, force: true });
});

afterEach(async () => {
  await app?.close();
  await dvr?.stop();
  temp?.close();
});

async function start(liveBuffers: Parameters<typeof createDvr>[1]['liveBuffers']): Promise<void> {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  const m3u = join(temp.dir, 'channels.m3u');
  writeM3u(m3u, [
    { number: '2', name: 'Two', tvgId: 'two.test', url: streams.url('two') },
    { number: '3', name: 'Three', tvgId: 'three.test', url: streams.url('three') },
  ]);
  dvr = createDvr(temp, { sources: [{ kind: 'm3u', location: m3u, streams: 2 }], guides: [], liveBuffers });
  await dvr.refresh();
  app = await buildDvrApp(temp, dvr);
}

const playlistOf = async (number: string) => {
  const response = await app.inject({ method: 'GET', url: `/devices/ANY/channels/${number}/buffer.m3u8` });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/mpegurl/);
  return response.body;
};
const listed = (playlist: string) => playlist.split('\n').filter((line) => line.startsWith('buffer/'));

describe('the live buffer', () => {
  it('tunes on the first request, lists each segment with its time, serves them as received, and shares the connection', async () => {
    await start({ dir: join(work, 'buffers-1'), targetSeconds: 1 });
    const before = Date.now();
    // A browser plays this channel (H.264, AAC) as it is.
    const forBrowser = await app.inject({ method: 'GET', url: '/devices/ANY/channels/2/buffer.m3u8?client=browser' });
    expect(forBrowser.statusCode).toBe(200);
    const [first, second] = await Promise.all([playlistOf('2'), playlistOf('2')]);
    expect(first).toMatch(/^#EXTM3U\n/);
    expect(first).not.toMatch(/#EXT-X-ENDLIST/);
    expect(listed(second!).length).toBeGreaterThan(0);
    const at = Date.parse(/#EXT-X-PROGRAM-DATE-TIME:(\S+)/.exec(first)![1]!);
    expect(at).toBeGreaterThanOrEqual(before - 1000);
    expect(at).toBeLessThanOrEqual(Date.now());
    // A live viewer of the raw stream joins the same upstream connection.
    const raw = app.inject({
      method: 'GET',
      url: '/devices/ANY/channels/2/stream.mpg',
      simulate: { end: true, split: false, error: false, close: false },
    });
    void raw;
    await until(
      () => dvr.status().streams,
      (list) => list[0]?.viewers === 2,
      10_000,
      'the raw viewer joined',
    );
    expect(dvr.status().streams).toHaveLength(1);
    expect(streams.connections('two')).toBe(1);

    const grown = await until(
      () => playlistOf('2'),
      (text) => listed(text).length >= 4,
      15_000,
      'the buffer growing',
    );
    const name = listed(grown)[1]!;
    const segment = await app.inject({ method: 'GET', url: `/devices/ANY/channels/2/${name}` });
    expect(segment.statusCode).toBe(200);
    expect(segment.headers['content-type']).toBe('video/mp2t');
    expect(segment.rawPayload[0]).toBe(0x47);
    const file = join(work, 'segment.ts');
    writeFileSync(file, segment.rawPayload);
    const probed = execFileSync(
      'ffprobe',
      ['-v', 'error', '-show_entries', 'stream=codec_name', '-of', 'csv=p=0', file],
      {
        encoding: 'utf8',
      },
    );
    expect(probed).toMatch(/h264/);
    expect(dvr.liveBufferState()).toMatchObject([{ channel: '2' }]);
  });

  it('tells a browser to take the transcoding renditions for a channel it cannot play as it is (MPEG-2, AC-3)', async () => {
    const mpeg2 = join(work, 'mpeg2.ts');
    execFileSync('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=25:duration=4'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=4', '-c:v', 'mpeg2video', '-g', '25', '-c:a', 'ac3'],
      ...['-muxrate', '2000k', '-f', 'mpegts', mpeg2],
    ]);
    const broadcast = await startStreamServer(mpeg2);
    try {
      temp = createTempLibrary({ externalCheckIntervalMs: 0 });
      const m3u = join(temp.dir, 'channels.m3u');
      writeM3u(m3u, [{ number: '8', name: 'Eight', tvgId: 'eight.test', url: broadcast.url('eight') }]);
      dvr = createDvr(temp, {
        sources: [{ kind: 'm3u', location: m3u }],
        guides: [],
        liveBuffers: { dir: join(work, 'buffers-6') },
      });
      await dvr.refresh();
      app = await buildDvrApp(temp, dvr);
      const refused = await app.inject({ method: 'GET', url: '/devices/ANY/channels/8/buffer.m3u8?client=browser' });
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({
        code: 'needs_transcode',
        message: expect.stringMatching(/hls\/master\.m3u8/),
      });
      // Players that decode it (mpv, VLC) take it as it is.
      expect(listed(await playlistOf('8')).length).toBeGreaterThan(0);
      await app.close();
      await dvr.stop();
    } finally {
      await broadcast.close();
    }
  });

  it('answers a delta update (_HLS_skip) with the older segments skipped, and a bad one with a 400', async () => {
    await start({ dir: join(work, 'buffers-delta'), targetSeconds: 1 });
    // Held past the skip boundary (six target durations) by a few segments.
    const held = (text: string) =>
      [...text.matchAll(/#EXTINF:([\d.]+),/g)].reduce((sum, match) => sum + Number(match[1]), 0);
    const boundary = (text: string) => Number(/CAN-SKIP-UNTIL=([\d.]+)/.exec(text)?.[1] ?? Infinity);
    const grown = await until(
      () => playlistOf('2'),
      (text) => held(text) > boundary(text) + 3,
      40_000,
      'the buffer growing past the skip boundary',
    );
    expect(grown).toMatch(/#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=\d+\.\d\n/);
    const delta = await app.inject({ method: 'GET', url: '/devices/ANY/channels/2/buffer.m3u8?_HLS_skip=YES' });
    expect(delta.statusCode).toBe(200);
    const skipped = Number(/#EXT-X-SKIP:SKIPPED-SEGMENTS=(\d+)/.exec(delta.body)?.[1]);
    expect(skipped).toBeGreaterThan(0);
    expect(listed(delta.body).length).toBeLessThan(listed(grown).length);
    const bad = await app.inject({ method: 'GET', url: '/devices/ANY/channels/2/buffer.m3u8?_HLS_skip=maybe' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ status: 400 });
  }, 60_000);

  it('answers 404 for a segment it does not hold and 400 for one that is not a segment', async () => {
    await start({ dir: join(work, 'buffers-2') });
    expect((await app.inject({ method: 'GET', url: '/devices/ANY/channels/2/buffer/0.ts' })).json()).toMatchObject({
      status: 404,
    });
    expect((await app.inject({ method: 'GET', url: '/devices/ANY/channels/2/buffer/x.ts' })).statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/devices/ANY/channels/9/buffer.m3u8' })).statusCode).toBe(404);
  });

  it('marks the gap when the source drops, goes on when it returns, and slides its window at its depth', async () => {
    await start({ dir: join(work, 'buffers-3'), targetSeconds: 1, depthSeconds: 6 });
    await playlistOf('3');
    await until(
      () => playlistOf('3'),
      (text) => listed(text).length >= 2,
      15_000,
      'segments',
    );
    streams.dropAll('three');
    const after = await until(
      () => playlistOf('3'),
      (text) =>
        /#EXT-X-DISCONTINUITY\n/.test(text) &&
        text.slice(text.lastIndexOf('#EXT-X-DISCONTINUITY\n')).includes('buffer/'),
      20_000,
      'a marked gap, then segments again',
    );
    expect(listed(after).length).toBeGreaterThanOrEqual(2);
    const slid = await until(
      () => playlistOf('3'),
      (text) => Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(text)![1]) > 0,
      20_000,
      'the window sliding',
    );
    const seconds = slid
      .split('\n')
      .filter((l) => l.startsWith('#EXTINF:'))
      .reduce((sum, l) => sum + Number.parseFloat(l.slice(8)), 0);
    // The depth, a segment over it, and the one under way.
    expect(seconds).toBeLessThanOrEqual(6 + 2 + 1);
  });

  it('falls back to a short window in memory when the disk cannot be written, saying why, and live TV goes on', async () => {
    const dir = join(work, 'buffers-5');
    await start({ dir, targetSeconds: 1 });
    await until(
      () => playlistOf('2'),
      (text) => listed(text).length >= 2,
      15_000,
      'segments on disk',
    );
    // The channel's folder becomes a file: every write from now on fails (ENOTDIR), as a full disk would.
    // Each buffer has a folder of its own: 2~1 for the first of channel 2.
    const folder = join(dir, readdirSync(dir).find((name) => name.startsWith('2~'))!);
    rmSync(folder, { recursive: true, force: true });
    writeFileSync(folder, 'not a folder');
    const failed = await until(
      () => dvr.liveBufferState()[0],
      (state) => state?.failure !== undefined,
      15_000,
      'the failure',
    );
    expect(failed?.failure).toMatch(/could not be written/);
    const text = await until(
      () => playlistOf('2'),
      // The short window, and the segment under way after it.
      (playlist) => listed(playlist).length === SHORT_WINDOW + 1,
      30_000,
      'the short window',
    );
    const newest = listed(text).at(-1)!;
    const segment = await app.inject({ method: 'GET', url: `/devices/ANY/channels/2/${newest}` });
    expect(segment.statusCode).toBe(200);
    expect(segment.rawPayload[0]).toBe(0x47);
    expect(segment.rawPayload.length % 188).toBe(0);
  });

  it('closes buffers nobody watches when a channel needs their tuner, and says 503 no_tuner when all are watched', async () => {
    temp = createTempLibrary({ externalCheckIntervalMs: 0 });
    const m3u = join(temp.dir, 'channels.m3u');
    writeM3u(
      m3u,
      ['2', '3', '4'].map((number) => ({
        number,
        name: `C${number}`,
        tvgId: `c${number}.test`,
        url: streams.url(`c${number}`),
      })),
    );
    dvr = createDvr(temp, {
      sources: [{ kind: 'm3u', location: m3u, streams: 2 }],
      guides: [],
      liveBuffers: { dir: join(work, 'buffers-7') },
    });
    await dvr.refresh();
    app = await buildDvrApp(temp, dvr);
    const ask = (number: string, device: string) =>
      app.inject({
        method: 'GET',
        url: `/devices/ANY/channels/${number}/buffer.m3u8`,
        headers: { 'user-agent': device },
      });
    const buffered = () =>
      dvr
        .liveBufferState()
        .map((state) => state.channel)
        .sort();
    expect((await ask('2', 'box A')).statusCode).toBe(200);
    expect((await ask('3', 'box A')).statusCode).toBe(200);
    // Box A left 2 for 3, then 3 for 4: the tuner of 2, which nobody watches, is the one taken.
    expect((await ask('4', 'box A')).statusCode).toBe(200);
    expect(buffered()).toEqual(['3', '4']);
    expect((await ask('2', 'box B')).statusCode).toBe(200);
    expect(buffered()).toEqual(['2', '4']);
    // Both tuners watched: a third channel waits for one.
    const refused = await ask('3', 'box C');
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toMatchObject({ code: 'no_tuner' });
    expect(buffered()).toEqual(['2', '4']);
  });

  it('pre-tunes the channels either side of a watched one on free tuners, and gives them up first', async () => {
    temp = createTempLibrary({ externalCheckIntervalMs: 0 });
    const m3u = join(temp.dir, 'channels.m3u');
    writeM3u(
      m3u,
      ['2', '3', '4', '5'].map((number) => ({
        number,
        name: `P${number}`,
        tvgId: `p${number}.test`,
        url: streams.url(`p${number}`),
      })),
    );
    dvr = createDvr(temp, {
      sources: [{ kind: 'm3u', location: m3u, streams: 3 }],
      guides: [],
      liveBuffers: { dir: join(work, 'buffers-8'), pretune: true },
    });
    await dvr.refresh();
    app = await buildDvrApp(temp, dvr);
    const ask = (number: string, device: string) =>
      app.inject({
        method: 'GET',
        url: `/devices/ANY/channels/${number}/buffer.m3u8`,
        headers: { 'user-agent': device },
      });
    const buffered = () =>
      dvr
        .liveBufferState()
        .map((state) => state.channel)
        .sort();
    expect((await ask('3', 'box A')).statusCode).toBe(200);
    // Channel up and down from 3: both neighbours buffered, on the two free tuners.
    await until(
      () => dvr.liveBufferState(),
      (states) =>
        states
          .map((state) => state.channel)
          .sort()
          .join() === '2,3,4' && states.every((state) => state.segments > 0),
      15_000,
      'the neighbours pre-tuned and buffering',
    );
    const began = Date.now();
    expect((await ask('4', 'box A')).statusCode).toBe(200);
    expect(Date.now() - began).toBeLessThan(500);
    // From 4, its neighbour 5 finds no free tuner: pre-tuning never makes room.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(buffered()).toEqual(['2', '3', '4']);
    // A viewer of 5 does: a buffer nobody watches (a pre-tuned one, or 3, left by box A) gives its tuner up.
    expect((await ask('5', 'box B')).statusCode).toBe(200);
    expect(buffered()).toContain('5');
    expect(buffered()).toContain('4');
    expect(buffered()).toHaveLength(3);
  });

  it('lets a device change channel on a source with one tuner: the channel it leaves gives the tuner up', async () => {
    temp = createTempLibrary({ externalCheckIntervalMs: 0 });
    const m3u = join(temp.dir, 'channels.m3u');
    writeM3u(
      m3u,
      ['2', '3'].map((number) => ({
        number,
        name: `O${number}`,
        tvgId: `o${number}.test`,
        url: streams.url(`o${number}`),
      })),
    );
    dvr = createDvr(temp, {
      sources: [{ kind: 'm3u', location: m3u, streams: 1 }],
      guides: [],
      liveBuffers: { dir: join(work, 'buffers-9') },
    });
    await dvr.refresh();
    app = await buildDvrApp(temp, dvr);
    const ask = (number: string, device: string) =>
      app.inject({
        method: 'GET',
        url: `/devices/ANY/channels/${number}/buffer.m3u8`,
        headers: { 'user-agent': device },
      });
    expect((await ask('2', 'box A')).statusCode).toBe(200);
    expect((await ask('3', 'box A')).statusCode).toBe(200);
    expect(dvr.liveBufferState().map((state) => state.channel)).toEqual(['3']);
    // Another device may not take the tuner box A watches.
    expect((await ask('2', 'box B')).statusCode).toBe(503);
    await until(
      () => streams.connections('o2'),
      (n) => n === 0,
      5000,
      'channel 2 let go',
    );
    expect(streams.connections('o3')).toBe(1);
  });

  it('keeps a buffer while it is watched, even with a linger of 0; closes it once its viewer left, and its folder', async () => {
    const dir = join(work, 'buffers-4');
    await start({ dir, lingerMs: 0, viewerGoneMs: 2500 });
    // A player asking for its playlist every second, past several sweeps (a second apart).
    for (let i = 0; i < 5; i++) {
      await playlistOf('2');
      await pause(1000);
    }
    expect(dvr.liveBufferState().map((buffer) => buffer.channel)).toEqual(['2']);
    expect(readdirSync(dir)).toHaveLength(1);
    await until(
      () => dvr.liveBufferState().length,
      (n) => n === 0,
      10_000,
      'the buffer closed',
    );
    await until(
      () => readdirSync(dir),
      (names) => names.length === 0,
      5000,
      'its folder removed',
    );
    await until(
      () => streams.connections('two'),
      (n) => n === 0,
      5000,
      'the upstream let go',
    );
  });
});
