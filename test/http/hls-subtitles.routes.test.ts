/**
 * A file's text subtitles as HLS subtitle renditions, through the whole app (inject)
 * on real files ffmpeg made and a real ffmpeg making the WebVTT: the master playlist
 * lists them, their one-segment playlists and their WebVTT (timed by X-TIMESTAMP-MAP)
 * are served, many requests share one ffmpeg run, and unknown or bad numbers, failed
 * and timed-out runs and a session that ends mid-run answer JSON errors, never a 500,
 * and leave the video playing.
 */
import { NO_LIVE_BUFFERS } from '../../src/streaming/buffer-hls-session.js';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/common/errors.js';
import {
  type ProgramOutcome,
  type ProgramRunner,
  type RunOptions,
  spawnRunner,
} from '../../src/common/external-program.js';
import { HlsService } from '../../src/streaming/hls-sessions.service.js';
import { itemFiles } from '../support/hls-items.js';
import { type TempLibrary, buildTestApp, createTempLibrary } from '../support/temp-library.js';

let temp: TempLibrary;
let files: Record<string, string>;
const logs: { msg?: string; level?: number; reason?: string }[] = [];
const apps: { app: FastifyInstance; hls: HlsService }[] = [];

const ffmpeg = (args: string[]) => execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);

beforeAll(() => {
  temp = createTempLibrary();
  const plain = join(temp.dir, 'plain.mp4');
  ffmpeg([
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=160x120:rate=25:duration=20',
    '-f',
    'lavfi',
    '-i',
    'sine=duration=20',
    '-shortest',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-g',
    '25',
    '-c:a',
    'aac',
    plain,
  ]);
  const english = join(temp.dir, 'english.srt');
  writeFileSync(
    english,
    '1\n00:00:02,000 --> 00:00:08,000\nHello from "the" subtitles\n\n2\n00:00:10,000 --> 00:00:12,500\nA <i>second</i> cue\n',
  );
  const french = join(temp.dir, 'french.srt');
  writeFileSync(french, '1\n00:00:03,000 --> 00:00:04,000\nBonjour\n');
  // Copied, not encoded, beside the video: the cues keep their exact times.
  const subbed = join(temp.dir, 'Beach Day.mkv');
  ffmpeg([
    '-i',
    plain,
    '-i',
    english,
    '-i',
    french,
    '-map',
    '0',
    '-map',
    '1',
    '-map',
    '2',
    '-c',
    'copy',
    '-c:s',
    'srt',
    '-metadata:s:s:0',
    'language=eng',
    '-metadata:s:s:0',
    'title=English',
    '-metadata:s:s:1',
    'language=fre',
    '-disposition:s:1',
    'forced',
    subbed,
  ]);
  files = { subbed, plain };
}, 60_000);

afterAll(async () => {
  for (const { app, hls } of apps) {
    await app.close();
    await hls.stop();
  }
  temp?.close();
});

/** ffmpeg's subtitle runs (the runner runs nothing else), counted, or stood in for by `fake`. */
function countingRunner(fake?: (options: RunOptions) => Promise<ProgramOutcome>): ProgramRunner & { runs: string[][] } {
  const runs: string[][] = [];
  return {
    runs,
    run(program, args, options) {
      runs.push([...args]);
      return fake ? fake(options) : spawnRunner.run(program, args, options);
    },
  };
}

async function serve(runner: ProgramRunner): Promise<{ app: FastifyInstance; hls: HlsService }> {
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => logs.push(JSON.parse(line) as (typeof logs)[number]) },
  );
  const hls = new HlsService({
    dir: join(temp.dir, `hls-${apps.length}`),
    ffmpeg: 'ffmpeg',
    ffprobe: 'ffprobe',
    runner,
    encoder: 'software',
    maxTranscodes: 1,
    logger,
    ...itemFiles((id) => {
      // 'growing': the subtitled file as a recording still being written (an EVENT playlist).
      const path = files[id === 'growing' ? 'subbed' : id];
      if (!path) throw new NotFoundError('file', id);
      return { path, growing: id === 'growing' };
    }),
    resolveChannel: (number) => {
      throw new NotFoundError('channel', number);
    },
    liveBuffer: NO_LIVE_BUFFERS,
  });
  hls.start();
  const app = await buildTestApp(temp, { hls });
  apps.push({ app, hls });
  return { app, hls };
}

/** A new session of `item`: its master playlist and the prefix of its URLs. */
async function session(app: FastifyInstance, item: string): Promise<{ master: string; base: string }> {
  const master = (await app.inject({ method: 'GET', url: `/dvr/files/${item}/hls/master.m3u8` })).body;
  const id = /s\/([A-Za-z0-9_-]+)\//.exec(master)?.[1] ?? '';
  return { master, base: `/dvr/files/${item}/hls/s/${id}` };
}

const ERROR_BODY = { status: expect.any(Number), code: expect.any(String), message: expect.any(String) };

describe('subtitle renditions', () => {
  it('lists the text subtitles in the master playlist, and serves their playlists and WebVTT from one ffmpeg run', async () => {
    const runner = countingRunner();
    const { app } = await serve(runner);
    const { master, base } = await session(app, 'subbed');
    const id = base.split('/').at(-1);
    expect(master).toContain(
      `#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=NO,AUTOSELECT=YES,FORCED=NO,URI="s/${id}/subs/0/stream.m3u8"`,
    );
    expect(master).toContain(
      `#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="French (forced)",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,FORCED=YES,URI="s/${id}/subs/1/stream.m3u8"`,
    );
    expect(master).toMatch(/#EXT-X-STREAM-INF:[^\n]*NAME="remux",SUBTITLES="subs"\n/);

    const playlist = await app.inject({ method: 'GET', url: `${base}/subs/0/stream.m3u8` });
    expect(playlist.statusCode).toBe(200);
    expect(playlist.headers['content-type']).toBe('application/vnd.apple.mpegurl');
    expect(playlist.headers['access-control-allow-origin']).toBe('*');
    // One segment as long as the file (20 s and the AAC encoder's few milliseconds), the target its whole seconds.
    const [, target, length] =
      /^#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:(\d+)\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:(\d+\.\d{3}),\nall\.vtt\n#EXT-X-ENDLIST\n$/.exec(
        playlist.body,
      ) ?? [];
    expect(Number(length)).toBeCloseTo(20, 1);
    expect(Number(target)).toBe(Math.ceil(Number(length)));

    // Many players' requests at once (and the run the playlist started): one ffmpeg.
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => app.inject({ method: 'GET', url: `${base}/subs/0/all.vtt` })),
    );
    for (const answer of answers) {
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['content-type']).toBe('text/vtt; charset=utf-8');
      expect(answer.headers['access-control-allow-origin']).toBe('*');
      expect(answer.body).toBe(answers[0]!.body);
    }
    const vtt = answers[0]!.body;
    expect(vtt.startsWith('WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:126000,LOCAL:00:00:00.000\n\n')).toBe(true);
    // The file's times: Matroska moved every stream 23 ms on, past the AAC encoder's priming samples.
    expect(vtt).toMatch(/\n00:02\.0\d\d --> 00:08\.0\d\d\nHello from "the" subtitles\n/);
    expect(vtt).toMatch(/\n00:10\.0\d\d --> 00:12\.5\d\d\nA <i>second<\/i> cue\n/);
    expect(runner.runs.filter((args) => args.includes('0:s:0'))).toHaveLength(1);
    expect((await app.inject({ method: 'GET', url: `${base}/subs/0/all.vtt` })).body).toBe(vtt);
    expect(runner.runs).toHaveLength(1);

    const french = await app.inject({ method: 'GET', url: `${base}/subs/1/all.vtt` });
    expect(french.body).toMatch(/\n00:03\.0\d\d --> 00:04\.0\d\d\nBonjour\n/);
    expect(runner.runs.map((args) => args[args.indexOf('-map') + 1])).toEqual(['0:s:0', '0:s:1']);
  });

  it('answers HEAD without running ffmpeg, and unknown, bad or colliding numbers with JSON errors', async () => {
    const runner = countingRunner();
    const { app } = await serve(runner);
    const { base } = await session(app, 'subbed');
    expect((await app.inject({ method: 'HEAD', url: `${base}/subs/0/all.vtt` })).statusCode).toBe(200);
    expect((await app.inject({ method: 'HEAD', url: `${base}/subs/0/stream.m3u8` })).statusCode).toBe(200);
    expect(runner.runs).toHaveLength(0);
    const cases: [string, number][] = [
      [`${base}/subs/2/stream.m3u8`, 404],
      [`${base}/subs/2/all.vtt`, 404],
      [`${base}/subs/999/all.vtt`, 404],
      [`/dvr/files/subbed/hls/s/no-such-session/subs/0/all.vtt`, 404],
      [`/dvr/files/plain/hls/s/${base.split('/').at(-1)}/subs/0/all.vtt`, 404],
      [`${base}/subs/x/stream.m3u8`, 400],
      [`${base}/subs/-1/all.vtt`, 400],
      [`${base}/subs/01/all.vtt`, 400],
      [`${base}/subs/1000/all.vtt`, 400],
      // Not a subtitle route: the variant route, which has no variant 'subs'.
      [`${base}/subs/stream.m3u8`, 404],
      [`${base}/subs/0`, 400],
    ];
    for (const [url, status] of cases) {
      const answer = await app.inject({ method: 'GET', url });
      expect([url, answer.statusCode]).toEqual([url, status]);
      expect(answer.json()).toMatchObject({ ...ERROR_BODY, status });
    }
    expect((await app.inject({ method: 'GET', url: `${base}/subs/2/all.vtt` })).json()).toMatchObject({
      code: 'not_found',
      message: "No subtitle rendition with id '2'.",
    });
    // The video's routes beside them are untouched.
    expect((await app.inject({ method: 'GET', url: `${base}/remux/stream.m3u8` })).body).toContain('seg-3.ts');
    expect((await app.inject({ method: 'GET', url: `${base}/remux/seg-0.ts` })).statusCode).toBe(200);
    expect(runner.runs).toHaveLength(0);
  });

  it('offers no subtitle renditions for a file without subtitles, nor for a recording still being written', async () => {
    const { app } = await serve(countingRunner());
    for (const item of ['plain', 'growing']) {
      const { master, base } = await session(app, item);
      expect(master).toContain('#EXT-X-STREAM-INF:');
      expect(master).not.toContain('#EXT-X-MEDIA');
      expect(master).not.toContain('SUBTITLES=');
      expect((await app.inject({ method: 'GET', url: `${base}/subs/0/stream.m3u8` })).json()).toMatchObject({
        status: 404,
        code: 'not_found',
      });
    }
  });

  it('answers a failed ffmpeg with a 502 it remembers and a timed-out one with a 503 it tries again, the video playing on', async () => {
    let outcome: ProgramOutcome = {
      kind: 'failed',
      exitCode: 1,
      reason: 'exit status 1',
      stdout: '',
      stderrTail: 'Error while decoding stream #0:2: Invalid data found\n',
    };
    const runner = countingRunner(() => Promise.resolve(outcome));
    const { app } = await serve(runner);
    const { base } = await session(app, 'subbed');
    const failed = await app.inject({ method: 'GET', url: `${base}/subs/0/all.vtt` });
    expect(failed.statusCode).toBe(502);
    expect(failed.json()).toEqual({
      status: 502,
      code: 'subtitles_failed',
      message: expect.stringContaining('Invalid data found'),
    });
    expect(
      logs.some(
        (l) =>
          l.msg?.startsWith('ffmpeg could not make WebVTT subtitles; play without this track') === true &&
          l.reason?.includes('Invalid data found'),
      ),
    ).toBe(true);
    expect((await app.inject({ method: 'GET', url: `${base}/subs/0/all.vtt` })).statusCode).toBe(502);
    expect(runner.runs).toHaveLength(1);
    // Its playlist is still there (the player may ask again), and so is the video.
    expect((await app.inject({ method: 'GET', url: `${base}/subs/0/stream.m3u8` })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: `${base}/remux/seg-1.ts` })).statusCode).toBe(200);

    outcome = {
      kind: 'transient',
      cause: 'timeout',
      reason: 'did not finish within 120000 ms',
      stdout: '',
      stderrTail: '',
    };
    const slow = await app.inject({ method: 'GET', url: `${base}/subs/1/all.vtt` });
    expect(slow.json()).toEqual({
      status: 503,
      code: 'subtitles_not_ready',
      message: expect.stringContaining('took too long'),
    });
    expect((await app.inject({ method: 'GET', url: `${base}/subs/1/all.vtt` })).statusCode).toBe(503);
    expect(runner.runs).toHaveLength(3);
  });

  it('stops a run when its session ends, and answers its waiting request with a 404', async () => {
    const runner = countingRunner(
      (options) =>
        new Promise((resolve) => {
          options.signal?.addEventListener(
            'abort',
            () => resolve({ kind: 'transient', cause: 'aborted', reason: 'stopped', stdout: '', stderrTail: '' }),
            { once: true },
          );
        }),
    );
    const { app, hls } = await serve(runner);
    const { base } = await session(app, 'subbed');
    const waiting = app.inject({ method: 'GET', url: `${base}/subs/0/all.vtt` });
    while (runner.runs.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await hls.endSession(base.split('/').at(-1) ?? '');
    const answer = await waiting;
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toMatchObject({ status: 404, code: 'not_found' });
  });
});
