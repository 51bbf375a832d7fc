/**
 * Makes sure the system tools Antenna runs are installed: `node scripts/ensure-system-packages.mjs ffmpeg ffprobe`.
 * A name ending in `@display` is needed only on a machine with a display (DISPLAY or
 * WAYLAND_DISPLAY set): `chromium@display` for the player that shows the app on a TV.
 *
 * A tool already on PATH is left alone. Missing ones are installed from the Debian
 * archive with apt-get when this runs as root on a machine that has apt-get (a fresh
 * Debian box, CI); anywhere else it stops with one line saying what to install.
 * Nothing is downloaded from anywhere but the system's own package archive.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import process from 'node:process';

/** Debian package per command. */
const PACKAGES = {
  ffmpeg: 'ffmpeg',
  ffprobe: 'ffmpeg',
  mpv: 'mpv',
  chromium: 'chromium',
  comskip: 'comskip',
  Xvfb: 'xvfb',
  bindfs: 'bindfs',
  xmllint: 'libxml2-utils',
  'xmltv.dtd': 'libxmltv-perl',
  // The MQTT tests' broker (users bring their own, such as Home Assistant's).
  mosquitto: 'mosquitto',
};
/**
 * Needs that are files, not commands: where the package puts them (the XMLTV DTD the tests validate exported guides
 * against).
 */
const FILES = {
  'xmltv.dtd': '/usr/share/sgml/xmltv/dtd/0.5/xmltv.dtd',
  // Debian puts it in /usr/sbin, which a user's PATH may lack: the tests look there.
  mosquitto: '/usr/sbin/mosquitto',
};

function onPath(command) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}

/** A command on PATH, or a file where its package puts it. */
function present(need) {
  if (!(need in FILES)) return onPath(need);
  try {
    accessSync(FILES[need], constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

function run(command, args) {
  const result = spawnSync(command, args, {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return result.status === 0;
}

const hasDisplay = Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
const commands = process.argv
  .slice(2)
  .filter((c) => !c.endsWith('@display') || hasDisplay)
  .map((c) => c.replace(/@display$/, ''));
const unknown = commands.filter((c) => !(c in PACKAGES));
if (unknown.length > 0) {
  console.error(`ensure-system-packages: no package known for ${unknown.join(', ')}`);
  process.exit(2);
}
const missing = commands.filter((c) => !present(c));
if (missing.length === 0) process.exit(0);

const packages = [...new Set(missing.map((c) => PACKAGES[c]))];
const canInstall = process.getuid?.() === 0 && onPath('apt-get');
if (!canInstall) {
  console.error(
    `antenna needs ${missing.join(', ')}: install them with \`sudo apt-get install ${packages.join(' ')}\` (or your system's package manager), then run this again.`,
  );
  process.exit(1);
}
console.error(`antenna: installing ${packages.join(', ')} from the Debian archive (needed: ${missing.join(', ')})…`);
const installed =
  run('apt-get', ['install', '-y', '--no-install-recommends', ...packages]) ||
  (run('apt-get', ['update']) && run('apt-get', ['install', '-y', '--no-install-recommends', ...packages]));
const still = commands.filter((c) => !present(c));
if (!installed || still.length > 0) {
  console.error(
    `antenna: could not install ${packages.join(', ')} with apt-get; install them by hand, then run this again.`,
  );
  process.exit(1);
}
