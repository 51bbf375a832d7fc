/**
 * The browser backend's figures for `npm run bench` (called by bench/run.mjs, beside the
 * mpv backend's; `node bench/player-browser.mjs [--soak MINUTES]` runs it alone):
 * - control call round trip (POST /api/toggle_mute, one keep-alive connection, one at a
 *   time) while the app plays a file in Chromium: each is a DevTools call into the page
 *   and a read-back of its state;
 * - navigate to a section, until it is on screen (the call answers once the app has
 *   rendered it and two frames have been drawn);
 * - play/recording to the first frame on screen: from the interface-B request to the
 *   player's log line of the page's first requestVideoFrameCallback (the page also times
 *   it from the moment the command reached it: shown beside);
 * - Chromium's memory (resident, summed over its processes, and proportional) at the
 *   start of playback and after playing for a while (an hour with --soak 60).
 * The server and the player are child processes, the player shows the app on an Xvfb
 * screen with Debian's Chromium; the file is a 10-minute 640x360 clip made with ffmpeg.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort, median, startChild, until } from './player.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONTROL_CALLS = 500;
const NAVIGATE_ROUNDS = 10;
const PLAYS = 10;
const SECTIONS = ['Guide', 'Library', 'Live%20TV', 'Search'];

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const summary = (values) => ({
  median: median(values),
  p99: percentile(values, 99),
  max: Math.max(...values),
  n: values.length,
});

function request(port, method, path, agent) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}
const json = async (port, method, path, agent) => JSON.parse((await request(port, method, path, agent)).body);

/** The player's JSON log lines with this message. */
function logLines(file, message) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.includes(`"msg":"${message}"`))
    .map((line) => JSON.parse(line));
}

/** Chromium's process and all its descendants (renderers, GPU, utility processes). */
function processTree(root) {
  const parents = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const tree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, parent] of parents) {
      if (tree.has(parent) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  return [...tree];
}

/** Resident and proportional memory of Chromium's processes, in MB. */
function chromiumMemory(root) {
  let rss = 0;
  let pss = 0;
  for (const pid of processTree(root)) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      rss += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      pss += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return { rssMb: rss / 1024, pssMb: pss / 1024, processes: processTree(root).length };
}

/** Why this machine cannot run the bench (no Xvfb or Chromium), or undefined. */
function missing(chromium) {
  if (!existsSync(chromium)) return `no Chromium at ${chromium}`;
  try {
    execFileSync('which', ['Xvfb'], { stdio: 'ignore' });
  } catch {
    return 'no Xvfb';
  }
  return undefined;
}

export async function benchBrowserPlayer({ antennaBin, work, log = console.log, soakMinutes = 2 }) {
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  const cannot = missing(chromium);
  if (cannot) return { skipped: cannot };
  rmSync(work, { recursive: true, force: true });
  const movies = join(work, 'media', 'movies');
  mkdirSync(join(movies, 'Bench Movie (2020)'), { recursive: true });
  log('browser player: making a 10-minute clip');
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
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '50', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest'],
    join(movies, 'Bench Movie (2020)', 'Bench Movie (2020).mkv'),
  ]);
  const display = `:${500 + Math.floor(Math.random() * 400)}`;
  const xvfb = spawn('Xvfb', [display, '-screen', '0', '1280x720x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
  const children = [];
  const serverPort = await freePort();
  const playerPort = await freePort();
  const playerLog = join(work, 'player.log');
  try {
    await until(() => existsSync(`/tmp/.X11-unix/X${display.slice(1)}`), Boolean, 10_000, 'Xvfb');
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
      ],
      join(work, 'server.log'),
      children,
      {
        ANTENNA_LOG_LEVEL: 'warn',
      },
    );
    const [movie] = await until(
      () => json(serverPort, 'GET', '/api/v1/movies'),
      (list) => Array.isArray(list) && list.length === 1 && list[0].duration > 0,
      60_000,
      'the import of the clip',
    );
    startChild(
      antennaBin,
      [
        'player',
        '--backend',
        'browser',
        '--chromium',
        chromium,
        '--host',
        '127.0.0.1',
        '--port',
        String(playerPort),
        '--server',
        `http://127.0.0.1:${serverPort}`,
      ],
      playerLog,
      children,
      { DISPLAY: display, ANTENNA_LOG_LEVEL: 'info' },
    );
    await until(
      () => request(playerPort, 'GET', '/api/status'),
      (answer) => answer.status === 200,
      60_000,
      'the player answering',
    );
    const chromiumPid = await until(
      () => logLines(playerLog, 'Chromium started').at(-1)?.chromiumPid,
      Boolean,
      10_000,
      'Chromium',
    );
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

    // The player answers before the app is on screen (Chromium opens it in the background): a play is taken once it is.
    await until(
      () => request(playerPort, 'POST', `/api/play/recording/${movie.id}`, agent),
      (answer) => answer.status === 200,
      60_000,
      'the app taking a play',
    );
    await until(
      () => json(playerPort, 'GET', '/api/status', agent),
      (s) => s.status === 'playing' && s.playback_time > 1,
      20_000,
      'the movie playing',
    );
    log(`browser player: ${CONTROL_CALLS} control calls`);
    const control = [];
    for (let i = 0; i < CONTROL_CALLS; i++) {
      const started = performance.now();
      const answer = await request(playerPort, 'POST', '/api/toggle_mute', agent);
      control.push(performance.now() - started);
      if (answer.status !== 200) throw new Error(`bench: toggle_mute answered ${answer.status}: ${answer.body}`);
    }
    const stillPlaying = await json(playerPort, 'GET', '/api/status', agent);

    log(`browser player: navigate × ${NAVIGATE_ROUNDS * SECTIONS.length}`);
    const navigate = [];
    for (let round = 0; round < NAVIGATE_ROUNDS; round++) {
      for (const section of SECTIONS) {
        const started = performance.now();
        const answer = await request(playerPort, 'POST', `/api/navigate/${section}`, agent);
        navigate.push(performance.now() - started);
        if (answer.status !== 200) throw new Error(`bench: navigate answered ${answer.status}: ${answer.body}`);
      }
    }

    log(`browser player: play/recording to the first frame × ${PLAYS}`);
    const firstFrames = [];
    const inPage = [];
    const playCalls = [];
    for (let i = 0; i < PLAYS; i++) {
      const before = logLines(playerLog, 'first frame on screen').length;
      const sentAt = Date.now();
      const started = performance.now();
      await request(playerPort, 'POST', `/api/play/recording/${movie.id}`, agent);
      playCalls.push(performance.now() - started);
      const line = await until(
        () => logLines(playerLog, 'first frame on screen')[before],
        Boolean,
        15_000,
        'the first frame',
      );
      // The log line's time is the player's clock, the same machine's as this one.
      firstFrames.push(line.time - sentAt);
      inPage.push(line.afterMs);
      await request(playerPort, 'POST', '/api/stop', agent);
      await sleep(300);
    }

    log(`browser player: playing for ${soakMinutes} min, Chromium's memory at the start and the end`);
    await json(playerPort, 'POST', `/api/play/recording/${movie.id}`, agent);
    await until(
      () => json(playerPort, 'GET', '/api/status', agent),
      (s) => s.status === 'playing',
      20_000,
      'the movie playing',
    );
    const memoryStart = chromiumMemory(chromiumPid);
    const soakEnd = Date.now() + soakMinutes * 60_000;
    let restarts = 0;
    while (Date.now() < soakEnd) {
      await sleep(5000);
      const status = await json(playerPort, 'GET', '/api/status', agent);
      // The clip ended: play it again (from its start: it was watched).
      if (status.status === 'stopped') {
        restarts++;
        await json(playerPort, 'POST', `/api/play/recording/${movie.id}`, agent);
      }
    }
    const memoryEnd = chromiumMemory(chromiumPid);
    agent.destroy();
    return {
      control: summary(control),
      playing: stillPlaying.status === 'playing' && stillPlaying.playback_time > 0,
      navigate: summary(navigate),
      firstFrame: { ...summary(firstFrames), cold: firstFrames[0], inPage: summary(inPage) },
      playCall: summary(playCalls),
      memory: { start: memoryStart, end: memoryEnd, minutes: soakMinutes, replays: restarts },
    };
  } finally {
    const exited = children.map((child) =>
      child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : Promise.resolve(),
    );
    for (const child of children.reverse()) child.kill('SIGTERM');
    await Promise.race([Promise.all(exited), sleep(10_000)]);
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    xvfb.kill();
    if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
  }
}

/** The rows of docs/benchmarks.md; `mpv` is the mpv backend's result of the same run, when there is one. */
export function browserPlayerRows(result, { fmt, verdict, mpv }) {
  if (result.skipped)
    return [
      {
        target: 'Player (browser backend)',
        threshold: '—',
        measured: `not measured: ${result.skipped}`,
        ceiling: '—',
        ratio: '—',
        result: 'FAIL',
      },
    ];
  const c = result.control;
  const n = result.navigate;
  const f = result.firstFrame;
  const m = result.memory;
  const mpvControl = mpv?.control;
  return [
    {
      target: `Player, browser backend: control call round trip (POST /api/toggle_mute × ${c.n}, the app playing${result.playing ? '' : ' — NOT playing at the end'})`,
      threshold: 'median ≤ 30 ms, p99 ≤ 150 ms',
      measured: `median ${fmt.ms(c.median)}, p99 ${fmt.ms(c.p99)}`,
      ceiling: mpvControl
        ? `mpv backend, same run: median ${fmt.ms(mpvControl.median)}, p99 ${fmt.ms(mpvControl.p99)}`
        : '—',
      ratio: mpvControl ? `${(c.median / Math.max(mpvControl.median, 1e-6)).toFixed(1)}×` : '—',
      result: verdict(c.median <= 30 && c.p99 <= 150 && result.playing),
    },
    {
      target: `Player, browser backend: navigate to a section until it is on screen (Guide, Library, Live TV, Search × ${n.n / 4})`,
      threshold: 'p99 ≤ 500 ms',
      measured: `median ${fmt.ms(n.median)}, p99 ${fmt.ms(n.p99)}`,
      ceiling: '—',
      ratio: '—',
      result: verdict(n.p99 <= 500),
    },
    {
      target: `Player, browser backend: play/recording, from the request to the first frame on screen (× ${f.n}; the first one starts the HLS session)`,
      threshold: 'every one ≤ 2 s',
      measured: `median ${fmt.ms(f.median)}, slowest ${fmt.ms(f.max)}, first ${fmt.ms(f.cold)}`,
      ceiling: `in the page, from the command's arrival: median ${fmt.ms(f.inPage.median)}; the command's answer: median ${fmt.ms(result.playCall.median)}`,
      ratio: '—',
      result: verdict(f.max <= 2000),
    },
    {
      target: `Player, browser backend: Chromium's memory after ${m.minutes} min of playback (${m.end.processes} processes; the clip played again ${m.replays} times)`,
      threshold: 'reported',
      measured: `RSS ${m.end.rssMb.toFixed(0)} MB (PSS ${m.end.pssMb.toFixed(0)} MB)`,
      ceiling: `at the start: RSS ${m.start.rssMb.toFixed(0)} MB (PSS ${m.start.pssMb.toFixed(0)} MB)`,
      ratio: `${(m.end.pssMb / Math.max(m.start.pssMb, 1e-6)).toFixed(2)}×`,
      result: 'reported',
    },
  ];
}

/** docs/benchmarks-player-soak.md: a long run's figures (written by `--soak MINUTES` of 30 or more). */
export function soakDoc(result, date = new Date()) {
  const m = result.memory;
  const mb = (value) => `${value.toFixed(0)} MB`;
  return `# The browser player over a long playback

Written by \`node bench/player-browser.mjs --soak ${m.minutes}\` (bench/player-browser.mjs) on ${date.toISOString().slice(0, 10)}; the next such run overwrites it.
The player shows the app in Debian's Chromium on an Xvfb screen (1280x720, software decoding) and plays a 10-minute 640x360 H.264 clip over HLS from a server on the same machine, again each time it ends (${m.replays} times), for ${m.minutes} minutes.

| Chromium's memory (${m.end.processes} processes) | at the start of playback | after ${m.minutes} min |
|---|---|---|
| resident (RSS, summed: shared pages counted once per process) | ${mb(m.start.rssMb)} | ${mb(m.end.rssMb)} |
| proportional (PSS: shared pages shared out) | ${mb(m.start.pssMb)} | ${mb(m.end.pssMb)} |

In the same run: control call round trip median ${result.control.median.toFixed(2)} ms (p99 ${result.control.p99.toFixed(1)} ms); navigate median ${result.navigate.median.toFixed(1)} ms (p99 ${result.navigate.p99.toFixed(1)} ms); first frame median ${result.firstFrame.median.toFixed(0)} ms (slowest ${result.firstFrame.max.toFixed(0)} ms).
`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const soakAt = process.argv.indexOf('--soak');
  const soakMinutes = soakAt > 0 ? Number(process.argv[soakAt + 1]) : 2;
  const result = await benchBrowserPlayer({
    antennaBin: join(ROOT, 'bin', 'antenna'),
    work: join(ROOT, '.bench', 'player-browser'),
    soakMinutes,
  });
  const fmt = { ms: (ms) => `${ms < 10 ? ms.toFixed(2) : ms.toFixed(1)} ms` };
  for (const row of browserPlayerRows(result, { fmt, verdict: (ok) => (ok ? 'PASS' : 'FAIL') }))
    console.log(`${row.result}  ${row.target}: ${row.measured} | ${row.ceiling} | ${row.ratio}`);
  console.log(JSON.stringify(result));
  if (!result.skipped && soakMinutes >= 30)
    writeFileSync(join(ROOT, 'docs', 'benchmarks-player-soak.md'), soakDoc(result));
}
