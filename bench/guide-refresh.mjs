/**
 * Reads while a big guide is refreshed, for `npm run bench` (called by bench/run.mjs; issue 21):
 * a real `antenna server` with an M3U of 1,000 channels matched by tvg-id to a 1,000-channel
 * × 14-day XMLTV guide (bench/generate-guide.mjs) served by a local HTTP server, so the
 * refresh is a real fetch, and a few recording rules, so /api/v1/jobs has content. After
 * the first refresh, paced clients read GET /api/v1/jobs, GET /dvr/channels/:number/guide
 * (a few channels in turn) and GET /dvr/guide (50-channel × 6-hour pages, as the web app's
 * grid asks) for `seconds` (idle), then the guide changes (every programme an hour later,
 * as the next day's download is) and the same reads run while POST /dvr/guides/:id/refresh
 * fetches, applies and re-plans it. Each route's p50/p99 with the refresh against idle.
 *
 * Latency is counted from the moment a request was due, not from when it was sent: the
 * clients are paced (a request every PACE_MS each), and one held up by a blocked server
 * sends its next request late, so counting from the send would hide the wait (coordinated
 * omission). Run alone: `node bench/guide-refresh.mjs [seconds]` (after `npm run build`).
 */
import { spawn } from 'node:child_process';
import { createReadStream, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort } from './free-port.mjs';
import { writeGuide } from './generate-guide.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHANNELS = 1000;
const DAYS = 14;
const CLIENTS_PER_ROUTE = 2;
// Each client 4 requests/s, 8/s per route: a reading load that leaves the refresh most of a core (a guide read costs
// ~20 ms here).
const PACE_MS = 250;
const GRID_LIMIT = 50;
const GRID_HOURS = 6;
const WATCHED_CHANNELS = [1, 137, 250, 499, 500, 731, 1000];
const REPLAN_WINDOW_MS = 3000;

const agent = new http.Agent({ keepAlive: true, maxSockets: 3 * CLIENTS_PER_ROUTE + 4 });

function request(port, method, path) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(300_000, () => req.destroy(new Error(`${method} ${path}: no answer within 300 s`)));
    req.end();
  });
}

const getJson = async (port, path) => {
  const answer = await request(port, 'GET', path);
  if (answer.status !== 200)
    throw new Error(`GET ${path}: ${answer.status} ${answer.body.toString('utf8').slice(0, 200)}`);
  return JSON.parse(answer.body.toString('utf8'));
};

/** The guide's HTTP server: answers whichever file `serve` last named. */
async function startGuideServer() {
  let file;
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/xml', 'content-length': statSync(file).size });
    createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
    res.on('error', () => undefined);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/guide.xml`,
    serve: (path) => (file = path),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
function summary(latencies) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? Number.NaN,
  };
}

/** The routes read, each a function of the request's index giving its path. */
function routes() {
  const now = () => Math.floor(Date.now() / 1000);
  return {
    '/api/v1/jobs': () => '/api/v1/jobs',
    '/dvr/channels/:number/guide': (i) => `/dvr/channels/${WATCHED_CHANNELS[i % WATCHED_CHANNELS.length]}/guide`,
    '/dvr/guide': (i) => {
      const start = now() - (now() % 1800);
      return `/dvr/guide?start=${start}&end=${start + GRID_HOURS * 3600}&offset=${(i * GRID_LIMIT) % CHANNELS}&limit=${GRID_LIMIT}`;
    },
  };
}

/**
 * Paced clients on every route until `until()` says stop; each latency counted from the
 * request's due time. Returns per-route latencies and the answers' statuses.
 */
async function readPhase(port, until) {
  const byRoute = {};
  const dueAt = {};
  const statuses = new Map();
  const client = async (route, pathOf, n) => {
    const list = (byRoute[route] ??= []);
    const dues = (dueAt[route] ??= []);
    // Clients of a route start spread over the pace, so requests do not come in bursts.
    let due = performance.now() + (n * PACE_MS) / CLIENTS_PER_ROUTE;
    for (let i = n; !until(); i += CLIENTS_PER_ROUTE) {
      await sleep(Math.max(0, due - performance.now()));
      // A refused or reset connection counts as an answer that failed, with its time.
      const answer = await request(port, 'GET', pathOf(i)).catch((error) => ({ status: error.code ?? 'error' }));
      list.push(performance.now() - due);
      dues.push(due);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      due += PACE_MS;
    }
  };
  const clients = Object.entries(routes()).flatMap(([route, pathOf]) =>
    Array.from({ length: CLIENTS_PER_ROUTE }, (_, n) => client(route, pathOf, n)),
  );
  await Promise.all(clients);
  // `before(t)`: each route's summary of the requests due before t (performance.now() time).
  const before = (t) =>
    Object.fromEntries(
      Object.entries(byRoute).map(([route, list]) => [route, summary(list.filter((_, i) => dueAt[route][i] < t))]),
    );
  return {
    byRoute: Object.fromEntries(Object.entries(byRoute).map(([route, list]) => [route, summary(list)])),
    statuses: Object.fromEntries(statuses),
    before,
  };
}

/** Starts the server, measures the idle and refresh phases, stops it. */
export async function benchGuideRefresh({
  antennaBin = join(ROOT, 'bin', 'antenna'),
  work = join(ROOT, '.bench', 'guide-refresh'),
  seconds = 10,
  log = console.log,
  cpuProf,
} = {}) {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const start = Math.floor(Date.now() / 3_600_000) * 3600 - 3600;
  log(`guide refresh: writing two ${CHANNELS}-channel × ${DAYS}-day guides (the second an hour later)`);
  const first = await writeGuide(join(work, 'guide-1.xml'), { channels: CHANNELS, days: DAYS, start });
  const second = await writeGuide(join(work, 'guide-2.xml'), { channels: CHANNELS, days: DAYS, start: start + 3600 });
  const lines = ['#EXTM3U'];
  for (let c = 0; c < CHANNELS; c++)
    lines.push(`#EXTINF:-1 tvg-id="ch${c}.example" tvg-chno="${c + 1}",Channel ${c + 1}`, `http://127.0.0.1:9/ch${c}`);
  writeFileSync(join(work, 'channels.m3u'), `${lines.join('\n')}\n`);
  const guideServer = await startGuideServer();
  guideServer.serve(join(work, 'guide-1.xml'));
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      ...(cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : []),
      antennaBin,
      'server',
      '--data',
      join(work, 'data'),
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--no-sample',
      '--m3u',
      join(work, 'channels.m3u'),
      '--xmltv',
      guideServer.url,
      '--log-level',
      'warn',
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ANTENNA_MDNS: 'false' } },
  );
  try {
    // The server refreshes its sources and guides at start: wait for the first guide to be in.
    let guide;
    const deadline = Date.now() + 300_000;
    for (;;) {
      const guides = await getJson(port, '/dvr/guides').catch(() => []);
      const status = guides.length > 0 ? await getJson(port, '/status').catch(() => undefined) : undefined;
      guide = guides[0];
      if (guide?.programmes > 0 && status?.dvr?.refreshing === false) break;
      if (Date.now() > deadline)
        throw new Error(`the first guide refresh did not end within 300 s: ${JSON.stringify(guide)}`);
      await sleep(500);
    }
    // Rules: series on titles seen on a few channels, and weekly slots; so /api/v1/jobs lists jobs.
    const titles = new Set();
    for (const number of WATCHED_CHANNELS)
      for (const airing of await getJson(port, `/dvr/channels/${number}/guide`))
        titles.add(airing.title ?? airing.name);
    const rules = [
      ...[...titles]
        .filter(Boolean)
        .slice(0, 20)
        .map((title) => ({ type: 'series', title })),
      ...Array.from({ length: 10 }, (_, i) => ({
        type: 'slot',
        channel: String(1 + i * 97),
        start_time: start + 86400 + i * 3600,
        duration: 3600,
        weekly: true,
      })),
    ];
    for (const rule of rules) {
      const answer = await new Promise((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/dvr/rules',
            agent,
            headers: { 'content-type': 'application/json' },
          },
          (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify(rule));
      });
      if (answer !== 201) throw new Error(`POST /dvr/rules answered ${answer}`);
    }
    const jobs = (await getJson(port, '/api/v1/jobs')).length;
    log(
      `guide refresh: ${guide.programmes.toLocaleString('en-US')} programmes in, ${rules.length} rules, ${jobs} jobs; reading ${seconds} s idle`,
    );
    const warm = performance.now() + 2000;
    await readPhase(port, () => performance.now() > warm);
    const idleUntil = performance.now() + seconds * 1000;
    const idle = await readPhase(port, () => performance.now() > idleUntil);
    log(`  idle: ${JSON.stringify(idle.byRoute)}`);

    guideServer.serve(join(work, 'guide-2.xml'));
    let refreshed;
    let refreshMs;
    const began = performance.now();
    const refresh = request(port, 'POST', `/dvr/guides/${encodeURIComponent(guide.id)}/refresh`).then(
      (answer) => {
        refreshMs = performance.now() - began;
        refreshed = answer;
      },
      (error) => {
        refreshMs = performance.now() - began;
        refreshed = { status: error.code ?? 'error', body: Buffer.from(String(error.message)) };
      },
    );
    const during = await readPhase(port, () => refreshed !== undefined);
    // The re-plan after the swap (job-scheduler.ts) holds the loop for its whole run, ~1.5 s here, just before the
    // answer:
    // the requests due before its last REPLAN_WINDOW_MS show what the refresh itself costs them.
    const beforeReplan = during.before(began + refreshMs - REPLAN_WINDOW_MS);
    await refresh;
    if (refreshed.status !== 200)
      throw new Error(`the refresh: ${refreshed.status} ${refreshed.body.toString('utf8').slice(0, 300)}`);
    const result = JSON.parse(refreshed.body.toString('utf8'));
    if (result.error) throw new Error(`the refresh was not applied: ${result.error}`);
    const after = (await getJson(port, '/dvr/guides')).find((g) => g.id === guide.id);
    log(
      `  refresh: ${(refreshMs / 1000).toFixed(2)} s, ${result.programmes} programmes; during it: ${JSON.stringify(during.byRoute)}`,
    );
    log(
      `  during it, requests due more than ${REPLAN_WINDOW_MS / 1000} s before the answer (the re-plan left out): ${JSON.stringify(beforeReplan)}`,
    );
    return {
      channels: CHANNELS,
      days: DAYS,
      programmes: result.programmes,
      firstProgrammes: first.programmes,
      bytes: second.xmlBytes,
      rules: rules.length,
      jobs,
      jobsAfter: (await getJson(port, '/api/v1/jobs')).length,
      stored: after?.programmes,
      clientsPerRoute: CLIENTS_PER_ROUTE,
      paceMs: PACE_MS,
      seconds,
      refreshMs,
      idle: { byRoute: idle.byRoute, statuses: idle.statuses },
      during: { byRoute: during.byRoute, statuses: during.statuses },
      beforeReplan,
      replanWindowMs: REPLAN_WINDOW_MS,
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) =>
      child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', resolve),
    );
    await guideServer.close();
    agent.destroy();
    if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
  }
}

const ms = (value) => `${value.toFixed(1)} ms`;

/** The row for docs/benchmarks.md: every route's p99 during the refresh within 2× its idle p99. */
export function guideRefreshRows(r, { verdict }) {
  const ratios = Object.entries(r.idle.byRoute).map(([route, idle]) => [route, r.during.byRoute[route].p99 / idle.p99]);
  const worst = Math.max(...ratios.map(([, ratio]) => ratio));
  const failed = Object.entries(r.during.statuses).filter(([status]) => status !== '200');
  return [
    {
      target: `DVR: reads while a ${r.channels.toLocaleString('en-US')}-channel × ${r.days}-day guide (${r.programmes.toLocaleString('en-US')} programmes, ${(r.bytes / 1e6).toFixed(0)} MB) is refreshed over HTTP and applied, then ${r.rules} rules re-planned (${r.jobsAfter} jobs): ${r.clientsPerRoute} paced clients per route at ${1000 / r.paceMs}/s each`,
      threshold: 'p99 of each route ≤ 2× idle',
      measured: `refresh ${(r.refreshMs / 1000).toFixed(2)} s; p99 / p50 during it: ${Object.entries(r.during.byRoute)
        .map(([route, s]) => `${route} ${ms(s.p99)} / ${ms(s.p50)} (slowest ${ms(s.max)}, n=${s.n})`)
        .join(
          ', ',
        )}${failed.length ? `; answers not 200: ${failed.map(([status, n]) => `${n}× ${status}`).join(', ')}` : ''}${
        r.beforeReplan
          ? `; p99 of the requests due more than ${r.replanWindowMs / 1000} s before the answer (the re-plan left out): ${Object.entries(
              r.beforeReplan,
            )
              .map(([route, s]) => `${route} ${ms(s.p99)}`)
              .join(', ')}`
          : ''
      }`,
      ceiling: `idle, p99 / p50: ${Object.entries(r.idle.byRoute)
        .map(([route, s]) => `${route} ${ms(s.p99)} / ${ms(s.p50)}`)
        .join(', ')}`,
      ratio: ratios.map(([route, ratio]) => `${route} ${ratio.toFixed(2)}×`).join(', '),
      result: verdict(worst <= 2 && failed.length === 0),
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const profIndex = process.argv.indexOf('--cpu-prof');
  const cpuProf = profIndex > 0 ? process.argv[profIndex + 1] : undefined;
  const positional = process.argv.slice(2).filter((arg, i, all) => arg !== '--cpu-prof' && all[i - 1] !== '--cpu-prof');
  const result = await benchGuideRefresh({ seconds: Number(positional[0] ?? 10), cpuProf });
  console.log(JSON.stringify(result, null, 2));
  for (const row of guideRefreshRows(result, { verdict: (ok) => (ok ? 'PASS' : 'FAIL') }))
    console.log(`${row.result}  ${row.target}: ${row.measured} (${row.ceiling}; ${row.ratio})`);
  process.exit(0);
}
