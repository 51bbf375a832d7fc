/**
 * The importer's figures for `npm run bench` (called by bench/run.mjs):
 * - first scan of a 20,000-file tree (names only, empty files, probing off): files/s;
 * - no-change rescan of a 100,000-file tree: seconds, and the ratio to `find` over it;
 * - probing real small files: Antenna's probe phase against the same number of bare
 *   ffprobe processes run with the same parallelism on the same files;
 * - peak RSS of `antenna scan` during the 100,000-file scans.
 * Each scan is a real `antenna scan --json` process on its own data directory.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';

const SMALL = 20_000;
const LARGE = 100_000;
const PROBE_FILES = 24;

const touch = (path) => writeFileSync(path, '');

/**
 * A tree of `total` media files: 60 % episodes, 30 % movies, 10 % videos, with NFO and
 * artwork beside some. Media files are empty unless `makeMedia(path)` makes them (the
 * peer row, bench/scan-peer.mjs, hard-links real clips under the same names).
 */
export function generateTree(root, total, makeMedia = touch) {
  rmSync(root, { recursive: true, force: true });
  const episodes = Math.round(total * 0.6);
  const movies = Math.round(total * 0.3);
  const videos = total - episodes - movies;
  let made = 0;
  for (let show = 0; made < episodes; show++) {
    const showDir = join(root, 'TV', `Show ${show} (${1990 + (show % 30)})`);
    mkdirSync(showDir, { recursive: true });
    touch(join(showDir, 'tvshow.nfo'));
    for (let season = 1; season <= 4 && made < episodes; season++) {
      const seasonDir = join(showDir, `Season ${String(season).padStart(2, '0')}`);
      mkdirSync(seasonDir);
      for (let episode = 1; episode <= 25 && made < episodes; episode++, made++) {
        makeMedia(
          join(
            seasonDir,
            `Show ${show} - S${String(season).padStart(2, '0')}E${String(episode).padStart(2, '0')} - Episode ${episode}.mkv`,
          ),
        );
      }
    }
  }
  for (let movie = 0; movie < movies; movie++) {
    const dir = join(root, 'Movies', `Movie Number ${movie} (${1950 + (movie % 70)})`);
    mkdirSync(dir, { recursive: true });
    makeMedia(join(dir, `Movie Number ${movie} (${1950 + (movie % 70)}).mkv`));
    if (movie % 2 === 0) touch(join(dir, 'poster.jpg'));
  }
  for (let video = 0; video < videos; video++) {
    const dir = join(root, 'Videos', `Group ${Math.floor(video / 50)}`);
    mkdirSync(dir, { recursive: true });
    makeMedia(join(dir, `Clip ${video}.mp4`));
  }
  return { episodes, movies, videos };
}

export function rootsArgs(root) {
  return ['--tv', join(root, 'TV'), '--movies', join(root, 'Movies'), '--videos', join(root, 'Videos')];
}

/** Runs `antenna scan --json`, sampling its RSS every 20 ms; returns the summary, wall time and peak RSS. */
function scan(antennaBin, data, root, extra = []) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [antennaBin, 'scan', '--data', data, ...rootsArgs(root), '--json', ...extra],
      {
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    let out = '';
    let peak = 0;
    const sampler = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const kb = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
        peak = Math.max(peak, kb * 1024);
      } catch {
        // exited between samples
      }
    }, 20);
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(sampler);
      if (code !== 0) reject(new Error(`antenna scan exited ${code}`));
      else resolve({ summary: JSON.parse(out), wallMs: performance.now() - started, peakRss: peak });
    });
  });
}

function timeFind(root) {
  const started = performance.now();
  execFileSync('find', [root, '-type', 'f', '-printf', '%s %T@ %p\n'], {
    stdio: ['ignore', 'ignore', 'ignore'],
    maxBuffer: 1 << 30,
  });
  return performance.now() - started;
}

async function bareProbe(files, parallel) {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++];
      await new Promise((resolve, reject) =>
        spawn(
          'ffprobe',
          ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '-show_chapters', `file:${file}`],
          {
            stdio: ['ignore', 'ignore', 'ignore'],
          },
        ).on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`ffprobe exited ${code}`)))),
      );
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return performance.now() - started;
}

function makeProbeFiles(root) {
  rmSync(root, { recursive: true, force: true });
  const dir = join(root, 'Videos', 'Clips');
  mkdirSync(dir, { recursive: true });
  const first = join(dir, 'clip-0.mp4');
  execFileSync('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=320x240:rate=10:duration=2',
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
    first,
  ]);
  const files = [first];
  for (let i = 1; i < PROBE_FILES; i++) {
    const copy = join(dir, `clip-${i}.mp4`);
    // Same streams remuxed with a comment of their own: each is its own (well-formed) file to Antenna.
    // (Bytes appended to a copy would make an MP4 whose last box claims more than the file holds: a truncated file.)
    execFileSync('ffmpeg', [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-i',
      first,
      '-c',
      'copy',
      '-metadata',
      `comment=copy ${i}`,
      copy,
    ]);
    files.push(copy);
  }
  return files;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Measures everything; `work` is a scratch folder, `log` prints progress. */
export async function benchImporter({ antennaBin, work, log, rounds = 3 }) {
  const small = join(work, 'tree-20k');
  const large = join(work, 'tree-100k');
  const probeRoot = join(work, 'probe');
  const results = {};

  log(`importer: generating a ${SMALL.toLocaleString('en-US')}-file tree...`);
  results.smallTree = generateTree(small, SMALL);
  const firstScans = [];
  for (let round = 0; round < rounds; round++) {
    const data = join(work, `data-20k-${round}`);
    rmSync(data, { recursive: true, force: true });
    firstScans.push(await scan(antennaBin, data, small, ['--no-probe']));
    rmSync(data, { recursive: true, force: true });
  }
  results.firstScan = {
    ms: median(firstScans.map((s) => s.summary.durationMs)),
    wallMs: median(firstScans.map((s) => s.wallMs)),
    added: firstScans[0].summary.added,
    findMs: median([timeFind(small), timeFind(small), timeFind(small)]),
  };
  log(
    `importer: first scan of ${SMALL} files: ${results.firstScan.ms} ms in the scan, ${Math.round(results.firstScan.wallMs)} ms with process start`,
  );

  log(`importer: generating a ${LARGE.toLocaleString('en-US')}-file tree...`);
  results.largeTree = generateTree(large, LARGE);
  const data = join(work, 'data-100k');
  rmSync(data, { recursive: true, force: true });
  const initial = await scan(antennaBin, data, large, ['--no-probe']);
  log(`importer: first scan of ${LARGE} files: ${initial.summary.durationMs} ms`);
  const rescans = [];
  const finds = [];
  for (let round = 0; round < rounds; round++) {
    // Alternate which goes first, so the page cache favours neither.
    if (round % 2) finds.push(timeFind(large));
    rescans.push(await scan(antennaBin, data, large, ['--no-probe']));
    if (!(round % 2)) finds.push(timeFind(large));
  }
  results.rescan = {
    ms: median(rescans.map((s) => s.summary.durationMs)),
    wallMs: median(rescans.map((s) => s.wallMs)),
    unchanged: rescans[0].summary.unchanged,
    findMs: median(finds),
    peakRss: Math.max(initial.peakRss, ...rescans.map((s) => s.peakRss)),
    firstMs: initial.summary.durationMs,
  };
  log(`importer: no-change rescan ${results.rescan.ms} ms, find ${Math.round(results.rescan.findMs)} ms`);
  rmSync(data, { recursive: true, force: true });

  log(`importer: probing ${PROBE_FILES} real files...`);
  const files = makeProbeFiles(probeRoot);
  const parallel = availableParallelism();
  const probes = [];
  const bare = [];
  for (let round = 0; round < rounds; round++) {
    const probeData = join(work, `data-probe-${round}`);
    rmSync(probeData, { recursive: true, force: true });
    if (round % 2) bare.push(await bareProbe(files, parallel));
    const probed = await scan(antennaBin, probeData, probeRoot);
    if (probed.summary.probed !== files.length) throw new Error(`probed ${probed.summary.probed} of ${files.length}`);
    probes.push(probed.summary.probeMs);
    if (!(round % 2)) bare.push(await bareProbe(files, parallel));
    rmSync(probeData, { recursive: true, force: true });
  }
  results.probe = {
    files: files.length,
    parallel,
    antennaMs: median(probes),
    bareMs: median(bare),
    rounds: { antenna: probes, bare },
  };
  log(
    `importer: probing ${files.length} files: Antenna ${results.probe.antennaMs} ms, bare ffprobe ${Math.round(results.probe.bareMs)} ms`,
  );

  for (const dir of [small, large, probeRoot]) rmSync(dir, { recursive: true, force: true });
  return results;
}

/** Table rows in run.mjs's shape. */
export function importerRows(results, { fmt, verdict }) {
  const filesPerSecond = (results.firstScan.added / results.firstScan.ms) * 1000;
  const rescanRatio = results.rescan.ms / results.rescan.findMs;
  const probeRatio = results.probe.bareMs / results.probe.antennaMs;
  return [
    {
      target: `Importer: first scan of ${SMALL.toLocaleString('en-US')} files (empty, probing off), into the database`,
      threshold: '≥ 5,000 files/s',
      measured: `${Math.round(filesPerSecond).toLocaleString('en-US')} files/s (${fmt.ms(results.firstScan.ms)})`,
      ceiling: `find: ${fmt.ms(results.firstScan.findMs)}`,
      ratio: fmt.times(results.firstScan.ms / results.firstScan.findMs),
      result: verdict(filesPerSecond >= 5000),
    },
    {
      target: `Importer: no-change rescan of ${LARGE.toLocaleString('en-US')} files`,
      threshold: '≤ 3 s and ≤ 4× find',
      measured: fmt.ms(results.rescan.ms),
      ceiling: `find: ${fmt.ms(results.rescan.findMs)}`,
      ratio: fmt.times(rescanRatio),
      result: verdict(results.rescan.ms <= 3000 && rescanRatio <= 4),
    },
    {
      target: `Importer: probing ${results.probe.files} real small files (${results.probe.parallel} at a time)`,
      threshold: '≥ 80 % of bare ffprobe',
      measured: fmt.ms(results.probe.antennaMs),
      ceiling: `bare ffprobe: ${fmt.ms(results.probe.bareMs)}`,
      ratio: fmt.ratio(probeRatio),
      result: verdict(probeRatio >= 0.8),
    },
    {
      target: `Importer: peak RSS of \`antenna scan\` over the ${LARGE.toLocaleString('en-US')}-file scans (VmHWM)`,
      threshold: '≤ 300 MB',
      measured: fmt.mb(results.rescan.peakRss),
      ceiling: '—',
      ratio: '—',
      result: verdict(results.rescan.peakRss <= 300 * 1024 * 1024),
    },
  ];
}
