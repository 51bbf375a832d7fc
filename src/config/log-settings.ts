/**
 * Where log lines go and how they look, for `antenna server`, `antenna player` and
 * `antenna start` alike: the same flags, environment variables and config-file keys,
 * read with the same precedence as every other setting (flags > environment > file).
 */
import { dirname, resolve } from 'node:path';
import { Type } from '@sinclair/typebox';
import { ConfigError, type LogLevel, pick } from './config-values.js';

/** auto: pretty on a terminal, JSON lines otherwise (a pipe, the systemd journal). */
export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LogSettings {
  logLevel: LogLevel;
  logFormat: LogFormat;
  /** JSON lines to this file instead of stdout, rotated by size; undefined: stdout. */
  logFile: string | undefined;
  /** Megabytes the log file may reach before it is rotated. */
  logFileSize: number;
  /** Rotated files kept beside it: FILE.1 (newest) to FILE.<keep>. */
  logFileKeep: number;
}

export const LOG_DEFAULTS: Omit<LogSettings, 'logLevel'> = {
  logFormat: 'auto',
  logFile: undefined,
  logFileSize: 10,
  logFileKeep: 5,
};

/** The same variables for the server and the player, as ANTENNA_LOG_LEVEL already is. */
export const LOG_ENV_NAMES = {
  logFormat: 'ANTENNA_LOG_FORMAT',
  logFile: 'ANTENNA_LOG_FILE',
  logFileSize: 'ANTENNA_LOG_FILE_SIZE',
  logFileKeep: 'ANTENNA_LOG_FILE_KEEP',
} as const;

/** The config file's keys (at the top for the server, in `player` for the player). */
export const LOG_FILE_PROPERTIES = {
  logFormat: Type.Optional(Type.Union(LOG_FORMATS.map((format) => Type.Literal(format)))),
  logFile: Type.Optional(Type.String({ minLength: 1 })),
  logFileSize: Type.Optional(Type.Number({ minimum: 0.01, maximum: 10_240 })),
  logFileKeep: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
};

export interface PartialLogSettings {
  logFormat?: string | undefined;
  logFile?: string | undefined;
  logFileSize?: number | string | undefined;
  logFileKeep?: number | string | undefined;
}

export function logSettingsFromEnv(env: NodeJS.ProcessEnv): PartialLogSettings {
  const value = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  return {
    logFormat: value(LOG_ENV_NAMES.logFormat),
    logFile: value(LOG_ENV_NAMES.logFile),
    logFileSize: value(LOG_ENV_NAMES.logFileSize),
    logFileKeep: value(LOG_ENV_NAMES.logFileKeep),
  };
}

/** A config file's log file is relative to the file, as its other paths are. */
export function logFileFromConfigFile(logFile: string | undefined, configFile: string): string | undefined {
  return logFile === undefined ? undefined : resolve(dirname(resolve(configFile)), logFile);
}

export function parseLogFormat(value: string): LogFormat {
  const found = LOG_FORMATS.find((format) => format === value);
  if (!found)
    throw new ConfigError(
      `Log format '${value}' is invalid: give auto (pretty on a terminal, JSON otherwise), pretty or json.`,
    );
  return found;
}

export function parseLogFileSize(value: number | string): number {
  const megabytes = typeof value === 'number' ? value : /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isFinite(megabytes) || megabytes < 0.01 || megabytes > 10_240) {
    throw new ConfigError(
      `Log file size '${value}' is invalid: give the megabytes a log file may reach before it is rotated, 0.01 to 10240 (default 10).`,
    );
  }
  return megabytes;
}

export function parseLogFileKeep(value: number | string): number {
  const keep = typeof value === 'number' ? value : /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isInteger(keep) || keep < 0 || keep > 100) {
    throw new ConfigError(
      `Log file keep '${value}' is invalid: give how many rotated log files to keep beside the current one, 0 to 100 (default 5).`,
    );
  }
  return keep;
}

/** The log settings of the first place that gives each (flags, environment, file); relative log files against `cwd`. */
export function resolveLogSettings(places: readonly PartialLogSettings[], cwd: string): Omit<LogSettings, 'logLevel'> {
  const format = pick('logFormat', places);
  const file = pick('logFile', places);
  const size = pick('logFileSize', places);
  const keep = pick('logFileKeep', places);
  const settings = {
    logFormat: format === undefined ? LOG_DEFAULTS.logFormat : parseLogFormat(format),
    logFile: file === undefined ? undefined : resolve(cwd, file),
    logFileSize: size === undefined ? LOG_DEFAULTS.logFileSize : parseLogFileSize(size),
    logFileKeep: keep === undefined ? LOG_DEFAULTS.logFileKeep : parseLogFileKeep(keep),
  };
  // A file holds JSON lines, for tools to read; pretty lines are for a person at a terminal.
  if (settings.logFile !== undefined && settings.logFormat === 'pretty') {
    throw new ConfigError(
      `--log-format pretty is for a terminal, and --log-file ${settings.logFile} always holds JSON lines: drop one of the two (to read the file pretty, run npx pino-pretty < FILE in the Antenna folder).`,
    );
  }
  return settings;
}
