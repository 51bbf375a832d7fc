/**
 * Live TV in a real player for `npm run bench` (part of bench/live-buffer.mjs): mpv,
 * headless, loads what the Antenna player loads and the time until mpv's
 * `playback-restart` (its first frame decoded and playing) is measured:
 * - tune: a channel nobody watches, `buffer.m3u8?from=` just behind live (mpv plays it
 *   from its first segment), beside mpv opening the same source's raw stream directly;
 * - seek: a random moment of a long buffer (`?from=` that segment's time) — what the mpv
 *   player does for a seek its cache does not hold;
 * - jump to live on a buffered channel;
 * - channel up to a neighbour the server pre-tuned (`--live-pretune`, a server of its own).
 * mpv starts once, idle, and takes each load over its JSON IPC socket. `node bench/live-mpv.mjs` runs it alone.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { LIVE_DEMUXER_OPTIONS } from '../dist/player/mpv/mpv-args.js';
import { freePort, startChild, until } from './player.mjs';
import { makeTsClip, startStreamServer } from './ts-stream-server.mjs';

const { fetch, setInterval, clearInterval, setTimeout, clearTimeout } = globalThis;

/** An idle headless mpv on `socketPath`, with the player's user agent (the server counts them as one device). */
export async function startMpv(socketPath) {
  const mpv = spawn(
    'mpv',
    [
      '--no-config',
      '--idle=yes',
      '--no-terminal',
      '--vo=null',
      '--ao=null',
      '--user-agent=antenna-player',
      `--input-ipc-server=${socketPath}`,
    ],
    { stdio: 'ignore' },
  );
  let socket;
  for (let tries = 0; !socket && tries < 100; tries++) {
    await sleep(100);
    socket = await new Promise((resolve) => {
      const attempt = net.connect(socketPath);
      attempt.once('connect', () => resolve(attempt)).once('error', () => resolve(undefined));
    });
  }
  if (!socket) throw new Error('mpv did not open its IPC socket');
  socket.setEncoding('utf8');
  const listeners = new Set();
  let buffered = '';
  socket.on('data', (chunk) => {
    buffered += chunk;
    for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      for (const listener of listeners) listener(message);
    }
  });
  let nextId = 1;
  const command = (args) =>
    new Promise((resolve) => {
      const id = nextId++;
      const listener = (message) => {
        if (message.request_id !== id) return;
        listeners.delete(listener);
        resolve(message);
      };
      listeners.add(listener);
      socket.write(`${JSON.stringify({ command: args, request_id: id })}\n`);
    });
  /**
   * Ms from loadfile to playback-restart (or undefined when mpv gave up or `timeoutMs` passed). `demuxer` is
   * demuxer-lavf-o for this load (the player's live options, or none).
   */
  const timeToPlay = async (url, demuxer, timeoutMs = 20_000) => {
    await command(['set_property', 'demuxer-lavf-o', demuxer]);
    await command(['stop']);
    await sleep(200);
    const began = performance.now();
    const played = new Promise((resolve) => {
      const timer = setTimeout(() => done(undefined), timeoutMs);
      const listener = (message) => {
        if (message.event === 'playback-restart') done(performance.now() - began);
        else if (message.event === 'end-file' && message.reason === 'error') done(undefined);
      };
      const done = (value) => {
        clearTimeout(timer);
        listeners.delete(listener);
        resolve(value);
      };
      listeners.add(listener);
    });
    await command(['loadfile', url, 'replace']);
    return played;
  };
  return {
    timeToPlay,
    async stop() {
      await command(['stop']).catch(() => undefined);
      socket.destroy();
      mpv.kill('SIGTERM');
    },
  };
}

const segmentTimes = (playlist) =>
  playlist
    .split('\n')
    .filter((line) => line.startsWith('#EXT-X-PROGRAM-DATE-TIME:'))
    .map((line) => Date.parse(line.slice('#EXT-X-PROGRAM-DATE-TIME:'.length)));

/** The long channel's buffer: this much of its clip, read as fast as it comes (not paced). */
const LONG_SECONDS = Number(process.env.BENCH_LONG_SECONDS ?? 3600);
const FRESH = 10;

/**
 * Its own `antenna server` (buffers linger a minute; the long one is kept asked for): FRESH channels of an
 * 8 Mbit/s 720p clip, and one of a 600 kbit/s clip whose source sends LONG_SECONDS of it at once (an hour's buffer).
 */
export async function benchLiveMpv({ antennaBin, work, log = console.log, seeks = 20 }) {
  mkdirSync(work, { recursive: true });
  const clip = await makeTsClip(join(work, 'clip.ts'), { seconds: 10, muxrateKbps: 8000, size: '1280x720' });
  const longClip = await makeTsClip(join(work, 'long.ts'), { seconds: 10, muxrateKbps: 600, size: '320x240' });
  const sources = await startStreamServer(clip.path);
  const longSource = await startStreamServer(longClip.path);
  longSource.set('long', { pace: false, stallAfterBytes: Math.floor(longSource.byteRate * LONG_SECONDS) });
  const entries = Array.from({ length: FRESH }, (_, i) => [String(i + 1), sources.url(`fresh${i + 1}`)]);
  entries.push(['100', longSource.url('long')]);
  const m3u = join(work, 'channels.m3u');
  writeFileSync(
    m3u,
    ['#EXTM3U', ...entries.map(([number, url]) => `#EXTINF:-1 tvg-chno="${number}",Channel ${number}\n${url}`)].join(
      '\n',
    ),
  );
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const children = [];
  startChild(
    antennaBin,
    [
      'server',
      ...['--data', join(work, 'data'), '--host', '127.0.0.1', '--port', String(port), '--no-sample'],
      ...['--m3u', m3u, '--m3u-streams', String(FRESH + 2), '--log-level', 'warn', '--live-buffer-linger', '1'],
    ],
    join(work, 'server.log'),
    children,
  );
  const mpv = { stop: async () => undefined };
  const failures = [];
  let keepAlive;
  try {
    await until(
      async () => ((await (await fetch(`${base}/api/v1/channels`)).json()) ?? []).length,
      (count) => count === FRESH + 1,
      30_000,
      'the channels',
    );
    log(`live in mpv: filling a buffer with ${LONG_SECONDS / 60} minutes of a 600 kbit/s channel`);
    const longPlaylist = () => fetch(`${base}/devices/ANY/channels/100/buffer.m3u8`).then((answer) => answer.text());
    const filled = await until(
      async () => segmentTimes(await longPlaylist()).length,
      (count) => count >= (LONG_SECONDS / 2) * 0.95,
      900_000,
      'the long buffer',
    );
    // Someone keeps watching the long channel (as a viewer of its own), so its buffer stays while mpv tunes others.
    keepAlive = setInterval(() => void longPlaylist().catch(() => undefined), 2000);
    Object.assign(mpv, await startMpv(join(work, 'mpv.sock')));
    // What the Antenna player sets for live TV (from its first segment, no frame-rate probing).
    const measure = async (what, url, demuxer = LIVE_DEMUXER_OPTIONS) => {
      const ms = await mpv.timeToPlay(url, demuxer);
      if (ms === undefined) failures.push(what);
      return ms;
    };
    log(`live in mpv: ${FRESH} tunes, ${FRESH} raw streams, ${seeks} seeks in ${filled} segments, 5 jumps to live`);
    const times = segmentTimes(await longPlaylist());
    const seekTimes = [];
    for (let i = 0; i < seeks; i++) {
      const at = times[Math.floor(Math.random() * Math.max(1, times.length - 3))];
      const ms = await measure(`seek ${at}`, `${base}/devices/ANY/channels/100/buffer.m3u8?from=${at}`);
      if (ms !== undefined) seekTimes.push(ms);
    }
    const live = [];
    for (let i = 0; i < 5; i++) {
      const ms = await measure('live', `${base}/devices/ANY/channels/100/buffer.m3u8?from=${Date.now() - 6000}`);
      if (ms !== undefined) live.push(ms);
    }
    // Fresh tunes last: the channels they tune linger, and would weigh on the seeks.
    const tunes = [];
    for (const [number] of entries.slice(0, FRESH)) {
      const url = `${base}/devices/ANY/channels/${number}/buffer.m3u8?from=${Date.now() - 6000}`;
      const ms = await measure(`tune ${number}`, url);
      if (ms !== undefined) tunes.push(ms);
    }
    // The references: mpv on the source itself, as it comes, and with the same frame-rate probing off.
    const direct = [];
    const directFast = [];
    for (let i = 0; i < FRESH; i++) {
      const ms = await measure(`raw ${i}`, sources.url(`raw${i}`), {});
      if (ms !== undefined) direct.push(ms);
      const fast = await measure(`raw fast ${i}`, sources.url(`rawfast${i}`), { fpsprobesize: '0' });
      if (fast !== undefined) directFast.push(fast);
    }
    const up = await pretunedChanges({ antennaBin, work, mpv, sources, children, log });
    failures.push(...up.failures);
    return { tunes, direct, directFast, up: up.times, seeks: seekTimes, live, segments: times.length, failures };
  } finally {
    clearInterval(keepAlive);
    await mpv.stop();
    await sources.close();
    await longSource.close();
    for (const child of children) child.kill('SIGTERM');
    await sleep(500);
  }
}

const UPS = 10;

/**
 * Channel up to a pre-tuned neighbour, on a server of its own with `--live-pretune`: mpv watches channel k (the
 * server buffers k-1 and k+1 beside it), then loads k+1 as the player does (`?from=` live), UPS times.
 */
async function pretunedChanges({ antennaBin, work, mpv, sources, children, log }) {
  const numbers = Array.from({ length: UPS + 2 }, (_, i) => String(i + 1));
  const m3u = join(work, 'pretune.m3u');
  writeFileSync(
    m3u,
    ['#EXTM3U', ...numbers.map((n) => `#EXTINF:-1 tvg-chno="${n}",Channel ${n}\n${sources.url(`up${n}`)}`)].join('\n'),
  );
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  startChild(
    antennaBin,
    [
      'server',
      ...['--data', join(work, 'pretune-data'), '--host', '127.0.0.1', '--port', String(port), '--no-sample'],
      ...['--m3u', m3u, '--m3u-streams', String(numbers.length), '--log-level', 'warn', '--live-pretune'],
    ],
    join(work, 'pretune-server.log'),
    children,
  );
  await until(
    async () => ((await (await fetch(`${base}/api/v1/channels`)).json()) ?? []).length,
    (count) => count === numbers.length,
    30_000,
    'the pre-tune channels',
  );
  log(`live in mpv: ${UPS} channel ups to a pre-tuned neighbour`);
  const url = (number) => `${base}/devices/ANY/channels/${number}/buffer.m3u8?from=${Date.now() - 6000}`;
  const times = [];
  const failures = [];
  await mpv.timeToPlay(url('1'), LIVE_DEMUXER_OPTIONS);
  for (const number of numbers.slice(1, UPS + 1)) {
    // Long enough for the neighbours to be tuned and hold a few segments, as a person watches a moment.
    await sleep(4000);
    const ms = await mpv.timeToPlay(url(number), LIVE_DEMUXER_OPTIONS);
    if (ms === undefined) failures.push(`channel up to ${number}`);
    else times.push(ms);
  }
  return { times, failures };
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
};

export function liveMpvRows(result, { verdict }) {
  const ms = (value) => `${Math.round(value)} ms`;
  const failed = result.failures.length > 0 ? ` (${result.failures.length} did not play: ${result.failures[0]})` : '';
  const p50 = (values) => percentile(values, 50);
  return [
    {
      target: `Live TV in mpv: tune → first frame playing (${result.tunes.length} channels)${failed}`,
      threshold: 'p50 ≤ 1 s, p95 ≤ 2 s',
      measured: `p50 ${ms(p50(result.tunes))}, p95 ${ms(percentile(result.tunes, 95))}`,
      ceiling:
        `mpv on the raw stream with frame-rate probing off as the player sets it: p50 ${ms(p50(result.directFast))}, ` +
        `p95 ${ms(percentile(result.directFast, 95))} (mpv's defaults: p50 ${ms(p50(result.direct))})`,
      ratio: `${(p50(result.tunes) / Math.max(p50(result.directFast), 1)).toFixed(2)}×`,
      result: verdict(p50(result.tunes) <= 1000 && percentile(result.tunes, 95) <= 2000 && !failed),
    },
    {
      target: `Live TV in mpv: channel up to a neighbour pre-tuned (--live-pretune) → first frame playing (${result.up.length} changes)`,
      threshold: 'p50 ≤ 0.5 s',
      measured: `p50 ${ms(p50(result.up))}, p95 ${ms(percentile(result.up, 95))}`,
      ceiling: `a fresh tune p50 ${ms(p50(result.tunes))}`,
      ratio: `${(p50(result.up) / Math.max(p50(result.tunes), 1)).toFixed(2)}×`,
      result: verdict(p50(result.up) <= 500 && !failed),
    },
    {
      target: `Live TV in mpv: seek to a random moment of an hour's buffer (${result.segments} segments) → playing`,
      threshold: 'p95 ≤ 0.5 s',
      measured: `p50 ${ms(p50(result.seeks))}, p95 ${ms(percentile(result.seeks, 95))}`,
      ceiling: `a fresh tune p50 ${ms(p50(result.tunes))}`,
      ratio: `${(percentile(result.seeks, 95) / Math.max(p50(result.tunes), 1)).toFixed(2)}×`,
      result: verdict(percentile(result.seeks, 95) <= 500 && !failed),
    },
    {
      target: 'Live TV in mpv: jump to live on a buffered channel → playing',
      threshold: '≤ 1 s',
      measured: `p50 ${ms(p50(result.live))}, max ${ms(Math.max(...result.live))}`,
      ceiling: `a fresh tune p50 ${ms(p50(result.tunes))}`,
      ratio: `${(Math.max(...result.live) / Math.max(p50(result.tunes), 1)).toFixed(2)}×`,
      result: verdict(Math.max(...result.live) <= 1000 && !failed),
    },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const work = join(root, '.bench', 'live-mpv');
  rmSync(work, { recursive: true, force: true });
  const result = await benchLiveMpv({ antennaBin: join(root, 'bin', 'antenna'), work });
  console.log(JSON.stringify(result, null, 2));
}
