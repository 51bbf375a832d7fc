/**
 * The DVR's figures for `npm run bench` (called by bench/run.mjs):
 * - 10 simultaneous recordings of 8 Mbit/s MPEG-TS streams on loopback, through a real
 *   `antenna server`: its CPU (share of one core) while they record, and the bytes of
 *   each file against the bytes the source sent; beside it, `curl -o` of the same
 *   streams for the same time, as the ceiling;
 * - a 500-channel × 14-day XMLTV guide: import time and peak RSS of the process;
 * - planning jobs for 200 rules over that guide, and re-planning after one rule's edit.
 * The guide and planning figures come from a child process (bench/dvr-guide-child.mjs)
 * running Antenna's built modules, so its peak RSS is the import's own.
 */
import { execFileSync, fork, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeTsClip, startStreamServer } from './ts-stream-server.mjs';

const { fetch } = globalThis;
const STREAMS = 10;
const RECORD_SECONDS = Number(process.env.BENCH_RECORD_SECONDS ?? 30);

let clockTicks;
function cpuMsOf(pid) {
  clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
}

function filesUnder(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(join(entry.parentPath ?? entry.path, entry.name));
  }
  return out;
}

async function waitFor(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: timed out`);
    await sleep(200);
  }
}

/** `curl -o` of every stream for `seconds`: the CPU a bare copy costs. */
async function curlCeiling(server, names, dir, seconds) {
  mkdirSync(dir, { recursive: true });
  const children = names.map((name) =>
    spawn('curl', ['-s', '-o', join(dir, `${name}.ts`), '--max-time', String(seconds + 4), server.url(name)], {
      stdio: 'ignore',
    }),
  );
  await sleep(2000);
  const before = children.map((c) => cpuMsOf(c.pid));
  const started = performance.now();
  await sleep((seconds - 2) * 1000);
  const cpuMs = children.reduce((sum, c, i) => sum + cpuMsOf(c.pid) - before[i], 0);
  const wallMs = performance.now() - started;
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(
    children.map((c) => new Promise((resolve) => (c.exitCode !== null ? resolve() : c.once('exit', resolve)))),
  );
  return { cpuShare: cpuMs / wallMs };
}

async function recordings({ antennaBin, work, log }) {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const clip = await makeTsClip(join(work, 'clip.ts'), { seconds: 4, muxrateKbps: 8000 });
  const server = await startStreamServer(clip.path);
  const names = Array.from({ length: STREAMS }, (_, i) => `ch${i + 1}`);
  writeFileSync(
    join(work, 'channels.m3u'),
    ['#EXTM3U', ...names.map((name, i) => `#EXTINF:-1 tvg-chno="${i + 1}",${name}\n${server.url(name)}`)].join('\n'),
  );
  log(`dvr: ${STREAMS} recordings of 8 Mbit/s for ${RECORD_SECONDS} s`);
  const port = 18000 + Math.floor(Math.random() * 2000);
  const data = join(work, 'data');
  const antenna = spawn(
    process.execPath,
    [
      antennaBin,
      'server',
      '--data',
      data,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--no-sample',
      '--m3u',
      join(work, 'channels.m3u'),
      '--m3u-streams',
      String(STREAMS),
      '--log-level',
      'warn',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitFor(
      async () => {
        try {
          return ((await (await fetch(`${base}/api/v1/channels`)).json()) ?? []).length === STREAMS;
        } catch {
          return false;
        }
      },
      30_000,
      'antenna channels',
    );
    const start = Math.floor(Date.now() / 1000) + 3;
    for (let i = 1; i <= STREAMS; i++) {
      const response = await fetch(`${base}/dvr/rules`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'slot',
          channel: String(i),
          start_time: start,
          duration: RECORD_SECONDS + 60,
          name: `Bench ${i}`,
        }),
      });
      if (response.status !== 201) throw new Error(`rule: ${response.status} ${await response.text()}`);
    }
    await waitFor(() => Date.now() / 1000 >= start + 2, 10_000, 'start');
    const before = cpuMsOf(antenna.pid);
    const started = performance.now();
    await sleep((RECORD_SECONDS - 2) * 1000);
    const cpuMs = cpuMsOf(antenna.pid) - before;
    const wallMs = performance.now() - started;
    // End every stream at the source (and refuse reconnection), so that what the source
    // sent is final; then stop the recordings and compare it with what reached the disk.
    for (const name of names) {
      server.set(name, { kind: 'status', status: 404 });
      server.dropAll(name);
    }
    await sleep(1500);
    const jobs = await (await fetch(`${base}/api/v1/jobs`)).json();
    for (const job of jobs) await fetch(`${base}/dvr/jobs/${job.id}`, { method: 'DELETE' });
    await waitFor(
      async () => (await (await fetch(`${base}/status`)).json()).dvr?.recording?.length === 0,
      20_000,
      'recordings stopped',
    );
    await sleep(500);
    const files = filesUnder(join(data, 'recordings'));
    const recorded = files.reduce((sum, file) => sum + statSync(file).size, 0);
    const sent = names.reduce((sum, name) => sum + server.bytesSent(name), 0);
    const antennaShare = cpuMs / wallMs;
    log(`dvr: antenna ${(antennaShare * 100).toFixed(1)} % of a core; recorded ${recorded} of ${sent} bytes sent`);
    const curl = await curlCeiling(
      server,
      names.map((n) => `${n}-curl`),
      join(work, 'curl'),
      RECORD_SECONDS,
    );
    log(`dvr: curl -o ${(curl.cpuShare * 100).toFixed(1)} % of a core`);
    return {
      streams: STREAMS,
      seconds: RECORD_SECONDS,
      antennaShare,
      curlShare: curl.cpuShare,
      recorded,
      sent,
      files: files.length,
    };
  } finally {
    antenna.kill('SIGTERM');
    await new Promise((resolve) => (antenna.exitCode !== null ? resolve() : antenna.once('exit', resolve)));
    await server.close();
  }
}

function guideAndPlanning({ work, log }) {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  log('dvr: guide import and planning (500 channels × 14 days, 200 rules)');
  return new Promise((resolve, reject) => {
    const child = fork(new URL('./dvr-guide-child.mjs', import.meta.url), [work], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', resolve);
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`guide child exited ${code}`))));
  });
}

export async function benchDvr({ antennaBin, work, log }) {
  const guide = await guideAndPlanning({ work: join(work, 'guide'), log });
  const recording = await recordings({ antennaBin, work: join(work, 'recordings'), log });
  rmSync(work, { recursive: true, force: true });
  return { recording, guide };
}

export function dvrRows(dvr, { fmt, verdict }) {
  const r = dvr.recording;
  const g = dvr.guide;
  const lost = r.sent - r.recorded;
  return [
    {
      target: `DVR: ${r.streams} recordings of 8 Mbit/s, CPU`,
      threshold: '≤ 15 % of one core',
      measured: `${(r.antennaShare * 100).toFixed(1)} %`,
      ceiling: `curl -o: ${(r.curlShare * 100).toFixed(1)} %`,
      ratio: `${(r.antennaShare / Math.max(r.curlShare, 1e-9)).toFixed(2)}×`,
      result: verdict(r.antennaShare <= 0.15),
    },
    {
      target: 'DVR: bytes lost in those recordings',
      threshold: '0',
      measured: `${lost} of ${r.sent} bytes`,
      ceiling: `${r.files} files`,
      ratio: `${((r.recorded / Math.max(r.sent, 1)) * 100).toFixed(3)} %`,
      result: verdict(lost === 0 && r.files === r.streams),
    },
    {
      target: `DVR: guide import (${g.programmes.toLocaleString('en')} programmes, ${fmt.mb ? fmt.mb(g.bytes) : `${(g.bytes / 1e6).toFixed(0)} MB`})`,
      threshold: '≤ 10 s, RSS ≤ 400 MB',
      measured: `${(g.importMs / 1000).toFixed(2)} s, ${(g.peakRss / 1048576).toFixed(0)} MB`,
      ceiling: `parse only: ${(g.parseMs / 1000).toFixed(2)} s`,
      ratio: `${(g.importMs / g.parseMs).toFixed(2)}×`,
      result: verdict(g.importMs <= 10_000 && g.peakRss <= 400 * 1048576),
    },
    {
      target: `DVR: planning jobs for ${g.rules} rules`,
      threshold: '≤ 2 s',
      measured: `${(g.planMs / 1000).toFixed(2)} s (${g.jobs} jobs)`,
      ceiling: `one pass over the guide: ${(g.scanMs / 1000).toFixed(2)} s`,
      ratio: `${(g.planMs / Math.max(g.scanMs, 1)).toFixed(2)}×`,
      result: verdict(g.planMs <= 2000),
    },
    {
      target: `DVR: re-planning after one rule's edit (${g.edits} edits)`,
      threshold: '≤ 100 ms',
      measured: `median ${g.editMedianMs.toFixed(0)} ms, slowest ${g.editMaxMs.toFixed(0)} ms (${g.slowestEdit}); by kind: ${Object.entries(
        g.editKinds,
      )
        .map(([what, ms]) => `${what} ${ms.toFixed(0)} ms`)
        .join(', ')}`,
      ceiling: `a full re-plan: ${(g.planMs / 1000).toFixed(2)} s; a keyword must read every title and summary: SQLite's LIKE over them alone ${g.likeMs.toFixed(0)} ms`,
      ratio: `${(g.editMedianMs / Math.max(g.planMs, 1)).toFixed(3)}×`,
      result: verdict(g.editMedianMs <= 100),
    },
    {
      target: `DVR: the guide exported as XMLTV (${(g.exportBytes / 1e6).toFixed(0)} MB, ${g.programmes.toLocaleString('en-US')} programmes)`,
      threshold: '≥ 50 MB/s',
      measured: `${(g.exportBytes / 1e6 / (g.exportMs / 1000)).toFixed(0)} MB/s (${(g.exportMs / 1000).toFixed(2)} s, median of 3)`,
      ceiling: `a file of the same bytes read through a stream: ${(g.exportBytes / 1e6 / (g.exportFileMs / 1000)).toFixed(0)} MB/s`,
      ratio: `${(g.exportFileMs / g.exportMs).toFixed(2)}×`,
      result: verdict(g.exportBytes / 1e6 / (g.exportMs / 1000) >= 50),
    },
  ];
}
