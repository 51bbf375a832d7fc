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
import pino, { type DestinationStream, type Logger } from 'pino';
import { prettyFactory } from 'pino-pretty';
import { RotatingLogFile } from '../common/rotating-log-file.js';
import { ConfigError } from '../config/config-values.js';
import type { LogSettings } from '../config/log-settings.js';

export type LogOutput = { kind: 'pretty' } | { kind: 'json' } | { kind: 'file'; file: string; maxBytes: number; keep: number };

/** Where log lines go: the file when one is given, else pretty on a terminal (or when asked), else JSON (pure). */
export function chooseLogOutput(settings: Omit<LogSettings, 'logLevel'>, stdoutIsTty: boolean): LogOutput {
  if (settings.logFile !== undefined) return { kind: 'file', file: settings.logFile, maxBytes: Math.round(settings.logFileSize * 1024 * 1024), keep: settings.logFileKeep };
  if (settings.logFormat === 'pretty' || (settings.logFormat === 'auto' && stdoutIsTty)) return { kind: 'pretty' };
  return { kind: 'json' };
}

/**
 * Secrets that must never reach a log, wherever they sit in what is logged: the bearer
 * token in request headers, cookies, and any `token` field (the server's --token, the
 * player's token for its server).
 */
export const REDACTED_PATHS = ['req.headers.authorization', 'headers.authorization', 'req.headers.cookie', 'headers.cookie', 'token', '*.token'];

export function createLogger(settings: LogSettings, stdoutIsTty: boolean = process.stdout.isTTY === true): Logger {
  const options = { level: settings.logLevel, redact: REDACTED_PATHS };
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
    throw new ConfigError(`Log file ${output.file} cannot be opened (${code}): give --log-file a file in a folder this user can write, or leave it out to log to stdout.`);
  }
}
