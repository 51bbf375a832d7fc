/**
 * Live TV's buffer for `npm run bench` (called by bench/run.mjs; `node bench/live-buffer.mjs`
 * runs it alone and prints the figures), beside a reference measured in the same run:
 * - tune: a channel nobody watches, its buffer playlist asked → its first segment's first bytes
 *   received (a segment starts with a keyframe, and the one under way is sent as it arrives:
 *   a player decodes from there), and → that segment whole, for 16 channels
 *   one after another; reference: bare ffmpeg reading the same source and writing HLS
 *   (`-c copy -hls_time 1`), time to its first segment file;
 * - back to a channel still buffered (a device coming back within the linger time):
 *   playlist → newest segment's first bytes;
 * - 4 channels of 8 Mbit/s buffered at once for 20 s (measured first, nothing else tuned):
 *   the server's CPU against `curl -o` of the same streams.
 * The sources are paced loopback streams of an ffmpeg-made clip (bench/ts-stream-server.mjs:
 * H.264, a keyframe each second, AAC); the server is `antenna server`, a child process.
 * Seeks and first frames in a real player are not measured here yet.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort, median, startChild, until } from './player.mjs';
import { makeTsClip, startStreamServer } from './ts-stream-server.mjs';

const { fetch, setInterval, clearInterval } = globalThis;
const CHANNELS = 20;
const BUFFERED = 4;
const BUFFER_SECONDS = 20;

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/** utime + stime of a process in ms. */
function cpuOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Playlist asked → the newest segment's first bytes received (it begins with the tables and a keyframe: what a player
 * starts decoding at), and → that segment received whole. The newest is the one under way, sent as it arrives.
 */
async function firstSegmentMs(base, number) {
  const began = performance.now();
  const answer = await fetch(`${base}/devices/ANY/channels/${number}/buffer.m3u8`);
  if (!answer.ok) throw new Error(`channel ${number}: ${answer.status} ${await answer.text()}`);
  const names = (await answer.text()).split('\n').filter((line) => line.startsWith('buffer/'));
  const segment = await fetch(`${base}/devices/ANY/channels/${number}/${names.at(-1)}`);
  let first;
  for await (const chunk of segment.body)
    if (first === undefined && chunk.length > 0) first = performance.now() - began;
  return { first, whole: performance.now() - began };
}

/** Bare ffmpeg from `url` to HLS in `dir`: ms until its first segment file is complete (the second one begun). */
async function ffmpegFirstSegmentMs(url, dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const began = performance.now();
  const ffmpeg = spawn(
    'ffmpeg',
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-i',
      url,
      '-c',
      'copy',
      '-f',
      'hls',
      '-hls_time',
      '1',
      join(dir, 'out.m3u8'),
    ],
    { stdio: 'ignore' },
  );
  try {
    await until(
      () => existsSync(join(dir, 'out.m3u8')) && readFileSync(join(dir, 'out.m3u8'), 'utf8').includes('.ts'),
      (ok) => ok,
      20_000,
      'ffmpeg first segment',
    );
    return performance.now() - began;
  } finally {
    ffmpeg.kill('SIGKILL');
  }
}

export async function benchLiveBuffer({ antennaBin, work, log = console.log }) {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const clip = await makeTsClip(join(work, 'clip.ts'), { seconds: 10, muxrateKbps: 8000, size: '1280x720' });
  const sources = await startStreamServer(clip.path);
  const names = Array.from({ length: CHANNELS }, (_, i) => `live${i + 1}`);
  const m3u = join(work, 'channels.m3u');
  writeFileSync(
    m3u,
    ['#EXTM3U', ...names.map((name, i) => `#EXTINF:-1 tvg-chno="${i + 1}",${name}\n${sources.url(name)}`)].join('\n'),
  );
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const data = join(work, 'data');
  const children = [];
  const server = startChild(
    antennaBin,
    [
      'server',
      ...['--data', data, '--host', '127.0.0.1', '--port', String(port), '--no-sample'],
      ...['--m3u', m3u, '--m3u-streams', String(CHANNELS), '--log-level', 'warn'],
    ],
    join(work, 'server.log'),
    children,
  );
  try {
    await until(
      async () => ((await (await fetch(`${base}/api/v1/channels`)).json()) ?? []).length,
      (count) => count === CHANNELS,
      30_000,
      'the channels',
    );
    log(`live buffer: ${BUFFERED} channels of 8 Mbit/s buffered for ${BUFFER_SECONDS} s`);
    const load = Array.from({ length: BUFFERED }, (_, i) => String(i + 1));
    const loadNames = load.map((number) => `live${number}`);
    const cpuBefore = cpuOf(server.pid);
    const startedAt = performance.now();
    // Asked for as players would, so each buffer is watched.
    const ask = () => {
      for (const number of load)
        void fetch(`${base}/devices/ANY/channels/${number}/buffer.m3u8`).catch(() => undefined);
    };
    ask();
    const polls = setInterval(ask, 2000);
    await sleep(BUFFER_SECONDS * 1000);
    clearInterval(polls);
    const antennaShare = (cpuOf(server.pid) - cpuBefore) / (performance.now() - startedAt);

    log(`live buffer: tuning ${CHANNELS - BUFFERED} channels one after another`);
    const tuned = [];
    for (let i = BUFFERED + 1; i <= CHANNELS; i++) tuned.push(await firstSegmentMs(base, String(i)));
    const tunes = tuned.map(({ first }) => first);
    const wholes = tuned.map(({ whole }) => whole);
    const again = [];
    for (let i = 1; i <= 5; i++) again.push((await firstSegmentMs(base, String(i))).first);
    log('live buffer: bare ffmpeg to its first HLS segment, 5 times');
    const bare = [];
    for (let i = 0; i < 5; i++) bare.push(await ffmpegFirstSegmentMs(sources.url(`bare${i}`), join(work, `bare${i}`)));

    log(`live buffer: ${BUFFERED} curl -o of the same streams for ${BUFFER_SECONDS} s`);
    const curls = loadNames.map((name, i) =>
      spawn(
        'curl',
        ['-s', '-o', join(work, `curl${i}.ts`), '--max-time', String(BUFFER_SECONDS), sources.url(`curl-${name}`)],
        {
          stdio: 'ignore',
        },
      ),
    );
    const curlCpu = await Promise.all(
      curls.map(
        (curl) =>
          new Promise((resolve) => {
            let last = 0;
            const timer = setInterval(() => {
              try {
                last = cpuOf(curl.pid);
              } catch {
                // gone
              }
            }, 500);
            curl.once('exit', () => {
              clearInterval(timer);
              resolve(last);
            });
          }),
      ),
    );
    const curlShare = curlCpu.reduce((a, b) => a + b, 0) / (BUFFER_SECONDS * 1000);
    return {
      tune: { p50: median(tunes), p95: percentile(tunes, 95), count: tunes.length, whole: median(wholes) },
      again: { p50: median(again) },
      bare: { p50: median(bare), p95: percentile(bare, 95) },
      load: { channels: BUFFERED, seconds: BUFFER_SECONDS, antennaShare, curlShare },
    };
  } finally {
    await sources.close();
    for (const child of children) child.kill('SIGTERM');
    await sleep(500);
  }
}

export function liveBufferRows(live, { verdict }) {
  const ms = (value) => `${Math.round(value)} ms`;
  return [
    {
      target: `Live TV: tune a channel, buffer playlist → its first segment's keyframe arriving (${live.tune.count} channels)`,
      threshold: 'p50 ≤ 1 s, p95 ≤ 2 s',
      measured: `p50 ${ms(live.tune.p50)}, p95 ${ms(live.tune.p95)} (segment whole: p50 ${ms(live.tune.whole)})`,
      ceiling: `bare ffmpeg to its first HLS segment: p50 ${ms(live.bare.p50)}, p95 ${ms(live.bare.p95)}`,
      ratio: `${(live.tune.p50 / Math.max(live.bare.p50, 1)).toFixed(2)}×`,
      result: verdict(live.tune.p50 <= 1000 && live.tune.p95 <= 2000),
    },
    {
      target: 'Live TV: back to a channel still buffered',
      threshold: '≤ 0.5 s',
      measured: `p50 ${ms(live.again.p50)}`,
      ceiling: `fresh tune p50 ${ms(live.tune.p50)}`,
      ratio: `${(live.again.p50 / Math.max(live.tune.p50, 1)).toFixed(2)}×`,
      result: verdict(live.again.p50 <= 500),
    },
    {
      target: `Live TV: ${live.load.channels} channels of 8 Mbit/s buffered, server CPU`,
      threshold: '≤ 1.5× curl -o',
      measured: `${(live.load.antennaShare * 100).toFixed(1)} % of a core`,
      ceiling: `curl -o: ${(live.load.curlShare * 100).toFixed(1)} %`,
      ratio: `${(live.load.antennaShare / Math.max(live.load.curlShare, 1e-9)).toFixed(2)}×`,
      result: verdict(live.load.antennaShare <= 1.5 * live.load.curlShare),
    },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const result = await benchLiveBuffer({
    antennaBin: join(root, 'bin', 'antenna'),
    work: join(root, '.bench', 'live-buffer'),
  });
  console.log(JSON.stringify(result, null, 2));
}
