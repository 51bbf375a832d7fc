/**
 * What Antenna publishes over MQTT, as pure functions: the topics, the retained state
 * of the server and of each player, and the Home Assistant MQTT discovery configs that
 * make them appear in Home Assistant by themselves. Home Assistant's MQTT integration
 * has no media-player platform, so a player is a device of its own with a state,
 * channel and title sensor and an online binary sensor, attached to the server's device.
 */
import type { AntennaEvent } from '../model/events/event.schemas.js';
import type { PlayerStatusBody as PlayerStatus } from '../model/players/player-status.schemas.js';

/** Where Home Assistant reads discovery configs (its default) and tells its own restarts. */
export const DISCOVERY_PREFIX = 'homeassistant';
export const HA_STATUS_TOPIC = `${DISCOVERY_PREFIX}/status`;

export interface MqttIdentity {
  /** Topics start with it (--mqtt-topic; default antenna). */
  base: string;
  /** The server's stable id (the same as its DNS-SD id). */
  serverId: string;
  serverName: string;
  version: string;
}

/** What the server's state topic says: the recordings disk, what records now and next, the last failure. */
export interface ServerSnapshot {
  disk?: { free: number; total: number } | undefined;
  /** The disk-low setting, in bytes. */
  diskLowBytes: number;
  recording: { title: string; channel: string | null }[];
  next?: { title: string; channel: string | null; start_time: number } | undefined;
}

export interface PlayerSnapshot {
  device_id: string;
  name: string;
  online: boolean;
  backend: string;
  status: PlayerStatus;
}

/** A topic level from an id: MQTT's wildcards and separators (`+ # /`) and anything unusual become `_`. */
export const topicPart = (id: string): string => id.replace(/[^A-Za-z0-9_-]/g, '_');

export function mqttTopics(base: string) {
  return {
    availability: `${base}/status`,
    server: `${base}/server/state`,
    player: (deviceId: string) => `${base}/players/${topicPart(deviceId)}/state`,
    event: (kind: string) => `${base}/events/${kind}`,
  };
}

const GB = 1e9;
const roundGb = (bytes: number) => Math.round((bytes / GB) * 10) / 10;

export function serverState(snapshot: ServerSnapshot, lastFailure: AntennaEvent | undefined) {
  const next = snapshot.next;
  return {
    disk_free_gb: snapshot.disk ? roundGb(snapshot.disk.free) : null,
    disk_total_gb: snapshot.disk ? roundGb(snapshot.disk.total) : null,
    disk_low: snapshot.disk ? snapshot.disk.free < snapshot.diskLowBytes : false,
    recording_now: snapshot.recording.length,
    recording_titles: snapshot.recording.map((job) => job.title),
    next_recording_at: next ? new Date(next.start_time * 1000).toISOString() : null,
    next_recording: next ? { title: next.title, channel: next.channel } : null,
    // Home Assistant keeps a state of at most 255 characters.
    last_failure: lastFailure ? lastFailure.message.slice(0, 250) : null,
    last_failure_detail: lastFailure ? { kind: lastFailure.kind, at: new Date(lastFailure.at).toISOString() } : null,
  };
}

export function playerState(player: PlayerSnapshot) {
  const channel = player.status.channel;
  return {
    name: player.name,
    online: player.online,
    state: player.online ? player.status.status : 'offline',
    channel: channel ? [channel.number, channel.name].filter(Boolean).join(' ') : null,
    title: player.status.now_playing?.title ?? null,
  };
}

export interface Retained {
  topic: string;
  payload: string;
}

type Entity = Record<string, unknown> & { component: 'sensor' | 'binary_sensor'; object: string };

function configs(node: string, device: Record<string, unknown>, identity: MqttIdentity, entities: Entity[]) {
  const availability = mqttTopics(identity.base).availability;
  return entities.map(
    ({ component, object, ...config }): Retained => ({
      topic: `${DISCOVERY_PREFIX}/${component}/${node}/${object}/config`,
      payload: JSON.stringify({
        ...config,
        unique_id: `${node}_${object}`,
        has_entity_name: true,
        availability_topic: availability,
        payload_available: 'online',
        payload_not_available: 'offline',
        device,
        origin: { name: 'Antenna', sw_version: identity.version },
      }),
    }),
  );
}

const serverNode = (identity: MqttIdentity) => `antenna_${topicPart(identity.serverId)}`;
const onOff = (field: string) => `{{ 'ON' if value_json.${field} else 'OFF' }}`;

/** The server as a Home Assistant device: disk free and low, recording now, next recording, last failure. */
export function serverDiscovery(identity: MqttIdentity): Retained[] {
  const node = serverNode(identity);
  const state = mqttTopics(identity.base).server;
  const device = {
    identifiers: [node],
    name: identity.serverName,
    manufacturer: 'Antenna',
    model: 'DVR server',
    sw_version: identity.version,
  };
  return configs(node, device, identity, [
    {
      component: 'sensor',
      object: 'disk_free',
      name: 'Recordings disk free',
      state_topic: state,
      value_template: '{{ value_json.disk_free_gb }}',
      unit_of_measurement: 'GB',
      device_class: 'data_size',
      state_class: 'measurement',
    },
    {
      component: 'binary_sensor',
      object: 'disk_low',
      name: 'Recordings disk low',
      state_topic: state,
      value_template: onOff('disk_low'),
      device_class: 'problem',
    },
    {
      component: 'sensor',
      object: 'recording_now',
      name: 'Recording now',
      state_topic: state,
      value_template: '{{ value_json.recording_now }}',
      state_class: 'measurement',
      icon: 'mdi:record-rec',
      json_attributes_topic: state,
      json_attributes_template: "{{ {'titles': value_json.recording_titles} | tojson }}",
    },
    {
      component: 'sensor',
      object: 'next_recording',
      name: 'Next recording',
      state_topic: state,
      value_template: '{{ value_json.next_recording_at }}',
      device_class: 'timestamp',
      json_attributes_topic: state,
      json_attributes_template: '{{ (value_json.next_recording or {}) | tojson }}',
    },
    {
      component: 'sensor',
      object: 'last_failure',
      name: 'Last failure',
      state_topic: state,
      value_template: '{{ value_json.last_failure }}',
      icon: 'mdi:alert-circle-outline',
      json_attributes_topic: state,
      json_attributes_template: '{{ (value_json.last_failure_detail or {}) | tojson }}',
    },
  ]);
}

/** A player as a Home Assistant device (attached to the server's): state, channel, title, online. */
export function playerDiscovery(
  identity: MqttIdentity,
  player: Pick<PlayerSnapshot, 'device_id' | 'name' | 'backend'>,
) {
  const node = `antenna_player_${topicPart(player.device_id)}`;
  const state = mqttTopics(identity.base).player(player.device_id);
  const device = {
    identifiers: [node],
    name: player.name,
    manufacturer: 'Antenna',
    model: `Antenna player (${player.backend})`,
    via_device: serverNode(identity),
  };
  return configs(node, device, identity, [
    {
      component: 'sensor',
      object: 'state',
      name: 'State',
      state_topic: state,
      value_template: '{{ value_json.state }}',
      device_class: 'enum',
      options: ['playing', 'paused', 'stopped', 'offline'],
      icon: 'mdi:television-play',
    },
    {
      component: 'sensor',
      object: 'channel',
      name: 'Channel',
      state_topic: state,
      value_template: '{{ value_json.channel }}',
    },
    {
      component: 'sensor',
      object: 'title',
      name: 'Title',
      state_topic: state,
      value_template: '{{ value_json.title }}',
    },
    {
      component: 'binary_sensor',
      object: 'online',
      name: 'Online',
      state_topic: state,
      value_template: onOff('online'),
      device_class: 'connectivity',
    },
  ]);
}

/** Removing a device from Home Assistant: an empty retained payload on each of its config topics. */
export const removal = (retained: readonly Retained[]): Retained[] =>
  retained.map(({ topic }) => ({ topic, payload: '' }));
