/** The household's settings (one JSON value per key) and a player's own choices beside its registration. */
import type { Db } from '../../db/database.js';
import { statement } from '../../db/row-codec.js';

/** The stored JSON of a setting, or undefined when never set. */
export function getHouseholdSetting(db: Db, key: string): string | undefined {
  const row = statement(db, 'SELECT value FROM household_settings WHERE key = ?').get(key) as
    | { value: string }
    | undefined;
  return row?.value;
}

export function putHouseholdSetting(db: Db, key: string, value: string): void {
  statement(
    db,
    'INSERT INTO household_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  ).run(key, value);
}

/** A player's own commercial-skip mode; null follows the household. False when no player has this id. */
export function setPlayerCommercialSkip(db: Db, deviceId: string, mode: string | null): boolean {
  return statement(db, 'UPDATE players SET commercial_skip = ? WHERE device_id = ?').run(mode, deviceId).changes > 0;
}
