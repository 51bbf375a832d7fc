/**
 * The pure rules behind the server's list of players: where a player is reached, what
 * counts as playback starting or stopping, interface B's path for "Play on…", what a
 * heartbeat is sent at once for, and the device id kept across restarts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { NetworkInterfaceInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { interfaceBUrl, machineAddress, plainAddress, reachableAddress } from '../../src/devices/client-address.js';
import { playPath } from '../../src/devices/interface-b.client.js';
import { loadedKey, playbackChange, playbackMessage } from '../../src/devices/playback-changes.js';
import { DEVICE_ID_PATTERN } from '../../src/model/players/client.schemas.js';
import type { PlayerStatusBody } from '../../src/model/players/player-status.schemas.js';
import { defaultPlayerDataDir, readOrMakeDeviceId } from '../../src/player/device-id.js';
import { statusKey } from '../../src/player/server-registration.js';
import { tempDir } from '../support/temp-library.js';

const stopped: PlayerStatusBody = { status: 'stopped', muted: false };
const onChannel = (number: string, title = 'News'): PlayerStatusBody => ({
  status: 'playing',
  muted: false,
  channel: { number, name: `Channel ${number}` },
  now_playing: { title, type: 'live' },
  playback_time: 12,
});
const episode: PlayerStatusBody = {
  status: 'playing',
  muted: false,
  now_playing: { title: 'Harbour Lights', episode_title: 'Pilot', season_number: 1, episode_number: 1 },
  playback_time: 3,
};

describe('where a player is reached', () => {
  it('is the address it listens on when it names one', () => {
    expect(reachableAddress('192.168.1.20', '192.168.1.30', '192.168.1.2')).toBe('192.168.1.20');
  });
  it('is the address its heartbeat came from when it listens on every address', () => {
    expect(reachableAddress(undefined, '::ffff:192.168.1.30', '192.168.1.2')).toBe('192.168.1.30');
    expect(reachableAddress('0.0.0.0', '192.168.1.30', '192.168.1.2')).toBe('192.168.1.30');
    expect(reachableAddress('::', 'fe80::1', undefined)).toBe('fe80::1');
  });
  it("is the machine's network address for a player on the server's own machine", () => {
    expect(reachableAddress(undefined, '127.0.0.1', '192.168.1.2')).toBe('192.168.1.2');
    expect(reachableAddress(undefined, '::1', '10.0.0.5')).toBe('10.0.0.5');
    expect(reachableAddress(undefined, '127.0.0.1', undefined)).toBe('127.0.0.1');
  });
  it('reads IPv4-mapped addresses as IPv4 and brackets IPv6 in URLs', () => {
    expect(plainAddress('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(plainAddress('fe80::ffff:1')).toBe('fe80::ffff:1');
    expect(interfaceBUrl('10.1.2.3', 57000, '/api/status')).toBe('http://10.1.2.3:57000/api/status');
    expect(interfaceBUrl('fe80::1', 57000, '/api/status')).toBe('http://[fe80::1]:57000/api/status');
  });
  it("takes the machine's first IPv4 address that is not loopback", () => {
    const info = (address: string, family: 'IPv4' | 'IPv6', internal: boolean) =>
      ({ address, family, internal, netmask: '', mac: '', cidr: null, scopeid: 0 }) as NetworkInterfaceInfo;
    expect(
      machineAddress({
        lo: [info('127.0.0.1', 'IPv4', true)],
        eth0: [info('fe80::2', 'IPv6', false), info('192.168.1.2', 'IPv4', false)],
      }),
    ).toBe('192.168.1.2');
    expect(machineAddress({ lo: [info('127.0.0.1', 'IPv4', true)] })).toBeUndefined();
  });
});

describe('playback started and stopped', () => {
  it('is told when something is loaded, something else is, or nothing is any more', () => {
    expect(playbackChange(undefined, onChannel('7'))).toBe('started');
    expect(playbackChange(stopped, episode)).toBe('started');
    expect(playbackChange(onChannel('7'), onChannel('9'))).toBe('started');
    expect(playbackChange(episode, stopped)).toBe('stopped');
  });
  it('is not told for a pause, a seek, a new programme on the same channel, or nothing playing before and after', () => {
    expect(playbackChange(episode, { ...episode, status: 'paused', playback_time: 40 })).toBeUndefined();
    expect(playbackChange(onChannel('7', 'News'), onChannel('7', 'Weather'))).toBeUndefined();
    expect(playbackChange(undefined, stopped)).toBeUndefined();
    expect(loadedKey(stopped)).toBe('');
  });
  it('says what plays in a sentence', () => {
    expect(playbackMessage('Living Room', 'started', onChannel('7'))).toBe(
      'Living Room plays channel 7 Channel 7 (News).',
    );
    expect(playbackMessage('Den', 'started', episode)).toBe('Den plays Harbour Lights: Pilot.');
    expect(playbackMessage('Den', 'stopped', stopped)).toBe('Den stopped playing.');
  });
});

describe('play on a player', () => {
  it("is interface B's play path for an item or a channel", () => {
    expect(playPath({ item_id: 'ep 1' })).toBe('/api/play/recording/ep%201');
    expect(playPath({ channel: '7.1' })).toBe('/api/play/channel/7.1');
  });
  it('refuses both or neither', () => {
    expect(() => playPath({})).toThrow(/either item_id/);
    expect(() => playPath({ item_id: 'a', channel: '7' })).toThrow(/either item_id/);
  });
});

describe("the player's heartbeat", () => {
  it('is sent at once when the state or what is loaded changes, not for the position', () => {
    expect(statusKey({ ...episode, playback_time: 99 })).toBe(statusKey(episode));
    expect(statusKey({ ...episode, status: 'paused' })).not.toBe(statusKey(episode));
    expect(statusKey(onChannel('8'))).not.toBe(statusKey(onChannel('7')));
  });
});

describe("the player's device id", () => {
  it('is made once and read back after a restart', () => {
    const dir = join(tempDir(), 'player');
    const first = readOrMakeDeviceId(dir);
    expect(first.kept).toBe(true);
    expect(first.id).toMatch(new RegExp(DEVICE_ID_PATTERN));
    expect(readOrMakeDeviceId(dir).id).toBe(first.id);
    expect(readFileSync(join(dir, 'device-id'), 'utf8').trim()).toBe(first.id);
  });
  it('is made again when the file holds something else', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'device-id'), '../../etc/passwd\n');
    const made = readOrMakeDeviceId(dir);
    expect(made.id).toMatch(new RegExp(DEVICE_ID_PATTERN));
    expect(readFileSync(join(dir, 'device-id'), 'utf8').trim()).toBe(made.id);
  });
  it('lasts the process when its folder cannot be written', () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, '');
    const made = readOrMakeDeviceId(join(file, 'below'));
    expect(made.kept).toBe(false);
    expect(made.id).toMatch(new RegExp(DEVICE_ID_PATTERN));
  });
  it('lives under XDG_STATE_HOME, one folder per port', () => {
    expect(defaultPlayerDataDir(57000, { XDG_STATE_HOME: '/state' })).toBe('/state/antenna/player-57000');
    expect(defaultPlayerDataDir(57001, { HOME: '/h' })).toMatch(/\.local\/state\/antenna\/player-57001$/);
  });
});
