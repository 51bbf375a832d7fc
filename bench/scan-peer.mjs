/**
 * The importer's peer row for `npm run bench` (called by bench/run.mjs after the importer):
 * one tree of REAL media files, scanned in the same run by
 * - minidlna (Debian's package, installed when missing and we are root): its first scan
 *   into a fresh database of its own, spawn to the end of the scan in its log;
 * - `antenna scan --json --no-thumbnails` with probing, spawn to "every file has its duration"
 *   (thumbnails are not part of what minidlna does; the server makes them later);
 * - `antenna scan --json --no-probe` (names only), for contrast.
 * Every file is a hard link to one of three short clips: the page cache holds all the tree's
 * bytes, so what is measured is each program's own work per file, not the disk's.
 * gerbera is not driven (yet): the result only says whether it is installed.
 * Standalone: `node bench/scan-peer.mjs [files]` prints the rows and the figures.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { extname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { clearInterval, setInterval } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { generateTree, rootsArgs } from './importer.mjs';
import { freePort } from './player.mjs';

const CLIP_SECONDS = [2, 3, 4];
// A peer that hangs must not hold the whole bench: 20,000 files take minutes, not hours.
const LIMIT_MS = 90 * 60 * 1000;
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Three short clips (160x90 H.264 + AAC) as MP4, each remuxed to Matroska too, so every name's extension tells the
 * truth.
 */
function makeClips(dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const quiet = ['-hide_banner', '-loglevel', 'error', '-y'];
  return CLIP_SECONDS.map((length) => {
    const mp4 = join(dir, `clip-${length}s.mp4`);
    const mkv = join(dir, `clip-${length}s.mkv`);
    execFileSync('ffmpeg', [
      ...quiet,
      '-f',
      'lavfi',
      '-i',
      `testsrc2=size=160x90:rate=25:duration=${length}`,
      '-f',
      'lavfi',
      '-i',
      `sine=frequency=440:duration=${length}`,
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
      '-c:a',
      'aac',
      '-b:a',
      '32k',
      '-shortest',
      mp4,
    ]);
    execFileSync('ffmpeg', [...quiet, '-i', mp4, '-c', 'copy', mkv]);
    return { '.mp4': mp4, '.mkv': mkv };
  });
}

/**
 * bench/importer.mjs's tree and names, each media file a hard link to a real clip (the clips in `${root}-clips`: same
 * file system).
 */
export function generateRealTree(root, total = 20_000) {
  const clips = makeClips(`${root}-clips`);
  let made = 0;
  const counts = generateTree(root, total, (path) => linkSync(clips[made++ % clips.length][extname(path)], path));
  // generateTree's tvshow.nfo files are empty, which Antenna reports as failures: real ones here.
  for (const show of readdirSync(join(root, 'TV'))) {
    writeFileSync(
      join(root, 'TV', show, 'tvshow.nfo'),
      `<?xml version="1.0" encoding="UTF-8"?>\n<tvshow><title>${show.replace(/ \(\d+\)$/, '')}</title></tvshow>\n`,
    );
  }
  return { ...counts, files: made };
}

/**
 * Every 20 ms: the sum of VmRSS over a process and its descendants (minidlna scans in a fork, Antenna
 * probes in ffprobe children; shared pages count once per process, so an upper bound), and the largest VmHWM.
 */
function sampleTree(rootPid) {
  const peak = { tree: 0, process: 0 };
  const field = (status, name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  const timer = setInterval(() => {
    let sum = 0;
    for (const pending = [rootPid]; pending.length > 0; ) {
      const pid = pending.pop();
      try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        sum += field(status, 'VmRSS');
        peak.process = Math.max(peak.process, field(status, 'VmHWM'));
        for (const task of readdirSync(`/proc/${pid}/task`)) {
          pending.push(
            ...readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
          );
        }
      } catch {
        // exited between samples
      }
    }
    peak.tree = Math.max(peak.tree, sum);
  }, 20);
  return { peak: () => ({ ...peak }), stop: () => (clearInterval(timer), { ...peak }) };
}

/** A program on PATH or in the sbin folders (minidlnad is in /usr/sbin, which a user's PATH may lack). */
function findProgram(name) {
  const dirs = [...(process.env.PATH ?? '').split(':').filter(Boolean), '/usr/local/sbin', '/usr/sbin', '/sbin'];
  return dirs
    .map((dir) => join(dir, name))
    .find((path) => {
      try {
        return accessSync(path, constants.X_OK) === undefined;
      } catch {
        return false;
      }
    });
}

/** minidlnad, installed with apt-get when missing and we are root; else why not. */
function ensureMinidlna(log) {
  const found = findProgram('minidlnad');
  if (found) return { bin: found };
  if (process.getuid?.() !== 0) return { reason: 'minidlna is not installed, and the bench is not root to install it' };
  const aptGet = (...args) =>
    execFileSync('apt-get', args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  log('peer: installing minidlna (apt-get install -y minidlna)...');
  try {
    aptGet('update'); // the package lists may be stale, or absent (a fresh container)
    aptGet('install', '-y', '--no-install-recommends', 'minidlna');
  } catch (error) {
    return {
      reason: `apt-get install minidlna failed: ${String(error.stderr ?? error.message)
        .trim()
        .split('\n')
        .slice(-2)
        .join(' ')}`,
    };
  }
  const bin = findProgram('minidlnad');
  return bin ? { bin, installed: true } : { reason: 'apt-get installed minidlna, but there is no minidlnad' };
}

/**
 * A process group of its own, so that stop() (SIGTERM, then SIGKILL) reaches minidlna's scanner fork; killed too if the
 * bench exits first.
 */
function spawnGroup(bin, args) {
  const child = spawn(bin, args, { stdio: 'ignore', detached: true });
  const signal = (name) => {
    try {
      process.kill(-child.pid, name);
    } catch {
      // already gone
    }
  };
  const onExit = () => signal('SIGKILL');
  process.once('exit', onExit);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.stop = async () => {
    process.off('exit', onExit);
    signal('SIGTERM');
    if (await Promise.race([exited.then(() => false), sleep(5000).then(() => true)])) signal('SIGKILL');
    await exited;
  };
  return child;
}

/**
 * minidlna's first scan of `tree`, its config in `dir`: one media_dir, as only then does it log "Scanning <dir>
 * finished (N files)!"; on loopback (off the network, as the bench's servers are); no inotify. Done at the
 * scan's last log line, "Finished parsing playlists.", which follows that one.
 */
async function benchMinidlna(tree, dir, log) {
  const found = ensureMinidlna(log);
  if (!found.bin) return { available: false, reason: found.reason };
  const version = execFileSync(found.bin, ['-V'], { encoding: 'utf8' })
    .trim()
    .replace(/^Version /, '');
  rmSync(dir, { recursive: true, force: true });
  for (const sub of ['db', 'log']) mkdirSync(join(dir, sub), { recursive: true });
  const conf = join(dir, 'minidlna.conf');
  const settings = [
    `media_dir=V,${tree}`,
    `db_dir=${join(dir, 'db')}`,
    `log_dir=${join(dir, 'log')}`,
    `port=${await freePort()}`,
    'inotify=no',
    'network_interface=lo',
  ];
  writeFileSync(conf, `${settings.join('\n')}\nfriendly_name=antenna-bench-peer\n`);
  const logFile = join(dir, 'log', 'minidlna.log');
  const started = performance.now();
  // -S: in the foreground (no daemon), logging to log_dir.
  const child = spawnGroup(found.bin, ['-S', '-f', conf, '-P', join(dir, 'minidlna.pid')]);
  const sampler = sampleTree(child.pid);
  let exit;
  child.once('exit', (code, signal) => (exit = { code, signal }));
  let finished;
  let doneMs;
  let peak;
  try {
    while (doneMs === undefined) {
      await sleep(20);
      const now = performance.now() - started;
      const text = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
      const line = /Scanning .* finished \((\d+) files\)!/.exec(text);
      finished ??= line ? { ms: now, files: Number(line[1]) } : undefined;
      if (finished && /Finished parsing playlists|Playlist creation disabled/.test(text.slice(line.index)))
        doneMs = now;
      // Should a later minidlna drop that last line, the scan's own end line stands.
      else if (finished && now - finished.ms > 10_000) doneMs = finished.ms;
      else if (exit)
        return {
          available: false,
          reason: `minidlnad exited (${JSON.stringify(exit)}) before its scan finished: ${text.trim().split('\n').slice(-2).join(' ')}`,
        };
      else if (now > LIMIT_MS)
        return { available: false, reason: `minidlna's scan did not finish within ${seconds(LIMIT_MS)}` };
    }
  } finally {
    peak = sampler.stop();
    await child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    available: true,
    version,
    installed: Boolean(found.installed),
    files: finished.files,
    wallMs: doneMs,
    scanEndMs: finished.ms,
    peakRss: peak.tree,
    peakProcess: peak.process,
  };
}

/**
 * `antenna scan --json` (`extra`: --no-probe), memory over its process tree (the walk has a process of its own).
 * Its database, read every 250 ms (read-only beside the writer: WAL), tells when every file is listed and when
 * every one has its duration (its progress lines off a terminal come once per phase). Thumbnails come after.
 */
function antennaScan(antennaBin, data, tree, files, extra = []) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [antennaBin, 'scan', '--data', data, ...rootsArgs(tree), '--json', ...extra],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const sampler = sampleTree(child.pid);
    const marks = {};
    let db;
    const poll = setInterval(() => {
      try {
        db ??= new Database(join(data, 'antenna.db'), { readonly: true, fileMustExist: true }); // databasePath() in src/db/database.ts
        const { listed, timed } = db
          .prepare(
            'SELECT count(*) AS listed, count(i.duration) AS timed FROM import_files f JOIN items i ON i.id = f.item_id',
          )
          .get();
        marks.listed ??= listed >= files ? performance.now() - started : undefined;
        // Memory beside minidlna's is up to here too: the thumbnails' ffmpeg comes after.
        marks.probed ??= timed >= files ? { ms: performance.now() - started, peak: sampler.peak() } : undefined;
      } catch {
        // not created, or not migrated, yet
      }
    }, 250);
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err = (err + chunk).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const wallMs = performance.now() - started;
      clearTimeout(timer);
      clearInterval(poll);
      db?.close();
      const peak = sampler.stop();
      if (code !== 0)
        return reject(
          new Error(`antenna scan exited ${code ?? signal}: ${err.trim().split('\n').slice(-3).join(' ')}`),
        );
      const probed = marks.probed ?? { ms: wallMs, peak };
      resolve({
        summary: JSON.parse(out),
        wallMs,
        listedMs: marks.listed,
        probedMs: probed.ms,
        probedAt: marks.probed ? 'database' : 'exit',
        peakRss: probed.peak.tree,
        peakProcess: probed.peak.process,
        peakRssToExit: peak.tree,
      });
    });
  });
}

/**
 * Measures everything; `work` is a scratch folder of its own (emptied), `log` prints progress, `files` the tree's size.
 */
export async function benchScanPeer({ antennaBin, work, log = console.log, files = 20_000 }) {
  const tree = join(work, 'tree');
  rmSync(work, { recursive: true, force: true }); // fresh data directories and tree, whatever an interrupted run left
  log(`peer: generating a ${files.toLocaleString('en-US')}-file tree of hard-linked real clips...`);
  const counts = generateRealTree(tree, files);
  const result = { files: counts.files, tree: counts };

  log('peer: minidlna, first scan...');
  const m = (result.minidlna = await benchMinidlna(tree, join(work, 'minidlna'), log));
  log(`peer: minidlna ${m.available ? `${m.files} files in ${seconds(m.wallMs)}` : `not measured: ${m.reason}`}`);
  const gerbera = findProgram('gerbera');
  result.gerbera = {
    available: false,
    reason: gerbera ? `installed (${gerbera}), but not driven by this bench yet` : 'not installed',
  };

  log('peer: Antenna, names only (--no-probe)...');
  const names = await antennaScan(antennaBin, join(work, 'data-names'), tree, result.files, ['--no-probe']);
  result.namesOnly = {
    wallMs: names.wallMs,
    peakRss: names.peakRssToExit,
    summary: { added: names.summary.added, durationMs: names.summary.durationMs, failed: names.summary.failed.length },
  };
  log(`peer: names only, ${names.summary.added} files in ${seconds(names.wallMs)}; Antenna, with probing...`);
  const probed = await antennaScan(antennaBin, join(work, 'data-probe'), tree, result.files, ['--no-thumbnails']);
  const { added, probed: probedFiles, durationMs, probeMs, thumbnails, failed } = probed.summary;
  result.antenna = {
    ...probed,
    summary: {
      added,
      probed: probedFiles,
      durationMs,
      probeMs,
      thumbnails,
      failed: failed.length,
      firstFailures: failed.slice(0, 3),
    },
  };
  log(
    `peer: ${probedFiles} of ${added} probed ${seconds(probed.probedMs)} after spawn; exit at ${seconds(probed.wallMs)}`,
  );

  rmSync(work, { recursive: true, force: true });
  return result;
}

/** Table rows in run.mjs's shape. */
export function scanPeerRows(result, { fmt, verdict }) {
  const n = result.files.toLocaleString('en-US');
  const { minidlna: m, antenna: a, namesOnly: names } = result;
  const figures = (files, ms, rss) =>
    `${Math.round((files / ms) * 1000).toLocaleString('en-US')} files/s (${seconds(ms)}), peak RSS ${fmt.mb(rss)}`;
  const beside = m.available
    ? `minidlna: ${figures(m.files, m.wallMs, m.peakRss)}`
    : `minidlna not measured: ${m.reason}`;
  const allProbed = a.summary.probed === result.files && a.summary.failed === 0;
  const ratio = m.available ? a.probedMs / m.wallMs : Number.NaN;
  const ok = allProbed && ratio <= 1;
  let why = ok
    ? ''
    : ` (${ratio.toFixed(1)}× slower than minidlna, which parses in C in one process: the reading processes, the walk and the database writes share the cores)`;
  if (!m.available) why = ' (no minidlna to compare with)';
  if (!allProbed) why = ` (${a.summary.probed} of ${n} probed, ${a.summary.failed} failed)`;
  if (a.probedAt !== 'database' && a.summary.thumbnails > 0)
    why += " (timed to exit, thumbnails included: the database never showed every file's duration)";
  return [
    {
      target: `Importer peer: minidlna${m.version ? ` ${m.version}` : ''} first scan of ${n} real clips (fresh database, spawn to the end of its scan in its log; ${m.available ? `${m.files.toLocaleString('en-US')} files found` : 'not run'})`,
      measured: m.available ? figures(m.files, m.wallMs, m.peakRss) : `not measured: ${m.reason}`,
      ceiling: m.available ? `largest process ${fmt.mb(m.peakProcess)}` : '—',
      threshold: 'reported',
      ratio: '—',
      result: 'reported',
    },
    {
      target: `Importer: first scan of the same ${n} clips with probing (\`--no-thumbnails\`), until every file has its duration (spawn to the last probe; exit at ${seconds(a.wallMs)})`,
      threshold: "≤ minidlna's first scan (issue 17/22)",
      measured: figures(result.files, a.probedMs, a.peakRss),
      ceiling: beside,
      ratio: m.available ? fmt.times(ratio) : '—',
      result: (m.available || !allProbed ? verdict(ok) : 'not compared') + why,
    },
    {
      target: `Importer: first scan of the same ${n} clips, names only (\`--no-probe\`, spawn to exit): every file listed`,
      threshold: 'reported', // beside the row above: what the walk and the database cost without probing
      measured: figures(names.summary.added, names.wallMs, names.peakRss),
      ceiling: beside,
      ratio: m.available ? fmt.times(names.wallMs / m.wallMs) : '—',
      result: names.summary.added === result.files ? 'reported' : `FAIL (${names.summary.added} of ${n} listed)`,
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const result = await benchScanPeer({
    antennaBin: join(root, 'bin', 'antenna'),
    work: join(root, '.bench', 'scan-peer'),
    files: Number(process.argv[2]) || 2000,
  });
  const fmt = { mb: (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`, times: (x) => `${x.toFixed(2)}×` };
  const rows = scanPeerRows(result, { fmt, verdict: (ok) => (ok ? 'PASS' : 'FAIL') });
  for (const row of rows) console.log(`${row.result}  ${row.target}: ${row.measured} | ${row.ceiling} | ${row.ratio}`);
  console.log(JSON.stringify(result));
}
