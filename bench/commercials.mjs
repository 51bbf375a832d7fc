/**
 * Commercial detection's accuracy (issue 40, for `npm run bench`): the labelled broadcasts of
 * bench/broadcast-set.mjs, each run through Antenna's detectCommercials (the built
 * dist/dvr/recording/comskip.js: the real comskip with COMSKIP_INI) and, beside it, through
 * comskip bare: its built-in defaults, an ini holding only `output_edl=1` (so that it writes
 * the EDL we read; nothing else set), run in an empty directory (no comskip.ini to find there).
 * Measured over the whole set: the share of ad seconds skipped and of programme seconds
 * skipped by mistake (scoreDetection; a second either side of each true boundary counts for
 * neither), breaks found, and comskip's speed in media seconds per wall second, one file at a
 * time. Run alone: `node bench/commercials.mjs` (after `npx tsc -p tsconfig.build.json`).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { comskipArgs, detectCommercials, parseEdl } from '../dist/dvr/recording/comskip.js';
import { makeBroadcastSet, pairsOf, scoreDetection, sumScores } from './broadcast-set.mjs';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const AD_TARGET = 0.95;
const PROGRAMME_TARGET = 0.01;
export const BARE_INI = 'output_edl=1\n';

/** comskip with nothing but output_edl=1, in an empty directory of its own; its cuts as flat seconds. */
async function detectBare(file, workDir) {
  mkdirSync(workDir, { recursive: true });
  const dir = mkdtempSync(join(workDir, 'bare-'));
  try {
    const ini = join(dir, 'bare.ini');
    writeFileSync(ini, BARE_INI);
    const out = join(dir, 'out');
    mkdirSync(out);
    await run('comskip', comskipArgs(file, out, ini), { cwd: dir, maxBuffer: 16 * 1024 * 1024 }).catch((error) => {
      // 1: no commercials found, which is an answer.
      if (error.code !== 1) throw error;
    });
    let edl = '';
    try {
      edl = readFileSync(join(out, 'commercials.edl'), 'utf8');
    } catch {
      // none written: none found
    }
    return parseEdl(edl);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function timed(detect, file) {
  const started = performance.now();
  const flat = await detect();
  return { spans: pairsOf(flat), ms: performance.now() - started, file };
}

export async function benchCommercials({ work, log = () => {} }) {
  const setDir = join(work, 'set');
  const made = performance.now();
  const set = await makeBroadcastSet(setDir);
  const generateMs = performance.now() - made;
  log(`commercials: ${set.length} broadcasts ready in ${(generateMs / 1000).toFixed(1)} s`);
  const scratch = join(work, 'scratch');
  const files = [];
  for (const broadcast of set) {
    const antenna = await timed(() => detectCommercials(broadcast.path, { workDir: scratch }), broadcast.path);
    const bare = await timed(() => detectBare(broadcast.path, scratch), broadcast.path);
    const entry = {
      name: broadcast.name,
      duration: broadcast.duration,
      breaks: broadcast.breaks,
      antenna: {
        ...scoreDetection(broadcast.breaks, antenna.spans, broadcast.duration),
        spans: antenna.spans,
        ms: antenna.ms,
      },
      bare: { ...scoreDetection(broadcast.breaks, bare.spans, broadcast.duration), spans: bare.spans, ms: bare.ms },
    };
    log(
      `commercials: ${entry.name}: ads ${pct(entry.antenna.adShare)} / programme ${pct(entry.antenna.programmeShare)}` +
        ` (bare ${pct(entry.bare.adShare)} / ${pct(entry.bare.programmeShare)})`,
    );
    files.push(entry);
  }
  rmSync(scratch, { recursive: true, force: true });
  const seconds = files.reduce((sum, f) => sum + f.duration, 0);
  const speed = (key) => seconds / (files.reduce((sum, f) => sum + f[key].ms, 0) / 1000);
  return {
    generateMs,
    seconds,
    files,
    antenna: { ...sumScores(files.map((f) => f.antenna)), speed: speed('antenna') },
    bare: { ...sumScores(files.map((f) => f.bare)), speed: speed('bare') },
  };
}

const pct = (share) => `${(share * 100).toFixed(share < 0.1 && share > 0 ? 2 : 1)} %`;

export function commercialsRows(result, { verdict }) {
  const { antenna: a, bare: b, files } = result;
  const minutes = Math.round(result.seconds / 60);
  const set = `${files.length} broadcasts, ${minutes} min, ${a.breaks} breaks (bench/broadcast-set.mjs)`;
  const bare = 'bare comskip (its defaults; an ini of only output_edl=1)';
  const perFile = (key, side) => files.map((f) => `${f.name} ${pct(f[side][key])}`).join(', ');
  return [
    {
      target: `Commercials: share of ad seconds skipped, ${set}; per file: ${perFile('adShare', 'antenna')}`,
      threshold: `≥ ${AD_TARGET * 100} %`,
      measured: `${pct(a.adShare)} of ${Math.round(a.adSeconds)} s; ${a.breaksFound}/${a.breaks} breaks`,
      ceiling: `${bare}: ${pct(b.adShare)}; ${b.breaksFound}/${b.breaks} breaks`,
      ratio: '',
      result: verdict(a.adShare >= AD_TARGET),
    },
    {
      target:
        'Commercials: share of programme seconds skipped by mistake, the same set; ' +
        `per file: ${perFile('programmeShare', 'antenna')}`,
      threshold: `< ${PROGRAMME_TARGET * 100} %`,
      measured: `${pct(a.programmeShare)} of ${Math.round(a.programmeSeconds)} s; ${a.falseBreaks} false breaks`,
      ceiling:
        `${bare}: ${pct(b.programmeShare)} (${Math.round(b.programmeSecondsSkipped)} s); ` +
        `per file ${perFile('programmeShare', 'bare')}`,
      ratio: '',
      result: verdict(a.programmeShare < PROGRAMME_TARGET),
    },
    {
      target:
        'Commercials: comskip speed on the set (320x240 MPEG-2), media seconds per wall second, one file at a time',
      threshold: 'reported',
      measured: `${a.speed.toFixed(0)}× real time`,
      ceiling: `${bare}: ${b.speed.toFixed(0)}×`,
      ratio: '',
      result: 'reported',
    },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await benchCommercials({ work: join(ROOT, '.bench', 'commercials'), log: console.log });
  console.log(
    JSON.stringify(
      { ...result, files: result.files.map(({ name, antenna, bare }) => ({ name, antenna, bare })) },
      null,
      2,
    ),
  );
  for (const row of commercialsRows(result, { verdict: (ok) => (ok ? 'PASS' : 'FAIL') })) console.log(row);
}
