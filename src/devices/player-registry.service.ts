/**
 * The players this server knows. Each Antenna player registers at start and sends a
 * heartbeat (its status) every 15 s; one silent for 45 s is offline. Rows are kept in
 * the database, so the list survives a restart (everyone offline until heard from).
 * Changes are told as events: a player online or offline, playback started or stopped.
 * "Play on" and "notify" reach a player over its interface B.
 */
import type { Logger } from 'pino';
import { NotFoundError } from '../common/errors.js';
import type { Db } from '../db/database.js';
import {
  type ClientInfo,
  type ClientRegistration,
  OFFLINE_AFTER_MS,
  type PlayOnBody,
} from '../model/players/client.schemas.js';
import type { EventSink } from '../model/events/event.schemas.js';
import type { PlayerStatusBody } from '../model/players/player-status.schemas.js';
import {
  type PlayerRow,
  type StoredPlayerRow,
  deletePlayer,
  getPlayer,
  listPlayers,
  upsertPlayer,
} from '../repositories/events/players.repository.js';
import { setPlayerCommercialSkip } from '../repositories/events/household-settings.repository.js';
import type { PlayerSettingsBody } from '../model/players/playback-settings.schemas.js';
import { reachableAddress } from './client-address.js';
import { PlaybackSettingsService } from './playback-settings.service.js';
import { isCommercialSkipMode } from '../model/players/commercial-skip-modes.js';
import { isPrivateAddress } from '../http/request-origin.js';
import { callPlayer, playPath } from './interface-b.client.js';
import { playbackChange, playbackMessage } from './playback-changes.js';

export interface PlayerRegistryOptions {
  emit: EventSink;
  logger: Logger;
  /** This machine's network address: where a player registering over loopback is listed. */
  machineAddress: () => string | undefined;
  now?: () => number;
  offlineAfterMs?: number;
  /** How often offline players are looked for. */
  sweepMs?: number;
}

const deviceLabel = (backend: string) => `Antenna player (${backend})`;

export class PlayerRegistry {
  private readonly online = new Set<string>();
  private sweeper: NodeJS.Timeout | undefined;
  /** The household's playback settings, which a player without its own follows. */
  readonly playback: PlaybackSettingsService;

  constructor(
    private readonly db: Db,
    private readonly options: PlayerRegistryOptions,
  ) {
    this.playback = new PlaybackSettingsService(db);
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private get offlineAfterMs(): number {
    return this.options.offlineAfterMs ?? OFFLINE_AFTER_MS;
  }

  /** Players heard from recently before a restart count as online (no event: nothing changed for them). */
  start(): void {
    const since = this.now() - this.offlineAfterMs;
    for (const row of listPlayers(this.db)) if (row.last_seen_at >= since) this.online.add(row.device_id);
    this.sweeper = setInterval(() => this.sweep(), this.options.sweepMs ?? 5000);
    this.sweeper.unref();
  }

  stop(): void {
    clearInterval(this.sweeper);
  }

  /** A registration or heartbeat: stored, and what changed told. */
  register(deviceId: string, body: ClientRegistration, remoteAddress: string): ClientInfo {
    const now = this.now();
    const before = getPlayer(this.db, deviceId);
    const row: PlayerRow = {
      device_id: deviceId,
      name: body.name,
      hostname: body.hostname,
      local_ip: reachableAddress(body.local_ip, remoteAddress, this.options.machineAddress(), isPrivateAddress),
      remote_ip: remoteAddress,
      port: body.port,
      platform: body.platform,
      app_version: body.app_version,
      backend: body.backend,
      status: JSON.stringify(body.status),
      first_seen_at: before?.first_seen_at ?? now,
      last_seen_at: now,
    };
    upsertPlayer(this.db, row);
    const stored: StoredPlayerRow = { ...row, commercial_skip: before?.commercial_skip ?? null };
    if (!this.online.has(deviceId)) {
      this.online.add(deviceId);
      this.options.emit({
        kind: 'player.online',
        severity: 'info',
        message: `${body.name} is online (${row.local_ip}:${body.port}).`,
        data: { device_id: deviceId, player_name: body.name },
      });
    }
    const change = playbackChange(before ? statusOf(before) : undefined, body.status);
    if (change) {
      this.options.emit({
        kind: change === 'started' ? 'playback.started' : 'playback.stopped',
        severity: 'info',
        message: playbackMessage(body.name, change, body.status),
        data: {
          device_id: deviceId,
          player_name: body.name,
          ...(body.status.channel ? { channel: body.status.channel.number } : {}),
          ...(change === 'started' && body.status.now_playing?.title ? { title: body.status.now_playing.title } : {}),
        },
      });
    }
    return this.infoOf(stored);
  }

  /** A player's own settings (null: the household's); the player hears of them at its next heartbeat. */
  setOwnSettings(deviceId: string, body: PlayerSettingsBody): ClientInfo {
    if (!setPlayerCommercialSkip(this.db, deviceId, body.commercial_skip)) throw new NotFoundError('player', deviceId);
    return this.get(deviceId);
  }

  list(): ClientInfo[] {
    return listPlayers(this.db).map((row) => this.infoOf(row));
  }

  get(deviceId: string): ClientInfo {
    return this.infoOf(this.rowOf(deviceId));
  }

  /** Forgets a player (it comes back at its next heartbeat if it still runs). */
  forget(deviceId: string): void {
    if (!deletePlayer(this.db, deviceId)) throw new NotFoundError('player', deviceId);
    this.online.delete(deviceId);
  }

  /** Whether any known player is online now. */
  onlineCount(): number {
    return this.online.size;
  }

  /** Plays an item or a channel on the player; its status after. */
  playOn(deviceId: string, what: PlayOnBody): Promise<PlayerStatusBody> {
    return callPlayer(this.rowOf(deviceId), playPath(what));
  }

  notify(deviceId: string, title: string, message: string): Promise<PlayerStatusBody> {
    return callPlayer(this.rowOf(deviceId), '/api/notify', { title, message });
  }

  /**
   * Shows a notification on every online player (a failed recording, a full disk: the TV says so too). In the
   * background; a player that cannot be reached is only logged.
   */
  notifyAll(title: string, message: string): void {
    for (const row of listPlayers(this.db)) {
      if (!this.online.has(row.device_id)) continue;
      callPlayer(row, '/api/notify', { title: title.slice(0, 100), message: message.slice(0, 500) }).catch(
        (error: unknown) =>
          this.options.logger.debug({ err: error, device: row.device_id }, 'could not notify a player'),
      );
    }
  }

  private rowOf(deviceId: string): StoredPlayerRow {
    const row = getPlayer(this.db, deviceId);
    if (!row) throw new NotFoundError('player', deviceId);
    return row;
  }

  /** Players whose heartbeat stopped: offline, once. Never throws (it runs from a timer). */
  sweep(): void {
    try {
      this.sweepOnce();
    } catch (error) {
      this.options.logger.warn({ err: error }, 'could not look for players gone offline; trying again in 5 s');
    }
  }

  private sweepOnce(): void {
    const since = this.now() - this.offlineAfterMs;
    for (const deviceId of [...this.online]) {
      const row = getPlayer(this.db, deviceId);
      if (row && row.last_seen_at >= since) continue;
      this.online.delete(deviceId);
      if (!row) continue;
      this.options.logger.info({ device: deviceId, name: row.name }, 'player offline (no heartbeat)');
      this.options.emit({
        kind: 'player.offline',
        severity: 'warning',
        message: `${row.name} went offline: nothing heard from it for ${Math.round(this.offlineAfterMs / 1000)} s.`,
        data: { device_id: deviceId, player_name: row.name },
      });
    }
  }

  private infoOf(row: StoredPlayerRow): ClientInfo {
    const own = isCommercialSkipMode(row.commercial_skip) ? row.commercial_skip : null;
    const online = this.online.has(row.device_id) && row.last_seen_at >= this.now() - this.offlineAfterMs;
    return {
      device_id: row.device_id,
      id: row.device_id,
      name: row.name,
      device: deviceLabel(row.backend),
      hostname: row.hostname,
      local_ip: row.local_ip,
      remote_ip: row.remote_ip,
      port: row.port,
      platform: row.platform,
      app_version: row.app_version,
      backend: row.backend as ClientInfo['backend'],
      first_seen_at: row.first_seen_at,
      last_seen_at: row.last_seen_at,
      seen_at: row.last_seen_at,
      online,
      connected: online,
      status: statusOf(row),
      commercial_skip: own ?? this.playback.commercialSkip(),
      own_commercial_skip: own,
    };
  }
}

function statusOf(row: PlayerRow): PlayerStatusBody {
  return JSON.parse(row.status) as PlayerStatusBody;
}
