/** What `antenna service install|uninstall` would do, from the options and what the machine looks like. */
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type InstallFacts,
  type InstallOptions,
  describeSteps,
  installProblems,
  installSteps,
  shellLine,
  uninstallSteps,
} from '../../src/cli/service-steps.js';
import { UNIT_PATH, renderUnit } from '../../src/cli/systemd-unit.js';

const OPTIONS: InstallOptions = {
  node: '/usr/bin/node',
  antenna: '/opt/antenna/bin/antenna',
  user: 'antenna',
  data: '/var/lib/antenna',
  start: true,
};
const FRESH: InstallFacts = { userUid: undefined, data: { state: 'missing' } };

const commands = (options: InstallOptions, facts: InstallFacts) =>
  installSteps(options, facts).map((step) =>
    step.kind === 'run' ? [step.program, ...step.args] : [step.kind, step.path],
  );

describe('antenna service install', () => {
  it('on a fresh machine: creates the user and the data directory, checks the user can run Antenna, writes the unit, enables and starts it', () => {
    expect(installProblems(OPTIONS, FRESH)).toEqual([]);
    expect(commands(OPTIONS, FRESH)).toEqual([
      [
        'useradd',
        '--system',
        '--user-group',
        '--home-dir',
        '/var/lib/antenna',
        '--no-create-home',
        '--shell',
        '/usr/sbin/nologin',
        '--comment',
        'Antenna DVR',
        'antenna',
      ],
      ['install', '-d', '-m', '0750', '--', '/var/lib/antenna'],
      ['chown', '--', 'antenna:', '/var/lib/antenna'],
      ['runuser', '-u', 'antenna', '--', '/usr/bin/node', '/opt/antenna/bin/antenna', '--version'],
      ['write', UNIT_PATH],
      ['systemctl', 'daemon-reload'],
      ['systemctl', 'enable', 'antenna.service'],
      ['systemctl', 'restart', 'antenna.service'],
    ]);
    const write = installSteps(OPTIONS, FRESH).find((step) => step.kind === 'write');
    expect(write).toMatchObject({
      path: '/etc/systemd/system/antenna.service',
      mode: 0o644,
      content: renderUnit(OPTIONS),
    });
  });

  it('again, over an earlier install: leaves the user and its data directory as they are', () => {
    const facts: InstallFacts = { userUid: 998, data: { state: 'full', owner: 998 } };
    expect(installProblems(OPTIONS, facts)).toEqual([]);
    expect(commands(OPTIONS, facts).map((command) => command[0])).toEqual([
      'runuser',
      'write',
      'systemctl',
      'systemctl',
      'systemctl',
    ]);
  });

  it('with --no-start: enabled for the next boot, not started', () => {
    expect(commands({ ...OPTIONS, start: false }, FRESH).at(-1)).toEqual(['systemctl', 'enable', 'antenna.service']);
  });

  it('takes an empty folder someone made for it, and hands it to the user', () => {
    const facts: InstallFacts = { userUid: 998, data: { state: 'empty' } };
    expect(installProblems(OPTIONS, facts)).toEqual([]);
    expect(commands(OPTIONS, facts).slice(0, 2)).toEqual([
      ['install', '-d', '-m', '0750', '--', '/var/lib/antenna'],
      ['chown', '--', 'antenna:', '/var/lib/antenna'],
    ]);
  });

  it("never hands over a system folder or a folder with someone else's files, and says what to do", () => {
    expect(installProblems({ ...OPTIONS, data: '/' }, FRESH)).toEqual([
      'The data directory / is not a folder of its own: give one such as /var/lib/antenna (the service user will own it).',
    ]);
    expect(installProblems({ ...OPTIONS, data: '/srv' }, FRESH)[0]).toMatch(/not a folder of its own/);
    const home = installProblems(
      { ...OPTIONS, data: '/home/alice' },
      { userUid: 998, data: { state: 'full', owner: 1000 } },
    );
    expect(home).toEqual([
      'The data directory /home/alice holds files and belongs to uid 1000, not to antenna: give a new or empty folder with --data, or, if it is an earlier Antenna data directory, hand it over first with: chown -R antenna: /home/alice',
    ]);
    expect(
      installProblems({ ...OPTIONS, data: '/srv/my tv' }, { userUid: undefined, data: { state: 'full', owner: 0 } })[0],
    ).toContain("useradd --system --user-group antenna && chown -R antenna: '/srv/my tv'");
    expect(
      installProblems({ ...OPTIONS, data: '/srv/file' }, { userUid: undefined, data: { state: 'not-a-folder' } })[0],
    ).toMatch(/is not a folder: give another path with --data/);
  });

  it('refuses what a unit cannot hold before anything is done', () => {
    expect(installProblems({ ...OPTIONS, user: 'Root Admin' }, FRESH)[0]).toMatch(/User name 'Root Admin' is invalid/);
    expect(installProblems({ ...OPTIONS, antenna: "/home/o'brien/antenna/bin/antenna" }, FRESH)[0]).toMatch(
      /holds a quote or a backslash/,
    );
  });
});

describe('antenna service uninstall', () => {
  it('stops and disables the service and removes the unit, keeping the user and the data', () => {
    expect(
      uninstallSteps().map((step) => (step.kind === 'run' ? [step.program, ...step.args] : [step.kind, step.path])),
    ).toEqual([
      ['systemctl', 'disable', '--now', 'antenna.service'],
      ['remove', UNIT_PATH],
      ['systemctl', 'daemon-reload'],
    ]);
  });
});

describe('the printed steps', () => {
  it('are a script: a comment per step, each command, the unit as a here-document', () => {
    const text = describeSteps(installSteps({ ...OPTIONS, data: '/srv/my tv' }, FRESH));
    expect(text).toContain(
      "# 2. make the data directory /srv/my tv, readable by antenna only\ninstall -d -m 0750 -- '/srv/my tv'",
    );
    expect(text).toContain(
      `cat > /etc/systemd/system/antenna.service <<'EOF'\n${renderUnit({ ...OPTIONS, data: '/srv/my tv' })}EOF\nchmod 0644 /etc/systemd/system/antenna.service`,
    );
    expect(describeSteps(uninstallSteps())).toContain('rm -f -- /etc/systemd/system/antenna.service');
  });

  it('quote each word so that a shell would pass it on unchanged (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme' }).filter((word) => !word.includes('\u0000')),
          { minLength: 1, maxLength: 4 },
        ),
        (words) => {
          // printf repeats its format for each argument: the words come back NUL-separated.
          const line = shellLine('printf', ['%s\\0', ...words]);
          expect(execFileSync('/bin/sh', ['-c', line], { encoding: 'utf8' })).toBe(
            words.map((word) => `${word}\u0000`).join(''),
          );
        },
      ),
      { numRuns: 40 },
    );
  });
});
