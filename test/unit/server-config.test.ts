import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULTS, loadServerConfig, resolveServerConfig } from '../../src/config/server-config.js';
import { readConfigFile, settingsFromEnv } from '../../src/config/server-settings.js';

describe('resolveServerConfig', () => {
  it('uses the defaults when nothing is given, with paths made absolute', () => {
    const config = resolveServerConfig([], '/srv');
    expect(config).toEqual({ ...DEFAULTS, data: '/srv/data', recordings: '/srv/data/recordings' });
  });

  it('reads the DVR settings: locations stay URLs or become absolute paths, lists from the environment split on spaces', () => {
    const config = resolveServerConfig(
      [
        {
          m3u: ['http://iptv.example/list.m3u', 'local.m3u'],
          xmltv: ['guide.xml.gz'],
          hdhomerun: ['10.0.0.5'],
          m3uStreams: '4',
          recordings: 'rec',
          guideRefresh: '60',
        },
      ],
      '/srv',
    );
    expect(config).toMatchObject({
      m3u: ['http://iptv.example/list.m3u', '/srv/local.m3u'],
      xmltv: ['/srv/guide.xml.gz'],
      hdhomerun: ['10.0.0.5'],
      m3uStreams: 4,
      recordings: '/srv/rec',
      guideRefresh: 60,
    });
    expect(settingsFromEnv({ ANTENNA_M3U: 'http://a/1.m3u  http://b/2.m3u', ANTENNA_XMLTV: '' }).m3u).toEqual([
      'http://a/1.m3u',
      'http://b/2.m3u',
    ]);
    expect(() => resolveServerConfig([{ m3uStreams: '0' }])).toThrow(/1 to 64/);
    expect(() => resolveServerConfig([{ guideRefresh: 'often' }])).toThrow(/Guide refresh interval/);
  });

  it('reads how many daily backups to keep: 7 by default, 0 to turn them off, from each place', () => {
    expect(resolveServerConfig([], '/srv').backupKeep).toBe(7);
    expect(resolveServerConfig([{ backupKeep: '0' }]).backupKeep).toBe(0);
    expect(resolveServerConfig([{ backupKeep: '30' }, settingsFromEnv({ ANTENNA_BACKUP_KEEP: '3' })]).backupKeep).toBe(
      30,
    );
    expect(
      resolveServerConfig([{}, settingsFromEnv({ ANTENNA_BACKUP_KEEP: '3' }), { backupKeep: 14 }]).backupKeep,
    ).toBe(3);
    for (const bad of ['-1', 'seven', '1.5', '1001'])
      expect(() => resolveServerConfig([{ backupKeep: bad }])).toThrow(
        /Backup keep '.*' is invalid: .*0 turns automatic backups off/,
      );
  });

  it('refuses a recordings directory that overlaps an import root', () => {
    expect(() => resolveServerConfig([{ tv: ['/media/tv'], recordings: '/media/tv/recorded' }], '/')).toThrow(
      /recordings directory/,
    );
    expect(() => resolveServerConfig([{ tv: ['/media/tv/shows'], recordings: '/media/tv' }], '/')).toThrow(
      /recordings directory/,
    );
  });

  it('takes each setting from the first place that gives it: flags, then env, then file', () => {
    const config = resolveServerConfig(
      [{ port: '9000' }, { port: '9001', host: '127.0.0.1' }, { port: 9002, host: '::', data: '/var/antenna' }],
      '/srv',
    );
    expect(config.port).toBe(9000);
    expect(config.host).toBe('127.0.0.1');
    expect(config.data).toBe('/var/antenna');
  });

  it('takes a list whole from one place instead of merging', () => {
    const config = resolveServerConfig([{ tv: ['/a'] }, { tv: ['/b', '/c'], movies: ['/m'] }], '/');
    expect(config.tv).toEqual(['/a']);
    expect(config.movies).toEqual(['/m']);
  });

  it('normalises the public URL and refuses what is not http(s)', () => {
    expect(resolveServerConfig([{ publicUrl: 'https://tv.example.org/' }]).publicUrl).toBe('https://tv.example.org');
    expect(() => resolveServerConfig([{ publicUrl: 'ftp://x' }])).toThrow(ConfigError);
    expect(() => resolveServerConfig([{ publicUrl: 'not a url' }])).toThrow(/absolute http\(s\) URL/);
  });

  it('refuses ports that are not whole numbers from 0 to 65535, saying what is accepted', () => {
    for (const port of ['-1', '65536', '80x', '', '1.5']) {
      expect(() => resolveServerConfig([{ port }])).toThrow(/0 to 65535/);
    }
    expect(resolveServerConfig([{ port: '0' }]).port).toBe(0);
  });

  it('refuses unknown log levels and yes/no values', () => {
    expect(() => resolveServerConfig([{ logLevel: 'loud' }])).toThrow(/Log level 'loud'/);
    expect(() => resolveServerConfig([{ sample: 'perhaps' }])).toThrow(ConfigError);
    expect(resolveServerConfig([{ sample: 'false' }]).sample).toBe(false);
  });

  it('either yields a valid config or a ConfigError, whatever the port text', () => {
    fc.assert(
      fc.property(fc.string(), (port) => {
        try {
          const config = resolveServerConfig([{ port }]);
          expect(Number.isInteger(config.port)).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
        }
      }),
    );
  });
});

describe('settingsFromEnv', () => {
  it('reads ANTENNA_* variables, lists split on the path delimiter, empty ones ignored', () => {
    expect(settingsFromEnv({ ANTENNA_PORT: '1234', ANTENNA_TV: '/a::/b', ANTENNA_HOST: '' })).toMatchObject({
      port: '1234',
      tv: ['/a', '/b'],
      host: undefined,
    });
  });
});

describe('config file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'antenna-config-'));

  it('resolves relative paths against the file’s folder', () => {
    const file = join(dir, 'antenna.json');
    writeFileSync(
      file,
      JSON.stringify({ data: 'state', tv: ['media/tv'], port: 8100, publicUrl: 'http://tv.local:8100' }),
    );
    expect(readConfigFile(file)).toMatchObject({ data: join(dir, 'state'), tv: [join(dir, 'media/tv')], port: 8100 });
  });

  it('takes the live buffer settings from flags, the environment or the file, refusing what is not a sound amount', () => {
    expect(resolveServerConfig([], '/srv')).toMatchObject({
      liveBufferHours: 4,
      liveBufferGb: 16,
      liveBufferLinger: 10,
    });
    const env = settingsFromEnv({
      ANTENNA_LIVE_BUFFER_HOURS: '1.5',
      ANTENNA_LIVE_BUFFER_GB: '2',
      ANTENNA_LIVE_BUFFER_LINGER: '0',
    });
    expect(resolveServerConfig([{ liveBufferGb: '3' }, env])).toMatchObject({
      liveBufferHours: 1.5,
      liveBufferGb: 3,
      liveBufferLinger: 0,
    });
    for (const bad of ['0', '49', '-1', 'four', '1e3']) {
      expect(() => resolveServerConfig([{ liveBufferHours: bad }])).toThrow(/Live buffer hours .* above 0, at most 48/);
    }
    expect(() => resolveServerConfig([{ liveBufferGb: '0.05' }])).toThrow(/at least 0.1/);
    expect(() => resolveServerConfig([{ liveBufferLinger: '1441' }])).toThrow(/0 to 1440/);
    expect(resolveServerConfig([]).livePretune).toBe(false);
    expect(resolveServerConfig([settingsFromEnv({ ANTENNA_LIVE_PRETUNE: 'true' })]).livePretune).toBe(true);
    expect(resolveServerConfig([{ livePretune: true }]).livePretune).toBe(true);
  });

  it('takes webhooks from flags, the environment (space-separated) and the file (URLs, or with kinds and a secret)', () => {
    expect(resolveServerConfig([]).webhooks).toEqual([]);
    expect(resolveServerConfig([{ webhooks: ['http://ha.local/hook'] }]).webhooks).toEqual([
      { url: 'http://ha.local/hook' },
    ]);
    expect(
      resolveServerConfig([settingsFromEnv({ ANTENNA_WEBHOOKS: 'http://a.local/x  https://b.local/y' })]).webhooks,
    ).toEqual([{ url: 'http://a.local/x' }, { url: 'https://b.local/y' }]);
    const file = join(dir, 'webhooks.json');
    const hook = { url: 'http://ha.local/hook', kinds: ['recording.failed', 'disk.full'], secret: 'k' };
    writeFileSync(file, JSON.stringify({ webhooks: ['http://plain.local/', hook] }));
    expect(loadServerConfig({}, { ANTENNA_CONFIG: file }).webhooks).toEqual([{ url: 'http://plain.local/' }, hook]);
    writeFileSync(file, JSON.stringify({ webhooks: [{ url: 'http://x/', kinds: ['recording.exploded'] }] }));
    expect(() => readConfigFile(file)).toThrow(/webhooks/);
    expect(() => resolveServerConfig([{ webhooks: ['ha.local/hook'] }])).toThrow(
      /Webhook 'ha.local\/hook' is invalid: give an http:\/\/ or https:\/\/ URL/,
    );
  });

  it('takes an MQTT broker, a topic level and the disk-low setting, and refuses what would not work', () => {
    expect(resolveServerConfig([])).toMatchObject({ mqtt: undefined, mqttTopic: 'antenna', diskLowGb: 10 });
    const env = settingsFromEnv({
      ANTENNA_MQTT: 'mqtt://user:pw@ha.local:1883',
      ANTENNA_MQTT_TOPIC: 'antenna/den',
      ANTENNA_DISK_LOW_GB: '25.5',
    });
    expect(resolveServerConfig([env])).toMatchObject({
      mqtt: 'mqtt://user:pw@ha.local:1883',
      mqttTopic: 'antenna/den',
      diskLowGb: 25.5,
    });
    expect(resolveServerConfig([{ diskLowGb: 0 }]).diskLowGb).toBe(0);
    expect(() => resolveServerConfig([{ mqtt: 'ha.local:1883' }])).toThrow(/MQTT broker 'ha.local:1883' is invalid/);
    expect(() => resolveServerConfig([{ mqtt: 'http://ha.local' }])).toThrow(/mqtt:\/\/homeassistant.local:1883/);
    for (const bad of ['a/#', 'a/+/b', '/a', 'a//b', 'a b'])
      expect(() => resolveServerConfig([{ mqttTopic: bad }])).toThrow(/MQTT topic .* is invalid/);
    expect(() => resolveServerConfig([{ diskLowGb: 'lots' }])).toThrow(/Disk low 'lots' is invalid/);
  });

  it('takes backupKeep as a whole number', () => {
    const file = join(dir, 'backups.json');
    writeFileSync(file, JSON.stringify({ backupKeep: 30 }));
    expect(loadServerConfig({}, { ANTENNA_CONFIG: file }).backupKeep).toBe(30);
    writeFileSync(file, JSON.stringify({ backupKeep: -1 }));
    expect(() => readConfigFile(file)).toThrow(/\/backupKeep/);
  });

  it('names the bad key or value', () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ prot: 8100 }));
    expect(() => readConfigFile(file)).toThrow(/bad\.json is invalid/);
    writeFileSync(file, JSON.stringify({ port: 'eighty' }));
    expect(() => readConfigFile(file)).toThrow(/\/port/);
    writeFileSync(file, '{ not json');
    expect(() => readConfigFile(file)).toThrow(/cannot be read as JSON/);
  });

  it('sits below flags and the environment', () => {
    const file = join(dir, 'layered.json');
    writeFileSync(file, JSON.stringify({ port: 8100, host: '10.0.0.1', logLevel: 'debug' }));
    const config = loadServerConfig({ config: file, port: '8200' }, { ANTENNA_HOST: '127.0.0.1' });
    expect(config).toMatchObject({ port: 8200, host: '127.0.0.1', logLevel: 'debug' });
  });

  it('is found through ANTENNA_CONFIG too', () => {
    const file = join(dir, 'env.json');
    writeFileSync(file, JSON.stringify({ port: 8300 }));
    expect(loadServerConfig({}, { ANTENNA_CONFIG: file }).port).toBe(8300);
  });
});

describe('config file values', () => {
  it('accepts a known log level and refuses an unknown one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'antenna-config-'));
    const file = join(dir, 'levels.json');
    writeFileSync(file, JSON.stringify({ logLevel: 'debug', sample: false }));
    expect(readConfigFile(file)).toMatchObject({ logLevel: 'debug', sample: false });
    writeFileSync(file, JSON.stringify({ logLevel: 'chatty' }));
    expect(() => readConfigFile(file)).toThrow(/levels\.json is invalid at \/logLevel/);
  });
});

describe('import roots and the data directory', () => {
  it('refuses overlapping roots and a data directory inside a root', async () => {
    const { ConfigError, resolveServerConfig } = await import('../../src/config/server-config.js');
    expect(() => resolveServerConfig([{ tv: ['/media/tv'], videos: ['/media/tv/clips'] }], '/')).toThrow(ConfigError);
    expect(() => resolveServerConfig([{ tv: ['/media'], movies: ['/media'] }], '/')).toThrow(/overlap/);
    expect(() => resolveServerConfig([{ videos: ['/srv'], data: '/srv/antenna' }], '/')).toThrow(
      /never writes into your media/,
    );
    expect(
      resolveServerConfig([{ tv: ['/media/tv'], movies: ['/media/tv-movies'], data: '/var/lib/antenna' }], '/').tv,
    ).toEqual(['/media/tv']);
  });
});
