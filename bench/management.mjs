/**
 * The management interface's figures for `npm run bench` (called by bench/run.mjs):
 * - streaming a 1 GB file over loopback, against a bare node:http server piping
 *   fs.createReadStream of the same file (bench/stream-ceiling.mjs), one client;
 * - server CPU per GB with 20 clients streaming at once, against one client;
 * - 1,000 watch-state writes per second for 30 s with interface-A reads alongside.
 * Run as a script (`node bench/management.mjs --generate DATA FILE`) it writes the
 * library these use: 100 movies, the first pointing at FILE.
 */
import autocannon from 'autocannon';
import { execFileSync, fork, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import http from 'node:http';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const GB = 1024 ** 3;
const MOVIES = 100;
const WRITE_RATE = 1000;
const STREAM_CLIENTS = 20;

async function generate(data, file) {
  const { openDatabase, prepareDataDir, databasePath } = await import(
    pathToFileURL(join(ROOT, 'dist/db/database.js')).href
  );
  const { upsertMovie } = await import(pathToFileURL(join(ROOT, 'dist/repositories/items.repository.js')).href);
  prepareDataDir(data);
  const db = openDatabase(databasePath(data));
  db.transaction(() => {
    for (let n = 0; n < MOVIES; n++) {
      upsertMovie(db, {
        id: `bench-movie-${n}`,
        source: 'imports',
        title: `Bench movie ${n}`,
        path: n === 0 ? file : null,
        duration: 5400,
        release_year: 2000 + (n % 25),
      });
    }
  })();
  db.close();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href && process.argv[2] === '--generate') {
  await generate(resolve(process.argv[3]), resolve(process.argv[4]));
  process.exit(0);
}

function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // 100 ticks a second here; bench/run.mjs says the same
}

function waitForPort(port) {
  return new Promise((resolveReady, reject) => {
    const started = Date.now();
    const attempt = () =>
      http
        .get({ host: '127.0.0.1', port, path: '/status', agent: false }, (response) => {
          response.resume();
          resolveReady();
        })
        .on('error', () =>
          Date.now() - started > 30_000 ? reject(new Error('server did not start')) : setTimeout(attempt, 20),
        );
    attempt();
  });
}

/** Downloads a URL to nowhere; resolves with the bytes and milliseconds. */
function download(port, path) {
  return new Promise((resolveDone, reject) => {
    const started = performance.now();
    let bytes = 0;
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (response) => {
        if (response.statusCode !== 200) reject(new Error(`GET ${path}: ${response.statusCode}`));
        response.on('data', (chunk) => (bytes += chunk.length));
        response.on('end', () => resolveDone({ bytes, ms: performance.now() - started }));
      })
      .on('error', reject);
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

async function streamRound(target, clients) {
  const cpuBefore = cpuMs(target.pid);
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: clients }, () => download(target.port, target.path)));
  const ms = performance.now() - started;
  const bytes = results.reduce((sum, r) => sum + r.bytes, 0);
  return {
    mbPerSecond: bytes / 1024 ** 2 / (ms / 1000),
    cpuMsPerGb: ((cpuMs(target.pid) - cpuBefore) / bytes) * GB,
    bytes,
  };
}

/** `rounds` runs of each: Antenna and the bare server alternate, so drift hits both. */
export async function benchManagement({ work, log, rounds = 3, writeSeconds = 30 }) {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  // Inside an import root (the server serves nothing else), hidden so the scan leaves it to the seeded item.
  const media = join(work, 'media');
  mkdirSync(media);
  const file = join(media, '.one-gigabyte.mkv');
  // Sparse: no disk is written or read, so both servers measure their own path, not the disk.
  closeSync(openSync(file, 'w'));
  truncateSync(file, GB);
  const data = join(work, 'data');
  execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--generate', data, file], { stdio: 'inherit' });

  const port = 18500 + Math.floor(Math.random() * 1000);
  const antenna = spawn(
    process.execPath,
    [
      join(ROOT, 'bin', 'antenna'),
      'server',
      '--data',
      data,
      '--movies',
      media,
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--no-sample',
      '--log-level',
      'error',
    ],
    {
      stdio: 'ignore',
    },
  );
  const ceiling = fork(join(ROOT, 'bench', 'stream-ceiling.mjs'), [file], { stdio: 'ignore' });
  const ceilingPort = await new Promise((resolvePort) => ceiling.once('message', (m) => resolvePort(m.port)));
  try {
    await waitForPort(port);
    const targets = {
      antenna: { port, pid: antenna.pid, path: '/dvr/files/bench-movie-0/stream' },
      ceiling: { port: ceilingPort, pid: ceiling.pid, path: '/' },
    };
    // A warm-up download each: the first stream of a process runs on cold code.
    await streamRound(targets.antenna, 1);
    await streamRound(targets.ceiling, 1);
    const single = { antenna: [], ceiling: [] };
    const many = { antenna: [], ceiling: [] };
    for (let round = 0; round < rounds; round++) {
      for (const name of round % 2 ? ['ceiling', 'antenna'] : ['antenna', 'ceiling']) {
        single[name].push(await streamRound(targets[name], 1));
        many[name].push(await streamRound({ ...targets[name] }, STREAM_CLIENTS));
      }
      log(
        `management: streaming round ${round + 1}: 1 client ${single.antenna.at(-1).mbPerSecond.toFixed(0)} vs ${single.ceiling.at(-1).mbPerSecond.toFixed(0)} MB/s`,
      );
    }

    // Writes at a fixed rate, reads alongside, for writeSeconds.
    const writePaths = Array.from({ length: MOVIES }, (_, n) => ({
      method: 'PUT',
      path: `/dvr/files/bench-movie-${n}/playback_time/${n + 0.5}`,
    }));
    const reads = autocannon({
      url: `http://127.0.0.1:${port}`,
      connections: 4,
      duration: writeSeconds,
      requests: [
        { method: 'GET', path: '/api/v1/movies' },
        { method: 'GET', path: '/api/v1/movies/bench-movie-1' },
      ],
    });
    const writes = await autocannon({
      url: `http://127.0.0.1:${port}`,
      connections: 10,
      overallRate: WRITE_RATE,
      duration: writeSeconds,
      requests: writePaths,
    });
    const read = await reads;
    const status = (result) =>
      Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]));
    const writeStatus = status(writes);
    const writesOk = writeStatus['200'] ?? 0;
    const check = JSON.parse(
      await new Promise((done, fail) =>
        http
          .get(`http://127.0.0.1:${port}/api/v1/movies/bench-movie-7`, (r) => {
            let text = '';
            r.on('data', (c) => (text += c));
            r.on('end', () => done(text));
          })
          .on('error', fail),
      ),
    );
    log(
      `management: ${writesOk} writes answered 200 in ${writeSeconds} s (${JSON.stringify(writeStatus)}), reads ${Math.round(read.requests.average)} req/s`,
    );
    return {
      stream: {
        singleAntenna: median(single.antenna.map((r) => r.mbPerSecond)),
        singleCeiling: median(single.ceiling.map((r) => r.mbPerSecond)),
        singleRatios: single.antenna.map((r, i) => r.mbPerSecond / single.ceiling[i].mbPerSecond),
        manyAntenna: median(many.antenna.map((r) => r.mbPerSecond)),
        cpuPerGbSingle: median(single.antenna.map((r) => r.cpuMsPerGb)),
        cpuPerGbMany: median(many.antenna.map((r) => r.cpuMsPerGb)),
        ceilingCpuPerGbMany: median(many.ceiling.map((r) => r.cpuMsPerGb)),
      },
      writes: {
        seconds: writeSeconds,
        sent: writes.requests.sent ?? writes.requests.total,
        ok: writesOk,
        perSecond: writesOk / writeSeconds,
        errors: writes.errors + writes.timeouts + writes.non2xx,
        statuses: writeStatus,
        readsPerSecond: read.requests.average,
        readErrors: read.errors + read.timeouts + read.non2xx,
        lastValueKept: check.playback_time === 7.5,
      },
    };
  } finally {
    antenna.kill('SIGTERM');
    ceiling.kill('SIGTERM');
    await sleep(500);
    rmSync(work, { recursive: true, force: true });
  }
}

export function managementRows(results, { fmt, verdict }) {
  const { stream, writes } = results;
  const ratio = median(stream.singleRatios);
  const cpuGrowth = stream.cpuPerGbMany / stream.cpuPerGbSingle;
  return [
    {
      target: 'Streaming a 1 GB file over loopback (/dvr/files/:id/stream), 1 client',
      threshold: '≥ 70 % of bare createReadStream',
      measured: `${Math.round(stream.singleAntenna).toLocaleString('en-US')} MB/s`,
      ceiling: `${Math.round(stream.singleCeiling).toLocaleString('en-US')} MB/s`,
      ratio: fmt.ratio(ratio),
      result: verdict(ratio >= 0.7),
    },
    {
      target: `Streaming with ${STREAM_CLIENTS} clients at once: server CPU per GB sent (bounded: within 1.5× of one client's)`,
      threshold: '≤ 1.5× one client',
      measured: `${Math.round(stream.cpuPerGbMany)} ms/GB (${Math.round(stream.manyAntenna).toLocaleString('en-US')} MB/s in all)`,
      ceiling: `bare: ${Math.round(stream.ceilingCpuPerGbMany)} ms/GB`,
      ratio: fmt.times(cpuGrowth),
      result: verdict(cpuGrowth <= 1.5),
    },
    {
      target: `Watch-state writes at ${WRITE_RATE.toLocaleString('en-US')}/s for ${writes.seconds} s with interface-A reads alongside`,
      threshold: '≥ 1,000/s, none lost or failed',
      measured: `${Math.round(writes.perSecond).toLocaleString('en-US')}/s, ${writes.ok.toLocaleString('en-US')} answered 200, ${writes.errors} failed; reads ${Math.round(writes.readsPerSecond).toLocaleString('en-US')} req/s, ${writes.readErrors} failed`,
      ceiling: '—',
      ratio: '—',
      result: verdict(
        writes.perSecond >= WRITE_RATE * 0.98 && writes.errors === 0 && writes.readErrors === 0 && writes.lastValueKept,
      ),
    },
  ];
}
