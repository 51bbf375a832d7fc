import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-values.js';
import {
  defaultPlayerName,
  hasDisplay,
  type PartialPlayerSettings,
  PLAYER_DEFAULTS,
  playerSettingsFromEnv,
  playerSettingsFromFile,
  resolvePlayerConfig,
} from '../../src/config/player-config.js';

/** The ConfigError that resolving these places throws (fails the test when none is thrown). */
function configError(...places: PartialPlayerSettings[]): ConfigError {
  try {
    resolvePlayerConfig(places, '/srv');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`no ConfigError for ${JSON.stringify(places)}`);
}

describe('resolvePlayerConfig', () => {
  it('uses the defaults when nothing is given', () => {
    const config = resolvePlayerConfig([], '/srv', {});
    expect(config).toMatchObject({
      port: 57000,
      host: '0.0.0.0',
      mdnsType: '_antenna_app._tcp',
      serverType: '_antenna_dvr._tcp',
      seekForward: 30,
      seekBackward: 10,
      backend: 'mpv',
      mdns: true,
      headless: false,
      mpv: 'mpv',
      mpvOptions: [],
      chromium: 'chromium',
      logLevel: 'info',
    });
    expect(config.server).toBeUndefined();
    expect(config.token).toBeUndefined();
    expect(config.mpvIpc).toBeUndefined();
    expect(config.name).toBe(defaultPlayerName());
    expect(config).toEqual({ ...PLAYER_DEFAULTS, backend: 'mpv', name: defaultPlayerName() });
  });

  it('takes each setting from the first place that has it (flags, then environment, then file)', () => {
    const flags: PartialPlayerSettings = { port: '57010', seekForward: '15' };
    const env: PartialPlayerSettings = { port: '57020', server: 'http://env.local:8089', name: 'Kitchen' };
    const file: PartialPlayerSettings = {
      port: 57030,
      server: 'http://file.local:8089',
      name: 'Den',
      seekBackward: 5,
      mdns: false,
    };
    const config = resolvePlayerConfig([flags, env, file], '/srv');
    expect(config.port).toBe(57010);
    expect(config.seekForward).toBe(15);
    expect(config.server).toBe('http://env.local:8089');
    expect(config.name).toBe('Kitchen');
    expect(config.seekBackward).toBe(5);
    expect(config.mdns).toBe(false);
    expect(resolvePlayerConfig([{}, env, file], '/srv').port).toBe(57020);
    expect(resolvePlayerConfig([{ port: undefined }, {}, file], '/srv').port).toBe(57030);
  });

  it('reads allowed origins as origins, refusing what is not an http(s) URL', () => {
    expect(
      resolvePlayerConfig([{ allowOrigins: ['http://dashboard.local:8123/lovelace', 'https://HA.lan'] }]).allowOrigins,
    ).toEqual(['http://dashboard.local:8123', 'https://ha.lan']);
    expect(resolvePlayerConfig([]).allowOrigins).toEqual([]);
    expect(() => resolvePlayerConfig([{ allowOrigins: ['dashboard'] }])).toThrow(/Origin 'dashboard' is invalid/);
    expect(() => resolvePlayerConfig([{ allowOrigins: ['ftp://x'] }])).toThrow(/must use http or https/);
    expect(
      playerSettingsFromEnv({ ANTENNA_PLAYER_ALLOW_ORIGINS: 'http://a.local http://b.local' }).allowOrigins,
    ).toEqual(['http://a.local', 'http://b.local']);
  });

  it('normalises the server URL without a trailing slash', () => {
    expect(resolvePlayerConfig([{ server: 'http://tv.local:8089/' }]).server).toBe('http://tv.local:8089');
    expect(resolvePlayerConfig([{ server: 'https://tv.example/antenna/' }]).server).toBe('https://tv.example/antenna');
    expect(resolvePlayerConfig([{ server: 'HTTP://TV.local:8089' }]).server).toBe('http://tv.local:8089');
  });

  it('refuses a server URL that is not http(s), naming the setting', () => {
    for (const server of ['ftp://tv.local', 'tv.local:8089', 'not a url', 'file:///srv/antenna']) {
      const error = configError({ server });
      expect(error.message).toMatch(/Server URL/);
      expect(error.message).toContain(server);
    }
  });

  it('reads ports and refuses bad ones', () => {
    expect(resolvePlayerConfig([{ port: '0' }]).port).toBe(0);
    expect(resolvePlayerConfig([{ port: '65535' }]).port).toBe(65535);
    for (const port of ['65536', '-1', 'abc', '80.5', '', ' 80', 1.5, -1, 70000]) {
      expect(configError({ port }).message).toMatch(/Port .* is invalid/);
    }
  });

  it('reads seek amounts and refuses 0, negative, over an hour and non-numbers', () => {
    expect(resolvePlayerConfig([{ seekForward: '2.5', seekBackward: 3600 }])).toMatchObject({
      seekForward: 2.5,
      seekBackward: 3600,
    });
    for (const seekForward of [0, '0', -5, '-5', 3601, '3600.5', 'abc', '1e2', Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(configError({ seekForward }).message).toMatch(/^Seek forward .* is invalid/);
    }
    for (const seekBackward of [0, -1, 4000, 'abc']) {
      expect(configError({ seekBackward }).message).toMatch(/^Seek backward .* is invalid/);
    }
  });

  it('takes a name of up to 63 bytes, trimmed, and refuses longer or blank ones', () => {
    expect(resolvePlayerConfig([{ name: ' Living Room ' }]).name).toBe('Living Room');
    expect(resolvePlayerConfig([{ name: 'x'.repeat(63) }]).name).toBe('x'.repeat(63));
    expect(configError({ name: 'x'.repeat(64) }).message).toMatch(/Player name/);
    // 32 characters but 64 bytes in UTF-8.
    expect(configError({ name: 'é'.repeat(32) }).message).toMatch(/1 to 63 bytes/);
    expect(configError({ name: '   ' }).message).toMatch(/Player name/);
  });

  it('refuses an unknown backend, listing the ones there are', () => {
    const error = configError({ backend: 'vlc' });
    expect(error.message).toMatch(/vlc/);
    expect(error.message).toMatch(/mpv/);
    expect(resolvePlayerConfig([{ backend: 'mpv' }]).backend).toBe('mpv');
    expect(resolvePlayerConfig([{ backend: 'browser' }], '/srv', {}).backend).toBe('browser');
  });

  it('shows the app on a display by default, and plays with mpv on a box without one or told to run headless', () => {
    expect(resolvePlayerConfig([], '/srv', { DISPLAY: ':0' }).backend).toBe('browser');
    expect(resolvePlayerConfig([], '/srv', { WAYLAND_DISPLAY: 'wayland-0' }).backend).toBe('browser');
    expect(resolvePlayerConfig([], '/srv', {}).backend).toBe('mpv');
    expect(resolvePlayerConfig([{ headless: true }], '/srv', { DISPLAY: ':0' }).backend).toBe('mpv');
    expect(resolvePlayerConfig([{ backend: 'mpv' }], '/srv', { DISPLAY: ':0' }).backend).toBe('mpv');
    expect(resolvePlayerConfig([{ chromium: '/opt/chromium/chrome' }]).chromium).toBe('/opt/chromium/chrome');
  });

  it('takes mpv options and refuses reserved or malformed ones', () => {
    expect(resolvePlayerConfig([{ mpvOptions: ['hwdec=auto', 'no-border'] }]).mpvOptions).toEqual([
      'hwdec=auto',
      'no-border',
    ]);
    expect(configError({ mpvOptions: ['hwdec=auto', 'idle=no'] }).message).toMatch(/--idle/);
    expect(configError({ mpvOptions: ['input-ipc-server=/tmp/x'] }).message).toMatch(/input-ipc-server/);
    expect(configError({ mpvOptions: ['--hwdec=auto'] }).message).toMatch(/not an mpv option/);
  });

  it('reads yes/no settings from text', () => {
    expect(resolvePlayerConfig([{ mdns: 'false' }]).mdns).toBe(false);
    expect(resolvePlayerConfig([{ mdns: 'no' }]).mdns).toBe(false);
    expect(resolvePlayerConfig([{ mdns: 'OFF' }]).mdns).toBe(false);
    expect(resolvePlayerConfig([{ mdns: 'yes' }]).mdns).toBe(true);
    expect(resolvePlayerConfig([{ headless: '1' }]).headless).toBe(true);
    expect(configError({ mdns: 'maybe' }).message).toMatch(/yes\/no/);
  });

  it('checks service types and lower-cases them', () => {
    expect(resolvePlayerConfig([{ mdnsType: '_Antenna_App._tcp' }]).mdnsType).toBe('_antenna_app._tcp');
    expect(resolvePlayerConfig([{ serverType: '_My-DVR._tcp' }]).serverType).toBe('_my-dvr._tcp');
    for (const type of [
      'antenna_app',
      '_antenna_app',
      '_antenna_app._udp',
      'antenna_app._tcp',
      '_abcdefghijklmnop._tcp',
    ]) {
      expect(configError({ mdnsType: type }).message).toMatch(/Service type/);
      expect(configError({ serverType: type }).message).toMatch(/Service type/);
    }
  });

  it('checks the token and the log level', () => {
    expect(resolvePlayerConfig([{ token: '0123456789abcdef' }]).token).toBe('0123456789abcdef');
    expect(configError({ token: 'short' }).message).toMatch(/16 characters/);
    expect(configError({ logLevel: 'loud' }).message).toMatch(/Log level/);
  });

  it('makes the mpv socket path absolute from the working folder', () => {
    expect(resolvePlayerConfig([{ mpvIpc: 'run/mpv.sock' }], '/srv').mpvIpc).toBe('/srv/run/mpv.sock');
    expect(resolvePlayerConfig([{ mpvIpc: '/tmp/mpv.sock' }], '/srv').mpvIpc).toBe('/tmp/mpv.sock');
  });
});

describe('playerSettingsFromEnv', () => {
  it('reads the ANTENNA_ variables, splitting mpv options on spaces', () => {
    const settings = playerSettingsFromEnv({
      ANTENNA_PLAYER_PORT: '57001',
      ANTENNA_SERVER: 'http://tv.local:8089',
      ANTENNA_MPV_OPTIONS: ' hwdec=auto   volume=50 no-border ',
      ANTENNA_HEADLESS: 'yes',
      PATH: '/usr/bin',
    });
    expect(settings).toEqual({
      port: '57001',
      server: 'http://tv.local:8089',
      mpvOptions: ['hwdec=auto', 'volume=50', 'no-border'],
      headless: 'yes',
    });
    expect(resolvePlayerConfig([settings])).toMatchObject({
      port: 57001,
      server: 'http://tv.local:8089',
      mpvOptions: ['hwdec=auto', 'volume=50', 'no-border'],
      headless: true,
    });
  });

  it('ignores empty variables', () => {
    expect(playerSettingsFromEnv({ ANTENNA_PLAYER_PORT: '', ANTENNA_SERVER: '', ANTENNA_MPV_OPTIONS: '' })).toEqual({});
    expect(playerSettingsFromEnv({})).toEqual({});
  });
});

describe('playerSettingsFromFile', () => {
  it('makes mpvIpc relative to the config file folder', () => {
    expect(playerSettingsFromFile({ mpvIpc: 'run/mpv.sock', port: 57002 }, '/etc/antenna/config.json')).toEqual({
      mpvIpc: '/etc/antenna/run/mpv.sock',
      port: 57002,
    });
    expect(playerSettingsFromFile({ mpvIpc: '/var/run/mpv.sock' }, '/etc/antenna/config.json').mpvIpc).toBe(
      '/var/run/mpv.sock',
    );
    expect(playerSettingsFromFile({ mpvIpc: 'mpv.sock' }, 'conf/antenna.json').mpvIpc).toBe(
      resolve('conf', 'mpv.sock'),
    );
  });

  it('gives nothing without a player object, and the rest as it is', () => {
    expect(playerSettingsFromFile(undefined, '/etc/antenna/config.json')).toEqual({});
    expect(playerSettingsFromFile({ name: 'Den', mdns: false }, '/etc/antenna/config.json')).toEqual({
      name: 'Den',
      mdns: false,
    });
  });

  it('keeps the file-relative socket path through resolvePlayerConfig', () => {
    const fromFile = playerSettingsFromFile({ mpvIpc: 'mpv.sock' }, '/etc/antenna/config.json');
    expect(resolvePlayerConfig([{}, fromFile], '/srv').mpvIpc).toBe('/etc/antenna/mpv.sock');
  });
});

describe('hasDisplay', () => {
  it('sees a display from DISPLAY or WAYLAND_DISPLAY unless headless', () => {
    expect(hasDisplay({ headless: false }, { DISPLAY: ':0' })).toBe(true);
    expect(hasDisplay({ headless: false }, { WAYLAND_DISPLAY: 'wayland-0' })).toBe(true);
    expect(hasDisplay({ headless: false }, {})).toBe(false);
    expect(hasDisplay({ headless: false }, { DISPLAY: '' })).toBe(false);
    expect(hasDisplay({ headless: true }, { DISPLAY: ':0' })).toBe(false);
    expect(hasDisplay({ headless: true }, { DISPLAY: ':0', WAYLAND_DISPLAY: 'wayland-0' })).toBe(false);
  });
});
