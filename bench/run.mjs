/**
 * `npm run bench`: measures interface A against the targets of the project issue
 * and writes the results to docs/benchmarks.md.
 *
 * 1. Generates the bench library (bench/generate-library.mjs) into .bench/library.
 * 2. Start-up: spawns `antenna server` on it 3 times and polls /status until it answers.
 * 3. Starts the server under test and times the first (uncached) request of the
 *    big episodes list, then fetches every benchmarked URL once and hands the exact
 *    bytes and headers to a bare node:http ceiling server (bench/ceiling-server.mjs).
 * 4. Load from this process with autocannon, alternating Antenna and ceiling runs.
 * 5. Reads the server's RSS from /proc and its cache counters from /status.
 *
 * The bench is not a test: it exits 0 whatever the verdicts, and non-zero only when it
 * could not run. Tunables (environment): BENCH_DURATION seconds per load run (4),
 * BENCH_ROUNDS (3), BENCH_CONNECTIONS (10), BENCH_LIST_REQUESTS per target (16),
 * BENCH_KEEP=1 keeps .bench/library for a later look, ANTENNA_BENCH_PEER_FILES the size of the
 * importer's peer tree (20000; minidlna beside Antenna, bench/scan-peer.mjs).
 */
import autocannon from 'autocannon';
import { execFileSync, fork, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { SIZES, expectedCounts, ids } from './generate-library.mjs';
import { benchDvr, dvrRows } from './dvr.mjs';
import { benchGuideRefresh, guideRefreshRows } from './guide-refresh.mjs';
import { benchHls, hlsRows } from './hls.mjs';
import { benchImporter, importerRows } from './importer.mjs';
import { benchManagement, managementRows } from './management.mjs';
import { benchPlayer, playerRows } from './player.mjs';
import { benchBrowserPlayer, browserPlayerRows } from './player-browser.mjs';
import { benchReadsUnderWrites, readsUnderWritesRows } from './reads-under-writes.mjs';
import { benchScanPeer, scanPeerRows } from './scan-peer.mjs';
import { benchLiveChanges, liveChangesRows } from './live-changes.mjs';
import { benchLiveBuffer, liveBufferRows } from './live-buffer.mjs';
import { benchLiveBrowser, liveBrowserRows } from './live-browser.mjs';
import { benchLiveMpv, liveMpvRows } from './live-mpv.mjs';
import { stopChild } from './stop-child.mjs';
import { benchEvents, eventsRows } from './events.mjs';
import { benchCommercials, commercialsRows } from './commercials.mjs';
import { benchGuideGrid, benchWeb, webRows } from './web-app.mjs';

// The bench's servers stay off the network: no DNS-SD advertisements from them.
process.env.ANTENNA_MDNS ??= 'false';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WORK = join(ROOT, '.bench');
const DATA = join(WORK, 'library');
const CEILING_DIR = join(WORK, 'ceiling');
const DOC = join(ROOT, 'docs', 'benchmarks.md');

const envNumber = (name, fallback) => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};
const DURATION = envNumber('BENCH_DURATION', 4);
const ROUNDS = Math.round(envNumber('BENCH_ROUNDS', 3));
const CONNECTIONS = Math.round(envNumber('BENCH_CONNECTIONS', 10));
const LIST_REQUESTS = Math.round(envNumber('BENCH_LIST_REQUESTS', 16));
const WARMUP_SECONDS = 1;
const WRITE_SECONDS = Math.round(envNumber('BENCH_WRITE_SECONDS', 30));
const PEER_FILES = Math.round(envNumber('ANTENNA_BENCH_PEER_FILES', 20_000));
const ROTATE = 50; // ids rotated through per single-resource endpoint

const LIST_URL = '/api/v1/episodes?sort=date_added&order=desc';
const MB = 1024 * 1024;

// ---------------------------------------------------------------- children and cleanup

const children = new Set();

function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function killAll(signal = 'SIGKILL') {
  for (const child of children) {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

process.on('exit', () => {
  killAll();
  rmSync(CEILING_DIR, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    console.error(`\nbench: ${signal}, stopping the servers`);
    killAll();
    process.exit(130);
  });
}

// ---------------------------------------------------------------- small helpers

function generateInChild(dir) {
  const started = performance.now();
  execFileSync(process.execPath, [join(ROOT, 'bench', 'generate-library.mjs'), dir, '--force'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { counts: expectedCounts(), ms: performance.now() - started };
}

const log = (message) => console.log(`bench: ${message}`);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const fmt = {
  rps: (n) => `${Math.round(n).toLocaleString('en-US')} req/s`,
  ms: (n) => (n >= 100 ? `${Math.round(n)} ms` : `${n.toFixed(1)} ms`),
  mb: (bytes) => `${(bytes / MB).toFixed(1)} MB`,
  size: (bytes) => (bytes < 100 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / MB).toFixed(1)} MB`),
  ratio: (n) => `${(n * 100).toFixed(0)} %`,
  times: (n) => `${n.toFixed(2)}×`,
};

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** One GET on a fresh connection; `ms` is the time to the last byte of the body. */
function httpGet(port, path, headers = {}, timeoutMs = 60_000) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.get({ host: '127.0.0.1', port, path, headers, agent: false }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode,
          headers: response.headers,
          body: Buffer.concat(chunks),
          ms: performance.now() - started,
        }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`GET ${path}: no answer within ${timeoutMs} ms`)));
  });
}

async function getJson(port, path) {
  const response = await httpGet(port, path);
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
  return JSON.parse(response.body.toString('utf8'));
}

/** VmRSS and VmHWM of a process, in bytes. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

let clockTicks;
/** User plus system CPU time of a process so far, in milliseconds. */
function cpuMsOf(pid) {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  // Fields after the ")" that closes the command name; utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
}

function machine() {
  let cores;
  try {
    cores = execFileSync('nproc', { encoding: 'utf8' }).trim();
  } catch {
    cores = String(os.availableParallelism());
  }
  return {
    nproc: cores,
    cpu: os.cpus()[0]?.model?.trim() ?? 'unknown',
    memory: `${Math.round(os.totalmem() / 1024 ** 3)} GB`,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

// ---------------------------------------------------------------- servers

async function startAntenna(label) {
  const port = await freePort();
  const logFile = openSync(join(WORK, `antenna-${label}.log`), 'w');
  const started = performance.now();
  const child = track(
    spawn(
      process.execPath,
      [
        join(ROOT, 'bin', 'antenna'),
        'server',
        '--data',
        DATA,
        '--port',
        String(port),
        '--host',
        '127.0.0.1',
        '--no-sample',
        '--log-level',
        'warn',
      ],
      { cwd: ROOT, stdio: ['ignore', logFile, logFile] },
    ),
  );
  let exit;
  child.once('exit', (code, signal) => (exit = { code, signal }));
  // Poll /status until it answers: that is "start-up to first answer".
  for (;;) {
    if (exit)
      throw new Error(
        `antenna server exited during start-up (${JSON.stringify(exit)}); see .bench/antenna-${label}.log`,
      );
    try {
      const response = await httpGet(port, '/status', {}, 2000);
      if (response.status === 200) {
        return {
          child,
          port,
          startupMs: performance.now() - started,
          status: JSON.parse(response.body.toString('utf8')),
        };
      }
    } catch {
      // not listening yet
    }
    if (performance.now() - started > 30_000) throw new Error('antenna server did not answer /status within 30 s');
    await sleep(5);
  }
}

async function startCeiling(entries) {
  rmSync(CEILING_DIR, { recursive: true, force: true });
  mkdirSync(CEILING_DIR, { recursive: true });
  const manifest = entries.map((entry, index) => {
    const file = `${index}.body`;
    writeFileSync(join(CEILING_DIR, file), entry.body);
    return { url: entry.url, file, headers: entry.headers };
  });
  const manifestFile = join(CEILING_DIR, 'manifest.json');
  writeFileSync(manifestFile, JSON.stringify(manifest));
  const child = track(
    fork(join(ROOT, 'bench', 'ceiling-server.mjs'), [manifestFile], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  );
  const port = await new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`ceiling server exited (${code}) before listening`)));
  });
  return { child, port };
}

// ---------------------------------------------------------------- load

/**
 * One autocannon run. Returns req/s over the run, the status codes, errors, and the
 * time to last byte of every response (autocannon times a request until its
 * response has been read completely).
 */
async function load({ port, pid }, { paths, headers = {}, connections = CONNECTIONS, duration = DURATION, amount }) {
  const latencies = [];
  const options = {
    url: `http://127.0.0.1:${port}`,
    connections,
    headers,
    requests: paths.map((path) => ({ method: 'GET', path })),
    timeout: 30,
    ...(amount ? { amount } : { duration }),
  };
  const cpuBefore = cpuMsOf(pid);
  const instance = autocannon(options);
  instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  const result = await instance;
  const total = result.requests.total;
  return {
    rps: total / result.duration,
    // Server CPU time per answer: less sensitive to other load on the machine than req/s.
    cpuUs: ((cpuMsOf(pid) - cpuBefore) * 1000) / Math.max(1, total),
    total,
    duration: result.duration,
    errors: result.errors + result.timeouts,
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count])),
    latencies,
  };
}

/** Alternates the targets each round (A,C then C,A...) so drift on the machine hits both alike. */
async function compare(targets, spec, { rounds = ROUNDS, warmup = true } = {}) {
  const runs = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
  if (warmup) {
    for (const target of Object.values(targets)) {
      await load(
        target,
        spec.amount ? { ...spec, amount: Math.min(2, spec.amount) } : { ...spec, duration: WARMUP_SECONDS },
      );
    }
  }
  const names = Object.keys(targets);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const before = spec.before ? await spec.before(name) : undefined;
      const run = await load(targets[name], spec);
      if (spec.after) run.extra = await spec.after(name, before);
      runs[name].push(run);
    }
  }
  return runs;
}

function statusProblems(runs, expected) {
  const problems = [];
  for (const run of runs) {
    if (run.errors) problems.push(`${run.errors} errors/timeouts`);
    for (const [code, count] of Object.entries(run.statuses))
      if (code !== String(expected)) problems.push(`${count}× ${code}`);
  }
  return [...new Set(problems)];
}

// ---------------------------------------------------------------- the bench

async function main() {
  const startedAt = new Date();
  const loadBefore = os.loadavg();
  if (!existsSync(join(ROOT, 'dist', 'cli', 'antenna.cli.js'))) {
    throw new Error('dist/ is missing: run `npm run build` first.');
  }
  mkdirSync(WORK, { recursive: true });
  log(
    `duration ${DURATION} s per load run, ${ROUNDS} rounds, ${CONNECTIONS} connections, ${LIST_REQUESTS} list requests per target`,
  );

  // 1. The library.
  rmSync(DATA, { recursive: true, force: true });
  log('generating the bench library...');
  // In a child process: the runner generates load later, and a heap left large by the
  // generation (its garbage collector running beside the server) would slow what it measures.
  const generated = generateInChild(DATA);
  log(`generated in ${(generated.ms / 1000).toFixed(1)} s: ${JSON.stringify(generated.counts)}`);

  // 2. Start-up, three times.
  const startups = [];
  for (let i = 1; i <= 3; i++) {
    const server = await startAntenna(`startup-${i}`);
    startups.push(server.startupMs);
    const counts = server.status.library;
    const expected = expectedCounts();
    for (const [key, value] of Object.entries(expected)) {
      if (counts[key] !== value) throw new Error(`/status says ${key}=${counts[key]}, the generator wrote ${value}`);
    }
    await stopChild(server.child);
    log(`start-up ${i}: ${fmt.ms(server.startupMs)}`);
  }

  // 3. The server under test; the first request of the big list comes before anything else.
  const antenna = await startAntenna('load');
  log(`server under test up in ${fmt.ms(antenna.startupMs)} (pid ${antenna.child.pid})`);
  const first = await httpGet(antenna.port, LIST_URL);
  if (first.status !== 200) throw new Error(`GET ${LIST_URL} answered ${first.status}`);
  const afterFirst = await getJson(antenna.port, '/status');
  log(
    `first ${LIST_URL}: ${fmt.ms(first.ms)} for ${fmt.mb(first.body.length)} (cache misses now ${afterFirst.cache.misses})`,
  );
  const memoryAfterFirst = memoryOf(antenna.child.pid);

  const pick = (count, total) => Array.from({ length: count }, (_, i) => 1 + Math.floor((i * total) / count));
  const showPaths = pick(ROTATE, SIZES.shows).map((s) => `/api/v1/shows/${ids.show(s)}`);
  const episodePaths = pick(ROTATE, SIZES.shows).map(
    (s, i) => `/api/v1/episodes/${ids.episode(s, 1 + ((i * 7) % SIZES.episodesPerShow))}`,
  );
  const moviePaths = pick(ROTATE, SIZES.movies).map((m) => `/api/v1/movies/${ids.movie(m)}`);
  const urls = [...showPaths, ...episodePaths, ...moviePaths, '/api/v1/shows', LIST_URL];

  const fetched = [];
  for (const url of urls) {
    const response = url === LIST_URL ? first : await httpGet(antenna.port, url);
    if (response.status !== 200)
      throw new Error(`GET ${url} answered ${response.status}: ${response.body.toString('utf8').slice(0, 200)}`);
    const headers = {};
    for (const name of ['content-type', 'etag', 'cache-control', 'vary']) {
      if (response.headers[name] !== undefined) headers[name] = response.headers[name];
    }
    fetched.push({ url, body: response.body, headers });
  }
  const fetchedMeta = new Map(
    fetched.map((entry) => [entry.url, { size: entry.body.length, etag: entry.headers.etag }]),
  );
  const sizeOf = (url) => fetchedMeta.get(url).size;
  const etagOf = (url) => fetchedMeta.get(url).etag;
  const ceiling = await startCeiling(fetched);
  fetched.length = 0; // the bodies live in the ceiling server now
  first.body = Buffer.alloc(0);
  log(`ceiling server up (pid ${ceiling.child.pid}) with ${urls.length} bodies`);

  // The ceiling must answer the same bytes, or the comparison means nothing.
  for (const url of [showPaths[0], '/api/v1/shows']) {
    const [a, c] = await Promise.all([httpGet(antenna.port, url), httpGet(ceiling.port, url)]);
    if (!a.body.equals(c.body) || a.headers.etag !== c.headers.etag)
      throw new Error(`ceiling and Antenna differ on ${url}`);
  }

  const targets = {
    antenna: { port: antenna.port, pid: antenna.child.pid },
    ceiling: { port: ceiling.port, pid: ceiling.child.pid },
  };
  const results = {};
  const average = (list) => list.reduce((sum, size) => sum + size, 0) / list.length;

  // 4a. Throughput of single resources and the show list.
  const throughputSpecs = [
    { key: 'show', label: `GET /api/v1/shows/:id (${ROTATE} ids rotated)`, paths: showPaths },
    { key: 'episode', label: `GET /api/v1/episodes/:id (${ROTATE} ids rotated)`, paths: episodePaths },
    { key: 'movie', label: `GET /api/v1/movies/:id (${ROTATE} ids rotated)`, paths: moviePaths },
    { key: 'shows', label: 'GET /api/v1/shows (1,000 shows)', paths: ['/api/v1/shows'] },
  ];
  for (const spec of throughputSpecs) {
    log(`throughput: ${spec.label}`);
    const runs = await compare(targets, { paths: spec.paths });
    results[spec.key] = { ...spec, runs };
    log(
      `  antenna ${runs.antenna.map((r) => fmt.rps(r.rps)).join(', ')} | ceiling ${runs.ceiling.map((r) => fmt.rps(r.rps)).join(', ')}`,
    );
  }
  results.show.size = average(showPaths.map(sizeOf));
  results.episode.size = average(episodePaths.map(sizeOf));
  results.movie.size = average(moviePaths.map(sizeOf));
  results.shows.size = sizeOf('/api/v1/shows');

  // 4b. Conditional GETs answered 304: /status must show no new cache miss.
  const missesAround = {
    before: async (name) => (name === 'antenna' ? (await getJson(antenna.port, '/status')).cache : undefined),
    after: async (name, before) => {
      if (name !== 'antenna') return undefined;
      const after = (await getJson(antenna.port, '/status')).cache;
      return { misses: after.misses - before.misses, hits: after.hits - before.hits };
    },
  };
  for (const [key, url, label] of [
    ['notModifiedShows', '/api/v1/shows', 'GET /api/v1/shows with If-None-Match → 304'],
    ['notModifiedList', LIST_URL, `GET ${LIST_URL} with If-None-Match → 304`],
  ]) {
    log(`conditional: ${label}`);
    const runs = await compare(targets, { paths: [url], headers: { 'if-none-match': etagOf(url) }, ...missesAround });
    results[key] = { label, runs };
    log(
      `  antenna ${runs.antenna.map((r) => `${fmt.rps(r.rps)} (misses +${r.extra.misses}, hits +${r.extra.hits})`).join(', ')}` +
        ` | ceiling ${runs.ceiling.map((r) => fmt.rps(r.rps)).join(', ')}`,
    );
  }

  // 4c. Time to last byte of the big list, few connections.
  const perRound = Math.max(1, Math.ceil(LIST_REQUESTS / ROUNDS));
  log(
    `time to last byte: ${LIST_URL} (${fmt.mb(sizeOf(LIST_URL))}), 1 connection, ${perRound * ROUNDS} requests per target`,
  );
  const listRuns = await compare(targets, { paths: [LIST_URL], connections: 1, amount: perRound });
  results.list = { runs: listRuns, size: sizeOf(LIST_URL) };
  const listLatencies = (name) => listRuns[name].flatMap((run) => run.latencies);
  log(
    `  antenna median ${fmt.ms(median(listLatencies('antenna')))} | ceiling median ${fmt.ms(median(listLatencies('ceiling')))}`,
  );

  // 5. Memory and cache after the run.
  const memory = memoryOf(antenna.child.pid);
  const ceilingMemory = memoryOf(ceiling.child.pid);
  const finalStatus = await getJson(antenna.port, '/status');
  log(`server RSS ${fmt.mb(memory.rss)} (peak ${fmt.mb(memory.hwm)}); cache ${JSON.stringify(finalStatus.cache)}`);

  // 5b. The web app in Chromium, on the same server and library.
  const web = await benchWeb({ port: antenna.port, log });

  await stopChild(antenna.child);
  await stopChild(ceiling.child);
  rmSync(CEILING_DIR, { recursive: true, force: true });

  // 5c. Reads under constant position writes, on a copy of the library (the writes change it).
  const rwData = join(WORK, 'reads-under-writes');
  rmSync(rwData, { recursive: true, force: true });
  cpSync(DATA, rwData, { recursive: true });
  const readsUnderWrites = await benchReadsUnderWrites({ data: rwData, log });
  rmSync(rwData, { recursive: true, force: true });
  if (!process.env.BENCH_KEEP) rmSync(DATA, { recursive: true, force: true });

  // 6. The management interface: streaming and watch-state writes, on a server of its own.
  const management = await benchManagement({
    work: join(WORK, 'management'),
    log,
    rounds: ROUNDS,
    writeSeconds: WRITE_SECONDS,
  });

  // 7. The importer, after the servers have stopped.
  const importer = await benchImporter({
    antennaBin: join(ROOT, 'bin', 'antenna'),
    work: join(WORK, 'importer'),
    log,
    rounds: ROUNDS,
  });
  rmSync(join(WORK, 'importer'), { recursive: true, force: true });

  // 7a. Changes and answers during a long first scan (a server of its own).
  const liveChanges = await benchLiveChanges({ log });

  // 7b. The importer's peer: minidlna's first scan of a tree of real clips, and Antenna's (with probing, and names
  // only).
  const peer = await benchScanPeer({
    antennaBin: join(ROOT, 'bin', 'antenna'),
    work: join(WORK, 'scan-peer'),
    log,
    files: PEER_FILES,
  });
  rmSync(join(WORK, 'scan-peer'), { recursive: true, force: true });

  // 8. The DVR: simultaneous recordings beside curl, guide import, job planning.
  const dvr = await benchDvr({ antennaBin: join(ROOT, 'bin', 'antenna'), work: join(WORK, 'dvr'), log });
  // 8b. Reads while a 1,000-channel guide is refreshed and applied, on a server of its own.
  const guideRefresh = await benchGuideRefresh({
    antennaBin: join(ROOT, 'bin', 'antenna'),
    work: join(WORK, 'guide-refresh'),
    log,
  });

  // 9. The player: control round trips while mpv plays, status throughput.
  const player = await benchPlayer({
    antennaBin: join(ROOT, 'bin', 'antenna'),
    work: join(WORK, 'player'),
    log,
    rounds: ROUNDS,
    seconds: DURATION,
  });
  // The browser backend (the app in Chromium on an Xvfb screen), beside mpv's figures of this run.
  const browserPlayer = await benchBrowserPlayer({
    antennaBin: join(ROOT, 'bin', 'antenna'),
    work: join(WORK, 'player-browser'),
    log,
    soakMinutes: 2,
  });

  // 10. HLS: first segment, seeks, whole-file remux and a 720p transcode beside bare ffmpeg; 10 sessions at once.
  const hls = await benchHls({ antennaBin: join(ROOT, 'bin', 'antenna'), work: join(WORK, 'hls'), log });

  // 10b. Live TV's buffer: tune time against bare ffmpeg, a buffered channel again, 4 channels' CPU against curl.
  const liveBuffer = await benchLiveBuffer({
    antennaBin: join(ROOT, 'bin', 'antenna'),
    work: join(WORK, 'live-buffer'),
    log,
  });
  rmSync(join(WORK, 'live-buffer'), { recursive: true, force: true });
  // 10c. Live TV in mpv: tune, seek in an hour's buffer and jump to live, to the first frame playing.
  const liveMpv = await benchLiveMpv({ antennaBin: join(ROOT, 'bin', 'antenna'), work: join(WORK, 'live-mpv'), log });
  rmSync(join(WORK, 'live-mpv'), { recursive: true, force: true });
  // 10d. Live TV in the web app in Chromium: a channel picked → its first frame on screen.
  const liveBrowser = await benchLiveBrowser({
    antennaBin: join(ROOT, 'bin', 'antenna'),
    work: join(WORK, 'live-browser'),
    log,
  });
  rmSync(join(WORK, 'live-browser'), { recursive: true, force: true });

  // 11. The web app's guide grid on 500 channels × 14 days, on a server of its own.
  web.guide = await benchGuideGrid({ antennaBin: join(ROOT, 'bin', 'antenna'), work: join(WORK, 'web-guide'), log });
  rmSync(join(WORK, 'web-guide'), { recursive: true, force: true });

  // 12. A failure told: dead sources' recording.failed over SSE, a webhook and MQTT.
  const events = await benchEvents({ antennaBin: join(ROOT, 'bin', 'antenna'), work: join(WORK, 'events'), log });

  // 13. Commercial detection's accuracy on labelled broadcasts, beside comskip bare.
  const commercials = await benchCommercials({ work: join(WORK, 'commercials'), log });
  rmSync(join(WORK, 'commercials'), { recursive: true, force: true });

  // ---------------------------------------------------------------- verdicts
  const rows = [];
  const verdict = (ok) => (ok ? 'PASS' : 'FAIL');
  const medRps = (runs) => median(runs.map((run) => run.rps));
  /** Median of the per-round ratios: each pair of runs was measured back to back. */
  const pairedRatio = (runs) => median(runs.antenna.map((run, i) => run.rps / runs.ceiling[i].rps));

  for (const key of ['show', 'episode', 'movie', 'shows']) {
    const { label, runs, size } = results[key];
    const a = medRps(runs.antenna);
    const c = medRps(runs.ceiling);
    const ratio = pairedRatio(runs);
    const problems = statusProblems([...runs.antenna, ...runs.ceiling], 200);
    rows.push({
      target: `${label}, ${fmt.size(size)} each: throughput`,
      threshold: '≥ 60 % of ceiling',
      measured: fmt.rps(a),
      ceiling: fmt.rps(c),
      ratio: fmt.ratio(ratio),
      result: verdict(ratio >= 0.6 && problems.length === 0) + (problems.length ? ` (${problems.join(', ')})` : ''),
    });
  }

  const aList = median(listLatencies('antenna'));
  const cList = median(listLatencies('ceiling'));
  const listProblems = statusProblems([...listRuns.antenna, ...listRuns.ceiling], 200);
  rows.push({
    target: `GET ${LIST_URL} (50,000 episodes, ${fmt.mb(results.list.size)}): median time to last byte, 1 connection, n=${listLatencies('antenna').length}`,
    threshold: '≤ 2× ceiling',
    measured: fmt.ms(aList),
    ceiling: fmt.ms(cList),
    ratio: fmt.times(aList / cList),
    result:
      verdict(aList / cList <= 2 && listProblems.length === 0) +
      (listProblems.length ? ` (${listProblems.join(', ')})` : ''),
  });
  rows.push({
    target: `GET ${LIST_URL}: first (uncached) request after start-up, time to last byte`,
    threshold: '≤ 1 s',
    measured: fmt.ms(first.ms),
    ceiling: '—',
    ratio: '—',
    result: verdict(first.ms <= 1000),
  });

  for (const key of ['notModifiedShows', 'notModifiedList']) {
    const { label, runs } = results[key];
    const misses = runs.antenna.reduce((sum, run) => sum + run.extra.misses, 0);
    const answered = runs.antenna.reduce((sum, run) => sum + run.total, 0);
    const a = medRps(runs.antenna);
    const c = medRps(runs.ceiling);
    const problems = statusProblems([...runs.antenna, ...runs.ceiling], 304);
    rows.push({
      target: `${label}: cache.misses growth over ${answered.toLocaleString('en-US')} requests (req/s vs the ceiling's 304 for reference)`,
      threshold: 'misses +0',
      measured: `misses +${misses}; ${fmt.rps(a)}`,
      ceiling: fmt.rps(c),
      ratio: fmt.ratio(pairedRatio(runs)),
      result: verdict(misses === 0 && problems.length === 0) + (problems.length ? ` (${problems.join(', ')})` : ''),
    });
  }

  rows.push({
    target: 'Server RSS after the run (VmRSS)',
    threshold: '≤ 300 MB',
    measured: fmt.mb(memory.rss),
    ceiling: fmt.mb(ceilingMemory.rss),
    ratio: fmt.times(memory.rss / ceilingMemory.rss),
    result: verdict(memory.rss <= 300 * MB),
  });
  const startup = median(startups);
  rows.push({
    target: `Start-up to first /status answer (median of 3: ${startups.map((ms) => fmt.ms(ms)).join(', ')})`,
    threshold: '≤ 1 s',
    measured: fmt.ms(startup),
    ceiling: '—',
    ratio: '—',
    result: verdict(startup <= 1000),
  });

  rows.push(...readsUnderWritesRows(readsUnderWrites, verdict));
  rows.push(...managementRows(management, { fmt, verdict }));
  rows.push(...importerRows(importer, { fmt, verdict }));
  rows.push(...liveChangesRows(liveChanges, verdict));
  rows.push(...scanPeerRows(peer, { fmt, verdict }));
  rows.push(...dvrRows(dvr, { fmt, verdict }));
  rows.push(...guideRefreshRows(guideRefresh, { verdict }));
  rows.push(...playerRows(player, { fmt, verdict }));
  rows.push(...browserPlayerRows(browserPlayer, { fmt, verdict, mpv: player }));
  rows.push(...hlsRows(hls, { fmt, verdict }));
  rows.push(...liveBufferRows(liveBuffer, { verdict }));
  rows.push(...liveMpvRows(liveMpv, { verdict }));
  rows.push(...liveBrowserRows(liveBrowser, { verdict }));
  rows.push(...webRows(web, { fmt, verdict }));
  rows.push(...eventsRows(events, { verdict }));
  rows.push(...commercialsRows(commercials, { verdict }));

  const table = [
    '| Target | Threshold | Antenna | Ceiling | Ratio | Result |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.target} | ${row.threshold} | ${row.measured} | ${row.ceiling} | ${row.ratio} | **${row.result}** |`,
    ),
  ].join('\n');

  const detailRows = [];
  for (const key of ['show', 'episode', 'movie', 'shows', 'notModifiedShows', 'notModifiedList']) {
    const { label, runs } = results[key];
    for (const name of ['antenna', 'ceiling']) {
      const all = runs[name].flatMap((run) => run.latencies);
      detailRows.push(
        `| ${label} | ${name} | ${runs[name].map((run) => Math.round(run.rps).toLocaleString('en-US')).join(' / ')} | ` +
          `${fmt.ms(median(all))} | ${fmt.ms(percentile(all, 99))} | ${median(runs[name].map((run) => run.cpuUs)).toFixed(1)} µs |`,
      );
    }
  }
  for (const name of ['antenna', 'ceiling']) {
    const all = listLatencies(name);
    detailRows.push(
      `| GET ${LIST_URL} (1 connection; requests per round) | ${name} | ${listRuns[name].map((run) => run.total).join(' / ')} | ` +
        `${fmt.ms(median(all))} | ${fmt.ms(percentile(all, 99))} | ${(median(listRuns[name].map((run) => run.cpuUs)) / 1000).toFixed(1)} ms |`,
    );
  }

  const host = machine();
  const loadAfter = os.loadavg();
  const failed = rows.filter((row) => row.result.startsWith('FAIL'));
  const doc = `# Benchmarks

Generated by \`npm run bench\` (bench/run.mjs). Do not edit by hand: the next run overwrites this file.

- Date: ${startedAt.toISOString()}
- Node: ${process.version}
- Machine: nproc ${host.nproc}, ${host.cpu}, ${host.memory} RAM, ${host.platform}
- Settings: ${DURATION} s per load run, ${ROUNDS} rounds per target (alternating order), ${CONNECTIONS} connections for throughput runs
- Load average (1, 5, 15 min) before the run ${loadBefore.map((n) => n.toFixed(2)).join(', ')}, after ${loadAfter.map((n) => n.toFixed(2)).join(', ')}: the machine is shared, so treat single figures as noisy and read the ratios

## Results

${table}

${failed.length === 0 ? 'Every target passed.' : `${failed.length} of ${rows.length} targets failed:\n\n${failed.map((row) => `- ${row.target}: ${row.measured} (threshold ${row.threshold})`).join('\n')}`}

## Method

- **Library.** bench/generate-library.mjs writes, through Antenna's own write functions
  (upsertShow, upsertEpisode, upsertMovie, upsertVideoGroup, upsertVideo, upsertCollection,
  addCollectionMember, upsertPlaylist, setPlaylistItems, upsertJob) inside transactions:
  ${SIZES.shows.toLocaleString('en-US')} shows × ${SIZES.episodesPerShow} episodes, ${SIZES.movies.toLocaleString('en-US')} movies,
  ${SIZES.videoGroups} video groups × ${SIZES.videosPerGroup} videos, ${SIZES.collections} collections,
  ${SIZES.playlists} playlists × ${SIZES.itemsPerPlaylist} items and ${SIZES.jobs} jobs, with seeded-random
  realistic fields (summaries of about 200 characters, genres, tags, cast, directors,
  \`/images/...\` URLs, durations, air dates, commercials for recordings, about 40 % watched and
  5 % favorited, both sources). Generation took ${(generated.ms / 1000).toFixed(1)} s.
- **Processes.** The Antenna server (\`node bin/antenna server --data … --host 127.0.0.1 --no-sample\`)
  and the ceiling server are child processes of the bench runner, which generates the load
  with autocannon on loopback. The machine is shared and has ${host.nproc} cores, so the load
  generator competes with the server for CPU; both targets are measured under the same
  conditions, alternating Antenna and ceiling runs round by round (A,C then C,A), after a
  ${WARMUP_SECONDS} s warm-up of each. Figures are medians over the rounds; a throughput ratio is the
  median of the per-round ratios Antenna / ceiling (each pair measured back to back), a latency
  ratio the ratio of the medians. The details also give the server's CPU time per request
  (utime + stime from /proc/<pid>/stat over the run, divided by the answers), which other load on
  the machine disturbs less than req/s.
- **Ceiling.** bench/ceiling-server.mjs is a bare \`node:http\` server. Before it starts, the
  runner fetches every benchmarked URL from Antenna once and hands it the exact body bytes and
  the content-type, etag, cache-control and vary headers; it answers them by path and query,
  and 304 to a matching If-None-Match. It shows what Node's HTTP stack alone achieves with
  these payloads.
- **Throughput** runs use ${CONNECTIONS} connections for ${DURATION} s; single-resource runs rotate through
  ${ROTATE} ids per endpoint (autocannon's requests array), so Antenna's response cache holds them
  after the warm-up, as it would for a client browsing the library.
- **Time to last byte** of the 50,000-episode list: 1 connection, ${perRound} requests per target per
  round; autocannon times each request to the end of its response. The first (uncached) request
  is timed separately with \`node:http\` right after start-up, before anything else asked for
  that URL (only /status had been polled).
- **Conditional GETs** send the ETag of the fetched body in If-None-Match; /status is read
  before and after each Antenna run, and \`cache.misses\` (one query plus serialization each)
  must not grow.
- **Memory** is VmRSS (and VmHWM, the peak) of the server process from /proc/<pid>/status,
  after all load runs.
- **Start-up** spawns the server on the generated data directory and polls /status every 5 ms
  until it answers; median of 3 starts, each on a fresh process (Node's own boot included).
- **Reads under writes** (bench/reads-under-writes.mjs), on a copy of the bench library:
  20 keep-alive clients in this process (their connections opened before the first phase)
  each read \`/api/v1/episodes\` and \`/api/v1/shows\` in turn, one request after another,
  each answer counted as it comes into one reused buffer and never kept
  (bench/bench-http-client.mjs: node:http and undici took these answers in at 104-114 %
  of a core, so the clients' own thread was saturated and set the latencies, a limit of
  the bench, not of the server; this client does it at about 55 %),
  the even-numbered ones sending the If-None-Match of their last answer; 10 s alone, then
  10 s while one client writes an episode's resume position 10 times a second
  (\`PUT /dvr/files/:id/playback_time/:s\`, 516 episodes in turn); 3 such rounds, and the
  figure is the median of the rounds' ratios (one round's moved between 0.9× and 4.5×
  from run to run, the bare ceiling's too); the slowest read is the slowest of all
  rounds. Latency is to the last byte. With the writer, the episodes list moves at most
  once a second (progress reports are held, see README "Caching"), so the clients that
  sent If-None-Match get it whole far more often than alone, where they got only 304s.
  The same rounds again with every client sending \`Accept-Encoding: gzip\`, as browsers
  and HTTP libraries do (a list patched by a write is gzipped at once, only its changed
  256 KB pieces deflated again). Ceiling: bench/reads-ceiling-server.mjs, bare node:http
  serving the very bytes Antenna answered (and a gzip of them made once), its ETag
  changing at each PUT (a server without the hold, showing every report at once), to the
  same clients in the same rounds: most of a read is moving a 54 MB list over loopback
  on this 2-core machine, where the clients run too.
- **Management interface** (bench/management.mjs), on a server of its own over 100 movies:
  a sparse 1 GB file (no disk I/O, so both servers measure their own path) downloaded
  whole from \`/dvr/files/:id/stream\`, against bench/stream-ceiling.mjs, a bare node:http
  server piping \`fs.createReadStream\` of the same file; after a warm-up download each,
  ${ROUNDS} rounds alternating which goes first; the ratio is the median of per-round ratios.
  Then 20 clients at once, and the server's CPU time per GB sent (utime + stime) against
  one client's. Writes: autocannon at a fixed 1,000 requests/s (10 connections) of
  \`PUT /dvr/files/:id/playback_time/:s\` over the 100 movies for ${WRITE_SECONDS} s, while 4
  connections read \`/api/v1/movies\` and a movie; every write must answer 200 and the
  written value must be there afterwards.
- **Importer** (bench/importer.mjs): trees of empty files named as a library would be (60 %
  episodes in show and season folders with a tvshow.nfo per show, 30 % movies in their own
  folders, half with a poster, 10 % videos in groups), scanned by real \`antenna scan --json
  --no-probe\` processes. Scan times are the scan's own \`durationMs\` (walk, naming, database
  writes; not Node's start), medians of ${ROUNDS} runs. The reference is \`find ROOT -type f -printf
  '%s %T@ %p\\n'\` over the same tree in the same run (order alternated with the rescans).
  Probing: ${importer.probe.files} copies of a 2 s H.264/AAC clip, scanned with probing on; Antenna's
  probe phase (\`probeMs\`) against the same number of bare ffprobe processes with the same
  arguments and the same parallelism (${importer.probe.parallel}). Peak RSS is VmHWM of the scan process,
  sampled every 20 ms, over the first 100,000-file scan and the rescans.
- **Changes during a scan** (bench/live-changes.mjs): \`antenna server\` on a first scan of
  20,000 hard links to one 2 s H.264/AAC clip (every file real media, probed); once the walk is
  through and probing has begun (the scan goes on with thumbnails; the run fails if it ended), 3 rounds of: a file copied into a new show's
  folder (timed until /api/v1/shows lists the show), an imported episode deleted (until its show's
  episodes lack it), another moved to a new folder (until the same id is listed at its new path),
  each polled every 50 ms from the file operation. Reference: Antenna's folder-watch child on its
  own, with the server's settings (a file reported once its size held still for 1 s), watching the
  same tree in the same run, timed to its first event for the same operations (for the copy, the
  new folder's, at once; Antenna walks a new folder as it appears): what is left is
  Antenna's gathering (a removal waits up to 3.3 s for a move's other half, README "Rescans") and
  the import. Meanwhile \`/api/v1/shows\` and \`/status\` are asked every 100 ms, and the same shows
  list from bare node:http (bench/reads-ceiling-server.mjs) likewise. The files deleted and moved
  are copies; the rest are hard links (removing one of 20,000 links to an inode has every link's
  watch report it, a second of the watcher's work that no library of distinct files makes).
- **Importer peer** (bench/scan-peer.mjs): one tree of ${peer.files.toLocaleString('en-US')} real files named as above, each a hard
  link to one of three clips made with ffmpeg (2, 3 and 4 s of 160x90 H.264/AAC, MP4 and, for the
  \`.mkv\` names, the same streams remuxed to Matroska), so the page cache holds every byte and the
  disk is out of the picture. ${peer.minidlna.available ? `minidlna ${peer.minidlna.version}` : 'minidlna'} (Debian's package, installed with apt-get when missing)
  scans it into a fresh database with a config of its own in a scratch folder (one \`media_dir=V,…\`,
  \`db_dir\` and \`log_dir\` there, a free port, \`network_interface=lo\`, \`inotify=no\`), run in the
  foreground (\`minidlnad -S -f … -P …\`); its scan is over when its log, read every 20 ms, says
  "Finished parsing playlists." after "Scanning … finished (N files)!" (N is the count found); then
  SIGTERM. Antenna: \`antenna scan --json --no-thumbnails\` with probing on a fresh data directory
  (up to ${os.availableParallelism()} reading processes: mp4box.js for MP4, ts-ebml for Matroska, MediaInfo and ffprobe behind them), timed from spawn until its own
  database (opened read-only, read every 250 ms) has a duration for every file, and to its exit
  (thumbnails are Antenna's alone, minidlna makes none: the server makes them later); then
  \`--no-probe\` on another fresh data directory, spawn to exit. Peak RSS is the largest sum of
  VmRSS over the process and its descendants, sampled every 20 ms (minidlna scans in a forked
  child; Antenna walks in a child process and probes in reading children; shared pages count once
  per process), with probing up to the moment every file has its duration. gerbera: ${peer.gerbera.reason}.

## Details

| Endpoint | Target | req/s per round | median latency | p99 latency | server CPU per request |
|---|---|---|---|---|---|
${detailRows.join('\n')}

- First uncached ${LIST_URL}: ${fmt.ms(first.ms)}; server RSS right after it ${fmt.mb(memoryAfterFirst.rss)}, peak ${fmt.mb(memoryAfterFirst.hwm)}.
- Server memory after the run: VmRSS ${fmt.mb(memory.rss)}, VmHWM (peak) ${fmt.mb(memory.hwm)}; ceiling VmRSS ${fmt.mb(ceilingMemory.rss)}.
- Response cache at the end: ${finalStatus.cache.entries} entries, ${fmt.mb(finalStatus.cache.bytes)} accounted, ${finalStatus.cache.hits.toLocaleString('en-US')} hits, ${finalStatus.cache.misses.toLocaleString('en-US')} misses.
- Importer: first scan of ${importer.largeTree.episodes + importer.largeTree.movies + importer.largeTree.videos} files ${fmt.ms(importer.rescan.firstMs)}; 20,000-file first scans with Node's start ${fmt.ms(importer.firstScan.wallMs)}; rescans with Node's start ${fmt.ms(importer.rescan.wallMs)}; probing per round (Antenna / bare) ${importer.probe.rounds.antenna.map((ms) => fmt.ms(ms)).join(', ')} / ${importer.probe.rounds.bare.map((ms) => fmt.ms(ms)).join(', ')}.
- Importer peer: ${
    peer.minidlna.available
      ? `minidlna logged "finished" at ${fmt.ms(peer.minidlna.scanEndMs)} and its end at ${fmt.ms(peer.minidlna.wallMs)}, its largest process ${fmt.mb(peer.minidlna.peakProcess)}`
      : `minidlna not measured: ${peer.minidlna.reason}`
  }; Antenna with probing: every file listed ${fmt.ms(peer.antenna.listedMs ?? Number.NaN)} after spawn, probing ${fmt.ms(peer.antenna.summary.probeMs)} (its \`probeMs\`), every file probed at ${fmt.ms(peer.antenna.probedMs)}, ${peer.antenna.summary.thumbnails.toLocaleString('en-US')} thumbnails then, exit at ${fmt.ms(peer.antenna.wallMs)} (peak RSS to exit ${fmt.mb(peer.antenna.peakRssToExit)}; its largest process ${fmt.mb(peer.antenna.peakProcess)}), ${peer.antenna.summary.failed} failed; names only ${fmt.ms(peer.namesOnly.summary.durationMs)} in the scan, ${fmt.ms(peer.namesOnly.wallMs)} with Node's start.
- DVR: ${dvr.recording.streams} recordings of ${dvr.recording.seconds} s at 8 Mbit/s through \`antenna server\` (a paced loopback source, bench/ts-stream-server.mjs), CPU of the server process over the middle of the recording against ${dvr.recording.streams} \`curl -o\` of the same streams afterwards; ${dvr.recording.recorded.toLocaleString('en-US')} bytes written of ${dvr.recording.sent.toLocaleString('en-US')} sent. Guide: bench/generate-guide.mjs, ${dvr.guide.programmes.toLocaleString('en-US')} programmes (${fmt.mb(dvr.guide.bytes)}), imported by DvrSourcesService in a process of its own (bench/dvr-guide-child.mjs; peak RSS is that process's VmHWM); the parse-only ceiling runs the same parser with no database. Planning: 120 series, 50 keyword, 20 weekly slot and 10 single-programme rules, one \`replan()\` (plan and store), ${dvr.guide.jobs} jobs; then ${dvr.guide.edits} edits through \`dvr.rules\` one at a time (a series given another title, a keyword another phrase, a series paused, a new single-programme rule, a slot removed), each timed from the call to the stored plan.
- Guide refresh (bench/guide-refresh.mjs): \`antenna server\` with an M3U of ${guideRefresh.channels.toLocaleString('en-US')} channels matched by tvg-id to a ${guideRefresh.channels.toLocaleString('en-US')}-channel × ${guideRefresh.days}-day guide (bench/generate-guide.mjs) served over HTTP by the bench, ${guideRefresh.rules} rules (series on titles seen in the guide, weekly slots; ${guideRefresh.jobs} jobs); after the start-up refresh, ${guideRefresh.clientsPerRoute} clients per route read GET /api/v1/jobs, GET /dvr/channels/:number/guide (7 channels in turn) and GET /dvr/guide (50 channels × 6 h pages) at ${1000 / guideRefresh.paceMs} requests/s each, ${guideRefresh.seconds} s idle, then while POST /dvr/guides/:id/refresh fetches the same guide an hour later (every programme changed), applies it and re-plans; latency from each request's due time (coordinated omission counted), to the last byte.
- Player: \`antenna server\` and \`antenna player --headless\` (mpv with no video or audio output, decoding a 10-minute 640x360 H.264 clip streamed from the server over loopback), both child processes; ${player.controlCalls} POST /api/toggle_mute one after another on one keep-alive connection (each answer waits for mpv's reply and a read-back of its state), against get_property round trips on mpv's own IPC socket; GET /api/status with autocannon (10 connections, ${DURATION} s, ${ROUNDS} rounds alternating with a bare node:http server answering the same bytes).
- Player, browser backend (bench/player-browser.mjs): \`antenna server\` and \`antenna player --backend browser\` (Debian's Chromium showing the app on an Xvfb screen of 1280x720, software decoding, the same 10-minute 640x360 clip over HLS), both child processes; 500 POST /api/toggle_mute as for mpv (each a DevTools call into the page and a read-back of its state); navigate answers once the section has been rendered and two frames drawn; the first frame is timed in the page (requestVideoFrameCallback) from the moment the command reached it, and the command's own answer time is beside it; Chromium's memory is summed over its process tree (RSS counts shared pages once per process, PSS shares them out) after 2 min of playback. A one-hour run of the same (\`node bench/player-browser.mjs --soak 60\`) is in [benchmarks-player-soak.md](benchmarks-player-soak.md).
- HLS (bench/hls.mjs): \`antenna server\` over a 1-hour 640x360 H.264/AAC file (a 10-minute ffmpeg test pattern looped with \`-c copy\`) and 60 s of 720p MPEG-2/AC-3; every ceiling is a bare ffmpeg given the arguments the server builds (dist/streaming/hls-ffmpeg-args.js), in the same run. First segment: 5 new sessions, master playlist to seg-0.ts received. Whole-file remux: one session's 600 segments fetched in order; the session's ffmpeg CPU is the server's reaped-children time, the server's own time (sending 600 segments over loopback) is shown beside it. Seeks: 12 cold segments at random points of the hour. Transcode: 10 segments of the 720p rendition, media seconds per wall second (the test pattern is easy to encode: broadcast pictures are slower). 10 sessions: each fetches 5 segments at once, then one every 6 s, as hls.js plays, for 30 s.
- Body sizes: show ${fmt.size(results.show.size)}, episode ${fmt.size(results.episode.size)}, movie ${fmt.size(results.movie.size)} (averages), /api/v1/shows ${fmt.size(results.shows.size)}, ${LIST_URL} ${fmt.size(results.list.size)}.
`;
  mkdirSync(join(ROOT, 'docs'), { recursive: true });
  writeFileSync(DOC, doc);

  console.log(`\n${table}\n`);
  for (const row of failed) console.log(`FAIL: ${row.target}: ${row.measured} (threshold ${row.threshold})`);
  if (failed.length === 0) console.log('All targets PASS.');
  console.log(
    `\nWritten to docs/benchmarks.md (whole bench: ${((performance.now() - benchStarted) / 1000).toFixed(0)} s).`,
  );
}

const benchStarted = performance.now();
main().then(
  () => process.exit(0),
  (error) => {
    console.error(`bench: could not run: ${error instanceof Error ? (error.stack ?? error.message) : error}`);
    killAll();
    process.exit(1);
  },
);
