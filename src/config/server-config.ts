/**
 * `antenna server` settings from three places. Precedence, highest first:
 * command-line flags, environment variables, the config file, built-in defaults.
 * A list setting (--tv, --movies, --videos) comes whole from the highest place that
 * sets it; lists are not merged across places.
 */
import { availableParallelism } from 'node:os';
import { resolve, sep } from 'node:path';
import type { ImportRoot } from '../model/import-root.js';
import type { WebhookSpec } from '../model/events/webhook.schemas.js';
import { SERVER_SERVICE_TYPE } from '../discovery/dns-sd.js';
import {
  type LogLevel,
  ConfigError,
  isUrl,
  parseFlag,
  parseLogLevel,
  parseOrigin,
  parsePort,
  parsePublicUrl,
  parseServiceType,
  parseToken,
  parseWholeNumber,
  pick,
} from './config-values.js';
import { LOG_DEFAULTS, type LogSettings, resolveLogSettings } from './log-settings.js';
import { HLS_ENCODERS, type HlsEncoder } from '../streaming/hls-ffmpeg-args.js';
import { ENV_NAMES, type PartialSettings, readConfigFile, settingsFromEnv } from './server-settings.js';

export { ConfigError, LOG_LEVELS, type LogLevel } from './config-values.js';

/** With where log lines go and how they look (log-settings.ts). */
export interface ServerConfig extends LogSettings {
  data: string;
  host: string;
  port: number;
  publicUrl: string | undefined;
  tv: string[];
  movies: string[];
  videos: string[];
  logLevel: LogLevel;
  /** Seed a small sample library when no import roots are configured and the library is empty. */
  sample: boolean;
  /** Minutes between full rescans of the import roots (watching catches most changes sooner); 0: never. */
  rescanInterval: number;
  /** Bearer token that writes must carry; without one, writes come only from private addresses. */
  token: string | undefined;
  /** M3U playlists (file paths or URLs). */
  m3u: string[];
  /** Simultaneous streams each M3U source allows. */
  m3uStreams: number;
  /** HDHomeRun tuner addresses. */
  hdhomerun: string[];
  /** XMLTV guides (file paths or URLs, gzip too). */
  xmltv: string[];
  /** Where recordings are written; default <data>/recordings. */
  recordings: string;
  /** Minutes between refreshes of sources and guides; 0: only on request. */
  guideRefresh: number;
  /** Advertise the server on the local network (DNS-SD), so players find it. */
  mdns: boolean;
  /** The DNS-SD service type advertised. */
  mdnsType: string;
  /** Follow symbolic links that lead outside the import roots and recordings folder (the user's opt-in). */
  followExternalLinks: boolean;
  /** Web page origins allowed to make changes besides the server's own pages. */
  allowOrigins: string[];
  /** Folders under which sources and guides added through the API may be local files. */
  allowLocalSources: string[];
  /** The programs run: a name looked up on PATH, or a path. */
  ffmpegPath: string;
  ffprobePath: string;
  comskipPath: string;
  /** What transcodes HLS: software (libx264) or a hardware encoder, which falls back to software when it fails. */
  hlsEncoder: HlsEncoder;
  /** HLS transcodes at once; past it, a new one is refused (503). */
  maxTranscodes: number;
  /** The built web app to serve at `/`; undefined for the one `npm run build` made (dist/web). */
  webDir: string | undefined;
  /** Daily database backups kept in DATA/backups; 0: no automatic backups. */
  backupKeep: number;
  /** Hours each channel's live buffer holds at most. */
  liveBufferHours: number;
  /** Gigabytes all live buffers hold together at most. */
  liveBufferGb: number;
  /** Minutes a live buffer nobody asks for is kept. */
  liveBufferLinger: number;
  /** Buffer the channels either side of a watched one while tuners are free (channel up/down in a moment). */
  livePretune: boolean;
  /** Where events are POSTed besides the webhooks made in Settings (--webhook, the config file). */
  webhooks: WebhookSpec[];
  /** An MQTT broker events and state are published to (mqtt://, mqtts://, ws://, wss://), credentials in it. */
  mqtt: string | undefined;
  /** The first level of every topic published (two servers on one broker need two). */
  mqttTopic: string;
  /** Below this many gigabytes free on the recordings disk, disk.low is told. */
  diskLowGb: number;
}

export const DEFAULTS: ServerConfig = {
  ...LOG_DEFAULTS,
  data: './data',
  host: '0.0.0.0',
  port: 8089,
  publicUrl: undefined,
  tv: [],
  movies: [],
  videos: [],
  logLevel: 'info',
  sample: true,
  rescanInterval: 60,
  token: undefined,
  m3u: [],
  m3uStreams: 2,
  hdhomerun: [],
  xmltv: [],
  recordings: '',
  guideRefresh: 720,
  mdns: true,
  mdnsType: SERVER_SERVICE_TYPE,
  followExternalLinks: false,
  allowOrigins: [],
  allowLocalSources: [],
  ffmpegPath: 'ffmpeg',
  ffprobePath: 'ffprobe',
  comskipPath: 'comskip',
  hlsEncoder: 'software',
  // One software transcode keeps about one core busy.
  maxTranscodes: Math.max(1, availableParallelism()),
  webDir: undefined,
  backupKeep: 7,
  liveBufferHours: 4,
  liveBufferGb: 16,
  liveBufferLinger: 10,
  livePretune: false,
  webhooks: [],
  mqtt: undefined,
  mqttTopic: 'antenna',
  diskLowGb: 10,
};

function parseMinutes(value: number | string, what = 'Rescan interval', zero = 'periodic rescans'): number {
  const minutes = typeof value === 'number' ? value : /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(minutes) || minutes < 0) {
    throw new ConfigError(`${what} '${value}' is invalid: give minutes as a number, 0 to turn ${zero} off.`);
  }
  return minutes;
}

const parseStreams = (value: number | string) =>
  parseWholeNumber(
    value,
    1,
    64,
    `M3U streams '${value}' is invalid: give how many channels the provider lets you stream at once, 1 to 64.`,
  );

function parseEncoder(value: string): HlsEncoder {
  const found = HLS_ENCODERS.find((name) => name === value);
  if (!found) throw new ConfigError(`HLS encoder '${value}' is invalid: give one of ${HLS_ENCODERS.join(', ')}.`);
  return found;
}

const parseTranscodes = (value: number | string) =>
  parseWholeNumber(
    value,
    1,
    64,
    `Max transcodes '${value}' is invalid: give how many HLS transcodes may run at once, 1 to 64.`,
  );

/** A number from `min` (exclusive when `above`) to `max`, else `message`. */
function parseAmount(value: number | string, min: number, max: number, message: string, above = false): number {
  const n = typeof value === 'number' ? value : /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isFinite(n) || n > max || n < min || (above && n === min)) throw new ConfigError(message);
  return n;
}

const parseLiveBuffer = {
  hours: (value: number | string) =>
    parseAmount(value, 0, 48, `Live buffer hours '${value}' is invalid: give hours above 0, at most 48.`, true),
  gb: (value: number | string) =>
    parseAmount(value, 0.1, 100_000, `Live buffer size '${value}' is invalid: give gigabytes, at least 0.1.`),
  linger: (value: number | string) =>
    parseAmount(value, 0, 1440, `Live buffer linger '${value}' is invalid: give minutes from 0 to 1440.`),
};

const parseBackupKeep = (value: number | string) =>
  parseWholeNumber(
    value,
    0,
    1000,
    `Backup keep '${value}' is invalid: give how many daily database backups to keep in DATA/backups, 0 to 1000 (0 turns automatic backups off).`,
  );

/** A webhook as the config gives it: a URL, or a URL with kinds and a secret. */
function parseWebhook(given: string | WebhookSpec): WebhookSpec {
  const spec = typeof given === 'string' ? { url: given } : given;
  if (!isUrl(spec.url))
    throw new ConfigError(`Webhook '${spec.url.slice(0, 100)}' is invalid: give an http:// or https:// URL.`);
  return spec;
}

/** A broker URL MQTT.js connects to. */
function parseBroker(url: string): string {
  if (!/^(mqtts?|wss?):\/\/[^/]/i.test(url))
    throw new ConfigError(
      `MQTT broker '${url.slice(0, 100)}' is invalid: give a URL such as mqtt://homeassistant.local:1883 (mqtt://user:password@host to log in; mqtts:// for TLS).`,
    );
  return url;
}

/** A topic level without MQTT's wildcards. */
function parseTopic(topic: string): string {
  if (!/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/.test(topic))
    throw new ConfigError(
      `MQTT topic '${topic.slice(0, 100)}' is invalid: give letters, digits, - and _ (levels separated by /), such as antenna.`,
    );
  return topic;
}

function inside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/**
 * Import roots must not overlap (a file would be two items), and the data directory,
 * where Antenna writes, must not be inside one: Antenna never writes into your media.
 */
function checkRoots(config: ServerConfig): void {
  const roots = importRootsOf(config);
  for (const [index, root] of roots.entries()) {
    if (inside(config.data, root.path)) {
      throw new ConfigError(
        `The data directory ${config.data} is inside the import root ${root.path}: Antenna never writes into your media; put --data elsewhere.`,
      );
    }
    if (inside(config.recordings, root.path) || inside(root.path, config.recordings)) {
      throw new ConfigError(
        `The recordings directory ${config.recordings} overlaps the import root ${root.path}: recordings are already in the library; keep them apart.`,
      );
    }
    for (const other of roots.slice(index + 1)) {
      if (inside(root.path, other.path) || inside(other.path, root.path)) {
        throw new ConfigError(
          `Import roots ${root.path} (${root.kind}) and ${other.path} (${other.kind}) overlap: give each folder once, and no folder inside another.`,
        );
      }
    }
  }
}

/** Merges the places by precedence (first wins) and checks every value. */
export function resolveServerConfig(places: readonly PartialSettings[], cwd: string = process.cwd()): ServerConfig {
  const port = pick('port', places);
  const publicUrl = pick('publicUrl', places);
  const logLevel = pick('logLevel', places);
  const sample = pick('sample', places);
  const rescanInterval = pick('rescanInterval', places);
  const token = pick('token', places);
  const m3uStreams = pick('m3uStreams', places);
  const guideRefresh = pick('guideRefresh', places);
  const recordings = pick('recordings', places);
  const mdns = pick('mdns', places);
  const mdnsType = pick('mdnsType', places);
  const followExternalLinks = pick('followExternalLinks', places);
  const locations = (list: string[] | undefined) =>
    (list ?? []).map((location) => (isUrl(location) ? location : resolve(cwd, location)));
  const paths = (list: string[] | undefined) => (list ?? []).map((path) => resolve(cwd, path));
  const config: ServerConfig = {
    ...resolveLogSettings(places, cwd),
    data: resolve(cwd, pick('data', places) ?? DEFAULTS.data),
    host: pick('host', places) ?? DEFAULTS.host,
    port: port === undefined ? DEFAULTS.port : parsePort(port),
    publicUrl: publicUrl === undefined ? undefined : parsePublicUrl(publicUrl),
    tv: paths(pick('tv', places)),
    movies: paths(pick('movies', places)),
    videos: paths(pick('videos', places)),
    logLevel: logLevel === undefined ? DEFAULTS.logLevel : parseLogLevel(logLevel),
    sample: sample === undefined ? DEFAULTS.sample : parseFlag(sample),
    rescanInterval: rescanInterval === undefined ? DEFAULTS.rescanInterval : parseMinutes(rescanInterval),
    token: token === undefined ? undefined : parseToken(token),
    m3u: locations(pick('m3u', places)),
    m3uStreams: m3uStreams === undefined ? DEFAULTS.m3uStreams : parseStreams(m3uStreams),
    hdhomerun: pick('hdhomerun', places) ?? [],
    xmltv: locations(pick('xmltv', places)),
    recordings: '',
    guideRefresh:
      guideRefresh === undefined
        ? DEFAULTS.guideRefresh
        : parseMinutes(guideRefresh, 'Guide refresh interval', 'periodic refreshes'),
    mdns: mdns === undefined ? DEFAULTS.mdns : parseFlag(mdns),
    mdnsType: mdnsType === undefined ? DEFAULTS.mdnsType : parseServiceType(mdnsType),
    followExternalLinks:
      followExternalLinks === undefined ? DEFAULTS.followExternalLinks : parseFlag(followExternalLinks),
    allowOrigins: (pick('allowOrigins', places) ?? []).map(parseOrigin),
    allowLocalSources: paths(pick('allowLocalSources', places)),
    ffmpegPath: pick('ffmpegPath', places) ?? DEFAULTS.ffmpegPath,
    ffprobePath: pick('ffprobePath', places) ?? DEFAULTS.ffprobePath,
    comskipPath: pick('comskipPath', places) ?? DEFAULTS.comskipPath,
    hlsEncoder: parseEncoder(pick('hlsEncoder', places) ?? DEFAULTS.hlsEncoder),
    maxTranscodes: parseTranscodes(pick('maxTranscodes', places) ?? DEFAULTS.maxTranscodes),
    webDir: ((dir) => (dir === undefined ? undefined : resolve(cwd, dir)))(pick('webDir', places)),
    backupKeep: parseBackupKeep(pick('backupKeep', places) ?? DEFAULTS.backupKeep),
    liveBufferHours: parseLiveBuffer.hours(pick('liveBufferHours', places) ?? DEFAULTS.liveBufferHours),
    liveBufferGb: parseLiveBuffer.gb(pick('liveBufferGb', places) ?? DEFAULTS.liveBufferGb),
    liveBufferLinger: parseLiveBuffer.linger(pick('liveBufferLinger', places) ?? DEFAULTS.liveBufferLinger),
    livePretune: ((flag) => (flag === undefined ? DEFAULTS.livePretune : parseFlag(flag)))(pick('livePretune', places)),
    webhooks: (pick('webhooks', places) ?? []).map(parseWebhook),
    mqtt: ((url) => (url === undefined ? undefined : parseBroker(url)))(pick('mqtt', places)),
    mqttTopic: parseTopic(pick('mqttTopic', places) ?? DEFAULTS.mqttTopic),
    diskLowGb: parseAmount(
      pick('diskLowGb', places) ?? DEFAULTS.diskLowGb,
      0,
      1_000_000,
      `Disk low '${String(pick('diskLowGb', places))}' is invalid: give the gigabytes free below which disk.low is told (0 turns it off).`,
    ),
  };
  config.recordings = recordings === undefined ? resolve(config.data, 'recordings') : resolve(cwd, recordings);
  checkRoots(config);
  return config;
}

/** The configured import roots, TV first, then movies, then videos. */
export function importRootsOf(config: Pick<ServerConfig, 'tv' | 'movies' | 'videos'>): ImportRoot[] {
  return [
    ...config.tv.map((path) => ({ kind: 'tv' as const, path })),
    ...config.movies.map((path) => ({ kind: 'movies' as const, path })),
    ...config.videos.map((path) => ({ kind: 'videos' as const, path })),
  ];
}

/** Flags, then the environment, then the config file named by --config or ANTENNA_CONFIG. */
export function loadServerConfig(flags: PartialSettings & { config?: string }, env: NodeJS.ProcessEnv): ServerConfig {
  const fromEnv = settingsFromEnv(env);
  const configFile = flags.config ?? env[ENV_NAMES.config];
  const fromFile = configFile ? readConfigFile(configFile) : {};
  return resolveServerConfig([flags, fromEnv, fromFile]);
}
