/**
 * Publishes to an MQTT broker (--mqtt URL): each event on `BASE/events/KIND`, the
 * server's and each player's state retained (on a change and every minute), the
 * server's availability (a will says `offline` when it vanishes), and Home Assistant
 * discovery configs, sent again whenever Home Assistant says it restarted. MQTT.js
 * reconnects by itself; while the broker is away, the newest events wait (at most
 * EVENTS_WAITING) and nothing else waits on it. A broker that cannot be reached is
 * logged once and named in GET /status until it answers.
 */
import { type MqttClient, connect } from 'mqtt';
import type { Logger } from 'pino';
import { redactUrl } from '../common/url-redaction.js';
import type { AntennaEvent } from '../model/events/event.schemas.js';
import {
  HA_STATUS_TOPIC,
  type MqttIdentity,
  type PlayerSnapshot,
  type Retained,
  type ServerSnapshot,
  mqttTopics,
  playerDiscovery,
  playerState,
  removal,
  serverDiscovery,
  serverState,
} from './mqtt-topics.js';

/** Events kept while the broker is away; the oldest go first past it. */
export const EVENTS_WAITING = 100;
const STATE_EVERY_MS = 60_000;
/** The kinds after which the retained state is published again at once. */
const STATE_KINDS = /^(recording|disk|player|playback)\./;

export interface MqttPublisherOptions {
  url: string;
  identity: MqttIdentity;
  logger: Logger;
  snapshot: () => ServerSnapshot;
  players: () => PlayerSnapshot[];
  /** The newest error event at start (then each one told). */
  lastFailure?: AntennaEvent | undefined;
  /** Tests shorten the waits. */
  reconnectMs?: number;
}

export interface MqttState {
  url: string;
  connected: boolean;
  error?: string;
  since?: number;
}

export class MqttPublisher {
  private client: MqttClient | undefined;
  private connected = false;
  private problem: { error: string; since: number } | undefined;
  private readonly waiting: AntennaEvent[] = [];
  private lastFailure: AntennaEvent | undefined;
  /** Players whose discovery configs were published, so a forgotten one is removed from Home Assistant. */
  private readonly announced = new Map<string, Retained[]>();
  private timer: NodeJS.Timeout | undefined;
  /** Closing on purpose: the connection's end is no problem to tell. */
  private stopping = false;
  private readonly topics;

  constructor(private readonly options: MqttPublisherOptions) {
    this.topics = mqttTopics(options.identity.base);
    this.lastFailure = options.lastFailure;
  }

  start(): void {
    const { identity } = this.options;
    const client = connect(this.options.url, {
      clientId: `antenna-${identity.serverId}`.slice(0, 23),
      clean: true,
      reconnectPeriod: this.options.reconnectMs ?? 5000,
      connectTimeout: 10_000,
      // A broker refusing the connection while it starts (or a login fixed later) is tried again too.
      reconnectOnConnackError: true,
      queueQoSZero: false,
      will: { topic: this.topics.availability, payload: Buffer.from('offline'), qos: 1, retain: true },
    });
    this.client = client;
    client.on('connect', () => this.connectedNow());
    client.on('message', (topic, payload) => {
      if (topic === HA_STATUS_TOPIC && payload.toString() === 'online') this.announce();
    });
    client.on('error', (error) => this.failing(error.message));
    client.on('close', () => {
      if (this.stopping) return;
      if (this.connected) this.failing('the connection to the broker closed');
      else if (!this.problem) this.failing('could not connect to the broker');
      this.connected = false;
    });
    this.timer = setInterval(() => this.publishStates(), STATE_EVERY_MS);
    this.timer.unref();
  }

  /** An EventLog listener: the event published (or kept until the broker is back), then the state. */
  readonly take = (event: AntennaEvent): void => {
    if (event.severity === 'error') this.lastFailure = event;
    if (!this.connected) {
      this.waiting.push(event);
      if (this.waiting.length > EVENTS_WAITING) this.waiting.shift();
      return;
    }
    this.publishEvent(event);
    if (STATE_KINDS.test(event.kind)) this.publishStates();
  };

  state(): MqttState {
    return {
      url: redactUrl(this.options.url),
      connected: this.connected,
      ...(this.problem ? { error: this.problem.error, since: this.problem.since } : {}),
    };
  }

  /** Says `offline` (retained) and disconnects; a broker that is away is not waited for. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    const client = this.client;
    if (!client) return;
    if (this.connected) {
      await Promise.race([
        client.publishAsync(this.topics.availability, 'offline', { qos: 1, retain: true }).catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, 2000).unref()),
      ]);
    }
    await client.endAsync(true);
  }

  private connectedNow(): void {
    if (this.problem)
      this.options.logger.info({ broker: redactUrl(this.options.url) }, 'the MQTT broker answers again');
    this.connected = true;
    this.problem = undefined;
    this.client?.subscribe(HA_STATUS_TOPIC, { qos: 1 });
    this.publish({ topic: this.topics.availability, payload: 'online' });
    this.announce();
    for (const event of this.waiting.splice(0)) this.publishEvent(event);
  }

  private failing(error: string): void {
    if (!this.problem) {
      this.options.logger.warn(
        { broker: redactUrl(this.options.url), reason: error },
        'the MQTT broker cannot be reached: events wait and it is tried again every few seconds',
      );
      this.problem = { error, since: Date.now() };
    } else this.problem.error = error;
  }

  /** Discovery configs, then the states they read. */
  private announce(): void {
    for (const config of serverDiscovery(this.options.identity)) this.publish(config);
    this.publishStates(true);
  }

  /** The states; a player's discovery configs the first time it is seen (or all of them, `announceAll`). */
  private publishStates(announceAll = false): void {
    if (!this.connected) return;
    try {
      this.publish({
        topic: this.topics.server,
        payload: JSON.stringify(serverState(this.options.snapshot(), this.lastFailure)),
      });
      const players = this.options.players();
      for (const player of players) {
        const configs = playerDiscovery(this.options.identity, player);
        const before = this.announced.get(player.device_id);
        if (announceAll || JSON.stringify(before) !== JSON.stringify(configs))
          for (const config of configs) this.publish(config);
        this.announced.set(player.device_id, configs);
        this.publish({ topic: this.topics.player(player.device_id), payload: JSON.stringify(playerState(player)) });
      }
      for (const [id, configs] of this.announced) {
        if (players.some((player) => player.device_id === id)) continue;
        for (const gone of [...removal(configs), { topic: this.topics.player(id), payload: '' }]) this.publish(gone);
        this.announced.delete(id);
      }
    } catch (error) {
      this.options.logger.warn({ err: error }, 'could not read the state MQTT publishes; it is tried again');
    }
  }

  private publishEvent(event: AntennaEvent): void {
    this.client?.publish(this.topics.event(event.kind), JSON.stringify(event), { qos: 1 });
  }

  /** Retained: a subscriber that comes later gets the newest at once. */
  private publish(message: Retained): void {
    this.client?.publish(message.topic, message.payload, { qos: 1, retain: true });
  }
}
