/**
 * `antenna player` settings, with the same precedence as the server's: command-line
 * flags, then environment variables, then the `player` object of the config file,
 * then the defaults.
 */
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { PLAYER_SERVICE_TYPE, SERVER_SERVICE_TYPE } from '../discovery/dns-sd.js';
import { mpvOptionProblem } from '../player/mpv/mpv-args.js';
import {
  type LogLevel,
  ConfigError,
  LOG_LEVELS,
  parseFlag,
  parseOrigin,
  parseLogLevel,
  parsePort,
  parsePublicUrl,
  parseServiceType,
  parseToken,
  pick,
  words,
} from './config-values.js';
import {
  LOG_DEFAULTS,
  LOG_ENV_NAMES,
  LOG_FILE_PROPERTIES,
  type LogSettings,
  type PartialLogSettings,
  logFileFromConfigFile,
  resolveLogSettings,
} from './log-settings.js';

/**
 * mpv for a box without a screen of its own (or to keep playback lean); browser: the Antenna app full screen on the TV.
 */
export const PLAYER_BACKENDS = ['browser', 'mpv'] as const;
export type PlayerBackendName = (typeof PLAYER_BACKENDS)[number];

/** With where log lines go and how they look (log-settings.ts), as the server's. */
export interface PlayerConfig extends LogSettings {
  host: string;
  port: number;
  /** The Antenna server's URL; undefined: found on the network. */
  server: string | undefined;
  /** The name the player is advertised under. */
  name: string;
  /** Default: browser when there is a display to show the app on, mpv otherwise. */
  backend: PlayerBackendName;
  mdns: boolean;
  /** The DNS-SD type the player advertises. */
  mdnsType: string;
  /** The DNS-SD type of the server it looks for. */
  serverType: string;
  /** The server's token, for the changes the player makes there (watch progress, record now). */
  token: string | undefined;
  logLevel: LogLevel;
  seekForward: number;
  seekBackward: number;
  mpv: string;
  /** Where mpv's IPC socket goes; undefined: a private temp folder. */
  mpvIpc: string | undefined;
  mpvOptions: string[];
  /** Chromium's program, for the browser backend. */
  chromium: string;
  /** No video or audio output even when a display is there. */
  headless: boolean;
  /** Web page origins whose scripts may send commands (a dashboard). */
  allowOrigins: string[];
  /** Where the player keeps its device id; undefined: ~/.local/state/antenna/player-PORT (start: DATA/player). */
  data: string | undefined;
}

export const PLAYER_DEFAULTS: Omit<PlayerConfig, 'name' | 'backend'> = {
  ...LOG_DEFAULTS,
  host: '0.0.0.0',
  port: 57000,
  server: undefined,
  mdns: true,
  mdnsType: PLAYER_SERVICE_TYPE,
  serverType: SERVER_SERVICE_TYPE,
  token: undefined,
  logLevel: 'info',
  seekForward: 30,
  seekBackward: 10,
  mpv: 'mpv',
  mpvIpc: undefined,
  mpvOptions: [],
  chromium: 'chromium',
  headless: false,
  allowOrigins: [],
  data: undefined,
};

export const defaultPlayerName = () => `Antenna player on ${hostname()}`.slice(0, 63);

/** The `player` object of the config file. */
export const PlayerFileSchema = Type.Object(
  {
    host: Type.Optional(Type.String({ minLength: 1 })),
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    server: Type.Optional(Type.String({ minLength: 1 })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
    backend: Type.Optional(Type.Union(PLAYER_BACKENDS.map((name) => Type.Literal(name)))),
    mdns: Type.Optional(Type.Boolean()),
    mdnsType: Type.Optional(Type.String({ minLength: 1 })),
    serverType: Type.Optional(Type.String({ minLength: 1 })),
    token: Type.Optional(Type.String({ minLength: 16 })),
    logLevel: Type.Optional(Type.Union(LOG_LEVELS.map((level) => Type.Literal(level)))),
    seekForward: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3600 })),
    seekBackward: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3600 })),
    mpv: Type.Optional(Type.String({ minLength: 1 })),
    mpvIpc: Type.Optional(Type.String({ minLength: 1 })),
    mpvOptions: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    chromium: Type.Optional(Type.String({ minLength: 1 })),
    headless: Type.Optional(Type.Boolean()),
    allowOrigins: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    data: Type.Optional(Type.String({ minLength: 1 })),
    ...LOG_FILE_PROPERTIES,
  },
  { additionalProperties: false },
);
export type PlayerFile = Static<typeof PlayerFileSchema>;

export interface PartialPlayerSettings extends PartialLogSettings {
  host?: string | undefined;
  port?: string | number | undefined;
  server?: string | undefined;
  name?: string | undefined;
  backend?: string | undefined;
  mdns?: boolean | string | undefined;
  mdnsType?: string | undefined;
  serverType?: string | undefined;
  token?: string | undefined;
  logLevel?: string | undefined;
  seekForward?: number | string | undefined;
  seekBackward?: number | string | undefined;
  mpv?: string | undefined;
  mpvIpc?: string | undefined;
  mpvOptions?: string[] | undefined;
  chromium?: string | undefined;
  headless?: boolean | string | undefined;
  allowOrigins?: string[] | undefined;
  data?: string | undefined;
}

export const PLAYER_ENV_NAMES = {
  host: 'ANTENNA_PLAYER_HOST',
  port: 'ANTENNA_PLAYER_PORT',
  server: 'ANTENNA_SERVER',
  name: 'ANTENNA_PLAYER_NAME',
  backend: 'ANTENNA_PLAYER_BACKEND',
  mdns: 'ANTENNA_MDNS',
  mdnsType: 'ANTENNA_PLAYER_MDNS_TYPE',
  serverType: 'ANTENNA_SERVER_TYPE',
  token: 'ANTENNA_TOKEN',
  logLevel: 'ANTENNA_LOG_LEVEL',
  seekForward: 'ANTENNA_SEEK_FORWARD',
  seekBackward: 'ANTENNA_SEEK_BACKWARD',
  mpv: 'ANTENNA_MPV',
  mpvIpc: 'ANTENNA_MPV_IPC',
  mpvOptions: 'ANTENNA_MPV_OPTIONS',
  chromium: 'ANTENNA_CHROMIUM',
  headless: 'ANTENNA_HEADLESS',
  allowOrigins: 'ANTENNA_PLAYER_ALLOW_ORIGINS',
  data: 'ANTENNA_PLAYER_DATA',
  ...LOG_ENV_NAMES,
} as const;

export function playerSettingsFromEnv(env: NodeJS.ProcessEnv): PartialPlayerSettings {
  const settings: Record<string, unknown> = {};
  for (const [key, name] of Object.entries(PLAYER_ENV_NAMES)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    settings[key] = key === 'mpvOptions' || key === 'allowOrigins' ? words(value) : value;
  }
  return settings as PartialPlayerSettings;
}

/** The player's part of a config file; relative paths in it are relative to the file. */
export function playerSettingsFromFile(player: PlayerFile | undefined, file: string): PartialPlayerSettings {
  if (!player) return {};
  return {
    ...player,
    ...(player.mpvIpc ? { mpvIpc: resolve(dirname(resolve(file)), player.mpvIpc) } : {}),
    ...(player.data ? { data: resolve(dirname(resolve(file)), player.data) } : {}),
    logFile: logFileFromConfigFile(player.logFile, file),
  };
}

function parseSeconds(value: number | string, what: string): number {
  const seconds = typeof value === 'number' ? value : /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
    throw new ConfigError(`${what} '${value}' is invalid: give seconds, more than 0 and at most 3600.`);
  }
  return seconds;
}

function parseName(value: string): string {
  // A DNS-SD instance name is one DNS label: at most 63 bytes.
  if (value.trim() === '' || Buffer.byteLength(value) > 63)
    throw new ConfigError(`Player name '${value}' is invalid: give 1 to 63 bytes, such as "Living Room".`);
  return value.trim();
}

function parseBackend(value: string): PlayerBackendName {
  if (!(PLAYER_BACKENDS as readonly string[]).includes(value)) {
    throw new ConfigError(`Backend '${value}' is unknown: this player has ${PLAYER_BACKENDS.join(' and ')}.`);
  }
  return value as PlayerBackendName;
}

function parseMpvOptions(options: string[]): string[] {
  for (const option of options) {
    const problem = mpvOptionProblem(option);
    if (problem) throw new ConfigError(`mpv option ${problem}.`);
  }
  return options;
}

export function resolvePlayerConfig(
  places: readonly PartialPlayerSettings[],
  cwd: string = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): PlayerConfig {
  const value = <K extends keyof PartialPlayerSettings>(key: K) => pick(key, places);
  const port = value('port');
  const server = value('server');
  const name = value('name');
  const backend = value('backend');
  const mdns = value('mdns');
  const mdnsType = value('mdnsType');
  const serverType = value('serverType');
  const token = value('token');
  const logLevel = value('logLevel');
  const seekForward = value('seekForward');
  const seekBackward = value('seekBackward');
  const mpvIpc = value('mpvIpc');
  const mpvOptions = value('mpvOptions');
  const headless = value('headless');
  const allowOrigins = value('allowOrigins');
  const data = value('data');
  const runsHeadless = headless === undefined ? PLAYER_DEFAULTS.headless : parseFlag(headless);
  return {
    ...resolveLogSettings(places, cwd),
    host: value('host') ?? PLAYER_DEFAULTS.host,
    port: port === undefined ? PLAYER_DEFAULTS.port : parsePort(port),
    server: server === undefined ? undefined : parsePublicUrl(server, 'Server URL'),
    name: name === undefined ? defaultPlayerName() : parseName(name),
    backend:
      backend === undefined ? (hasDisplay({ headless: runsHeadless }, env) ? 'browser' : 'mpv') : parseBackend(backend),
    mdns: mdns === undefined ? PLAYER_DEFAULTS.mdns : parseFlag(mdns),
    mdnsType: mdnsType === undefined ? PLAYER_DEFAULTS.mdnsType : parseServiceType(mdnsType),
    serverType: serverType === undefined ? PLAYER_DEFAULTS.serverType : parseServiceType(serverType),
    token: token === undefined ? undefined : parseToken(token),
    logLevel: logLevel === undefined ? PLAYER_DEFAULTS.logLevel : parseLogLevel(logLevel),
    seekForward: seekForward === undefined ? PLAYER_DEFAULTS.seekForward : parseSeconds(seekForward, 'Seek forward'),
    seekBackward:
      seekBackward === undefined ? PLAYER_DEFAULTS.seekBackward : parseSeconds(seekBackward, 'Seek backward'),
    mpv: value('mpv') ?? PLAYER_DEFAULTS.mpv,
    mpvIpc: mpvIpc === undefined ? undefined : resolve(cwd, mpvIpc),
    mpvOptions: mpvOptions === undefined ? [] : parseMpvOptions(mpvOptions),
    chromium: value('chromium') ?? PLAYER_DEFAULTS.chromium,
    headless: runsHeadless,
    allowOrigins: (allowOrigins ?? []).map(parseOrigin),
    data: data === undefined ? undefined : resolve(cwd, data),
  };
}

/** Whether the player has somewhere to draw: a display, unless told to run headless. */
export function hasDisplay(config: Pick<PlayerConfig, 'headless'>, env: NodeJS.ProcessEnv): boolean {
  return !config.headless && Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}
