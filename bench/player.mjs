/**
 * The player's figures for `npm run bench` (called by bench/run.mjs; `node bench/player.mjs`
 * runs it alone and prints them):
 * - control call round trip (POST /api/toggle_mute, one keep-alive connection, one at a
 *   time) while mpv plays a local file, against a direct mpv IPC round trip
 *   (get_property on mpv's own socket) as the ceiling;
 * - GET /api/status throughput with autocannon, against a bare node:http server
 *   answering the same bytes.
 * The server and the player are child processes (`antenna server`, `antenna player`),
 * mpv runs headless; the file is a 10-minute 640x360 clip made with ffmpeg.
 */
import autocannon from 'autocannon';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeTsClip, startStreamServer } from './ts-stream-server.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONTROL_CALLS = 1000;
const IPC_CALLS = 1000;

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

export function freePort() {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** One request on `agent`; resolves with status and body. */
function request(port, method, path, agent) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode, body: Buffer.concat(chunks), headers: response.headers }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

export async function until(read, ok, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await read();
      if (ok(value)) return value;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`bench: ${what} did not happen within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** `antenna ARGS` as a child process, its output to `logFile`; `env` adds to (or overrides) the environment. */
export function startChild(antennaBin, args, logFile, children, env = {}) {
  const log = openSync(logFile, 'w');
  const child = spawn(process.execPath, [antennaBin, ...args], {
    stdio: ['ignore', log, log],
    env: { ...process.env, ANTENNA_MDNS: 'false', ANTENNA_LOG_LEVEL: 'warn', ...env },
  });
  children.push(child);
  return child;
}

/** Round trips of get_property on mpv's own IPC socket, one at a time: what any control call costs at least. */
async function ipcRoundTrips(socketPath, count) {
  const socket = net.connect(socketPath);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.setEncoding('utf8');
  let buffered = '';
  let waiting;
  socket.on('data', (chunk) => {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.includes('"request_id"') && waiting) waiting(line);
    }
  });
  const latencies = [];
  for (let id = 1; id <= count; id++) {
    const started = performance.now();
    await new Promise((resolve) => {
      waiting = resolve;
      socket.write(`${JSON.stringify({ command: ['get_property', 'mute'], request_id: id })}\n`);
    });
    latencies.push(performance.now() - started);
  }
  socket.destroy();
  return latencies;
}

async function throughput(port, path, seconds) {
  const result = await autocannon({ url: `http://127.0.0.1:${port}${path}`, connections: 10, duration: seconds });
  return {
    rps: result.requests.total / result.duration,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/** A bare node:http server answering `body` with `headers`: what Node's HTTP stack alone can do. */
function ceilingServer(body, headers) {
  return new Promise((resolve) => {
    const server = http.createServer((_request, response) => {
      response.writeHead(200, { ...headers, 'content-length': body.length });
      response.end(body);
    });
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

export async function benchPlayer({ antennaBin, work, log = console.log, rounds = 3, seconds = 4 }) {
  rmSync(work, { recursive: true, force: true });
  const movies = join(work, 'media', 'movies');
  mkdirSync(join(movies, 'Bench Movie (2020)'), { recursive: true });
  log('player: making a 10-minute clip');
  execFileSync('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...[
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=640x360:rate=25:duration=600',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:duration=600',
    ],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest'],
    join(movies, 'Bench Movie (2020)', 'Bench Movie (2020).mkv'),
  ]);
  // A live channel too: interface B's round trips while mpv plays the channel's buffer.
  const channelClip = await makeTsClip(join(work, 'channel.ts'), { seconds: 60, muxrateKbps: 2000, size: '640x360' });
  const channels = await startStreamServer(channelClip.path);
  const m3u = join(work, 'channels.m3u');
  writeFileSync(m3u, `#EXTM3U\n#EXTINF:-1 tvg-chno="1",Bench One\n${channels.url('one')}\n`);
  const children = [];
  const serverPort = await freePort();
  const playerPort = await freePort();
  const socketPath = join(work, 'mpv.sock');
  try {
    startChild(
      antennaBin,
      [
        'server',
        '--data',
        join(work, 'data'),
        '--host',
        '127.0.0.1',
        '--port',
        String(serverPort),
        '--movies',
        movies,
        '--no-sample',
        '--m3u',
        m3u,
      ],
      join(work, 'server.log'),
      children,
    );
    startChild(
      antennaBin,
      [
        'player',
        '--host',
        '127.0.0.1',
        '--port',
        String(playerPort),
        '--server',
        `http://127.0.0.1:${serverPort}`,
        '--headless',
        '--mpv-ipc',
        socketPath,
      ],
      join(work, 'player.log'),
      children,
    );
    const moviesList = await until(
      async () => JSON.parse((await request(serverPort, 'GET', '/api/v1/movies')).body.toString()),
      (list) => Array.isArray(list) && list.length === 1 && list[0].duration > 0,
      60_000,
      'the import of the clip',
    );
    await until(
      () => request(playerPort, 'GET', '/api/status'),
      (answer) => answer.status === 200,
      30_000,
      'the player answering',
    );
    const played = await request(playerPort, 'POST', `/api/play/recording/${moviesList[0].id}`);
    if (JSON.parse(played.body.toString()).status !== 'playing')
      throw new Error(`bench: the player did not play: ${played.body}`);

    log(`player: ${CONTROL_CALLS} control calls, ${IPC_CALLS} direct mpv IPC round trips`);
    const roundTrips = async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const times = [];
      for (let n = 0; n < CONTROL_CALLS; n++) {
        const started = performance.now();
        const answer = await request(playerPort, 'POST', '/api/toggle_mute', agent);
        times.push(performance.now() - started);
        if (answer.status !== 200) throw new Error(`bench: toggle_mute answered ${answer.status}: ${answer.body}`);
      }
      agent.destroy();
      return times;
    };
    const control = await roundTrips();
    const ipc = await ipcRoundTrips(socketPath, IPC_CALLS);
    const stillPlaying = JSON.parse((await request(playerPort, 'GET', '/api/status')).body.toString());

    log(`player: ${CONTROL_CALLS} control calls while a live channel plays from its buffer`);
    const tuned = JSON.parse((await request(playerPort, 'POST', '/api/play/channel/1')).body.toString());
    if (tuned.status !== 'playing' && tuned.status !== 'loading')
      throw new Error(`bench: the player did not play the channel: ${JSON.stringify(tuned)}`);
    await until(
      async () => JSON.parse((await request(playerPort, 'GET', '/api/status')).body.toString()),
      (status) => status.status === 'playing' && status.playback_time > 1,
      30_000,
      'the channel playing',
    );
    const live = await roundTrips();
    const livePlaying = JSON.parse((await request(playerPort, 'GET', '/api/status')).body.toString());

    log(`player: GET /api/status throughput, ${rounds} rounds of ${seconds} s against a bare node:http server`);
    const status = await request(playerPort, 'GET', '/api/status');
    const ceiling = await ceilingServer(status.body, { 'content-type': status.headers['content-type'] });
    const runs = { antenna: [], ceiling: [] };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? ['antenna', 'ceiling'] : ['ceiling', 'antenna'];
      for (const name of order)
        runs[name].push(
          await throughput(name === 'antenna' ? playerPort : ceiling.address().port, '/api/status', seconds),
        );
    }
    ceiling.close();
    return {
      controlCalls: CONTROL_CALLS,
      control: { median: median(control), p99: percentile(control, 99) },
      ipc: { median: median(ipc), p99: percentile(ipc, 99) },
      playing: stillPlaying.status === 'playing' && stillPlaying.playback_time > 0,
      live: { median: median(live), p99: percentile(live, 99), playing: livePlaying.status === 'playing' },
      status: {
        rps: median(runs.antenna.map((run) => run.rps)),
        ceilingRps: median(runs.ceiling.map((run) => run.rps)),
        ratio: median(runs.antenna.map((run, i) => run.rps / runs.ceiling[i].rps)),
        errors: runs.antenna.reduce((sum, run) => sum + run.errors + run.non2xx, 0),
      },
    };
  } finally {
    // The player stops mpv itself on SIGTERM: give it the time to, or mpv would outlive it.
    const exited = children.map((child) =>
      child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : Promise.resolve(),
    );
    for (const child of children) child.kill('SIGTERM');
    await Promise.race([Promise.all(exited), sleep(10_000)]);
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await channels.close();
    if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
  }
}

export function playerRows(player, { fmt, verdict }) {
  const c = player.control;
  const s = player.status;
  return [
    {
      target: `Player: control call round trip (POST /api/toggle_mute × ${CONTROL_CALLS}, mpv playing${player.playing ? '' : ' — NOT playing at the end'})`,
      threshold: 'median ≤ 20 ms, p99 ≤ 100 ms',
      measured: `median ${fmt.ms(c.median)}, p99 ${fmt.ms(c.p99)}`,
      ceiling: `mpv IPC round trip: median ${fmt.ms(player.ipc.median)}, p99 ${fmt.ms(player.ipc.p99)}`,
      ratio: `${(c.median / Math.max(player.ipc.median, 1e-6)).toFixed(1)}×`,
      result: verdict(c.median <= 20 && c.p99 <= 100 && player.playing),
    },
    {
      target: `Player: control call round trip on live TV (POST /api/toggle_mute × ${CONTROL_CALLS}, mpv playing a channel's live buffer${player.live.playing ? '' : ' — NOT playing at the end'})`,
      threshold: 'median ≤ 20 ms (unchanged from a file)',
      measured: `median ${fmt.ms(player.live.median)}, p99 ${fmt.ms(player.live.p99)}`,
      ceiling: `the same calls while a file plays: median ${fmt.ms(c.median)}, p99 ${fmt.ms(c.p99)}`,
      ratio: `${(player.live.median / Math.max(c.median, 1e-6)).toFixed(2)}×`,
      result: verdict(player.live.median <= 20 && player.live.playing),
    },
    {
      target: 'Player: GET /api/status throughput (10 connections)',
      threshold: '≥ 5,000 req/s',
      measured: `${Math.round(s.rps).toLocaleString('en-US')} req/s${s.errors ? ` (${s.errors} errors)` : ''}`,
      ceiling: `bare node:http: ${Math.round(s.ceilingRps).toLocaleString('en-US')} req/s`,
      ratio: `${(s.ratio * 100).toFixed(0)} %`,
      result: verdict(s.rps >= 5000 && s.errors === 0),
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await benchPlayer({ antennaBin: join(ROOT, 'bin', 'antenna'), work: join(ROOT, '.bench', 'player') });
  const fmt = { ms: (ms) => `${ms < 10 ? ms.toFixed(2) : ms.toFixed(1)} ms` };
  for (const row of playerRows(result, { fmt, verdict: (ok) => (ok ? 'PASS' : 'FAIL') }))
    console.log(`${row.result}  ${row.target}: ${row.measured} | ${row.ceiling} | ${row.ratio}`);
}
