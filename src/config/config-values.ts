/**
 * Reading setting values: the checks and messages shared by `antenna server` and
 * `antenna player` (flags and environment give text, the config file typed values).
 */
import { serviceTypeName } from '../discovery/dns-sd.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A setting that cannot be used; the message says which and what is accepted. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export const words = (text: string | undefined) => text?.split(/\s+/).filter((word) => word !== '');

export const isUrl = (location: string) => /^https?:\/\//i.test(location);

export function pick<P, K extends keyof P>(key: K, places: readonly P[]): P[K] | undefined {
  for (const place of places) if (place[key] !== undefined) return place[key];
  return undefined;
}

export function parsePort(value: string | number): number {
  const port = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`Port '${value}' is invalid: give a whole number from 0 to 65535 (0 picks a free port).`);
  }
  return port;
}

/**
 * A whole number from min to max (text from flags and the environment, a number from the file), or ConfigError with
 * `message`.
 */
export function parseWholeNumber(value: string | number, min: number, max: number, message: string): number {
  const number = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(number) || number < min || number > max) throw new ConfigError(message);
  return number;
}

/** A DNS-SD service type: `_name._tcp`, the name 1 to 15 letters, digits, `-` or `_`. */
export function parseServiceType(value: string): string {
  if (!serviceTypeName(value))
    throw new ConfigError(
      `Service type '${value}' is invalid: write it as _name._tcp, such as _antenna_dvr._tcp (a name of 1 to 15 characters).`,
    );
  return value.toLowerCase();
}

export function parsePublicUrl(value: string, what = 'Public URL'): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${what} '${value}' is invalid: give an absolute http(s) URL such as http://tv.local:8089.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${what} '${value}' must use http or https.`);
  }
  return url.href.replace(/\/+$/, '');
}

export function parseLogLevel(value: string): LogLevel {
  if (!(LOG_LEVELS as readonly string[]).includes(value)) {
    throw new ConfigError(`Log level '${value}' is invalid: use one of ${LOG_LEVELS.join(', ')}.`);
  }
  return value as LogLevel;
}

/** A token short enough to guess protects nothing. */
export function parseToken(value: string): string {
  if (value.length < 16 || /\s/.test(value)) {
    throw new ConfigError(
      'The token must be at least 16 characters without spaces (for example: openssl rand -hex 16).',
    );
  }
  return value;
}

export function parseFlag(value: boolean | string): boolean {
  if (typeof value === 'boolean') return value;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new ConfigError(`'${value}' is not a yes/no value: use true or false.`);
}

/** A web page origin (--allow-origin): scheme, host and port, as browsers send it in Origin. */
export function parseOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(
      `Origin '${value}' is invalid: give the web page's scheme, host and port, such as http://dashboard.local:8123.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(`Origin '${value}' must use http or https.`);
  return url.origin;
}
