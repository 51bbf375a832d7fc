/** The rotated log file on a real disk: size, names, how many are kept, nothing lost, and failures that never throw. */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RotatingLogFile } from '../../src/common/rotating-log-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'antenna-rotate-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const lines = (file: string) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];

describe('RotatingLogFile', () => {
  it('rotates before FILE passes its size, keeps FILE.1 to FILE.<keep>, and loses nothing of the newest files', () => {
    const file = join(dir, 'logs', 'antenna.log');
    const log = new RotatingLogFile(file, { maxBytes: 1000, keep: 3 });
    // pino writes through it as the server does: one JSON line per call.
    const logger = pino({ base: undefined, timestamp: false }, log);
    for (let n = 0; n < 500; n++) logger.info({ n }, `line ${n}`.padEnd(40, '.'));
    log.close();

    expect(readdirSync(join(dir, 'logs')).sort()).toEqual([
      'antenna.log',
      'antenna.log.1',
      'antenna.log.2',
      'antenna.log.3',
    ]);
    for (const name of ['antenna.log', 'antenna.log.1', 'antenna.log.2', 'antenna.log.3'])
      expect(statSync(join(dir, 'logs', name)).size).toBeLessThanOrEqual(1000);
    // Oldest to newest, the kept files hold consecutive lines ending with the last one written.
    const kept = [3, 2, 1].flatMap((n) => lines(`${file}.${n}`)).concat(lines(file));
    const numbers = kept.map((line) => (JSON.parse(line) as { n: number }).n);
    expect(numbers.at(-1)).toBe(499);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => 500 - numbers.length + i));
    expect(numbers.length).toBeGreaterThan(3 * 15);
  });

  it('appends to an existing FILE and counts its size', () => {
    const file = join(dir, 'antenna.log');
    writeFileSync(file, `${'x'.repeat(900)}\n`);
    const log = new RotatingLogFile(file, { maxBytes: 1000, keep: 2 });
    log.write(`${'a'.repeat(50)}\n`);
    log.write(`${'b'.repeat(99)}\n`);
    log.close();
    expect(lines(file)).toEqual(['b'.repeat(99)]);
    expect(lines(`${file}.1`)).toEqual(['x'.repeat(900), 'a'.repeat(50)]);
  });

  it('with keep 0 empties FILE instead of keeping old ones; a line longer than the size is still written whole', () => {
    const file = join(dir, 'antenna.log');
    const log = new RotatingLogFile(file, { maxBytes: 100, keep: 0 });
    log.write(`${'a'.repeat(80)}\n`);
    log.write(`${'b'.repeat(300)}\n`);
    log.write(`${'c'.repeat(10)}\n`);
    log.close();
    expect(readdirSync(dir)).toEqual(['antenna.log']);
    expect(lines(file)).toEqual(['c'.repeat(10)]);
  });

  it('goes on writing FILE when it cannot rotate, saying so once with what to do', () => {
    const file = join(dir, 'antenna.log');
    // FILE.1 a folder with something in it: renaming FILE onto it fails.
    mkdirSync(`${file}.1`);
    writeFileSync(join(`${file}.1`, 'x'), '');
    const problems: string[] = [];
    const log = new RotatingLogFile(file, { maxBytes: 100, keep: 1, onProblem: (message) => problems.push(message) });
    for (let n = 0; n < 20; n++) log.write(`line ${n} ${'.'.repeat(30)}\n`);
    log.close();
    expect(lines(file)).toHaveLength(20);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^antenna: cannot rotate the log file .*antenna\.log \(E[A-Z]+\); it grows until it can: let this user rename files in /,
    );
  });

  it('never throws when the disk is full, and says so once with what to do', () => {
    const problems: string[] = [];
    const log = new RotatingLogFile('/dev/full', {
      maxBytes: 1_000_000,
      keep: 1,
      onProblem: (message) => problems.push(message),
    });
    expect(() => {
      for (let n = 0; n < 5; n++) log.write('a line\n');
    }).not.toThrow();
    log.close();
    expect(problems).toEqual([
      'antenna: cannot write the log file /dev/full (ENOSPC); lines are lost until it can: free space on its disk or give --log-file a file this user can write.',
    ]);
  });
});
