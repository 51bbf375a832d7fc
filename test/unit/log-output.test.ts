/** Where log lines go and how they look: the settings, the choice of output, rotation's names, secrets kept out. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chooseLogOutput, createLogger } from '../../src/app/log-output.js';
import { rotationRenames } from '../../src/common/rotating-log-file.js';
import { ConfigError } from '../../src/config/config-values.js';
import { LOG_DEFAULTS, logSettingsFromEnv, resolveLogSettings } from '../../src/config/log-settings.js';
import { resolvePlayerConfig } from '../../src/config/player-config.js';
import { loadServerConfig, resolveServerConfig } from '../../src/config/server-config.js';

const settings = (given: Partial<typeof LOG_DEFAULTS>) => ({ ...LOG_DEFAULTS, ...given });
/** Terminal colour codes, which pino-pretty adds when the test runs in a terminal. */
const COLOURS = new RegExp(`${String.fromCharCode(27)}\\[\\d+m`, 'g');

describe('chooseLogOutput', () => {
  it('is pretty on a terminal and JSON otherwise, unless told; a log file always takes JSON lines', () => {
    expect(chooseLogOutput(settings({}), true)).toEqual({ kind: 'pretty' });
    expect(chooseLogOutput(settings({}), false)).toEqual({ kind: 'json' });
    expect(chooseLogOutput(settings({ logFormat: 'json' }), true)).toEqual({ kind: 'json' });
    expect(chooseLogOutput(settings({ logFormat: 'pretty' }), false)).toEqual({ kind: 'pretty' });
    expect(chooseLogOutput(settings({ logFile: '/var/log/antenna.log' }), true)).toEqual({
      kind: 'file',
      file: '/var/log/antenna.log',
      maxBytes: 10 * 1024 * 1024,
      keep: 5,
    });
    expect(
      chooseLogOutput(settings({ logFile: '/l', logFileSize: 0.5, logFileKeep: 0, logFormat: 'json' }), false),
    ).toEqual({ kind: 'file', file: '/l', maxBytes: 524_288, keep: 0 });
  });
});

describe('the log settings', () => {
  it('come from flags, then the environment, then the config file, for the server and the player alike', () => {
    const env = logSettingsFromEnv({
      ANTENNA_LOG_FORMAT: 'json',
      ANTENNA_LOG_FILE: 'logs/a.log',
      ANTENNA_LOG_FILE_SIZE: '2.5',
      ANTENNA_LOG_FILE_KEEP: '3',
    });
    expect(resolveLogSettings([{ logFileKeep: '9' }, env], '/srv')).toEqual({
      logFormat: 'json',
      logFile: '/srv/logs/a.log',
      logFileSize: 2.5,
      logFileKeep: 9,
    });
    expect(resolveLogSettings([], '/srv')).toEqual({
      logFormat: 'auto',
      logFile: undefined,
      logFileSize: 10,
      logFileKeep: 5,
    });
    expect(resolveServerConfig([{ logFormat: 'pretty' }], '/srv')).toMatchObject({
      logFormat: 'pretty',
      logFile: undefined,
      logFileSize: 10,
      logFileKeep: 5,
    });
    expect(resolvePlayerConfig([{ logFile: 'p.log' }], '/srv', {})).toMatchObject({
      logFile: '/srv/p.log',
      logFormat: 'auto',
    });
  });

  it("read a config file's log file relative to the file", () => {
    const dir = mkdtempSync(join(tmpdir(), 'antenna-log-config-'));
    try {
      const file = join(dir, 'antenna.json');
      writeFileSync(
        file,
        JSON.stringify({ logFile: 'logs/server.log', logFileKeep: 2, player: { logFile: 'player.log' } }),
      );
      expect(loadServerConfig({ config: file }, {})).toMatchObject({
        logFile: join(dir, 'logs/server.log'),
        logFileKeep: 2,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuse what cannot work, saying what is accepted', () => {
    const error = (places: Parameters<typeof resolveLogSettings>[0]) => {
      try {
        resolveLogSettings(places, '/srv');
      } catch (caught) {
        expect(caught).toBeInstanceOf(ConfigError);
        return (caught as Error).message;
      }
      throw new Error('no ConfigError');
    };
    expect(error([{ logFormat: 'xml' }])).toBe(
      "Log format 'xml' is invalid: give auto (pretty on a terminal, JSON otherwise), pretty or json.",
    );
    expect(error([{ logFileSize: '0' }])).toMatch(/^Log file size '0' is invalid: give the megabytes .* 0.01 to 10240/);
    expect(error([{ logFileSize: '10MB' }])).toMatch(/^Log file size '10MB' is invalid/);
    expect(error([{ logFileKeep: '-1' }])).toMatch(
      /^Log file keep '-1' is invalid: give how many rotated log files to keep .* 0 to 100/,
    );
    expect(error([{ logFile: 'a.log', logFormat: 'pretty' }])).toMatch(
      /--log-format pretty is for a terminal, and --log-file \/srv\/a.log always holds JSON lines: drop one of the two/,
    );
  });
});

describe('rotation names', () => {
  it('shift FILE.1..FILE.<keep-1> up one, oldest first, then FILE becomes FILE.1', () => {
    expect(rotationRenames('/l/a.log', 3)).toEqual([
      ['/l/a.log.2', '/l/a.log.3'],
      ['/l/a.log.1', '/l/a.log.2'],
      ['/l/a.log', '/l/a.log.1'],
    ]);
    expect(rotationRenames('/l/a.log', 1)).toEqual([['/l/a.log', '/l/a.log.1']]);
    expect(rotationRenames('/l/a.log', 0)).toEqual([]);
  });
});

describe('createLogger', () => {
  const dirs: string[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('writes JSON lines to the log file, without tokens or authorization headers', () => {
    const dir = mkdtempSync(join(tmpdir(), 'antenna-log-'));
    dirs.push(dir);
    const file = join(dir, 'logs', 'antenna.log');
    const logger = createLogger({ ...settings({ logFile: file }), logLevel: 'info' }, true);
    logger.info(
      {
        token: 'abcdefabcdefabcdef',
        req: { headers: { authorization: 'Bearer abcdefabcdefabcdef', cookie: 'c=abcdefabcdef' } },
        config: { token: 'abcdefabcdefabcdef' },
      },
      'hello',
    );
    logger.debug('not at info');
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      level: 30,
      msg: 'hello',
      token: '[Redacted]',
      config: { token: '[Redacted]' },
      req: { headers: { authorization: '[Redacted]', cookie: '[Redacted]' } },
    });
    expect(lines[0]).not.toContain('abcdef');
  });

  it('keeps credentials in URLs out of every part of a line: url fields, other fields, the message, errors and requests', () => {
    const dir = mkdtempSync(join(tmpdir(), 'antenna-log-'));
    dirs.push(dir);
    const file = join(dir, 'antenna.log');
    const logger = createLogger({ ...settings({ logFile: file }), logLevel: 'info' }, false);
    const failure = new Error('GET http://viewer:SECRET1@tuner.local/lineup.json?token=SECRET2 failed', {
      cause: new Error('see https://iptv.example/live.m3u?password=SECRET3'),
    });
    logger.warn(
      {
        url: '/api/play/recording/x?token=SECRET4&sort=1',
        server: 'http://me:SECRET5@10.0.0.2:8089',
        nested: { list: ['https://g.example/x.xml?api_key=SECRET6'] },
      },
      'source http://iptv.example/get.php?username=SECRET7&password=SECRET8 failed',
    );
    logger.error({ err: failure, req: { method: 'GET', url: '/status?access_token=SECRET9' } }, 'request failed');
    logger.warn({ err: 'could not read https://u:SECRET10@h.example/guide.xml' }, 'guide refresh failed');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toMatch(/SECRET/);
    const [first, second, third] = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(first).toMatchObject({
      url: '/api/play/recording/x?token=[Redacted]&sort=1',
      server: 'http://[Redacted]@10.0.0.2:8089',
      nested: { list: ['https://g.example/x.xml?api_key=[Redacted]'] },
      msg: 'source http://iptv.example/get.php?username=[Redacted]&password=[Redacted] failed',
    });
    expect(second).toMatchObject({
      err: {
        type: 'Error',
        message: expect.stringContaining('http://[Redacted]@tuner.local/lineup.json?token=[Redacted] failed'),
      },
      req: { url: '/status?access_token=[Redacted]' },
    });
    expect((second?.err as { stack: string }).stack).toContain('password=[Redacted]');
    expect(third).toMatchObject({ err: 'could not read https://[Redacted]@h.example/guide.xml' });
  });

  it('writes pretty lines to stdout on a terminal, at once (nothing left to flush at exit)', () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation(
      (chunk: string | Uint8Array) => written.push(String(chunk)) > 0,
    );
    const logger = createLogger({ ...settings({}), logLevel: 'info' }, true);
    logger.warn({ source: 'm3u-1', token: 'abcdefabcdefabcdef' }, 'source refresh failed; check the source');
    expect(written).toHaveLength(1);
    const text = (written[0] ?? '').replace(COLOURS, '');
    expect(text).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: source refresh failed; check the source\n {4}source: "m3u-1"\n {4}token: "\[Redacted\]"\n$/,
    );
  });

  it('refuses a log file it cannot open with what to do', () => {
    const dir = mkdtempSync(join(tmpdir(), 'antenna-log-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'a-file'), '');
    // A folder that is a file (tests run as root, whom permissions do not stop).
    expect(() =>
      createLogger({ ...settings({ logFile: join(dir, 'a-file', 'x.log') }), logLevel: 'info' }, false),
    ).toThrow(
      /^Log file \S+\/a-file\/x\.log cannot be opened \(E[A-Z]+\): give --log-file a file in a folder this user can write, or leave it out to log to stdout\.$/,
    );
  });
});
