/**
 * The player telling its server it exists: a registration at start, then a heartbeat
 * every 15 s with its status, and at once when what it plays changes (checked every
 * 2 s), so the server's list of players (GET /dvr/clients/info) and its playback events
 * stay current. A server that cannot be reached or refuses is logged once, not at every
 * beat; the player plays on regardless.
 */
import { hostname, type } from 'node:os';
import type { Logger } from 'pino';
import { type ClientRegistration, HEARTBEAT_MS } from '../model/players/client.schemas.js';
import type { PlayerStatusBody } from '../model/players/player-status.schemas.js';
import { VERSION } from '../version.js';
import type { CommercialSkipMode } from '../model/players/commercial-skip-modes.js';

const STATUS_CHECK_MS = 2_000;

export interface RegistrationOptions {
  deviceId: string;
  name: string;
  port: number;
  backend: ClientRegistration['backend'];
  /** The address interface B listens on, when it is one (not 0.0.0.0). */
  listenAddress: string | undefined;
  status: () => PlayerStatusBody;
  /** Sends it; the answer says what the player does at a commercial break. */
  send: (deviceId: string, body: ClientRegistration) => Promise<{ commercialSkip?: CommercialSkipMode }>;
  /** The server's answer named the mode (each heartbeat: a change made in Settings reaches the player within 15 s). */
  commercialSkip?: (mode: CommercialSkipMode) => void;
  logger: Logger;
  heartbeatMs?: number;
  statusCheckMs?: number;
}

/** What changes the server should hear of at once: the state and what is loaded (not the position). */
export function statusKey(status: PlayerStatusBody): string {
  const playing = status.now_playing;
  return [status.status, status.channel?.number, playing?.title, playing?.episode_title, status.muted].join('\t');
}

const isAddress = (host: string | undefined) => host !== undefined && /^[0-9a-fA-F:.]+$/.test(host);

export class ServerRegistration {
  private timer: NodeJS.Timeout | undefined;
  private lastSentAt = 0;
  private lastKey = '';
  private sending: Promise<void> | undefined;
  private failing = false;

  constructor(private readonly options: RegistrationOptions) {}

  start(): void {
    void this.beat();
    this.timer = setInterval(() => this.tick(), this.options.statusCheckMs ?? STATUS_CHECK_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    const due = Date.now() - this.lastSentAt >= (this.options.heartbeatMs ?? HEARTBEAT_MS);
    if (due || statusKey(this.options.status()) !== this.lastKey) void this.beat();
  }

  body(): ClientRegistration {
    const { listenAddress } = this.options;
    const status = this.options.status();
    return {
      name: this.options.name,
      hostname: hostname().slice(0, 253) || 'unknown',
      port: this.options.port,
      platform: type(),
      app_version: VERSION,
      backend: this.options.backend,
      ...(isAddress(listenAddress) && listenAddress !== '0.0.0.0' && listenAddress !== '::'
        ? { local_ip: listenAddress }
        : {}),
      status,
    };
  }

  /** One registration now (one at a time: a beat while one is under way waits for the next tick). */
  beat(): Promise<void> {
    if (this.sending) return this.sending;
    const body = this.body();
    this.lastKey = statusKey(body.status);
    this.lastSentAt = Date.now();
    this.sending = this.options
      .send(this.options.deviceId, body)
      .then(
        (answer) => {
          if (answer.commercialSkip) this.options.commercialSkip?.(answer.commercialSkip);
          if (this.failing) this.options.logger.info('registered with the server again');
          this.failing = false;
        },
        (error: unknown) => {
          if (!this.failing)
            this.options.logger.warn(
              { err: error },
              'could not register with the server (it will not list this player until it can); retrying every 15 s',
            );
          this.failing = true;
        },
      )
      .finally(() => {
        this.sending = undefined;
      });
    return this.sending;
  }
}
