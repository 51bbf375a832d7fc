/**
 * The library stays live during a long first scan (issue 17's targets, for `npm run
 * bench`): a real `antenna server` on a first scan of 20,000 real files (hard links to
 * one clip, so every one is probed), and mid-scan, ROUNDS times each: a file copied in
 * (until its show is listed), a file the scan imported deleted (until it is gone from its
 * show), one moved to another folder (until the same item is at its new path), each
 * polled every 50 ms through /api/v1. Meanwhile `/api/v1/shows` and `/status` are asked
 * every 100 ms: their answer times mid-scan.
 *
 * References, in the same run on the same busy machine: the import watcher on its own
 * (Antenna's folder-watch child, with the server's settings, watching the same tree),
 * timed to its first event for the same file operations (a new folder at once, a file
 * once its size held still), what an import driven by it cannot know sooner; and bare node:http answering the same
 * shows list (as
 * bench/reads-ceiling-server.mjs) asked alongside Antenna's, the floor of an answer on a
 * machine this busy. Run alone: `node bench/live-changes.mjs` (after `npm run build`).
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort } from './free-port.mjs';
import { stopChild } from './stop-child.mjs';

const { fetch, AbortSignal } = globalThis;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FILES = 20_000;
const EPISODES_PER_SHOW = 100;
const ROUNDS = 3;
/**
 * The server's default (scan-scheduler.ts DEFAULT_WRITE_FINISH_MS): the watcher reports a file once its size held still
 * this long.
 */
const WRITE_FINISH_MS = 1000;
const CHANGE_TARGET_MS = 5000;
/**
 * The shows the copied files start (names without digits: a number at a name's end may be read as more than a name).
 */
const NEW_SHOWS = ['Night Ferry', 'Harbour Lights', 'Morning Tide'];
const ANSWER_TARGET_MS = 1000;
/** A change not seen within this is a failure of the bench run, not a figure. */
const GIVE_UP_MS = 60_000;

async function getJson(base, path) {
  const response = await fetch(base + path, { signal: AbortSignal.timeout(GIVE_UP_MS) });
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}`);
  return response.json();
}

/** Polls `read` every 50 ms until `ok`; the ms from `since` (performance.now()) to the first answer that was. */
async function until(read, ok, since, what) {
  for (;;) {
    if (ok(await read())) return performance.now() - since;
    if (performance.now() - since > GIVE_UP_MS) throw new Error(`${what}: not within ${GIVE_UP_MS / 1000} s`);
    await sleep(50);
  }
}

/**
 * The tree: FILES hard links to one real clip under TV/Show NNN/Season 01 (the disk out of
 * the picture, every file real media to probe), but for the files the rounds delete and
 * move (the first two episodes of the first ROUNDS shows), which are copies: the kernel
 * watches an inode, so removing one link of a file with 20,000 has every one of their
 * watches report it, which no library of distinct files does (it cost the watcher a
 * second per change, measured).
 */
function makeTree(dir) {
  const clip = join(dir, 'clip.mp4');
  execFileSync('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=160x120:rate=10:duration=2',
    '-f',
    'lavfi',
    '-i',
    'sine=duration=2',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-c:a',
    'aac',
    '-shortest',
    clip,
  ]);
  for (let n = 0; n < FILES; n++) {
    const show = `Show ${String(Math.floor(n / EPISODES_PER_SHOW)).padStart(3, '0')}`;
    const folder = join(dir, 'TV', show, 'Season 01');
    if (n % EPISODES_PER_SHOW === 0) mkdirSync(folder, { recursive: true });
    const file = join(folder, `${show} - S01E${String((n % EPISODES_PER_SHOW) + 1).padStart(2, '0')}.mp4`);
    if (n % EPISODES_PER_SHOW < 2 && n / EPISODES_PER_SHOW < ROUNDS) copyFileSync(clip, file);
    else linkSync(clip, file);
  }
  return clip;
}

/** `promise`, or an error when `child` exits first or `ms` pass: a child that died never leaves the bench waiting. */
function whileRunning(child, promise, ms, what) {
  let timer;
  let onExit;
  const failed = new Promise((_resolve, reject) => {
    onExit = (code) => reject(new Error(`${what}: the process ended (code ${code})`));
    child.once('exit', onExit);
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, failed]).finally(() => {
    clearTimeout(timer);
    child.off('exit', onExit);
  });
}

/** Antenna's own watcher child on `root`: resolves each path's first event with its performance.now(). */
function startWatcher(root) {
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'importer', 'folder-watch.child.js')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.stdin.end(JSON.stringify({ paths: [root], writeFinishMs: WRITE_FINISH_MS }));
  const seen = new Map();
  const waiting = new Map();
  let ready;
  const readyPromise = new Promise((resolve) => (ready = resolve));
  createInterface({ input: child.stdout }).on('line', (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (message.type === 'ready') ready();
    if (message.type !== 'change' || seen.has(message.path)) return;
    seen.set(message.path, performance.now());
    waiting.get(message.path)?.();
  });
  return {
    ready: whileRunning(child, readyPromise, GIVE_UP_MS, 'the watcher getting ready'),
    /** The ms from `since` to the first event naming any of `paths` (NaN if none came within GIVE_UP_MS). */
    eventFor: (paths, since) =>
      new Promise((resolve) => {
        const done = () =>
          resolve(Math.min(...paths.map((path) => seen.get(path) ?? Number.POSITIVE_INFINITY)) - since);
        if (paths.some((path) => seen.has(path))) done();
        else {
          for (const path of paths) waiting.set(path, done);
          setTimeout(() => resolve(Number.NaN), GIVE_UP_MS).unref();
        }
      }),
    stop: () => stopChild(child, 'SIGKILL'),
  };
}

/** Asks `path` of each base every `everyMs` until stopped; answer times by base. */
function askEvery(targets, everyMs) {
  const times = targets.map(() => []);
  const failures = targets.map(() => 0);
  let stopped = false;
  const loops = targets.map(async ({ base, path }, i) => {
    while (!stopped) {
      const started = performance.now();
      // A failed answer is counted (and fails the row), and its time kept: the loop goes on.
      await getJson(base, path).catch(() => failures[i]++);
      times[i].push(performance.now() - started);
      await sleep(Math.max(0, everyMs - (performance.now() - started)));
    }
  });
  return {
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
      return times.map((list, i) => ({ ...summary(list), failures: failures[i] }));
    },
  };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
const summary = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? Number.NaN,
  };
};

/** One round of the three changes, each timed in Antenna's API and at the watcher. */
async function changeRound(round, { dir, clip, base, watcher, log }) {
  const episodesOf = (show) => getJson(base, `/api/v1/shows/${show.id}/episodes`);
  const name = NEW_SHOWS[round % NEW_SHOWS.length];
  // A new show's folder with a file copied in: the watcher names the folder at once, the file once its size held still.
  const showFolder = join(dir, 'TV', name);
  const folder = join(showFolder, 'Season 02');
  const copied = join(folder, `${name} - S02E05 - Fog.mp4`);
  let since = performance.now();
  mkdirSync(folder, { recursive: true });
  copyFileSync(clip, copied);
  const copyWatcher = watcher.eventFor([showFolder, folder, copied], since);
  const copy = await until(
    () => getJson(base, '/api/v1/shows'),
    (shows) => shows.some((show) => show.name === name),
    since,
    `${name} shows`,
  );

  // A show the scan imported, other than the ones this bench made: one of its episodes deleted, then another moved.
  const shows = await getJson(base, '/api/v1/shows');
  const show = shows.filter((candidate) => candidate.name.startsWith('Show '))[round];
  const [deleted, moving] = await episodesOf(show);
  for (const episode of [deleted, moving])
    if (statSync(episode.path).nlink !== 1)
      throw new Error(`${episode.path} is a hard link, not one of the copies made for the rounds`);
  since = performance.now();
  rmSync(deleted.path);
  const deleteWatcher = watcher.eventFor([deleted.path], since);
  const deletion = await until(
    () => episodesOf(show),
    (episodes) => !episodes.some((e) => e.id === deleted.id),
    since,
    'the deleted file goes',
  );

  const movedTo = join(dir, 'TV', show.name, 'Season 02', `moved ${round}.mp4`);
  mkdirSync(join(dir, 'TV', show.name, 'Season 02'), { recursive: true });
  since = performance.now();
  renameSync(moving.path, movedTo);
  const moveWatcher = watcher.eventFor([movedTo], since);
  const move = await until(
    () => episodesOf(show),
    (episodes) => episodes.some((e) => e.id === moving.id && e.path === movedTo),
    since,
    'the moved file keeps its item',
  );
  const times = {
    copy,
    deletion,
    move,
    watcher: { copy: await copyWatcher, deletion: await deleteWatcher, move: await moveWatcher },
  };
  log(
    `live changes round ${round + 1}: copy ${Math.round(copy)} ms (watcher ${Math.round(times.watcher.copy)}), deletion ${Math.round(deletion)} ms (watcher ${Math.round(times.watcher.deletion)}), move ${Math.round(move)} ms (watcher ${Math.round(times.watcher.move)})`,
  );
  return times;
}

/** Starts the scan, makes the changes mid-scan, asks for answers meanwhile; stops everything. */
export async function benchLiveChanges({ log = console.log } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'antenna-live-'));
  const children = [];
  try {
    log(`live changes: making ${FILES.toLocaleString('en-US')} files (hard links to one clip)...`);
    const clip = makeTree(dir);
    const watcher = startWatcher(join(dir, 'TV'));
    children.push(watcher);
    await watcher.ready;
    const port = await freePort();
    const server = spawn(
      process.execPath,
      [
        join(ROOT, 'bin', 'antenna'),
        'server',
        '--data',
        join(dir, 'data'),
        '--tv',
        join(dir, 'TV'),
        '--port',
        String(port),
        '--host',
        '127.0.0.1',
        '--no-sample',
        '--log-level',
        'warn',
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, ANTENNA_MDNS: 'false' },
      },
    );
    children.push({ stop: () => stopChild(server) });
    const base = `http://127.0.0.1:${port}`;
    // Mid-scan: the walk is through (every show has its episodes) and probing has begun (then thumbnails: the scan runs
    // until both are done).
    await until(
      () => getJson(base, '/status').catch(() => undefined),
      (status) => status?.scan?.phase === 'probing',
      performance.now(),
      'the scan reaches probing',
    );

    // The ceiling answers the shows list as it is now, beside Antenna, on the same machine.
    writeFileSync(join(dir, 'shows.json'), JSON.stringify(await getJson(base, '/api/v1/shows')));
    writeFileSync(join(dir, 'episodes.json'), '[]');
    const ceiling = spawn(
      process.execPath,
      [join(ROOT, 'bench', 'reads-ceiling-server.mjs'), join(dir, 'episodes.json'), join(dir, 'shows.json')],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push({ stop: () => stopChild(ceiling) });
    const ceilingPort = await whileRunning(
      ceiling,
      new Promise((resolve) => ceiling.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim())))),
      GIVE_UP_MS,
      'the ceiling server starting',
    );
    const asking = askEvery(
      [
        { base, path: '/api/v1/shows' },
        { base, path: '/status' },
        { base: `http://127.0.0.1:${ceilingPort}`, path: '/api/v1/shows' },
      ],
      100,
    );
    const rounds = [];
    for (let round = 0; round < ROUNDS; round++)
      rounds.push(await changeRound(round, { dir, clip, base, watcher, log }));
    const [shows, status, ceilingShows] = await asking.stop();
    const scan = (await getJson(base, '/status')).scan;
    if (!scan.running) throw new Error('the scan ended before the changes were timed: they were not made mid-scan');
    return { files: FILES, rounds, probed: scan.probed, answers: { shows, status, ceiling: ceilingShows } };
  } finally {
    // Every process gone before its files are: a server still probing would write into the folder, and load the next
    // bench.
    await Promise.all(children.map((child) => child.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

const ms = (value) => `${Math.round(value).toLocaleString('en-US')} ms`;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The rows for docs/benchmarks.md: changes mid-scan, answers mid-scan. */
export function liveChangesRows(r, verdict) {
  const kinds = ['copy', 'deletion', 'move'];
  const slowest = Math.max(...r.rounds.flatMap((round) => kinds.map((kind) => round[kind])));
  const of = (kind, pick) => r.rounds.map(pick ?? ((round) => round[kind]));
  const a = r.answers;
  return [
    {
      target: `Changes during a first scan of ${r.files.toLocaleString('en-US')} real files (probing on; ${r.probed.toLocaleString('en-US')} probed when the last change showed): a file copied into a new show's folder, one deleted, one moved, ${r.rounds.length} rounds, each polled in /api/v1 every 50 ms`,
      threshold: `each shows within ${CHANGE_TARGET_MS / 1000} s`,
      measured: `median / slowest: ${kinds.map((kind) => `${kind} ${ms(median(of(kind)))} / ${ms(Math.max(...of(kind)))}`).join(', ')}`,
      ceiling: `Antenna's watcher alone on the same tree, the same operations, to its first event (a new folder at once; a file once its size held still for ${WRITE_FINISH_MS / 1000} s): ${kinds.map((kind) => `${kind} ${ms(median(of(kind, (round) => round.watcher[kind])))}`).join(', ')}`,
      ratio: `slowest ${ms(slowest)}`,
      result: verdict(slowest <= CHANGE_TARGET_MS),
    },
    {
      target: `Answers during that scan: /api/v1/shows and /status asked every 100 ms while the changes were made`,
      threshold: `none over ${ANSWER_TARGET_MS / 1000} s`,
      measured: `/api/v1/shows p50 ${ms(a.shows.p50)}, p99 ${ms(a.shows.p99)}, slowest ${ms(a.shows.max)} (n=${a.shows.n}); /status p50 ${ms(a.status.p50)}, slowest ${ms(a.status.max)}; failed answers: ${a.shows.failures + a.status.failures}`,
      ceiling: `bare node:http answering the same shows list beside it (bench/reads-ceiling-server.mjs): p50 ${ms(a.ceiling.p50)}, p99 ${ms(a.ceiling.p99)}, slowest ${ms(a.ceiling.max)}`,
      ratio: `${(a.shows.p99 / a.ceiling.p99).toFixed(2)}× (p99)`,
      result: verdict(
        Math.max(a.shows.max, a.status.max) <= ANSWER_TARGET_MS && a.shows.failures + a.status.failures === 0,
      ),
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await benchLiveChanges();
  for (const row of liveChangesRows(result, (pass) => (pass ? 'PASS' : 'FAIL')))
    console.log(`${row.result}: ${row.measured}\n  reference: ${row.ceiling}`);
  process.exit(0);
}
