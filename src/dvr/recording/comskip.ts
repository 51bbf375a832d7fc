/**
 * Commercial detection with comskip. The settings, the argument list and the reading
 * of comskip's EDL are pure (unit-tested); `detectCommercials` runs comskip without a
 * shell in a private directory under `workDir` (comskip writes its EDL, log and logo
 * files next to the input unless told otherwise, and the input may be a recording
 * directory), and removes that directory whatever happens.
 *
 * Exit status on Unix (comskip's main ends with `exit(!found)`): 0 = commercials found,
 * 1 = none found, anything else = it could not run (255: cannot open the file or its
 * video codec; 6: cannot create an output file).
 */
import { INPUT_PATH } from '../../media-tools/library-input.js';
import { lastLine as lastStderrLine, runProgram } from '../../common/external-program.js';
import { constants } from 'node:fs';
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * What we rely on; everything else is comskip's default. Comments start with `;`, which
 * comskip's ini reader ignores, as it does after a value.
 */
export const COMSKIP_INI = [
  '; Antenna: the comskip settings commercial detection relies on',
  '; cut points: black frames (1) + logo (2) + resolution change (8) + aspect ratio (32) + silence (64)',
  'detect_method=107',
  'validate_silence=1',
  // comskip's default (120) scores no shorter block as show, so a short recording, or one
  // with short acts, is marked commercial from end to end. A minute is still longer than
  // nearly every single commercial.
  '; blocks longer than this count towards show',
  'min_show_segment_length=60',
  'min_commercialbreak=20',
  'max_commercialbreak=600',
  'min_commercial_size=4',
  'max_commercial_size=120',
  // A busy ad (dense high-contrast detail in the logo's corner) reads as the logo. comskip's
  // default (0.01) then all but vetoes the block, and its default of joining neighbouring
  // blocks that show the logo merges a break's first spot into the act before it: on the
  // labelled set (bench/broadcast-set.mjs, docs/commercial-detection.md) that kept whole spots
  // and one whole break as show. At 0.3 the logo still outweighs an ad-like length, aspect and
  // loudness in the programme (at 0.75 two acts went); each change alone fixed only part of it.
  '; a block with the logo counts less towards commercial, but not overwhelmingly',
  'logo_present_modifier=0.3',
  '; blocks are scored one by one, not joined because both seem to show the logo',
  'connect_blocks_with_logo=0',
  '; the recording is complete: do not wait for it to grow (default retries opening for 6 s)',
  'live_tv=0',
  'live_tv_retries=0',
  '; output: only the EDL, cut lines (type 0), times in seconds; no .txt, log or logo files kept',
  'output_edl=1',
  'edl_skip_field=0',
  'edl_offset=0',
  'output_default=0',
  'output_framearray=0',
  'delete_logo_file=1',
  'verbose=0',
  '',
].join('\n');

/**
 * What a live run (a recording still being written, live-commercials.ts) changes, found by experiment with comskip
 * 0.82.011: with live_tv=1 comskip waits for the file to grow and rewrites its EDL every 15 s of video with a simpler
 * black-frame pass (BuildCommListAsYouGo), and `.incommercial` says whether the last break may still be open.
 */
export const LIVE_SETTINGS: Readonly<Record<string, number>> = {
  live_tv: 1,
  // About 4 s a retry: a source that stalls for up to ten minutes does not end the run.
  live_tv_retries: 150,
  // The live pass counts any black-to-black gap up to this as an ad, so two breaks round a shorter act would be one
  // break: 60 s keeps acts apart, and the final pass (the full ini) still finds the longer ads.
  max_commercial_size: 60,
  output_incommercial: 1,
  // In frames: the last break counts as open until this many frames past its end (60 s at up to 60 fps), as long as
  // the live pass may still extend it (max_commercial_size above).
  incommercial_frames: 3600,
};

/** An ini with some settings replaced (or added when absent), every other line as it is. */
export function withIniSettings(ini: string, settings: Readonly<Record<string, string | number>>): string {
  const pending = new Map(Object.entries(settings).map(([key, value]) => [key, String(value)]));
  const lines = ini.split('\n').map((line) => {
    const key = /^\s*([A-Za-z0-9_]+)\s*=/.exec(line)?.[1];
    if (key === undefined || !pending.has(key)) return line;
    const value = pending.get(key) as string;
    pending.delete(key);
    return `${key}=${value}`;
  });
  const rest = [...pending].map(([key, value]) => `${key}=${value}`);
  if (rest.length === 0) return lines.join('\n');
  // Before the last empty line, so the file still ends with a newline.
  const tail = lines.at(-1) === '' ? lines.pop() : undefined;
  return [...lines, ...rest, ...(tail === undefined ? [] : [tail])].join('\n');
}

/** The ini of a run: COMSKIP_INI, or for a recording in progress COMSKIP_INI with LIVE_SETTINGS over it. */
export function comskipIni(options: { live?: boolean } = {}): string {
  return options.live ? withIniSettings(COMSKIP_INI, LIVE_SETTINGS) : COMSKIP_INI;
}

/**
 * A live run's marks: its EDL's breaks, less the last one while `.incommercial` says it may still be open (a break
 * at the live edge is not told as ended). No `.incommercial` yet: comskip has not judged anything, so no marks.
 */
export function liveMarks(edl: string, incommercial: string | null): number[] {
  if (incommercial === null) return [];
  const marks = parseEdl(edl);
  return incommercial.trim() === '0' ? marks : marks.slice(0, -2);
}

/** The base name of every file comskip writes, so the EDL's name never depends on the recording's. */
export const OUTPUT_BASE = 'commercials';
const DEFAULT_TIMEOUT_MS = 3 * 60 * 60 * 1000;
const KILL_GRACE_MS = 5_000;
const STDERR_TAIL_BYTES = 4096;

export function comskipArgs(input: string, outputDir: string, iniPath: string): string[] {
  // `--` keeps an input whose name starts with a dash an input.
  return [`--ini=${iniPath}`, `--output=${outputDir}`, `--output-filename=${OUTPUT_BASE}`, '--', input];
}

const SECONDS = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

function centiseconds(text: string): number | null {
  if (!SECONDS.test(text)) return null;
  const value = Math.round(Number(text) * 100) / 100;
  return Number.isFinite(value) ? value : null;
}

/** One `start end type` line as a cut range, or null when it is not a well-formed cut. */
function cutOf(line: string): [number, number] | null {
  const fields = line.trim().split(/\s+/);
  if (fields.length !== 3 || fields[2] !== '0') return null;
  const start = centiseconds(fields[0]!);
  const end = centiseconds(fields[1]!);
  return start !== null && end !== null && end > start ? [start, end] : null;
}

/**
 * EDL text -> flat [start, end, start, end, ...] seconds: cut lines only, sorted, overlapping or touching ranges
 * merged.
 */
export function parseEdl(text: string): number[] {
  const cuts = text
    .split(/\r?\n/)
    .map(cutOf)
    .filter((cut) => cut !== null);
  cuts.sort((a, b) => a[0] - b[0]);
  const flat: number[] = [];
  for (const [start, end] of cuts) {
    const last = flat.length - 1;
    if (last >= 1 && start <= flat[last]!) flat[last] = Math.max(flat[last]!, end);
    else flat.push(start, end);
  }
  return flat;
}

/** The last meaningful stderr line: comskip prints its reason for giving up last. */
function lastLine(stderr: string): string {
  const line = lastStderrLine(stderr);
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

export interface Finished {
  code: number | null;
  stderr: string;
}

/**
 * Runs comskip to its end (common/external-program.ts): on timeout or abort SIGTERM,
 * then SIGKILL after a grace period, and the run still waits for the exit, so nothing
 * is writing in the directory we are about to remove.
 */
export async function runComskip(
  program: string,
  args: string[],
  cwd: string,
  timeoutMs: number,
  signal?: AbortSignal,
  inputFd?: number,
): Promise<Finished> {
  const outcome = await runProgram(program, args, {
    cwd,
    timeoutMs,
    signal,
    graceMs: KILL_GRACE_MS,
    stderrTailBytes: STDERR_TAIL_BYTES,
    collectStdout: false,
    ...(inputFd === undefined ? {} : { inputFd }),
  });
  if (outcome.kind === 'ok') return { code: 0, stderr: outcome.stderrTail };
  if (outcome.kind === 'failed') return { code: outcome.exitCode, stderr: outcome.stderrTail };
  if (outcome.cause === 'not_started') throw new Error(`comskip could not start: ${outcome.reason}`);
  if (outcome.cause === 'timeout') throw new Error(`comskip timed out after ${timeoutMs} ms`);
  if (outcome.cause === 'aborted')
    throw signal?.reason instanceof Error ? signal.reason : new Error('comskip was stopped');
  throw new Error(`comskip failed: ${outcome.reason}`);
}

async function readEdl(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Why a run that ended could not judge the file, or undefined when it did (0: found some, 1: none). */
export function failureOf(finished: Finished): string | undefined {
  if (finished.code === 0 || finished.code === 1) return undefined;
  return `comskip failed: ${lastLine(finished.stderr) || `exit status ${finished.code ?? 'none'}`}`;
}

async function commercialsFrom(finished: Finished, edlPath: string): Promise<number[]> {
  const failure = failureOf(finished);
  if (failure !== undefined) throw new Error(failure);
  const edl = await readEdl(edlPath);
  if (edl === null && finished.code === 0) throw new Error('comskip failed: it found commercials but wrote no EDL');
  return edl === null ? [] : parseEdl(edl);
}

/**
 * The commercial breaks in a recording as flat [start, end, ...] seconds ([] when none).
 * Throws an Error with a short reason when comskip cannot judge the file, times out
 * (`timeoutMs`, default three hours) or is aborted (the signal's reason). `inputFd`: the
 * recording opened after the boundary's check, which comskip then reads as /dev/fd/3
 * (library-input.ts) instead of opening `file` again.
 */
export async function detectCommercials(
  file: string,
  options: { workDir: string; signal?: AbortSignal; timeoutMs?: number; program?: string; inputFd?: number },
): Promise<number[]> {
  const { workDir, signal, timeoutMs = DEFAULT_TIMEOUT_MS, program = 'comskip', inputFd } = options;
  signal?.throwIfAborted();
  // comskip itself reports a missing file only as "Can not open file" (an opened one is there).
  if (inputFd === undefined) {
    await access(file, constants.R_OK).catch((error: NodeJS.ErrnoException) => {
      throw new Error(`comskip failed: cannot read the recording (${error.code ?? error.message})`);
    });
  }
  await mkdir(workDir, { recursive: true });
  const runDir = await mkdtemp(join(workDir, 'comskip-'));
  try {
    const iniPath = join(runDir, 'comskip.ini');
    await writeFile(iniPath, comskipIni());
    // cwd too: comskip looks for a comskip.ini in its working directory.
    const finished = await runComskip(
      program,
      comskipArgs(inputFd === undefined ? file : INPUT_PATH, runDir, iniPath),
      runDir,
      timeoutMs,
      signal,
      inputFd,
    );
    return await commercialsFrom(finished, join(runDir, `${OUTPUT_BASE}.edl`));
  } finally {
    await rm(runDir, { recursive: true, force: true });
  }
}
