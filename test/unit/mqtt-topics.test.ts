/** What MQTT publishes, as pure functions: topic levels, states, discovery configs and their removal. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  mqttTopics,
  playerDiscovery,
  playerState,
  removal,
  serverDiscovery,
  serverState,
  topicPart,
} from '../../src/events/mqtt-topics.js';

const identity = { base: 'antenna', serverId: 'abc', serverName: 'Antenna on den', version: '1.2.3' };

describe('topics', () => {
  it('never lets an id add a level or a wildcard (property)', () => {
    fc.assert(
      fc.property(fc.string(), (id) => {
        const part = topicPart(id);
        expect(part).toHaveLength(id.length);
        expect(part).not.toMatch(/[+#/\s]/);
      }),
    );
    expect(mqttTopics('antenna').player('a/b+c#')).toBe('antenna/players/a_b_c_/state');
    expect(mqttTopics('x/y').event('disk.low')).toBe('x/y/events/disk.low');
  });
});

describe('states', () => {
  it('says the server without a readable disk or anything planned', () => {
    expect(serverState({ diskLowBytes: 1, recording: [] }, undefined)).toMatchObject({
      disk_free_gb: null,
      disk_low: false,
      recording_now: 0,
      next_recording_at: null,
      last_failure: null,
    });
    expect(
      serverState({ disk: { free: 5e9, total: 8e9 }, diskLowBytes: 10e9, recording: [] }, undefined),
    ).toMatchObject({
      disk_free_gb: 5,
      disk_low: true,
    });
  });

  it('keeps a failure within what Home Assistant holds', () => {
    const long = {
      id: 1,
      kind: 'disk.full' as const,
      at: 0,
      severity: 'error' as const,
      message: 'x'.repeat(600),
      data: {},
    };
    expect(String(serverState({ diskLowBytes: 0, recording: [] }, long).last_failure)).toHaveLength(250);
  });

  it('says a player offline whatever it last played', () => {
    const status = { status: 'playing' as const, muted: false, channel: { number: '7.1', name: '' } };
    expect(playerState({ device_id: 'd', name: 'Den', online: false, backend: 'mpv', status })).toEqual({
      name: 'Den',
      online: false,
      state: 'offline',
      channel: '7.1',
      title: null,
    });
  });
});

describe('Home Assistant discovery', () => {
  it('gives every server entity a unique id, the availability topic and the device', () => {
    const configs = serverDiscovery(identity);
    const payloads = configs.map((config) => JSON.parse(config.payload) as Record<string, unknown>);
    expect(configs.map((c) => c.topic)).toEqual([
      'homeassistant/sensor/antenna_abc/disk_free/config',
      'homeassistant/binary_sensor/antenna_abc/disk_low/config',
      'homeassistant/sensor/antenna_abc/recording_now/config',
      'homeassistant/sensor/antenna_abc/next_recording/config',
      'homeassistant/sensor/antenna_abc/last_failure/config',
    ]);
    expect(new Set(payloads.map((p) => p.unique_id)).size).toBe(configs.length);
    for (const payload of payloads)
      expect(payload).toMatchObject({
        availability_topic: 'antenna/status',
        state_topic: 'antenna/server/state',
        device: { identifiers: ['antenna_abc'], sw_version: '1.2.3' },
        origin: { name: 'Antenna' },
      });
    expect(payloads[3]).toMatchObject({ device_class: 'timestamp' });
  });

  it("makes each player a device attached to the server's, and removes it with empty configs", () => {
    const configs = playerDiscovery(identity, { device_id: 'tv01', name: 'TV', backend: 'browser' });
    expect(configs).toHaveLength(4);
    expect(JSON.parse(configs[0]!.payload)).toMatchObject({
      state_topic: 'antenna/players/tv01/state',
      options: ['playing', 'paused', 'stopped', 'offline'],
      device: { identifiers: ['antenna_player_tv01'], via_device: 'antenna_abc', model: 'Antenna player (browser)' },
    });
    expect(removal(configs).every((r) => r.payload === '')).toBe(true);
  });
});
