/**
 * What `antenna service install` and `antenna service uninstall` do, as a list of steps
 * worked out from the options and what the machine looks like (pure): the programs
 * run (argument lists, never a shell) and the files written or removed. --dry-run
 * prints these steps; a real run carries them out (service.commands.ts).
 */
import { posix } from 'node:path';
import { ENVIRONMENT_FILE, type UnitOptions, UNIT_NAME, UNIT_PATH, renderUnit, unitProblems } from './systemd-unit.js';

export type ServiceStep =
  | { kind: 'run'; why: string; program: string; args: string[] }
  | { kind: 'write'; why: string; path: string; content: string; mode: number }
  | { kind: 'remove'; why: string; path: string };

export interface InstallOptions extends UnitOptions {
  /** false (--no-start): enabled for the next boot, not started now. */
  start: boolean;
}

/** What the machine looks like, read before anything is done. */
export interface InstallFacts {
  /** The service user's uid, when the user exists. */
  userUid: number | undefined;
  /** The data directory: absent, an empty folder, a folder with files (and its owner), or something else. */
  data: { state: 'missing' } | { state: 'empty' } | { state: 'full'; owner: number } | { state: 'not-a-folder' };
}

/** A command as a person would type it (for output only: programs are run without a shell). */
export function shellLine(program: string, args: readonly string[]): string {
  const quote = (word: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
  return [program, ...args].map(quote).join(' ');
}

/** Everything that stops an install, each with what to do (empty: it can go ahead). */
export function installProblems(options: InstallOptions, facts: InstallFacts): string[] {
  const problems = unitProblems(options);
  if (problems.length > 0) return problems;
  const { data, user } = options;
  // The data directory is handed to the service user: never a system folder or someone's home.
  if (data.split('/').filter((part) => part !== '').length < 2) {
    problems.push(
      `The data directory ${data} is not a folder of its own: give one such as /var/lib/antenna (the service user will own it).`,
    );
  } else if (facts.data.state === 'not-a-folder') {
    problems.push(`The data directory ${data} exists and is not a folder: give another path with --data.`);
  } else if (facts.data.state === 'full' && facts.data.owner !== facts.userUid) {
    const handOver =
      facts.userUid === undefined
        ? `useradd --system --user-group ${user} && chown -R ${user}: ${shellLine(data, [])}`
        : `chown -R ${user}: ${shellLine(data, [])}`;
    problems.push(
      `The data directory ${data} holds files and belongs to uid ${facts.data.owner}, not to ${user}: give a new or empty folder with --data, or, if it is an earlier Antenna data directory, hand it over first with: ${handOver}`,
    );
  }
  return problems;
}

/** The install's steps, in order. Call installProblems first: these assume there are none. */
export function installSteps(options: InstallOptions, facts: InstallFacts): ServiceStep[] {
  const { user, data, node, antenna } = options;
  const steps: ServiceStep[] = [];
  if (facts.userUid === undefined) {
    steps.push({
      kind: 'run',
      why: `create the system user ${user}, which the service runs as (no login, no home folder of its own)`,
      program: 'useradd',
      args: [
        '--system',
        '--user-group',
        '--home-dir',
        data,
        '--no-create-home',
        '--shell',
        '/usr/sbin/nologin',
        '--comment',
        'Antenna DVR',
        user,
      ],
    });
  }
  if (facts.data.state === 'missing' || facts.data.state === 'empty') {
    steps.push({
      kind: 'run',
      why: `make the data directory ${data}, readable by ${user} only`,
      program: 'install',
      args: ['-d', '-m', '0750', '--', data],
    });
    steps.push({ kind: 'run', why: `give it to ${user}`, program: 'chown', args: ['--', `${user}:`, data] });
  }
  steps.push({
    kind: 'run',
    why: `check that ${user} can run this installation of Antenna (it cannot from a folder it may not enter, such as root's or a person's home)`,
    program: 'runuser',
    args: ['-u', user, '--', node, antenna, '--version'],
  });
  steps.push({
    kind: 'write',
    why: `write the unit (its settings can go in ${ENVIRONMENT_FILE})`,
    path: UNIT_PATH,
    content: renderUnit(options),
    mode: 0o644,
  });
  steps.push({ kind: 'run', why: 'make systemd read it', program: 'systemctl', args: ['daemon-reload'] });
  steps.push({ kind: 'run', why: 'start Antenna with the machine', program: 'systemctl', args: ['enable', UNIT_NAME] });
  if (options.start) {
    // restart, not start: a reinstall (a new node, a moved checkout) takes effect too; a recording resumes.
    steps.push({
      kind: 'run',
      why: 'start it now (or restart it with the new unit)',
      program: 'systemctl',
      args: ['restart', UNIT_NAME],
    });
  }
  return steps;
}

/** Uninstalling keeps the user and the data directory: the library is still there for a reinstall. */
export function uninstallSteps(): ServiceStep[] {
  return [
    {
      kind: 'run',
      why: 'stop Antenna and no longer start it with the machine',
      program: 'systemctl',
      args: ['disable', '--now', UNIT_NAME],
    },
    { kind: 'remove', why: 'remove the unit', path: UNIT_PATH },
    { kind: 'run', why: 'make systemd forget it', program: 'systemctl', args: ['daemon-reload'] },
  ];
}

/** The steps as a shell script a person can read (and run by hand): a comment per step, the unit as a here-document. */
export function describeSteps(steps: readonly ServiceStep[]): string {
  return steps
    .map((step, index) => {
      const heading = `# ${index + 1}. ${step.why}`;
      if (step.kind === 'run') return `${heading}\n${shellLine(step.program, step.args)}`;
      if (step.kind === 'remove') return `${heading}\n${shellLine('rm', ['-f', '--', step.path])}`;
      // The unit never holds a line reading EOF, so the here-document ends where it should; 'EOF' quoted: nothing
      // expanded.
      return `${heading}\ncat > ${shellLine(step.path, [])} <<'EOF'\n${step.content.replace(/\n$/, '')}\nEOF\n${shellLine('chmod', [step.mode.toString(8).padStart(4, '0'), step.path])}`;
    })
    .join('\n\n');
}

/** The data directory as the install takes it: absolute, normalised. */
export const serviceDataDir = (data: string, cwd: string) => posix.resolve(cwd, data);
