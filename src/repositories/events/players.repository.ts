/** The players that registered with this server: one row per device id, written at each heartbeat. */
import type { Db } from '../../db/database.js';
import { statement } from '../../db/row-codec.js';

export interface PlayerRow {
  device_id: string;
  name: string;
  hostname: string;
  local_ip: string;
  remote_ip: string;
  port: number;
  platform: string;
  app_version: string;
  backend: string;
  /** The player status (interface B's), as JSON. */
  status: string;
  first_seen_at: number;
  last_seen_at: number;
}

/** A stored player: what it last said, and the choices made for it here. */
export interface StoredPlayerRow extends PlayerRow {
  /** Its own commercial-skip mode; null follows the household's. */
  commercial_skip: string | null;
}

const COLUMNS =
  'device_id, name, hostname, local_ip, remote_ip, port, platform, app_version, backend, status, first_seen_at, last_seen_at';
const STORED = `${COLUMNS}, commercial_skip`;

export function listPlayers(db: Db): StoredPlayerRow[] {
  return statement(db, `SELECT ${STORED} FROM players ORDER BY name, device_id`).all() as StoredPlayerRow[];
}

export function getPlayer(db: Db, deviceId: string): StoredPlayerRow | undefined {
  return statement(db, `SELECT ${STORED} FROM players WHERE device_id = ?`).get(deviceId) as
    | StoredPlayerRow
    | undefined;
}

/** Writes what a heartbeat says; a player seen before keeps its first_seen_at and the choices made for it. */
export function upsertPlayer(db: Db, row: PlayerRow): void {
  statement(
    db,
    `INSERT INTO players (${COLUMNS}) VALUES (@device_id, @name, @hostname, @local_ip, @remote_ip, @port, @platform,
       @app_version, @backend, @status, @first_seen_at, @last_seen_at)
     ON CONFLICT (device_id) DO UPDATE SET name = excluded.name, hostname = excluded.hostname,
       local_ip = excluded.local_ip, remote_ip = excluded.remote_ip, port = excluded.port, platform = excluded.platform,
       app_version = excluded.app_version, backend = excluded.backend, status = excluded.status,
       last_seen_at = excluded.last_seen_at`,
  ).run(row);
}

/** False when no player has this id. */
export function deletePlayer(db: Db, deviceId: string): boolean {
  return statement(db, 'DELETE FROM players WHERE device_id = ?').run(deviceId).changes > 0;
}
