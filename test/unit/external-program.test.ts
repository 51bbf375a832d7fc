/**
 * The one module that runs programs: real processes (node itself, so the test needs
 * nothing else), each way a run can end, and the pure parts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findServerPrograms } from '../../src/app/program-paths.js';
import { resolveServerConfig } from '../../src/config/server-config.js';
import { settingsFromEnv } from '../../src/config/server-settings.js';
import { StartupError } from '../../src/db/database.js';
import {
  TailBuffer,
  classifyEnd,
  findProgram,
  lastLine,
  runProgram,
  startProgram,
  stopProgram,
} from '../../src/common/external-program.js';

const node = process.execPath;
const script = (code: string) => ['-e', code];

describe('runProgram', () => {
  it('collects stdout and the end of stderr of a program that succeeds', async () => {
    const outcome = await runProgram(
      node,
      script("process.stdout.write('out'); process.stderr.write('x'.repeat(10000) + 'TAIL')"),
      { timeoutMs: 10_000, stderrTailBytes: 100 },
    );
    expect(outcome).toMatchObject({ kind: 'ok', stdout: 'out' });
    expect(outcome.stderrTail).toHaveLength(100);
    expect(outcome.stderrTail.endsWith('TAIL')).toBe(true);
  });

  it('calls a non-zero exit status failed, with the status', async () => {
    const outcome = await runProgram(node, script("process.stderr.write('cannot read it\\n'); process.exit(3)"), {
      timeoutMs: 10_000,
    });
    expect(outcome).toMatchObject({ kind: 'failed', exitCode: 3, reason: 'exit status 3' });
    expect(lastLine(outcome.stderrTail)).toBe('cannot read it');
  });

  it('calls a program that is not there transient, without throwing', async () => {
    const outcome = await runProgram('/nonexistent/antenna-no-such-program', [], { timeoutMs: 10_000 });
    expect(outcome).toMatchObject({ kind: 'transient', reason: 'could not start (ENOENT)' });
  });

  it('stops a program that runs too long: SIGTERM, then SIGKILL after the grace period when it ignores it', async () => {
    const started = Date.now();
    const outcome = await runProgram(node, script("process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"), {
      timeoutMs: 300,
      graceMs: 300,
    });
    expect(outcome).toMatchObject({ kind: 'transient', cause: 'timeout', reason: 'did not finish within 300 ms' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('stops at the abort signal, and at once when it is already aborted', async () => {
    const controller = new AbortController();
    const running = runProgram(node, script('setInterval(() => {}, 1000)'), {
      timeoutMs: 30_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    expect(await running).toMatchObject({ kind: 'transient', reason: 'stopped' });
    expect(
      await runProgram(node, script('setInterval(() => {}, 1000)'), { timeoutMs: 30_000, signal: AbortSignal.abort() }),
    ).toMatchObject({ kind: 'transient', reason: 'stopped' });
  });

  it('stops a program that writes more than the cap', async () => {
    const outcome = await runProgram(node, script("setInterval(() => process.stdout.write('y'.repeat(65536)), 1)"), {
      timeoutMs: 10_000,
      maxStdoutBytes: 100_000,
    });
    expect(outcome).toMatchObject({ kind: 'transient', reason: 'wrote more output than expected' });
  });
});

describe('the pure parts', () => {
  it('classifies every end', () => {
    expect(classifyEnd({ exitCode: 0, signal: null })).toEqual({ kind: 'ok' });
    expect(classifyEnd({ exitCode: 1, signal: null })).toMatchObject({ kind: 'failed', exitCode: 1 });
    expect(classifyEnd({ exitCode: null, signal: 'SIGSEGV' })).toEqual({
      kind: 'transient',
      cause: 'signal',
      reason: 'killed by SIGSEGV',
    });
    expect(classifyEnd({ exitCode: 0, signal: null, stopped: { cause: 'aborted', reason: 'stopped' } })).toEqual({
      kind: 'transient',
      cause: 'aborted',
      reason: 'stopped',
    });
    expect(classifyEnd({ exitCode: -2, signal: null, spawnError: 'ENOENT' })).toEqual({
      kind: 'transient',
      cause: 'not_started',
      reason: 'could not start (ENOENT)',
    });
  });

  it('keeps only the tail of what is written', () => {
    const tail = new TailBuffer(5);
    for (const part of ['abc', 'defg', 'h']) tail.push(Buffer.from(part));
    expect(tail.text()).toBe('defgh');
    expect(lastLine('first\nsecond\n\n')).toBe('second');
    expect(lastLine('')).toBe('');
  });
});

describe('startProgram and stopProgram', () => {
  it('keeps the tail of stderr of a running program and stops it by asking', async () => {
    const started = startProgram(node, script("process.stderr.write('ready'); setInterval(() => {}, 1000)"));
    await new Promise((resolve) => started.child.stderr?.once('data', resolve));
    expect(started.stderrTail()).toBe('ready');
    await stopProgram(started.child);
    expect(started.child.signalCode).toBe('SIGTERM');
  });

  it('kills a program that ignores the request after the grace period', async () => {
    const started = startProgram(
      node,
      script("process.on('SIGTERM', () => {}); process.stderr.write('ready'); setInterval(() => {}, 1000)"),
    );
    await new Promise((resolve) => started.child.stderr?.once('data', resolve));
    let asked = false;
    await stopProgram(started.child, { graceMs: 200, ask: () => (asked = true) });
    expect(asked).toBe(true);
    expect(started.child.signalCode).toBe('SIGKILL');
  });
});

describe('finding the programs', () => {
  it('finds a name on PATH, takes an executable path as given, and says undefined for anything else', () => {
    expect(findProgram('node', dirname(process.execPath))).toBe(process.execPath);
    expect(findProgram(process.execPath, '')).toBe(process.execPath);
    expect(findProgram('node', '/nonexistent-dir')).toBeUndefined();
    const text = join(mkdtempSync(join(tmpdir(), 'antenna-find-')), 'not-a-program');
    writeFileSync(text, 'text', { mode: 0o644 });
    expect(findProgram(text, '')).toBeUndefined();
    expect(findProgram('/nonexistent/ffmpeg', '')).toBeUndefined();
  });

  it('stops start-up without ffmpeg or ffprobe, naming the setting, and goes on without comskip', () => {
    const found = { ffmpegPath: process.execPath, ffprobePath: process.execPath };
    expect(findServerPrograms({ ...found, comskipPath: '/nonexistent/comskip' })).toEqual({
      ffmpeg: process.execPath,
      ffprobe: process.execPath,
      comskip: undefined,
    });
    expect(() => findServerPrograms({ ...found, ffmpegPath: '/nonexistent/ffmpeg', comskipPath: 'comskip' })).toThrow(
      StartupError,
    );
    expect(() => findServerPrograms({ ...found, ffprobePath: 'no-such-ffprobe-x', comskipPath: 'comskip' })).toThrow(
      /no-such-ffprobe-x was not found: .*--ffprobe-path/,
    );
  });

  it('reads the program settings from each place; a path in the config file is relative to it', () => {
    expect(resolveServerConfig([{ ffmpegPath: '/opt/ffmpeg/bin/ffmpeg' }, { ffprobePath: 'ffprobe7' }])).toMatchObject({
      ffmpegPath: '/opt/ffmpeg/bin/ffmpeg',
      ffprobePath: 'ffprobe7',
      comskipPath: 'comskip',
    });
    expect(settingsFromEnv({ ANTENNA_COMSKIP_PATH: '/usr/local/bin/comskip' }).comskipPath).toBe(
      '/usr/local/bin/comskip',
    );
  });
});
