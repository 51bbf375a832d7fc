/**
 * HLS figures for `npm run bench` (called by bench/run.mjs; `node bench/hls.mjs` runs it
 * alone and prints them), each beside a bare ffmpeg given the same arguments
 * (dist/streaming/hls-ffmpeg-args.js) in the same run:
 * - a remux session's first segment: master playlist asked → seg-0.ts received, against
 *   bare ffmpeg's time to write seg-0.ts;
 * - a remux of a whole 1-hour file: the server's CPU with its ffmpeg, against bare ffmpeg's;
 * - seeks: a segment at a random point of the 1-hour file, asked cold (ffmpeg restarted there);
 * - a 720p software transcode: seconds of media made per second, against bare ffmpeg;
 * - 10 remux sessions at once, each fetching segments as a player does: the server
 *   process's own CPU (ffmpeg excluded) as a share of a core.
 * The server is `antenna server`, a child process; media are made by ffmpeg.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort, median } from './player.mjs';

const { fetch, setInterval, clearInterval } = globalThis;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { fileHlsArgs } = await import(pathToFileURL(join(ROOT, 'dist/streaming/hls-ffmpeg-args.js')).href);
const { chooseVariants } = await import(pathToFileURL(join(ROOT, 'dist/streaming/hls-variants.js')).href);
const { readStreamInfo } = await import(pathToFileURL(join(ROOT, 'dist/media-tools/stream-info.js')).href);

/** utime + stime of a process, and of its waited-for children, in ms. */
function cpuOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const tick = 10; // USER_HZ is 100 on Linux
  return {
    self: (Number(fields[11]) + Number(fields[12])) * tick,
    children: (Number(fields[13]) + Number(fields[14])) * tick,
  };
}

async function text(url) {
  const answer = await fetch(url);
  if (!answer.ok) throw new Error(`${url}: ${answer.status} ${await answer.text()}`);
  return answer.text();
}

async function bytes(url) {
  const answer = await fetch(url);
  if (!answer.ok) throw new Error(`${url}: ${answer.status} ${await answer.text()}`);
  return Buffer.from(await answer.arrayBuffer());
}

function makeMedia(dir, log) {
  mkdirSync(join(dir, 'Videos', 'Bench'), { recursive: true });
  const ten = join(dir, 'ten.mp4');
  const hour = join(dir, 'Videos', 'Bench', 'Hour.mp4');
  const broadcast = join(dir, 'Videos', 'Bench', 'Broadcast.ts');
  log('hls: making a 1-hour H.264 file and a 720p MPEG-2 clip');
  const quiet = ['-hide_banner', '-loglevel', 'error', '-y'];
  execFileSync('ffmpeg', [
    ...quiet,
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=640x360:rate=25:duration=600',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:duration=600',
    '-shortest',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-g',
    '50',
    '-c:a',
    'aac',
    ten,
  ]);
  execFileSync('ffmpeg', [...quiet, '-stream_loop', '5', '-i', ten, '-c', 'copy', hour]);
  execFileSync('ffmpeg', [
    ...quiet,
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=1280x720:rate=25:duration=60',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:duration=60',
    '-shortest',
    '-c:v',
    'mpeg2video',
    '-b:v',
    '6M',
    '-c:a',
    'ac3',
    '-f',
    'mpegts',
    broadcast,
  ]);
  return { hour, broadcast };
}

function probe(path) {
  return readStreamInfo(
    execFileSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', `file:${path}`], {
      encoding: 'utf8',
    }),
  );
}

/** Bare ffmpeg with the server's arguments: time to its first segment, and its whole run's wall time and CPU. */
async function bareFfmpeg(input, variantName, dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const variant = chooseVariants(probe(input)).find((v) => v.name === variantName);
  const args = fileHlsArgs({ input, variant, startSegment: 0, segmentSeconds: 6, outDir: dir, encoder: 'software' });
  const started = performance.now();
  const child = spawn('ffmpeg', args, { stdio: 'ignore' });
  let first;
  while (child.exitCode === null && first === undefined) {
    if (existsSync(join(dir, 'seg-0.ts'))) first = performance.now() - started;
    await sleep(5);
  }
  const cpu = await new Promise((resolve) => {
    // Read the child's own CPU just before it is reaped is racy; /usr/bin/time is not always there: measure via /proc
    // while alive.
    let last = 0;
    const timer = setInterval(() => {
      try {
        const c = cpuOf(child.pid);
        last = c.self;
      } catch {
        /* exited */
      }
    }, 20);
    child.once('exit', () => {
      clearInterval(timer);
      resolve(last);
    });
    if (child.exitCode !== null) {
      clearInterval(timer);
      resolve(last);
    }
  });
  const wall = performance.now() - started;
  rmSync(dir, { recursive: true, force: true });
  return { first: first ?? wall, wall, cpu };
}

async function startServer(antennaBin, dir, port) {
  const log = openSync(join(dir, 'server.log'), 'w');
  const child = spawn(
    process.execPath,
    [
      antennaBin,
      'server',
      '--data',
      join(dir, 'data'),
      '--videos',
      join(dir, 'Videos'),
      '--no-sample',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
    ],
    {
      stdio: ['ignore', log, log],
      env: { ...process.env, ANTENNA_MDNS: 'false', ANTENNA_LOG_LEVEL: 'warn' },
    },
  );
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const status = await (await fetch(`${base}/status`)).json();
      if (status.scan?.last && !status.scan.running && status.scan.probed >= 2) break;
      if (status.scan?.last && !status.scan.running) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error('the server did not finish its scan');
    await sleep(100);
  }
  return { child, base };
}

/** A new session of `id`: its master playlist, and the URL prefix of one rendition. */
async function session(base, id, variant) {
  const master = await text(`${base}/dvr/files/${id}/hls/master.m3u8`);
  const line = master.split('\n').find((l) => l.includes(`/${variant}/stream.m3u8`));
  if (!line) throw new Error(`no ${variant} rendition in ${master}`);
  return `${base}/dvr/files/${id}/hls/${line.replace('stream.m3u8', '')}`;
}

export async function benchHls({ antennaBin, work, log = console.log }) {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const media = makeMedia(work, log);
  const port = await freePort();
  const { child, base } = await startServer(antennaBin, work, port);
  try {
    const items = await (await fetch(`${base}/api/v1/videos`)).json();
    const hour = items.find((item) => item.video_title === 'Hour').id;
    const broadcast = items.find((item) => item.video_title === 'Broadcast').id;

    log('hls: first remux segment (5 sessions) and bare ffmpeg (5 runs)');
    const firsts = [];
    const bareFirsts = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const prefix = await session(base, hour, 'remux');
      await bytes(`${prefix}seg-0.ts`);
      firsts.push(performance.now() - started);
      const bare = await bareFfmpeg(media.hour, 'remux', join(work, 'bare'));
      bareFirsts.push(bare.first);
      if (i === 0) Object.assign(firsts, { bareWhole: bare });
    }

    log('hls: whole-file remux, server + its ffmpeg CPU against bare ffmpeg');
    const beforeCpu = cpuOf(child.pid);
    const prefix = await session(base, hour, 'remux');
    const startedWhole = performance.now();
    // Every segment in order, as fast as they come: one ffmpeg remuxes the whole file.
    for (let index = 0; index < 600; index++) await bytes(`${prefix}seg-${index}.ts`);
    // Its CPU is counted once the server has reaped it.
    let afterCpu = cpuOf(child.pid);
    for (let settled = 0; settled < 3; ) {
      await sleep(300);
      const now = cpuOf(child.pid);
      settled = now.children === afterCpu.children ? settled + 1 : 0;
      afterCpu = now;
    }
    const wholeWall = performance.now() - startedWhole;
    const sessionFfmpegCpu = afterCpu.children - beforeCpu.children;
    const serverServingCpu = afterCpu.self - beforeCpu.self;
    const bareRemux = firsts.bareWhole;

    log('hls: seeks to 12 random points of the hour');
    const seeks = [];
    const seekPrefix = await session(base, hour, 'remux');
    for (let i = 0; i < 12; i++) {
      const index = 30 + Math.floor(Math.random() * 560);
      const started = performance.now();
      await bytes(`${seekPrefix}seg-${index}.ts`);
      seeks.push(performance.now() - started);
    }

    log('hls: 720p software transcode of 60 s of MPEG-2, and bare ffmpeg');
    const tPrefix = await session(base, broadcast, '720p');
    const startedT = performance.now();
    for (let index = 0; index < 10; index++) await bytes(`${tPrefix}seg-${index}.ts`);
    const transcodeWall = performance.now() - startedT;
    const bareTranscode = await bareFfmpeg(media.broadcast, '720p', join(work, 'bare'));

    log('hls: 10 remux sessions at once, 30 s');
    const sessions = await Promise.all(Array.from({ length: 10 }, () => session(base, hour, 'remux')));
    const serverBefore = cpuOf(child.pid).self;
    const startedTen = performance.now();
    let served = 0;
    await Promise.all(
      sessions.map(async (p, n) => {
        // Each as hls.js plays: 30 s of buffer at once, then a segment each time one has played.
        for (let index = n * 50, k = 0; performance.now() - startedTen < 30_000; index++, k++) {
          await bytes(`${p}seg-${index % 600}.ts`);
          served++;
          if (k >= 5) await sleep(6000);
        }
      }),
    );
    const tenWall = performance.now() - startedTen;
    const serverShare = (cpuOf(child.pid).self - serverBefore) / tenWall;

    return {
      first: { median: median(firsts), bare: median(bareFirsts) },
      remuxCpu: {
        ffmpeg: sessionFfmpegCpu,
        serving: serverServingCpu,
        bare: bareRemux.cpu,
        wall: wholeWall,
        bareWall: bareRemux.wall,
      },
      seek: { median: median(seeks), max: Math.max(...seeks) },
      transcode: { factor: 60 / (transcodeWall / 1000), bareFactor: 60 / (bareTranscode.wall / 1000) },
      ten: { share: serverShare, served },
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
    rmSync(work, { recursive: true, force: true });
  }
}

export function hlsRows(hls, { fmt, verdict }) {
  const cores = (ms) => `${(ms / 1000).toFixed(2)} s CPU`;
  return [
    {
      target: 'HLS: first remux segment (master playlist asked → seg-0.ts received)',
      threshold: '≤ 1.5 s',
      measured: fmt.ms(hls.first.median),
      ceiling: `bare ffmpeg writes seg-0.ts: ${fmt.ms(hls.first.bare)}`,
      ratio: `${(hls.first.median / Math.max(hls.first.bare, 1e-6)).toFixed(1)}×`,
      result: verdict(hls.first.median <= 1500),
    },
    {
      target: "HLS: remux of a 1-hour file played through (600 segments), the session's ffmpeg CPU",
      threshold: '≤ 1.2× bare ffmpeg',
      measured: `${cores(hls.remuxCpu.ffmpeg)} (and the server sending 600 segments over loopback: ${cores(hls.remuxCpu.serving)})`,
      ceiling: `bare ffmpeg: ${cores(hls.remuxCpu.bare)}`,
      ratio: `${(hls.remuxCpu.ffmpeg / Math.max(hls.remuxCpu.bare, 1)).toFixed(2)}×`,
      result: verdict(hls.remuxCpu.ffmpeg <= 1.2 * hls.remuxCpu.bare),
    },
    {
      target: 'HLS: a seek to a random point of a 1-hour file (a cold segment)',
      threshold: 'median ≤ 2 s',
      measured: `median ${fmt.ms(hls.seek.median)}, max ${fmt.ms(hls.seek.max)}`,
      ceiling: `bare ffmpeg's first segment: ${fmt.ms(hls.first.bare)}`,
      ratio: `${(hls.seek.median / Math.max(hls.first.bare, 1e-6)).toFixed(1)}×`,
      result: verdict(hls.seek.median <= 2000),
    },
    {
      target: 'HLS: 720p software transcode (libx264 veryfast), media seconds per second',
      threshold: '≥ 1.5× real time',
      measured: `${hls.transcode.factor.toFixed(2)}×`,
      ceiling: `bare ffmpeg: ${hls.transcode.bareFactor.toFixed(2)}×`,
      ratio: `${((hls.transcode.factor / hls.transcode.bareFactor) * 100).toFixed(0)} %`,
      result: verdict(hls.transcode.factor >= 1.5),
    },
    {
      target: `HLS: 10 remux sessions at once, each played as hls.js does (${hls.ten.served} segments in 30 s), server CPU without ffmpeg`,
      threshold: '≤ 5 % of a core',
      measured: `${(hls.ten.share * 100).toFixed(1)} %`,
      ceiling: '—',
      ratio: '—',
      result: verdict(hls.ten.share <= 0.05),
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await benchHls({ antennaBin: join(ROOT, 'bin', 'antenna'), work: join(ROOT, '.bench', 'hls') });
  const fmt = { ms: (ms) => `${ms < 10 ? ms.toFixed(2) : ms.toFixed(0)} ms` };
  for (const row of hlsRows(result, { fmt, verdict: (ok) => (ok ? 'PASS' : 'FAIL') }))
    console.log(`${row.result}  ${row.target}: ${row.measured} | ${row.ceiling} | ${row.ratio}`);
}
