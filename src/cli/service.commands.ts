/**
 * `antenna service install|uninstall`: Antenna as a systemd service on Debian (or any
 * systemd machine). The steps come from service-steps.ts; this file reads the machine,
 * refuses what cannot work, and carries the steps out (programs through the one
 * module that runs programs, without a shell). --dry-run prints them instead.
 */
import { existsSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { findProgram, lastLine, runProgram } from '../common/external-program.js';
import {
  type InstallFacts,
  type InstallOptions,
  type ServiceStep,
  describeSteps,
  installProblems,
  installSteps,
  serviceDataDir,
  shellLine,
  uninstallSteps,
} from './service-steps.js';
import { DEFAULT_SERVICE_DATA, DEFAULT_SERVICE_USER, ENVIRONMENT_FILE, UNIT_NAME, UNIT_PATH } from './systemd-unit.js';

/** A service command that cannot go ahead; the message says what to do. */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
}

/** This installation's bin/antenna (dist/cli/ -> bin/, as src/cli/ -> bin/ under the tests), links followed. */
const ANTENNA_BIN = fileURLToPath(new URL('../../bin/antenna', import.meta.url));

export function addServiceCommands(program: Command): void {
  const service = program
    .command('service')
    .description('run Antenna as a systemd service (Debian): install or uninstall it');
  service
    .command('install')
    .description(`as root: create the service user and data directory, write ${UNIT_PATH}, enable and start the server`)
    .option('--user <name>', 'the system user the service runs as, created if missing', DEFAULT_SERVICE_USER)
    .option('--data <dir>', 'the data directory, the only place the service writes', DEFAULT_SERVICE_DATA)
    .option('--no-start', 'enable the service for the next boot without starting it now')
    .option('--dry-run', 'print what it would do (commands and the unit file) and change nothing')
    .action(async (options: { user: string; data: string; start: boolean; dryRun?: boolean }) => {
      await install(
        {
          user: options.user,
          data: serviceDataDir(options.data, process.cwd()),
          node: realpathSync(process.execPath),
          antenna: realpathSync(ANTENNA_BIN),
          start: options.start,
        },
        options.dryRun === true,
      );
    });
  service
    .command('uninstall')
    .description(`as root: stop and disable the service and remove ${UNIT_PATH} (the user and the data directory stay)`)
    .option('--dry-run', 'print what it would do and change nothing')
    .action(async (options: { dryRun?: boolean }) => uninstall(options.dryRun === true));
}

async function install(options: InstallOptions, dryRun: boolean): Promise<void> {
  if (!dryRun) checkCanManageServices('install');
  const facts: InstallFacts = { userUid: await userUid(options.user), data: dataState(options.data) };
  const problems = installProblems(options, facts);
  if (problems.length > 0) throw new ServiceError(problems.join(' '));
  const steps = installSteps(options, facts);
  if (dryRun) {
    printDryRun(
      'install',
      steps,
      facts.userUid === undefined ? [] : [`the user ${options.user} exists already (uid ${facts.userUid})`],
    );
    return;
  }
  await carryOut(steps);
  process.stdout.write(
    [
      `Antenna runs as the service ${UNIT_NAME} (user ${options.user}, data ${options.data})${options.start ? '' : ' from the next boot (start it now with: systemctl start antenna)'}, and starts with the machine.`,
      '  status:   systemctl status antenna',
      '  logs:     journalctl -u antenna -f',
      `  settings: ANTENNA_* lines in ${ENVIRONMENT_FILE} (such as ANTENNA_TV=/srv/media/tv), then systemctl restart antenna`,
      '',
    ].join('\n'),
  );
}

async function uninstall(dryRun: boolean): Promise<void> {
  if (!dryRun) checkCanManageServices('uninstall');
  if (!existsSync(UNIT_PATH))
    throw new ServiceError(`Antenna is not installed as a service (there is no ${UNIT_PATH}): nothing to uninstall.`);
  const steps = uninstallSteps();
  const kept =
    'the service user and the data directory are kept (remove them with userdel and rm -r if you no longer want the library)';
  if (dryRun) {
    printDryRun('uninstall', steps, [kept]);
    return;
  }
  await carryOut(steps);
  process.stdout.write(`Antenna no longer runs as a service; ${kept}.\n`);
}

/** A real run changes the system: only root may, only where systemd runs. */
function checkCanManageServices(command: string): void {
  if (process.getuid?.() !== 0)
    throw new ServiceError(
      `antenna service ${command} changes the system: run it as root (for example with sudo), or add --dry-run to see what it would do.`,
    );
  if (findProgram('systemctl') === undefined)
    throw new ServiceError(
      'systemctl was not found: antenna service needs systemd (on Debian, apt-get install systemd); otherwise run antenna server from your own init system.',
    );
  // sd_booted()'s test: systemctl is installed in containers where systemd does not run.
  if (!existsSync('/run/systemd/system'))
    throw new ServiceError(
      'systemd is not running on this machine (no /run/systemd/system), so it cannot run a service: run antenna server another way, or add --dry-run to see what would be done.',
    );
}

/** The user's uid from the user database (getent reads it as the system does: /etc/passwd, LDAP, ...). */
async function userUid(user: string): Promise<number | undefined> {
  const outcome = await runProgram('getent', ['passwd', user], { timeoutMs: 10_000 });
  if (outcome.kind === 'ok') {
    const uid = Number(outcome.stdout.split(':')[2]);
    if (Number.isInteger(uid)) return uid;
  }
  // getent's exit status 2: no such user.
  if (outcome.kind === 'failed' && outcome.exitCode === 2) return undefined;
  throw new ServiceError(
    `Could not look up the user ${user} with getent (${outcome.kind === 'ok' ? 'unexpected answer' : outcome.reason}): check that getent (Debian's libc-bin) is installed.`,
  );
}

function dataState(data: string): InstallFacts['data'] {
  try {
    const stat = statSync(data);
    if (!stat.isDirectory()) return { state: 'not-a-folder' };
    return readdirSync(data).length === 0 ? { state: 'empty' } : { state: 'full', owner: stat.uid };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    throw new ServiceError(
      `The data directory ${data} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}): give another one with --data.`,
    );
  }
}

function printDryRun(command: string, steps: readonly ServiceStep[], notes: readonly string[]): void {
  const who = process.getuid?.() === 0 ? '' : ' (run as root)';
  process.stdout.write(
    [
      `# antenna service ${command} --dry-run: nothing was changed. Without --dry-run${who} it would:`,
      ...notes.map((note) => `# (${note})`),
      '',
      describeSteps(steps),
      '',
    ].join('\n'),
  );
}

/** Each step in order, said as it is done; the first that fails stops the rest with what to do. */
async function carryOut(steps: readonly ServiceStep[]): Promise<void> {
  for (const step of steps) {
    process.stdout.write(`${step.why}\n`);
    if (step.kind === 'write') {
      // A whole file or none: written beside it, then renamed over it.
      const partial = `${step.path}.partial`;
      try {
        writeFileSync(partial, step.content, { mode: step.mode });
        chmodSync(partial, step.mode);
        renameSync(partial, step.path);
      } catch (error) {
        rmSync(partial, { force: true });
        throw new ServiceError(
          `Could not write ${step.path} (${(error as NodeJS.ErrnoException).code ?? String(error)}): check that /etc/systemd/system exists and is writable by root.`,
        );
      }
      continue;
    }
    if (step.kind === 'remove') {
      rmSync(step.path, { force: true });
      continue;
    }
    const outcome = await runProgram(step.program, step.args, { timeoutMs: 120_000 });
    if (outcome.kind !== 'ok') {
      const said = lastLine(outcome.stderrTail) || lastLine(outcome.stdout);
      throw new ServiceError(
        `${shellLine(step.program, step.args)} failed (${outcome.reason}${said ? `: ${said}` : ''}): ${adviceFor(step)} Steps before it were done; run the install again once this is fixed.`,
      );
    }
  }
}

function adviceFor(step: Extract<ServiceStep, { kind: 'run' }>): string {
  if (step.program === 'runuser')
    return 'install Antenna (and node) where the service user can read them, such as /opt/antenna, then run the install from there.';
  if (step.program === 'useradd')
    return 'create the user yourself (useradd --system --user-group NAME), or give an existing one with --user.';
  if (step.program === 'systemctl' && step.args[0] === 'restart') return 'see why with: journalctl -u antenna -n 50';
  return 'check the message above and that the program is installed.';
}
