/**
 * Where `antenna server`'s settings come from, as each place gives them: the
 * environment (ENV_NAMES) and the config file (ConfigFileSchema, the player's part
 * included), both as PartialSettings. server-config.ts checks them and resolves one
 * ServerConfig from the places by precedence.
 */
import { readFileSync } from 'node:fs';
import { delimiter, dirname, resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ConfigError, LOG_LEVELS, isUrl, words } from './config-values.js';
import { PlayerFileSchema } from './player-config.js';
import {
  LOG_ENV_NAMES,
  LOG_FILE_PROPERTIES,
  type PartialLogSettings,
  logFileFromConfigFile,
  logSettingsFromEnv,
} from './log-settings.js';
import { HLS_ENCODERS } from '../streaming/hls-ffmpeg-args.js';
import { EVENT_KINDS } from '../model/events/event.schemas.js';
import type { WebhookSpec } from '../model/events/webhook.schemas.js';

/** The config file: JSON with any of these keys. Unknown keys are refused, so typos surface. */
export const ConfigFileSchema = Type.Object(
  {
    data: Type.Optional(Type.String({ minLength: 1 })),
    host: Type.Optional(Type.String({ minLength: 1 })),
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    publicUrl: Type.Optional(Type.String({ minLength: 1 })),
    tv: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    movies: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    videos: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    // A union of literals, which TypeBox's Value checker understands (it cannot check an Unsafe enum).
    logLevel: Type.Optional(Type.Union(LOG_LEVELS.map((level) => Type.Literal(level)))),
    sample: Type.Optional(Type.Boolean()),
    rescanInterval: Type.Optional(Type.Number({ minimum: 0 })),
    token: Type.Optional(Type.String({ minLength: 16 })),
    m3u: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    m3uStreams: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
    hdhomerun: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    xmltv: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    recordings: Type.Optional(Type.String({ minLength: 1 })),
    guideRefresh: Type.Optional(Type.Number({ minimum: 0 })),
    mdns: Type.Optional(Type.Boolean()),
    mdnsType: Type.Optional(Type.String({ minLength: 1 })),
    followExternalLinks: Type.Optional(Type.Boolean()),
    allowOrigins: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    allowLocalSources: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    ffmpegPath: Type.Optional(Type.String({ minLength: 1 })),
    ffprobePath: Type.Optional(Type.String({ minLength: 1 })),
    comskipPath: Type.Optional(Type.String({ minLength: 1 })),
    hlsEncoder: Type.Optional(Type.Union(HLS_ENCODERS.map((name) => Type.Literal(name)))),
    maxTranscodes: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
    webDir: Type.Optional(Type.String({ minLength: 1 })),
    backupKeep: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    liveBufferHours: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 48 })),
    liveBufferGb: Type.Optional(Type.Number({ minimum: 0.1, maximum: 100_000 })),
    liveBufferLinger: Type.Optional(Type.Number({ minimum: 0, maximum: 1440 })),
    livePretune: Type.Optional(Type.Boolean()),
    // A URL alone wants every kind; an object picks kinds and signs with a secret.
    webhooks: Type.Optional(
      Type.Array(
        Type.Union([
          Type.String({ minLength: 1 }),
          Type.Object(
            {
              url: Type.String({ minLength: 1 }),
              kinds: Type.Optional(Type.Array(Type.Union(EVENT_KINDS.map((kind) => Type.Literal(kind))))),
              secret: Type.Optional(Type.String({ minLength: 1 })),
            },
            { additionalProperties: false },
          ),
        ]),
      ),
    ),
    mqtt: Type.Optional(Type.String({ minLength: 1 })),
    mqttTopic: Type.Optional(Type.String({ minLength: 1 })),
    diskLowGb: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000 })),
    ...LOG_FILE_PROPERTIES,
    /** `antenna player`'s settings (and the player's in `antenna start`). */
    player: Type.Optional(PlayerFileSchema),
  },
  { additionalProperties: false },
);
export type ConfigFile = Static<typeof ConfigFileSchema>;

/** The settings a place gives, as text (flags, env) or typed (file). */
export interface PartialSettings extends PartialLogSettings {
  data?: string | undefined;
  host?: string | undefined;
  port?: string | number | undefined;
  publicUrl?: string | undefined;
  tv?: string[] | undefined;
  movies?: string[] | undefined;
  videos?: string[] | undefined;
  logLevel?: string | undefined;
  sample?: boolean | string | undefined;
  rescanInterval?: number | string | undefined;
  token?: string | undefined;
  m3u?: string[] | undefined;
  m3uStreams?: number | string | undefined;
  hdhomerun?: string[] | undefined;
  xmltv?: string[] | undefined;
  recordings?: string | undefined;
  guideRefresh?: number | string | undefined;
  mdns?: boolean | string | undefined;
  mdnsType?: string | undefined;
  followExternalLinks?: boolean | string | undefined;
  allowOrigins?: string[] | undefined;
  allowLocalSources?: string[] | undefined;
  ffmpegPath?: string | undefined;
  ffprobePath?: string | undefined;
  comskipPath?: string | undefined;
  hlsEncoder?: string | undefined;
  maxTranscodes?: number | string | undefined;
  webDir?: string | undefined;
  backupKeep?: number | string | undefined;
  liveBufferHours?: number | string | undefined;
  liveBufferGb?: number | string | undefined;
  liveBufferLinger?: number | string | undefined;
  livePretune?: boolean | string | undefined;
  webhooks?: (string | WebhookSpec)[] | undefined;
  mqtt?: string | undefined;
  mqttTopic?: string | undefined;
  diskLowGb?: number | string | undefined;
}

export const ENV_NAMES = {
  data: 'ANTENNA_DATA',
  host: 'ANTENNA_HOST',
  port: 'ANTENNA_PORT',
  publicUrl: 'ANTENNA_PUBLIC_URL',
  tv: 'ANTENNA_TV',
  movies: 'ANTENNA_MOVIES',
  videos: 'ANTENNA_VIDEOS',
  logLevel: 'ANTENNA_LOG_LEVEL',
  sample: 'ANTENNA_SAMPLE',
  rescanInterval: 'ANTENNA_RESCAN_INTERVAL',
  token: 'ANTENNA_TOKEN',
  m3u: 'ANTENNA_M3U',
  m3uStreams: 'ANTENNA_M3U_STREAMS',
  hdhomerun: 'ANTENNA_HDHOMERUN',
  xmltv: 'ANTENNA_XMLTV',
  recordings: 'ANTENNA_RECORDINGS',
  guideRefresh: 'ANTENNA_GUIDE_REFRESH',
  mdns: 'ANTENNA_MDNS',
  mdnsType: 'ANTENNA_MDNS_TYPE',
  followExternalLinks: 'ANTENNA_FOLLOW_EXTERNAL_LINKS',
  allowOrigins: 'ANTENNA_ALLOW_ORIGINS',
  allowLocalSources: 'ANTENNA_ALLOW_LOCAL_SOURCES',
  ffmpegPath: 'ANTENNA_FFMPEG_PATH',
  ffprobePath: 'ANTENNA_FFPROBE_PATH',
  comskipPath: 'ANTENNA_COMSKIP_PATH',
  hlsEncoder: 'ANTENNA_HLS_ENCODER',
  maxTranscodes: 'ANTENNA_MAX_TRANSCODES',
  webDir: 'ANTENNA_WEB_DIR',
  backupKeep: 'ANTENNA_BACKUP_KEEP',
  liveBufferHours: 'ANTENNA_LIVE_BUFFER_HOURS',
  liveBufferGb: 'ANTENNA_LIVE_BUFFER_GB',
  liveBufferLinger: 'ANTENNA_LIVE_BUFFER_LINGER',
  livePretune: 'ANTENNA_LIVE_PRETUNE',
  webhooks: 'ANTENNA_WEBHOOKS',
  mqtt: 'ANTENNA_MQTT',
  mqttTopic: 'ANTENNA_MQTT_TOPIC',
  diskLowGb: 'ANTENNA_DISK_LOW_GB',
  ...LOG_ENV_NAMES,
  config: 'ANTENNA_CONFIG',
} as const;

/** Settings from the environment; list variables hold paths separated by the platform's delimiter (`:`). */
export function settingsFromEnv(env: NodeJS.ProcessEnv): PartialSettings {
  const value = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  const paths = (name: string) =>
    value(name)
      ?.split(delimiter)
      .filter((path) => path !== '');
  return {
    ...logSettingsFromEnv(env),
    data: value(ENV_NAMES.data),
    host: value(ENV_NAMES.host),
    port: value(ENV_NAMES.port),
    publicUrl: value(ENV_NAMES.publicUrl),
    tv: paths(ENV_NAMES.tv),
    movies: paths(ENV_NAMES.movies),
    videos: paths(ENV_NAMES.videos),
    logLevel: value(ENV_NAMES.logLevel),
    sample: value(ENV_NAMES.sample),
    rescanInterval: value(ENV_NAMES.rescanInterval),
    token: value(ENV_NAMES.token),
    // URLs contain ':', so these lists are separated by whitespace.
    m3u: words(value(ENV_NAMES.m3u)),
    m3uStreams: value(ENV_NAMES.m3uStreams),
    hdhomerun: words(value(ENV_NAMES.hdhomerun)),
    xmltv: words(value(ENV_NAMES.xmltv)),
    recordings: value(ENV_NAMES.recordings),
    guideRefresh: value(ENV_NAMES.guideRefresh),
    mdns: value(ENV_NAMES.mdns),
    mdnsType: value(ENV_NAMES.mdnsType),
    followExternalLinks: value(ENV_NAMES.followExternalLinks),
    allowOrigins: words(value(ENV_NAMES.allowOrigins)),
    allowLocalSources: paths(ENV_NAMES.allowLocalSources),
    ffmpegPath: value(ENV_NAMES.ffmpegPath),
    ffprobePath: value(ENV_NAMES.ffprobePath),
    comskipPath: value(ENV_NAMES.comskipPath),
    hlsEncoder: value(ENV_NAMES.hlsEncoder),
    maxTranscodes: value(ENV_NAMES.maxTranscodes),
    webDir: value(ENV_NAMES.webDir),
    backupKeep: value(ENV_NAMES.backupKeep),
    liveBufferHours: value(ENV_NAMES.liveBufferHours),
    liveBufferGb: value(ENV_NAMES.liveBufferGb),
    liveBufferLinger: value(ENV_NAMES.liveBufferLinger),
    livePretune: value(ENV_NAMES.livePretune),
    webhooks: words(value(ENV_NAMES.webhooks)),
    mqtt: value(ENV_NAMES.mqtt),
    mqttTopic: value(ENV_NAMES.mqttTopic),
    diskLowGb: value(ENV_NAMES.diskLowGb),
  };
}

/** Reads a config file and checks all of it (the player's part too). */
export function readConfigJson(file: string): ConfigFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(
      `Config file ${file} cannot be read as JSON: ${error instanceof Error ? error.message : error}`,
    );
  }
  if (!Value.Check(ConfigFileSchema, parsed)) {
    const first = Value.Errors(ConfigFileSchema, parsed).First();
    const where = first?.path ? ` at ${first.path}` : '';
    throw new ConfigError(`Config file ${file} is invalid${where}: ${first?.message ?? 'unexpected content'}.`);
  }
  return parsed;
}

/** The server's settings from a config file; relative paths in it are relative to the file. */
export function readConfigFile(file: string): PartialSettings {
  const { player: _player, ...parsed } = readConfigJson(file);
  const base = dirname(resolve(file));
  const relative = (path: string | undefined) => (path === undefined ? undefined : resolve(base, path));
  const relativeList = (paths: string[] | undefined) => paths?.map((path) => resolve(base, path));
  const programPath = (program: string | undefined) => (program?.includes('/') ? resolve(base, program) : program);
  return {
    ...parsed,
    data: relative(parsed.data),
    tv: relativeList(parsed.tv),
    movies: relativeList(parsed.movies),
    videos: relativeList(parsed.videos),
    recordings: relative(parsed.recordings),
    logFile: logFileFromConfigFile(parsed.logFile, file),
    allowLocalSources: relativeList(parsed.allowLocalSources),
    // A program path (with a slash) is relative to the file; a bare name is looked up on PATH.
    ffmpegPath: programPath(parsed.ffmpegPath),
    ffprobePath: programPath(parsed.ffprobePath),
    comskipPath: programPath(parsed.comskipPath),
    // Locations may be URLs; only file paths are made relative to the config file.
    m3u: parsed.m3u?.map((location) => (isUrl(location) ? location : resolve(base, location))),
    xmltv: parsed.xmltv?.map((location) => (isUrl(location) ? location : resolve(base, location))),
  };
}
