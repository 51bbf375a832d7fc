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
import type { LiveFeed } from '../../src/streaming/live-hls-session.js';
import { itemFiles } from '../support/hls-items.js';
import { tempDir } from '../support/temp-library.js';

let media: string;
let h264: string;
let mpeg2: string;
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
    joinChannel: () => Promise.reject(new Error('no channels here')),
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

/** A channel made of the MPEG-2 file, fed in real time (about) until left. */
function fileChannel(): { join: HlsServiceOptions['joinChannel']; left: () => number } {
  let left = 0;
  return {
    left: () => left,
    join: async (_number: string, feed: LiveFeed) => {
      const bytes = readFileSync(mpeg2);
      const perTick = Math.ceil(bytes.length / 40 / 20);
      let at = 0;
      const timer = setInterval(() => {
        feed.data(bytes.subarray(at, at + perTick));
        at = (at + perTick) % bytes.length;
      }, 50);
      return {
        leave: () => {
          left++;
          clearInterval(timer);
        },
      };
    },
  };
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

  it('plays a live channel: one ffmpeg for concurrent first requests, started again when killed, the channel left at the end', async () => {
    const channel = fileChannel();
    const dir = join(media, 'live-hls');
    const hls = service({
      dir,
      resolveChannel: (number) => ({ number, id: `ch-${number}` }),
      joinChannel: channel.join,
    });
    const master = await hls.liveMaster('5', 'ANY', {}, '127.0.0.1');
    expect(master).not.toContain('remux');
    const id = sessionIdIn(master);
    const session = hls.session(id, { number: '5' });
    const [first, second] = await Promise.all([session.playlist('240p'), session.playlist('240p')]);
    expect(first).toContain('seg-');
    expect(second).toContain('seg-');
    expect(ffmpegsOf(id)).toHaveLength(1);
    process.kill(ffmpegsOf(id)[0]!, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await session.playlist('240p')).toContain('seg-');
    expect(ffmpegsOf(id)).toHaveLength(1);
    expect(hls.list()).toMatchObject([{ ID: id, Channel: { Number: '5', ID: 'ch-5' }, Encoder: 'software' }]);
    await hls.endSession(id);
    expect(channel.left()).toBe(1);
    expect(ffmpegsOf(id)).toEqual([]);
    expect(readdirSync(dir)).not.toContain(id);
  }, 90_000);

  it('ends a live session whose source dies, saying why; the player then hears 404s, not silence', async () => {
    let feedOf: LiveFeed | undefined;
    const channel = fileChannel();
    const hls = service({
      resolveChannel: (number) => ({ number, id: 'x' }),
      joinChannel: async (number, feed) => {
        feedOf = feed;
        return channel.join(number, feed);
      },
    });
    const id = sessionIdIn(await hls.liveMaster('5', 'ANY', {}, '127.0.0.1'));
    const session = hls.session(id, { number: '5' });
    expect(await session.playlist('240p')).toContain('seg-');
    feedOf?.ended('the source closed the connection');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(hls.list()).toEqual([]);
    expect(() => hls.session(id, { number: '5' })).toThrow(NotFoundError);
    await expect(session.playlist('240p')).rejects.toBeInstanceOf(NotFoundError);
    expect(logs.find((l) => l.session === id && l.msg === 'HLS session ended')).toMatchObject({
      reason: 'the channel ended: the source closed the connection',
    });
    expect(ffmpegsOf(id)).toEqual([]);
  }, 60_000);

  it('answers a channel the DVR cannot give (no tuner) with its 503, keeping nothing', async () => {
    const hls = service({
      resolveChannel: (number) => ({ number, id: 'x' }),
      joinChannel: () => Promise.reject(new UnavailableError(503, 'no_tuner', 'every tuner is busy')),
    });
    await expect(hls.liveMaster('5', 'ANY', {}, '127.0.0.1')).rejects.toMatchObject({ status: 503, code: 'no_tuner' });
    expect(hls.list()).toEqual([]);
  });
});
