/**
 * The one way Antenna runs a program to its end (ffprobe, ffmpeg, comskip): spawned
 * without a shell, with a time limit and an abort signal, stopped with SIGTERM and,
 * after a grace period, SIGKILL; stdout collected up to a cap; only the last few KB of
 * stderr kept (a long ffmpeg run writes megabytes of it); and the end classified:
 * - `ok`: exit status 0;
 * - `failed`: the program ran and refused (a non-zero exit status): trying again with
 *   the same input will not help;
 * - `transient`: it did not start (ENOENT, EMFILE), ran out of time, was stopped, died
 *   by a signal or wrote more than the cap: worth another try later.
 *
 * `startProgram` and `stopProgram` are the same for a program that runs until it is
 * told to stop (mpv): spawned without a shell, its stderr's tail kept, and stopped by
 * asking (a signal, or the program's own quit command), then SIGKILL after a grace.
 *
 * Written here rather than with execa: its maxBuffer ends the process when stderr
 * grows, where a tail is what is wanted, and the rest of it would go unused.
 */
import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/**
 * Why a run is worth another try: it did not start, ran out of time, was stopped, died by a signal, or wrote too much.
 */
export type TransientCause = 'not_started' | 'timeout' | 'aborted' | 'signal' | 'output_limit';

export type ProgramEnd =
  | { kind: 'ok' }
  | { kind: 'failed'; exitCode: number; reason: string }
  | { kind: 'transient'; cause: TransientCause; reason: string };

export type ProgramOutcome = ProgramEnd & { stdout: string; stderrTail: string };

export interface RunOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Between SIGTERM and SIGKILL; default 2 s. */
  graceMs?: number;
  /** stdout beyond this stops the program (transient); default 16 MiB. */
  maxStdoutBytes?: number;
  /** false: stdout is discarded (a program that prints progress for hours); default true. */
  collectStdout?: boolean;
  /** How much of stderr's end is kept; default 4 KiB. */
  stderrTailBytes?: number;
  cwd?: string;
  /**
   * A descriptor the program gets as its fd 3 (a checked library file, read as /dev/fd/3: see
   * media-tools/library-input.ts).
   */
  inputFd?: number;
}

/** What services are given, so their tests can stand in for a program. */
export interface ProgramRunner {
  run(program: string, args: readonly string[], options: RunOptions): Promise<ProgramOutcome>;
}

const DEFAULT_GRACE_MS = 2_000;
const DEFAULT_MAX_STDOUT = 16 * 1024 * 1024;
const DEFAULT_STDERR_TAIL = 4 * 1024;

/** Keeps the last `limit` bytes written to it. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.limit && this.chunks.length > 1)
      this.size -= (this.chunks.shift() as Buffer).length;
  }

  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.limit)).toString('utf8');
  }
}

/** The last non-empty line of a program's stderr: usually what went wrong. */
export function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.trim() ?? '';
}

interface Stop {
  cause: 'timeout' | 'aborted' | 'output_limit';
  reason: string;
}

/** How a run ended, from what is known when the process closed (pure). */
export function classifyEnd(end: {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stopped?: Stop | undefined;
  spawnError?: string | undefined;
}): ProgramEnd {
  if (end.spawnError !== undefined)
    return { kind: 'transient', cause: 'not_started', reason: `could not start (${end.spawnError})` };
  if (end.stopped !== undefined) return { kind: 'transient', ...end.stopped };
  if (end.exitCode === 0) return { kind: 'ok' };
  if (end.exitCode !== null) return { kind: 'failed', exitCode: end.exitCode, reason: `exit status ${end.exitCode}` };
  return { kind: 'transient', cause: 'signal', reason: `killed by ${end.signal ?? 'a signal'}` };
}

export function runProgram(program: string, args: readonly string[], options: RunOptions): Promise<ProgramOutcome> {
  return new Promise((resolve) => {
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    const stderr = new TailBuffer(options.stderrTailBytes ?? DEFAULT_STDERR_TAIL);
    let stopped: Stop | undefined;
    let spawnError: string | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const stdoutMode = options.collectStdout === false ? 'ignore' : 'pipe';
    const stdio: StdioOptions = [
      'ignore',
      stdoutMode,
      'pipe',
      ...(options.inputFd === undefined ? [] : [options.inputFd]),
    ];
    const child = spawn(program, args, {
      shell: false,
      windowsHide: true,
      stdio,
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
    const stop = (why: Stop) => {
      if (stopped !== undefined || child.exitCode !== null || child.signalCode !== null) return;
      stopped = why;
      child.kill('SIGTERM');
      killTimer = setTimeout(() => child.kill('SIGKILL'), options.graceMs ?? DEFAULT_GRACE_MS);
      killTimer.unref();
    };
    const timer = setTimeout(
      () => stop({ cause: 'timeout', reason: `did not finish within ${options.timeoutMs} ms` }),
      options.timeoutMs,
    );
    const onAbort = () => stop({ cause: 'aborted', reason: 'stopped' });
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout?.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > (options.maxStdoutBytes ?? DEFAULT_MAX_STDOUT))
        stop({ cause: 'output_limit', reason: 'wrote more output than expected' });
      else stdout.push(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (error: NodeJS.ErrnoException) => {
      spawnError = error.code ?? error.message;
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
      const end = classifyEnd({ exitCode, signal, stopped, spawnError });
      resolve({ ...end, stdout: Buffer.concat(stdout).toString('utf8'), stderrTail: stderr.text() });
    });
  });
}

export const spawnRunner: ProgramRunner = { run: runProgram };

export type { ChildProcess };

/** The programs the server runs, as found at start (absolute paths); comskip undefined when it is not installed. */
export interface ProgramPaths {
  ffmpeg: string;
  ffprobe: string;
  comskip: string | undefined;
}

/** The names, for tests and tools that run before any lookup (found on PATH when run). */
export const PROGRAMS_ON_PATH: ProgramPaths = { ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', comskip: 'comskip' };

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Where a program is: a path (with a slash) as given, if it is an executable file; a
 * bare name looked up on PATH as a shell would. Undefined when it is not there.
 */
export function findProgram(program: string, path: string = process.env.PATH ?? ''): string | undefined {
  if (program.includes('/')) {
    const absolute = isAbsolute(program) ? program : resolve(program);
    return isExecutableFile(absolute) ? absolute : undefined;
  }
  for (const dir of path.split(delimiter)) {
    if (dir !== '' && isExecutableFile(join(dir, program))) return join(dir, program);
  }
  return undefined;
}

export interface StartedProgram {
  child: ChildProcess;
  /** The end of what it wrote to stderr so far. */
  stderrTail(): string;
}

export interface StartOptions {
  stderrTailBytes?: number;
  cwd?: string;
  stdin?: 'pipe' | 'ignore';
  /** 'pipe': the caller reads stdout as it comes (default: discarded). */
  stdout?: 'pipe' | 'ignore';
  /** Extra pipes after stderr (file descriptors 3, 4, ...): Chromium's DevTools pipe is 3 and 4. */
  extraPipes?: number;
  /** A descriptor the program gets as its fd 3, as RunOptions.inputFd (not with extraPipes). */
  inputFd?: number;
}

/** Starts a program that runs until stopped; its 'error' (not started) and 'exit' events are the caller's. */
export function startProgram(program: string, args: readonly string[], options: StartOptions = {}): StartedProgram {
  const stderr = new TailBuffer(options.stderrTailBytes ?? DEFAULT_STDERR_TAIL);
  const extra =
    options.inputFd === undefined
      ? Array.from({ length: options.extraPipes ?? 0 }, () => 'pipe' as const)
      : [options.inputFd];
  const child = spawn(program, args, {
    shell: false,
    windowsHide: true,
    stdio: [options.stdin ?? 'ignore', options.stdout ?? 'ignore', 'pipe', ...extra],
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  return { child, stderrTail: () => stderr.text() };
}

/**
 * Stops a started program and resolves once it has exited: `ask` (default SIGTERM)
 * first, SIGKILL if it is still running after `graceMs`.
 */
export async function stopProgram(
  child: ChildProcess,
  options: { graceMs?: number; ask?: () => void } = {},
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  (options.ask ?? (() => child.kill('SIGTERM')))();
  const timer = setTimeout(() => child.kill('SIGKILL'), options.graceMs ?? DEFAULT_GRACE_MS);
  await exited;
  clearTimeout(timer);
}
