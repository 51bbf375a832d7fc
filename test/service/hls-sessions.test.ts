/**
 * HlsService with real ffmpeg on files ffmpeg made: sessions start their ffmpeg on
 * demand, 20 requests for one segment start one ffmpeg, a killed ffmpeg is started
 * again, a seek restarts it where asked, idle sessions end (ffmpeg stopped, segments
 * deleted), transcodes are limited, and a hardware encoder that fails falls back to
 * software.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, UnavailableError } from '../../src/common/errors.js';
import { HlsService, type HlsServiceOptions } from '../../src/streaming/hls-sessions.service.js';
import { LIVE_BUFFER_DEFAULTS, LiveBuffers } from '../../src/dvr/live/live-buffers.service.js';
import { StreamUnavailableError } from '../../src/dvr/recording/stream-hub.js';
import { type LiveBufferAccess, NO_LIVE_BUFFERS } from '../../src/streaming/buffer-hls-session.js';
import { until } from '../support/dvr-app.js';
import { itemFiles } from '../support/hls-items.js';
import { tempDir } from '../support/temp-library.js';

let media: string;
let h264: string;
let mpeg2: string;
let h264Ts: string;
let unknownLength: string;
const services: HlsService[] = [];

beforeAll(() => {
  media = tempDir('antenna-hls-');
  mkdirSync(join(media, 'in'));
  h264 = join(media, 'in', 'h264.mp4');
  mpeg2 = join(media, 'in', 'broadcast.ts');
  const source = [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=320x240:rate=25:duration=40',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:duration=40',
    '-shortest',
  ];
  execFileSync('ffmpeg', [...source, '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '25', '-c:a', 'aac', h264]);
  execFileSync('ffmpeg', [...source, '-c:v', 'mpeg2video', '-b:v', '1M', '-c:a', 'ac3', '-f', 'mpegts', mpeg2]);
  h264Ts = join(media, 'in', 'h264.ts');
  // The same H.264 as MPEG-TS, as a channel sends it (source's first four: the quiet flags).
  execFileSync('ffmpeg', [...source.slice(0, 4), '-i', h264, '-c', 'copy', '-f', 'mpegts', h264Ts]);
  // Matroska written to a pipe has no duration (nothing to seek back to write it): ffprobe reports none.
  unknownLength = join(media, 'in', 'piped.mkv');
  const piped = execFileSync(
    'ffmpeg',
    [
      ...source.slice(0, 7),
      'testsrc2=size=320x240:rate=25:duration=14',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-g',
      '25',
      '-f',
      'matroska',
      'pipe:1',
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  writeFileSync(unknownLength, piped);
}, 60_000);

afterEach(async () => {
  for (const service of services.splice(0)) await service.stop();
});

afterAll(() => rmSync(media, { recursive: true, force: true }));

let clock = 1_000_000;
const logs: Record<string, unknown>[] = [];

function service(options: Partial<HlsServiceOptions> = {}): HlsService {
  const items: Record<string, string> = { h264, mpeg2, unknownLength };
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => logs.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const hls = new HlsService({
    dir: join(media, `hls-${services.length}-${Math.random().toString(36).slice(2)}`),
    ffmpeg: 'ffmpeg',
    ffprobe: 'ffprobe',
    encoder: 'software',
    maxTranscodes: 2,
    logger,
    now: () => clock,
    ...itemFiles((id) => {
      const path = items[id];
      if (!path) throw new NotFoundError('file', id);
      return { path, growing: false };
    }),
    resolveChannel: (number) => {
      throw new NotFoundError('channel', number);
    },
    liveBuffer: NO_LIVE_BUFFERS,
    ...options,
  });
  hls.start();
  services.push(hls);
  return hls;
}

/** The ffmpeg processes writing into a session's folder. */
function ffmpegsOf(sessionId: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', `ffmpeg.*/${sessionId}/`], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

const sessionIdIn = (master: string) => /s\/([A-Za-z0-9_-]+)\//.exec(master)?.[1] ?? '';

describe('HLS sessions', () => {
  it('offers remux and transcodes for H.264, transcodes only for MPEG-2, and refuses encoder=remux for MPEG-2', async () => {
    const hls = service();
    expect(await hls.fileMaster('h264', {}, '10.0.0.5')).toMatch(/NAME="remux"[\s\S]*NAME="240p"/);
    const broadcast = await hls.fileMaster('mpeg2', {}, '10.0.0.5');
    expect(broadcast).not.toContain('remux');
    await expect(hls.fileMaster('mpeg2', { encoder: 'remux' }, '10.0.0.5')).rejects.toMatchObject({
      status: 503,
      code: 'remux_unavailable',
    });
    await expect(hls.fileMaster('nothing', {}, '10.0.0.5')).rejects.toBeInstanceOf(NotFoundError);
    expect(hls.list().map((s) => [s.FileID, s.ClientAddress, s.Encoder])).toEqual([
      ['h264', '10.0.0.5', 'none'],
      ['mpeg2', '10.0.0.5', 'none'],
    ]);
  });

  it('starts one ffmpeg for 20 requests of one segment at once, and serves them all', async () => {
    const hls = service();
    const id = sessionIdIn(await hls.fileMaster('h264', {}, '127.0.0.1'));
    const session = hls.session(id, { itemId: 'h264' });
    const asks = Array.from({ length: 20 }, () => session.segment('remux', 3));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ffmpegsOf(id).length).toBeLessThanOrEqual(1);
    const paths = await Promise.all(asks);
    expect(new Set(paths).size).toBe(1);
    expect(existsSync(paths[0]!)).toBe(true);
    expect(logs.filter((l) => l.session === id && l.msg === 'ffmpeg started for HLS')).toHaveLength(1);
    await expect(session.segment('remux', 7)).rejects.toBeInstanceOf(NotFoundError);
    await expect(session.segment('720p', 0)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('plays a file of unknown length as an EVENT playlist of what exists, ended when ffmpeg is done', async () => {
    const hls = service();
    const master = await hls.fileMaster('unknownLength', {}, '127.0.0.1');
    // One rendition: switching would restart the playlist from the start.
    expect(master.match(/#EXT-X-STREAM-INF/g)).toHaveLength(1);
    const id = sessionIdIn(master);
    const session = hls.session(id, { itemId: 'unknownLength' });
    expect(await session.playlist('remux')).toContain('#EXT-X-PLAYLIST-TYPE:EVENT');
    expect(existsSync(await session.segment('remux', 0))).toBe(true);
    let playlist = '';
    for (let tries = 0; tries < 100 && !playlist.includes('#EXT-X-ENDLIST'); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      playlist = await session.playlist('remux');
    }
    // 14 s in 6 s segments: three, and the end marked, not one segment of a guessed length.
    expect(playlist.match(/seg-\d+\.ts/g)).toEqual(['seg-0.ts', 'seg-1.ts', 'seg-2.ts']);
    expect(playlist).toContain('#EXT-X-ENDLIST');
    // Past its end is a 404 at once, not ffmpeg started again from the start to find out.
    await expect(session.segment('remux', 5)).rejects.toBeInstanceOf(NotFoundError);
    expect(logs.filter((l) => l.session === id && l.msg === 'ffmpeg started for HLS')).toHaveLength(1);
  });

  it('notices a killed ffmpeg and starts it again for the next segment', async () => {
    const hls = service();
    const id = sessionIdIn(await hls.fileMaster('mpeg2', {}, '127.0.0.1'));
    const session = hls.session(id, { itemId: 'mpeg2' });
    await session.segment('240p', 0);
    const [pid] = ffmpegsOf(id);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid!, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ffmpegsOf(id)).toEqual([]);
    expect(existsSync(await session.segment('240p', 6))).toBe(true);
    expect(hls.list()[0]?.Encoder).toBe('software');
  });

  it('ends a session nobody asks anything of for 30 s: ffmpeg stopped, segments deleted', async () => {
    const hls = service();
    const id = sessionIdIn(await hls.fileMaster('mpeg2', {}, '127.0.0.1'));
    const file = await hls.session(id, { itemId: 'mpeg2' }).segment('240p', 0);
    clock += 20_000;
    hls.sweep();
    expect(hls.list()).toHaveLength(1);
    clock += 11_000;
    hls.sweep();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(hls.list()).toEqual([]);
    expect(existsSync(file)).toBe(false);
    expect(ffmpegsOf(id)).toEqual([]);
    expect(() => hls.session(id, { itemId: 'mpeg2' })).toThrow(NotFoundError);
  });

  it('refuses a transcode past the limit with a 503 that says what to do, and lets a remux through', async () => {
    const hls = service({ maxTranscodes: 1 });
    const first = hls.session(sessionIdIn(await hls.fileMaster('mpeg2', {}, 'a')), { itemId: 'mpeg2' });
    await first.segment('240p', 0);
    const second = hls.session(sessionIdIn(await hls.fileMaster('mpeg2', {}, 'b')), { itemId: 'mpeg2' });
    const refused = await second.segment('240p', 0).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UnavailableError);
    expect(refused).toMatchObject({
      status: 503,
      code: 'too_many_transcodes',
      message: expect.stringMatching(/--max-transcodes/),
    });
    const remux = hls.session(sessionIdIn(await hls.fileMaster('h264', {}, 'c')), { itemId: 'h264' });
    expect(existsSync(await remux.segment('remux', 0))).toBe(true);
    await hls.endSession(first.id);
    expect(existsSync(await second.segment('240p', 0))).toBe(true);
  });

  it('falls back to software when the hardware encoder fails, and says why', async () => {
    const hls = service({ encoder: 'vaapi' });
    const id = sessionIdIn(await hls.fileMaster('mpeg2', {}, '127.0.0.1'));
    expect(existsSync(await hls.session(id, { itemId: 'mpeg2' }).segment('240p', 0))).toBe(true);
    expect(
      logs.find((l) =>
        String(l.msg).startsWith(
          'the hardware encoder failed: transcoding in software from now on; the reason says why',
        ),
      ),
    ).toMatchObject({ encoder: 'vaapi', reason: expect.any(String) });
    expect(hls.list()[0]?.Encoder).toBe('software');
  });
});

/**
 * Live buffers (dvr/live/) of channels made of a file, fed at about its own pace until left: channel 5 is the MPEG-2
 * file (AC-3: transcoded for HLS players), channel 6 the H.264 one as MPEG-TS (remux).
 */
function bufferedChannels(): { buffers: LiveBuffers; access: LiveBufferAccess; left: () => number } {
  let left = 0;
  const files: Record<string, string> = { '5': mpeg2, '6': h264Ts };
  const buffers = new LiveBuffers({
    dir: join(media, `buffers-${Math.random().toString(36).slice(2)}`),
    channelNumbers: () => ['5', '6'],
    settings: { ...LIVE_BUFFER_DEFAULTS, lingerMs: 0, viewerGoneMs: 4000 },
    now: Date.now,
    watch: async (number, consumer) => {
      const file = files[number];
      if (!file) throw new StreamUnavailableError('every tuner is busy', 'no_tuner');
      const bytes = readFileSync(file);
      const perTick = Math.ceil(bytes.length / 40 / 20);
      let at = 0;
      const timer = setInterval(() => {
        consumer.data(bytes.subarray(at, Math.min(at + perTick, bytes.length)));
        at = at + perTick >= bytes.length ? 0 : at + perTick;
      }, 50);
      return {
        target: { sourceId: 's', number, url: file },
        leave: () => {
          left++;
          clearInterval(timer);
        },
      };
    },
  });
  liveBuffers.push(buffers);
  const access: LiveBufferAccess = {
    open: (number, client) => buffers.sample(number, client),
    playlist: (number, client, options) => buffers.playlist(number, false, client, undefined, options),
    segment: (number, seq) => buffers.segment(number, seq),
    leave: (number, client) => buffers.leave(number, client),
  };
  return { buffers, access, left: () => left };
}

const liveBuffers: LiveBuffers[] = [];
afterEach(async () => {
  for (const buffers of liveBuffers.splice(0)) await buffers.stop();
});

/** The codecs of a file's streams, by ffprobe. */
function codecsOf(file: string): string[] {
  const out = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name', '-of', 'csv=p=0', file]);
  return [...new Set(out.toString().split('\n').filter(Boolean))];
}

/** The first PTS (seconds) of a stream of an MPEG-TS file, by ffprobe. */
function firstPts(file: string, stream: 'v' | 'a'): number {
  const out = execFileSync('ffprobe', [
    ...['-v', 'error', '-select_streams', `${stream}:0`, '-show_entries', 'stream=codec_name,start_time'],
    ...['-of', 'csv=p=0', file],
  ]);
  const line = out
    .toString()
    .split('\n')
    .find((l) => /^\w+,\d/.test(l));
  return Number(line?.split(',')[1]);
}

describe('HLS sessions under pressure', () => {
  it('serves different segments asked for at once (last first), restarting ffmpeg only as it must', async () => {
    const hls = service();
    const id = sessionIdIn(await hls.fileMaster('h264', {}, '127.0.0.1'));
    const session = hls.session(id, { itemId: 'h264' });
    const paths = await Promise.all(Array.from({ length: 7 }, (_, index) => session.segment('remux', 6 - index)));
    for (const path of paths) expect(existsSync(path)).toBe(true);
    // Each request that found no ffmpeg coming its way started one: at most one per request, usually far fewer.
    expect(logs.filter((l) => l.session === id && l.msg === 'ffmpeg started for HLS').length).toBeLessThanOrEqual(7);
  }, 60_000);

  it('refuses a transcode past the limit without stopping what the session plays', async () => {
    const hls = service({ maxTranscodes: 1 });
    const busy = hls.session(sessionIdIn(await hls.fileMaster('mpeg2', {}, 'a')), { itemId: 'mpeg2' });
    await busy.segment('240p', 0);
    const id = sessionIdIn(await hls.fileMaster('h264', {}, 'b'));
    const playing = hls.session(id, { itemId: 'h264' });
    await playing.segment('remux', 0);
    const started = () => logs.filter((l) => l.session === id && l.msg === 'ffmpeg started for HLS').length;
    expect(started()).toBe(1);
    await expect(playing.segment('240p', 3)).rejects.toMatchObject({ status: 503, code: 'too_many_transcodes' });
    expect(existsSync(await playing.segment('remux', 1))).toBe(true);
    expect(started()).toBe(1);
  }, 60_000);

  it('pauses an ffmpeg far ahead of the player, and continues it when the player nears it', async () => {
    const dir = join(media, 'paced-hls');
    const hls = service({ dir, aheadSegments: 1 });
    const id = sessionIdIn(await hls.fileMaster('mpeg2', {}, 'a'));
    const session = hls.session(id, { itemId: 'mpeg2' });
    await session.segment('240p', 0);
    const [pid] = ffmpegsOf(id);
    const state = () => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[0];
    const deadline = Date.now() + 10_000;
    while (state() !== 'T' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(state()).toBe('T');
    // Paused: no more segments are written while the player stays at the first.
    const segments = () => readdirSync(join(dir, id, '240p')).filter((name) => name.endsWith('.ts')).length;
    const before = segments();
    expect(before).toBeLessThan(7);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(segments()).toBe(before);
    expect(existsSync(await session.segment('240p', before + 1))).toBe(true);
    await hls.endSession(id);
    expect(ffmpegsOf(id)).toEqual([]);
  }, 60_000);

  it('refuses new sessions once stopping, and leaves no ffmpeg behind', async () => {
    const hls = service();
    const id = sessionIdIn(await hls.fileMaster('mpeg2', {}, 'a'));
    await hls.session(id, { itemId: 'mpeg2' }).segment('240p', 0);
    await hls.stop();
    expect(ffmpegsOf(id)).toEqual([]);
    await expect(hls.fileMaster('mpeg2', {}, 'a')).rejects.toMatchObject({ status: 503, code: 'stopping' });
  }, 60_000);

  it("plays an MPEG-2 channel from its live buffer: the buffer's playlist, its segments transcoded once, in time", async () => {
    const channel = bufferedChannels();
    const dir = join(media, 'live-hls');
    const hls = service({
      dir,
      resolveChannel: (number) => ({ number, id: `ch-${number}` }),
      liveBuffer: channel.access,
    });
    const master = await hls.liveMaster('5', 'ANY', {}, '127.0.0.1', 'tv-1');
    // MPEG-2 and AC-3: transcodes only, never taller than the source.
    expect(master).not.toContain('remux');
    expect(master).toContain('240p/stream.m3u8');
    const id = sessionIdIn(master);
    const session = hls.session(id, { number: '5' });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const text = await session.playlist('240p');
    // The buffer's own playlist: every segment with its time, named for the session's routes.
    expect(text).toContain('#EXT-X-PROGRAM-DATE-TIME:');
    const names = text.split('\n').filter((line) => line.startsWith('seg-'));
    expect(names.length).toBeGreaterThanOrEqual(2);
    expect(channel.buffers.describe()).toMatchObject([{ channel: '5' }]);
    const [first, again] = await Promise.all([session.segment('240p', 0), session.segment('240p', 0)]);
    expect(first).toBe(again);
    expect(typeof first).toBe('string');
    const second = (await session.segment('240p', 1)) as string;
    // H.264 and AAC, at the buffer's own times: the source's segment and its transcode start together.
    const source = channel.access.segment('5', 1);
    const sourceFile = 'file' in source ? source.file : join(media, 'source-1.ts');
    if ('data' in source) writeFileSync(sourceFile, source.data);
    expect(codecsOf(second)).toEqual(['h264', 'aac']);
    expect(Math.abs(firstPts(second, 'v') - firstPts(sourceFile, 'v'))).toBeLessThan(0.05);
    expect(firstPts(second, 'v')).toBeGreaterThan(firstPts(first as string, 'v'));
    expect(hls.list()).toMatchObject([{ ID: id, Channel: { Number: '5', ID: 'ch-5' }, Encoder: 'software' }]);
    await hls.endSession(id);
    expect(ffmpegsOf(id)).toEqual([]);
    expect(readdirSync(dir)).not.toContain(id);
    // Nobody asks for the buffer any more: with a linger of 0 it closes once its viewer is gone.
    const deadline = Date.now() + 15_000;
    while (channel.buffers.describe().length > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(channel.buffers.describe()).toEqual([]);
    expect(channel.left()).toBe(1);
    // Tuned again, the channel's segments go on numbering from where they were: none is taken for an old one.
    const lastSeq = Number(/seg-(\d+)\.ts\n$/.exec(text)?.[1]);
    const retuned = await channel.buffers.playlist('5');
    expect(Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(retuned)?.[1])).toBeGreaterThan(lastSeq);
  }, 90_000);

  it("plays an H.264 channel's buffer as received in the remux rendition", async () => {
    const channel = bufferedChannels();
    const hls = service({ resolveChannel: (number) => ({ number, id: 'x' }), liveBuffer: channel.access });
    const master = await hls.liveMaster('6', 'ANY', {}, '127.0.0.1');
    expect(master).toContain('remux/stream.m3u8');
    const session = hls.session(sessionIdIn(master), { number: '6' });
    const text = await session.playlist('remux');
    const seq = Number(/seg-(\d+)\.ts/.exec(text)?.[1]);
    const sent = await session.segment('remux', seq);
    const held = channel.access.segment('6', seq);
    const bytes = (body: typeof sent) =>
      typeof body === 'string'
        ? readFileSync(body)
        : 'file' in body
          ? readFileSync(body.file)
          : 'data' in body
            ? body.data
            : undefined;
    if (!('stream' in held)) expect(bytes(sent)).toEqual(bytes(held));
    expect(hls.list()[0]?.Encoder).toBe('remux');
    // The same device tunes another channel: its session here ends (one device, one channel), another device's stays.
    const other = sessionIdIn(await hls.liveMaster('6', 'ANY', {}, '10.0.0.9'));
    const next = sessionIdIn(await hls.liveMaster('5', 'ANY', {}, '127.0.0.1'));
    await until(
      () => hls.list().map((s) => s.ID),
      (ids) => ids.length === 2,
      5000,
      'the old session ended',
    );
    expect(
      hls
        .list()
        .map((s) => s.ID)
        .sort(),
    ).toEqual([other, next].sort());
  }, 60_000);

  it('answers a channel the DVR cannot give (no tuner) with its 503, keeping nothing', async () => {
    const channel = bufferedChannels();
    const hls = service({ resolveChannel: (number) => ({ number, id: 'x' }), liveBuffer: channel.access });
    await expect(hls.liveMaster('7', 'ANY', {}, '127.0.0.1')).rejects.toMatchObject({ status: 503, code: 'no_tuner' });
    expect(hls.list()).toEqual([]);
  });
});
