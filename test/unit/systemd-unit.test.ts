/**
 * The systemd unit: deploy/antenna.service is what the code renders; paths with spaces
 * and odd characters come back whole through systemd's quoting rules, or are refused
 * with a message; and systemd itself (systemd-analyze verify, where installed) finds
 * the program at the path written.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  STOP_TIMEOUT_SECONDS,
  quotedWord,
  renderUnit,
  serviceUserProblem,
  unitPathProblem,
  unitProblems,
} from '../../src/cli/systemd-unit.js';

const DEPLOYED = {
  node: '/usr/bin/node',
  antenna: '/opt/antenna/bin/antenna',
  user: 'antenna',
  data: '/var/lib/antenna',
};

/**
 * A model of systemd's reading of a value as words (extract_first_word with quotes and C escapes, the subset the unit
 * uses).
 */
function systemdWords(value: string): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < value.length) {
    while (value[i] === ' ') i++;
    if (i >= value.length) break;
    let word = '';
    let quote: string | undefined;
    for (; i < value.length; i++) {
      const char = value[i] as string;
      if (char === '\\') word += value[++i] ?? '';
      else if (quote !== undefined && char === quote) quote = undefined;
      else if (quote === undefined && (char === '"' || char === "'")) quote = char;
      else if (quote === undefined && char === ' ') break;
      else word += char;
    }
    words.push(word);
  }
  return words;
}

/**
 * `%%` is a percent sign; any other `%x` would be a specifier systemd replaces (undefined: the value is not what was
 * meant).
 */
function specifiersUndone(text: string): string | undefined {
  return /%[^%]|%$/.test(text.replace(/%%/g, '')) ? undefined : text.replace(/%%/g, '%');
}

/** `$$` is a dollar sign in a command line's arguments; a lone `$` would start a variable. */
function variablesUndone(text: string): string | undefined {
  return /\$/.test(text.replace(/\$\$/g, '')) ? undefined : text.replace(/\$\$/g, '$');
}

function unitValue(unit: string, key: string): string {
  const line = unit.split('\n').find((l) => l.startsWith(`${key}=`));
  if (line === undefined) throw new Error(`no ${key}= line`);
  return line.slice(key.length + 1);
}

const refusedByRule = (path: string) =>
  [...path].some((c) => c.charCodeAt(0) < 0x20 || c === '\u007f') ||
  /["'\\]/.test(path) ||
  /\s$/.test(path) ||
  path
    .split('/')
    .slice(1)
    .some((part) => part === '.' || part === '..' || part === '') ||
  path.endsWith('/');

/** Folder names mixing what systemd treats specially with ordinary and non-ASCII letters. */
const segment = fc
  .array(
    fc.constantFrom(
      'a',
      'Z',
      '0',
      ' ',
      '%',
      '%%',
      '%h',
      '$',
      '$HOME',
      '${X}',
      '"',
      "'",
      '\\',
      '\n',
      '\t',
      ';',
      '-',
      '.',
      '..',
      'é',
      '日本',
      '#',
      '=',
      '~',
      '*',
    ),
    { minLength: 1, maxLength: 5 },
  )
  .map((parts) => parts.join(''));
const absolutePath = fc.array(segment, { minLength: 1, maxLength: 4 }).map((segments) => `/${segments.join('/')}`);

describe('the systemd unit', () => {
  it('is the file in deploy/ when rendered for a checkout in /opt/antenna', () => {
    const deployed = readFileSync(new URL('../../deploy/antenna.service', import.meta.url), 'utf8');
    expect(renderUnit(DEPLOYED)).toBe(deployed);
  });

  it('runs antenna server as the user, stops it with SIGTERM alone within the timeout, and may write only the data directory', () => {
    const unit = renderUnit(DEPLOYED);
    expect(unitValue(unit, 'ExecStart')).toBe('"/usr/bin/node" "/opt/antenna/bin/antenna" server');
    expect(unitValue(unit, 'User')).toBe('antenna');
    expect(unitValue(unit, 'Environment')).toBe('"ANTENNA_DATA=/var/lib/antenna"');
    expect(unitValue(unit, 'KillSignal')).toBe('SIGTERM');
    expect(unitValue(unit, 'KillMode')).toBe('mixed');
    expect(unitValue(unit, 'TimeoutStopSec')).toBe(String(STOP_TIMEOUT_SECONDS));
    expect(unitValue(unit, 'Restart')).toBe('on-failure');
    expect(unitValue(unit, 'RestartPreventExitStatus')).toBe('2');
    expect(unitValue(unit, 'ProtectSystem')).toBe('strict');
    expect(unitValue(unit, 'ReadWritePaths')).toBe('"/var/lib/antenna"');
    expect(unitValue(unit, 'ProtectHome')).toBe('read-only');
    expect(unitValue(unit, 'StateDirectory')).toBe('antenna');
    // Elsewhere than /var/lib the install makes the folder; systemd is not asked to.
    expect(renderUnit({ ...DEPLOYED, data: '/srv/antenna' })).not.toContain('StateDirectory=');
  });

  it('writes any path back whole through systemd quoting, or refuses it with a message (property)', () => {
    fc.assert(
      fc.property(absolutePath, (path) => {
        const problem = unitPathProblem(path, 'The data directory');
        expect(problem === undefined).toBe(!refusedByRule(path));
        if (problem !== undefined) {
          expect(problem).toMatch(/^The data directory .*: (use|give) /s);
          expect(() => renderUnit({ ...DEPLOYED, data: path })).toThrow(problem);
          return;
        }
        const node = `${path}/node`;
        const antenna = `${path}/bin/antenna`;
        const unit = renderUnit({ node, antenna, user: 'antenna', data: path });
        // Nothing in a path can add or break a line.
        expect(unit.split('\n')).toHaveLength(
          renderUnit(DEPLOYED).split('\n').length - (unit.includes('StateDirectory=') ? 0 : 2),
        );
        const [program, ...args] = systemdWords(unitValue(unit, 'ExecStart'));
        expect(specifiersUndone(program ?? '')).toBe(node);
        expect(args.map((arg) => specifiersUndone(variablesUndone(arg) ?? ''))).toEqual([antenna, 'server']);
        expect(systemdWords(unitValue(unit, 'Environment')).map(specifiersUndone)).toEqual([`ANTENNA_DATA=${path}`]);
        expect(systemdWords(unitValue(unit, 'ReadWritePaths')).map(specifiersUndone)).toEqual([path]);
        // WorkingDirectory= is taken whole (no quotes), specifiers expanded.
        expect(specifiersUndone(unitValue(unit, 'WorkingDirectory'))).toBe(path);
      }),
      { numRuns: 500 },
    );
  });

  it('quotes a word so that the model of systemd reads it back', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(systemdWords(quotedWord(text, 'value')).map(specifiersUndone)).toEqual([text]);
        expect(
          systemdWords(quotedWord(text, 'argument')).map((word) => specifiersUndone(variablesUndone(word) ?? '')),
        ).toEqual([text]);
      }),
    );
  });

  it('takes a lowercase system user name, never root', () => {
    expect(serviceUserProblem('antenna')).toBeUndefined();
    expect(serviceUserProblem('_dvr-2')).toBeUndefined();
    expect(serviceUserProblem('root')).toMatch(/must not run as root/);
    for (const bad of ['Antenna', '1abc', 'a b', 'a:b', '', 'x'.repeat(32)])
      expect(serviceUserProblem(bad)).toMatch(/is invalid: give a lowercase name/);
    expect(unitProblems({ ...DEPLOYED, user: 'root', node: 'node' })).toHaveLength(2);
  });
});

const verify = spawnSync('systemd-analyze', ['--version']).status === 0;
const work = mkdtempSync(join(tmpdir(), 'antenna-unit-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.runIf(verify)('the unit as systemd reads it (systemd-analyze verify)', () => {
  it('finds the node program at a path with spaces, %, $ and other letters, exactly where it was written (property)', () => {
    const name = fc
      .array(fc.constantFrom('a', ' ', '%', '%h', '$', '$HOME', ';', '-', 'é', '日', '#', '=', '~'), {
        minLength: 1,
        maxLength: 6,
      })
      .map((parts) => parts.join(''))
      .filter((dir) => unitPathProblem(`/x/${dir}`, 'Folder') === undefined);
    let run = 0;
    fc.assert(
      fc.property(name, (dir) => {
        const folder = join(work, String(run++), dir);
        mkdirSync(join(folder, 'bin'), { recursive: true });
        copyFileSync('/bin/true', join(folder, 'node'));
        chmodSync(join(folder, 'node'), 0o755);
        const unitFile = join(work, `antenna-${run}.service`);
        writeFileSync(
          unitFile,
          renderUnit({
            node: join(folder, 'node'),
            antenna: join(folder, 'bin', 'antenna'),
            user: 'antenna',
            data: folder,
          }),
        );
        const result = spawnSync('systemd-analyze', ['verify', unitFile], { encoding: 'utf8' });
        expect(result.stderr).toBe('');
        expect(result.status).toBe(0);
      }),
      { numRuns: 12 },
    );
  });

  it('refuses the unit when the program is not there (so the check above means something)', () => {
    const unitFile = join(work, 'missing.service');
    writeFileSync(unitFile, renderUnit({ ...DEPLOYED, node: join(work, 'no such', 'node') }));
    const result = spawnSync('systemd-analyze', ['verify', unitFile], { encoding: 'utf8' });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`Command ${join(work, 'no such', 'node')} is not executable`);
  });
});
