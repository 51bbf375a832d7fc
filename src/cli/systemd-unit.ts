/**
 * The systemd unit `antenna service install` writes, and systemd's quoting rules for the
 * paths in it (pure). deploy/antenna.service is this unit as rendered for a checkout in
 * /opt/antenna (a test keeps the two equal).
 *
 * What systemd does with a value, and so what is done here (systemd.syntax(7),
 * systemd.service(5) "Command lines", checked with systemd-analyze verify):
 * - `%` starts a specifier everywhere: written `%%`;
 * - in a command line's arguments `$` starts a variable: written `$$` (not in the program
 *   path, which is taken as it is);
 * - a double-quoted word keeps its spaces; inside it `\` and `"` would need escaping;
 * - systemd refuses a program path holding `"`, `'` or `\` ("special characters"), and
 *   a unit line cannot hold a line break: paths with those, or ending in whitespace
 *   (trimmed from an unquoted value), are refused with a message instead.
 */
import { posix } from 'node:path';

export const UNIT_NAME = 'antenna.service';
export const UNIT_PATH = `/etc/systemd/system/${UNIT_NAME}`;
/** ANTENNA_* settings for the service, one per line (Debian's place for a service's settings); optional. */
export const ENVIRONMENT_FILE = '/etc/default/antenna';
/**
 * How long systemd waits after SIGTERM before it kills Antenna. A stop while recording
 * takes well under a second (test/e2e/service.test.ts measures it); the margin is for
 * a slow disk closing files and the database.
 */
export const STOP_TIMEOUT_SECONDS = 30;

export interface UnitOptions {
  /** The node program that runs Antenna (absolute). */
  node: string;
  /** This installation's bin/antenna (absolute). */
  antenna: string;
  /** The system user the service runs as. */
  user: string;
  /** The data directory (absolute): the only place the service may write. */
  data: string;
}

export const DEFAULT_SERVICE_USER = 'antenna';
export const DEFAULT_SERVICE_DATA = '/var/lib/antenna';

/**
 * A user name useradd and systemd both take: a lowercase letter or _, then letters, digits, _ or -, at most 31
 * characters.
 */
export function serviceUserProblem(user: string): string | undefined {
  if (!/^[a-z_][a-z0-9_-]{0,30}$/.test(user))
    return `User name '${user}' is invalid: give a lowercase name such as antenna (letters, digits, _ and -, at most 31 characters).`;
  if (user === 'root')
    return 'The service must not run as root: give a user of its own, such as antenna (the default).';
  return undefined;
}

/** Why `path` cannot be written into the unit, or undefined when it can (`what` names it in the message). */
export function unitPathProblem(path: string, what: string): string | undefined {
  if (!posix.isAbsolute(path) || posix.resolve(path) !== path)
    return `${what} ${JSON.stringify(path)} is not a plain absolute path: give it from / without . or .. parts, doubled slashes or a trailing slash.`;
  if ([...path].some((char) => char.charCodeAt(0) < 0x20 || char === '\u007f'))
    return `${what} ${JSON.stringify(path)} holds a control character (a line break?), which a systemd unit cannot hold: use a folder without one.`;
  if (/["'\\]/.test(path))
    return `${what} ${JSON.stringify(path)} holds a quote or a backslash, which systemd refuses in a program's path: use a path without them.`;
  if (/\s$/.test(path))
    return `${what} ${JSON.stringify(path)} ends in whitespace, which systemd trims from a unit's values: use a path that does not.`;
  if (Buffer.from(path).toString() !== path)
    return `${what} ${JSON.stringify(path)} is not valid Unicode: use a path that is.`;
  return undefined;
}

/** `%` doubled: systemd reads `%x` as a specifier in every value used here. */
const specifierSafe = (text: string) => text.replace(/%/g, '%%');

/** One double-quoted word of a unit line; in a command line's arguments `$` is doubled too. */
export function quotedWord(text: string, where: 'program' | 'argument' | 'value'): string {
  let escaped = specifierSafe(text.replace(/\\/g, '\\\\').replace(/"/g, '\\"'));
  if (where === 'argument') escaped = escaped.replace(/\$/g, '$$$$');
  return `"${escaped}"`;
}

/** The options' paths and user checked, all problems at once (empty when the unit can be written). */
export function unitProblems(options: UnitOptions): string[] {
  return [
    unitPathProblem(options.node, 'The node program'),
    unitPathProblem(options.antenna, 'The antenna program'),
    unitPathProblem(options.data, 'The data directory'),
    serviceUserProblem(options.user),
  ].filter((problem): problem is string => problem !== undefined);
}

/**
 * /var/lib/<name>: systemd creates it for the user and gives it back to them if its owner changed (StateDirectory=).
 */
function stateDirectoryOf(data: string): string | undefined {
  const match = /^\/var\/lib\/([A-Za-z0-9._-]+)$/.exec(data);
  return match?.[1];
}

/** The unit's text. Throws when an option cannot be written into a unit (check with unitProblems first). */
export function renderUnit(options: UnitOptions): string {
  const problems = unitProblems(options);
  if (problems.length > 0) throw new Error(problems.join(' '));
  const state = stateDirectoryOf(options.data);
  return [
    '# Antenna, the home DVR and media library server, as a systemd service.',
    '# Written by `antenna service install`; README.md, "Running as a service (Debian)", says more.',
    `# Settings: ANTENNA_* variables in ${ENVIRONMENT_FILE} (one per line), or \`systemctl edit antenna\`.`,
    '',
    '[Unit]',
    'Description=Antenna DVR and media library server',
    'Wants=network-online.target',
    'After=network-online.target',
    // A setting that cannot work would otherwise restart forever.
    'StartLimitIntervalSec=300',
    'StartLimitBurst=5',
    '',
    '[Service]',
    'Type=simple',
    `User=${options.user}`,
    `Environment=${quotedWord(`ANTENNA_DATA=${options.data}`, 'value')}`,
    `EnvironmentFile=-${ENVIRONMENT_FILE}`,
    ...(state ? [`StateDirectory=${state}`, 'StateDirectoryMode=0750'] : []),
    `WorkingDirectory=${specifierSafe(options.data)}`,
    `ExecStart=${quotedWord(options.node, 'program')} ${quotedWord(options.antenna, 'argument')} server`,
    '# SIGTERM to Antenna alone: it ends its ffmpegs itself, keeps what each recording wrote',
    '# (the recording resumes at the next start) and closes the database; whatever is left',
    '# when TimeoutStopSec runs out is killed.',
    'KillMode=mixed',
    'KillSignal=SIGTERM',
    `TimeoutStopSec=${STOP_TIMEOUT_SECONDS}`,
    'Restart=on-failure',
    'RestartSec=5',
    '# Exit status 2 is a setting that cannot work: restarting will not fix it.',
    'RestartPreventExitStatus=2',
    '',
    '# Antenna writes only in its data directory, and reads media wherever its user may',
    '# (home folders included, read-only). A recordings folder elsewhere needs a',
    '# ReadWritePaths= line of its own (systemctl edit antenna).',
    'NoNewPrivileges=yes',
    '# No capabilities: port 8089 needs none, and neither do ffmpeg, ffprobe or comskip.',
    'CapabilityBoundingSet=',
    'ProtectSystem=strict',
    `ReadWritePaths=${quotedWord(options.data, 'value')}`,
    'ProtectHome=read-only',
    'PrivateTmp=yes',
    'PrivateMounts=yes',
    'RemoveIPC=yes',
    "# Other users' processes hidden (Node reads only its own, and /proc's system files).",
    'ProtectProc=invisible',
    'ProtectKernelTunables=yes',
    'ProtectKernelModules=yes',
    'ProtectKernelLogs=yes',
    'ProtectControlGroups=yes',
    'ProtectHostname=yes',
    'RestrictSUIDSGID=yes',
    'RestrictRealtime=yes',
    'RestrictNamespaces=yes',
    'LockPersonality=yes',
    'SystemCallArchitectures=native',
    '# Netlink: Node lists the network interfaces through it (DNS-SD, the listening address).',
    'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK',
    '# Not set, on purpose: MemoryDenyWriteExecute (Node compiles JavaScript to machine code),',
    '# PrivateDevices and ProtectClock (both close /dev/dri, which --hls-encoder vaapi/qsv uses).',
    'UMask=0027',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}
