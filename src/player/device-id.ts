/**
 * The player's device id: made once at random and kept in its data directory, so a
 * restart (or a new address) is the same player to its server. A directory it cannot
 * write leaves an id that lasts until the process ends (said once in the log).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEVICE_ID_PATTERN } from '../model/players/client.schemas.js';

const ID_FILE = 'device-id';
const isDeviceId = (text: string) => new RegExp(DEVICE_ID_PATTERN).test(text);

/** Where a player keeps its data when none is given: one folder per port (two players on one box are two players). */
export function defaultPlayerDataDir(port: number, env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(state, 'antenna', `player-${port}`);
}

export function readOrMakeDeviceId(dir: string): { id: string; kept: boolean } {
  const file = join(dir, ID_FILE);
  try {
    const text = readFileSync(file, 'utf8').trim();
    if (isDeviceId(text)) return { id: text, kept: true };
  } catch {
    // none yet (or unreadable): a new one below
  }
  const id = randomBytes(12).toString('hex');
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, `${id}\n`, { mode: 0o644 });
    return { id, kept: true };
  } catch {
    return { id, kept: false };
  }
}
