/**
 * THE logger factory of `antenna server`, `antenna player` and `antenna start`: pretty
 * lines for a person at a terminal, JSON lines for everything else (a pipe, the systemd
 * journal), or JSON lines into a rotated file (--log-file).
 *
 * Pretty lines come from pino-pretty's prettyFactory, called in this thread on each
 * line and written with process.stdout.write (synchronous on a terminal), rather than
 * from a pino transport: transports run in a worker thread, whose last lines are lost
 * when signals.ts exits right after "shutting down" unless every exit waits for the
 * worker to flush. The file is written synchronously for the same reason.
 */
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { prettyFactory } from 'pino-pretty';
import { RotatingLogFile } from '../common/rotating-log-file.js';
import { redactUrl, redactUrlsInText } from '../common/url-redaction.js';
import { ConfigError } from '../config/config-values.js';
import type { LogSettings } from '../config/log-settings.js';

export type LogOutput =
  | { kind: 'pretty' }
  | { kind: 'json' }
  | { kind: 'file'; file: string; maxBytes: number; keep: number };

/** Where log lines go: the file when one is given, else pretty on a terminal (or when asked), else JSON (pure). */
export function chooseLogOutput(settings: Omit<LogSettings, 'logLevel'>, stdoutIsTty: boolean): LogOutput {
  if (settings.logFile !== undefined)
    return {
      kind: 'file',
      file: settings.logFile,
      maxBytes: Math.round(settings.logFileSize * 1024 * 1024),
      keep: settings.logFileKeep,
    };
  if (settings.logFormat === 'pretty' || (settings.logFormat === 'auto' && stdoutIsTty)) return { kind: 'pretty' };
  return { kind: 'json' };
}

/**
 * Secrets that must never reach a log, wherever they sit in what is logged: the bearer
 * token in request headers, cookies, and any `token` field (the server's --token, the
 * player's token for its server).
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'req.headers.cookie',
  'headers.cookie',
  'token',
  '*.token',
];

/**
 * Credentials in URLs never reach a log either (common/url-redaction.ts), wherever a
 * line carries one: a `url` field (a request's, with its query), the text of any other
 * field or of the message (an error that names a source's URL), an error's message and
 * stack, and a request as Fastify logs it.
 */
export function loggerOptions(level: LogSettings['logLevel']): LoggerOptions {
  return {
    level,
    redact: REDACTED_PATHS,
    serializers: { err: shownError, req: shownRequest, msg: (message: unknown) => redactLogValue(message) },
    formatters: { log: (fields) => redactLogValue(fields) as Record<string, unknown> },
  };
}

/** How deep into a logged object URLs are looked for: log fields are shallow. */
const MAX_DEPTH = 4;

/**
 * Strings redacted (a `url` field as a URL, relative ones included; any other as text
 * that may name one), plain objects and arrays walked; anything else (an Error, a
 * request) is left to its serializer.
 */
function redactLogValue(value: unknown, key = '', depth = 0): unknown {
  if (typeof value === 'string') return key === 'url' ? redactUrl(value) : redactUrlsInText(value);
  if (depth >= MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((entry) => redactLogValue(entry, '', depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, entry]) => [name, redactLogValue(entry, name, depth + 1)]),
  );
}

/**
 * pino's error serializer (type, message and stack with their causes', own fields), then its text redacted; an error
 * given as text, redacted.
 */
function shownError(error: unknown): unknown {
  if (!(error instanceof Error)) return redactLogValue(error);
  // Its object's prototype is pino's, not a plain object's: its fields are taken one by one.
  return Object.fromEntries(
    Object.entries(pino.stdSerializers.err(error)).map(([name, value]) => [name, redactLogValue(value, name, 1)]),
  );
}

/**
 * A Fastify request as Fastify's own serializer shows it (not its headers), its URL redacted; another object as it is,
 * its URL redacted.
 */
function shownRequest(request: unknown): unknown {
  if (request === null || typeof request !== 'object') return request;
  const fields = request as Record<string, unknown>;
  const shown =
    'raw' in fields
      ? { method: fields.method, url: fields.url, host: fields.host, remoteAddress: fields.ip }
      : { ...fields };
  return typeof shown.url === 'string' ? { ...shown, url: redactUrl(shown.url) } : shown;
}

export function createLogger(settings: LogSettings, stdoutIsTty: boolean = process.stdout.isTTY === true): Logger {
  const options = loggerOptions(settings.logLevel);
  const output = chooseLogOutput(settings, stdoutIsTty);
  // JSON on stdout: pino's own destination, which it flushes when the process exits.
  return output.kind === 'json' ? pino(options) : pino(options, destinationOf(output));
}

function destinationOf(output: Exclude<LogOutput, { kind: 'json' }>): DestinationStream {
  if (output.kind === 'pretty') {
    // Local time of day: the date is rarely news to someone watching a terminal; pid and host never are.
    const pretty = prettyFactory({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
    return { write: (line: string) => void process.stdout.write(pretty(line)) };
  }
  try {
    return new RotatingLogFile(output.file, { maxBytes: output.maxBytes, keep: output.keep });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ConfigError(
      `Log file ${output.file} cannot be opened (${code}): give --log-file a file in a folder this user can write, or leave it out to log to stdout.`,
    );
  }
}
