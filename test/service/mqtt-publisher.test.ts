/**
 * MQTT against a real broker (Debian's mosquitto): the server's availability, Home
 * Assistant discovery configs for the server (disk, recordings now, next recording,
 * last failure) and each player (state, channel, title, online), their retained states,
 * and each event on its own topic, all read back by a subscriber as Home Assistant
 * reads them. Discovery is sent again when Home Assistant says it restarted; a player
 * forgotten is removed; a broker that is away is named in the state, and the events
 * told meanwhile arrive once it is back.
 */
import { type MqttClient, connectAsync } from 'mqtt';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MqttPublisher } from '../../src/events/mqtt-publisher.service.js';
import type { PlayerSnapshot, ServerSnapshot } from '../../src/events/mqtt-topics.js';
import type { AntennaEvent } from '../../src/model/events/event.schemas.js';
import { type Broker, freePort, startBroker } from '../support/mosquitto.js';
import { until } from '../support/dvr-app.js';

const logger = pino({ level: 'silent' });
const identity = { base: 'antenna-test', serverId: 'srv123', serverName: 'Antenna on den', version: '0.1.0' };
const failure: AntennaEvent = {
  id: 41,
  kind: 'recording.failed',
  at: Date.UTC(2026, 11, 7, 20),
  severity: 'error',
  message: 'Recording News failed: the source stopped.',
  data: { job_id: 'j1', title: 'News', reason: 'the source stopped' },
};

let broker: Broker;
let watcher: MqttClient;
const seen = new Map<string, string>();
const messages: { topic: string; payload: string }[] = [];
let publishers: MqttPublisher[] = [];

let snapshot: ServerSnapshot;
let players: PlayerSnapshot[];

function publisher(url = broker.url, reconnectMs = 200): MqttPublisher {
  const made = new MqttPublisher({
    url,
    identity,
    logger,
    snapshot: () => snapshot,
    players: () => players,
    reconnectMs,
  });
  publishers.push(made);
  return made;
}

const json = (topic: string) => JSON.parse(seen.get(topic) ?? 'null') as Record<string, unknown> | null;
const arrived = (topic: string, ok: (payload: string | undefined) => boolean = (p) => p !== undefined) =>
  until(() => seen.get(topic), ok, 5000, topic, 20);

beforeAll(async () => {
  broker = await startBroker();
  watcher = await connectAsync(broker.url, { clientId: 'watcher' });
  watcher.on('message', (topic, payload) => {
    seen.set(topic, payload.toString());
    messages.push({ topic, payload: payload.toString() });
  });
  await watcher.subscribeAsync(['antenna-test/#', 'homeassistant/#']);
});

afterEach(async () => {
  for (const made of publishers) await made.stop();
  publishers = [];
});

afterAll(async () => {
  await watcher?.endAsync();
  await broker?.stop();
});

describe('MQTT publishing', () => {
  it('makes the server and its players appear in Home Assistant, with their states, and publishes each event', async () => {
    snapshot = {
      disk: { free: 250e9, total: 1000e9 },
      diskLowBytes: 10e9,
      recording: [{ title: 'Evening News', channel: '5' }],
      next: { title: 'Cup Final', channel: '11', start_time: Date.UTC(2026, 11, 8, 19) / 1000 },
    };
    players = [
      {
        device_id: 'livingroom0001',
        name: 'Living Room',
        online: true,
        backend: 'browser',
        status: {
          status: 'playing',
          muted: false,
          channel: { number: '5', name: 'Five' },
          now_playing: { title: 'Evening News' },
        },
      },
    ];
    const made = publisher();
    made.start();
    await arrived('antenna-test/status', (p) => p === 'online');
    const disk = await arrived('homeassistant/sensor/antenna_srv123/disk_free/config');
    expect(JSON.parse(disk!)).toMatchObject({
      name: 'Recordings disk free',
      unique_id: 'antenna_srv123_disk_free',
      state_topic: 'antenna-test/server/state',
      value_template: '{{ value_json.disk_free_gb }}',
      unit_of_measurement: 'GB',
      device_class: 'data_size',
      availability_topic: 'antenna-test/status',
      device: { identifiers: ['antenna_srv123'], name: 'Antenna on den', manufacturer: 'Antenna' },
    });
    for (const object of ['recording_now', 'next_recording', 'last_failure'])
      await arrived(`homeassistant/sensor/antenna_srv123/${object}/config`);
    await arrived('homeassistant/binary_sensor/antenna_srv123/disk_low/config');
    await arrived('antenna-test/server/state');
    expect(json('antenna-test/server/state')).toEqual({
      disk_free_gb: 250,
      disk_total_gb: 1000,
      disk_low: false,
      recording_now: 1,
      recording_titles: ['Evening News'],
      next_recording_at: '2026-12-08T19:00:00.000Z',
      next_recording: { title: 'Cup Final', channel: '11' },
      last_failure: null,
      last_failure_detail: null,
    });
    const tvState = await arrived('homeassistant/sensor/antenna_player_livingroom0001/state/config');
    expect(JSON.parse(tvState!)).toMatchObject({
      state_topic: 'antenna-test/players/livingroom0001/state',
      device_class: 'enum',
      device: { name: 'Living Room', via_device: 'antenna_srv123' },
    });
    await arrived('homeassistant/binary_sensor/antenna_player_livingroom0001/online/config');
    await arrived('antenna-test/players/livingroom0001/state');
    expect(json('antenna-test/players/livingroom0001/state')).toEqual({
      name: 'Living Room',
      online: true,
      state: 'playing',
      channel: '5 Five',
      title: 'Evening News',
    });
    // Retained: a subscriber that comes later (Home Assistant after a restart) gets them at once.
    const late = await connectAsync(broker.url, { clientId: 'late' });
    const retained = new Map<string, string>();
    late.on('message', (topic, payload, packet) => {
      if (packet.retain) retained.set(topic, payload.toString());
    });
    await late.subscribeAsync('antenna-test/#');
    await until(
      () => retained.size,
      (n) => n >= 3,
      5000,
      'retained states',
      20,
    );
    expect(retained.get('antenna-test/status')).toBe('online');
    await late.endAsync();

    made.take(failure);
    await arrived('antenna-test/events/recording.failed');
    expect(json('antenna-test/events/recording.failed')).toEqual(failure);
    await arrived('antenna-test/server/state', () => json('antenna-test/server/state')?.last_failure !== null);
    expect(json('antenna-test/server/state')).toMatchObject({
      last_failure: 'Recording News failed: the source stopped.',
      last_failure_detail: { kind: 'recording.failed', at: '2026-12-07T20:00:00.000Z' },
    });
    expect(made.state()).toEqual({ url: broker.url, connected: true });
  });

  it('announces again when Home Assistant restarts, and removes a forgotten player', async () => {
    players = [
      {
        device_id: 'den000000001',
        name: 'Den',
        online: false,
        backend: 'mpv',
        status: { status: 'stopped', muted: false },
      },
    ];
    const made = publisher();
    made.start();
    const config = 'homeassistant/sensor/antenna_player_den000000001/state/config';
    await arrived(config);
    expect(json('antenna-test/players/den000000001/state')).toMatchObject({ state: 'offline', online: false });
    const before = messages.filter((m) => m.topic === 'homeassistant/sensor/antenna_srv123/disk_free/config').length;
    await watcher.publishAsync('homeassistant/status', 'online');
    await until(
      () => messages.filter((m) => m.topic === 'homeassistant/sensor/antenna_srv123/disk_free/config').length,
      (n) => n > before,
      5000,
      'discovery again',
      20,
    );
    players = [];
    made.take({ ...failure, id: 42, kind: 'player.offline', severity: 'info', message: 'Den is offline.', data: {} });
    await arrived(config, (p) => p === '');
    expect(seen.get('antenna-test/players/den000000001/state')).toBe('');
  });

  it('names a broker that is away, keeps the events told meanwhile, and sends them once it is back', async () => {
    const port = await freePort();
    // Tried again each second: the subscriber below is there before it reconnects.
    const made = publisher(`mqtt://127.0.0.1:${port}`, 1000);
    made.start();
    await until(
      () => made.state(),
      (state) => state.error !== undefined,
      5000,
      'the broker named as away',
      20,
    );
    expect(made.state()).toMatchObject({ connected: false, since: expect.any(Number) });
    made.take({ ...failure, id: 43 });
    const second = await startBroker(port);
    try {
      const meanwhile = await connectAsync(second.url, { clientId: 'meanwhile' });
      const got: string[] = [];
      meanwhile.on('message', (topic) => got.push(topic));
      await meanwhile.subscribeAsync('antenna-test/events/#');
      await until(
        () => got,
        (topics) => topics.includes('antenna-test/events/recording.failed'),
        10_000,
        'the waiting event',
        50,
      );
      expect(made.state()).toEqual({ url: `mqtt://127.0.0.1:${port}`, connected: true });
      await meanwhile.endAsync();
    } finally {
      await made.stop();
      await second.stop();
    }
  });
});
