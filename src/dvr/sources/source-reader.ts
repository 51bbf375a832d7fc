/**
 * Reads a DVR source (M3U playlist, XMLTV guide, HDHomeRun JSON) from a local file or an
 * http(s) URL, as a byte stream or as text, gunzipping it when its first bytes say gzip.
 *
 * Written here rather than taken from a library: Node's fetch, fs and zlib already do
 * the work; what is ours is the policy (which schemes, size caps, timeouts, sniffing gzip
 * instead of trusting names and headers, and errors a user can act on).
 *
 * `timeoutMs` bounds the wait for the headers and for each later chunk of a URL's body
 * (so also the time to first byte): a server that stops sending halfway would otherwise
 * hang a refresh forever.
 */
import type { ReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { gunzipStream, GZIP_SNIFF_BYTES, isGzip } from './gzip-bytes.js';

export type SourceErrorReason = 'unreachable' | 'http_status' | 'too_large' | 'not_found' | 'invalid' | 'timeout';

/** A source could not be read; `message` is meant for the user, `reason` for code. */
export class SourceError extends Error {
  override readonly name = 'SourceError';
  constructor(
    message: string,
    readonly reason: SourceErrorReason,
    /** The HTTP status, when `reason` is 'http_status'. */
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface OpenOptions {
  signal?: AbortSignal;
  /** Longest wait for headers, the first byte and each later chunk; default 30 s. */
  timeoutMs?: number;
}

export interface ReadOptions extends OpenOptions {
  /** Largest (decompressed) size accepted; default 32 MiB. */
  maxBytes?: number;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;

export function isUrl(location: string): boolean {
  return /^https?:\/\//i.test(location.trim());
}

/** The source's bytes, gunzipped when they are gzip. Resolves once the first bytes have arrived. */
export async function openSource(location: string, options: OpenOptions = {}): Promise<Readable> {
  options.signal?.throwIfAborted();
  const trimmed = location.trim();
  const chunks = isUrl(trimmed) ? await urlChunks(trimmed, options) : await fileChunks(trimmed);
  return await gunzipIfGzip(chunks);
}

/** The whole source as UTF-8 text (a BOM is dropped). */
export async function readSourceText(location: string, options: ReadOptions = {}): Promise<string> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const stream = await openSource(location, options);
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      // A file is read without a fetch to abort, so the caller's signal is checked here.
      options.signal?.throwIfAborted();
      size += chunk.length;
      // Counted after gunzipping, so a small gzip bomb is stopped too.
      if (size > maxBytes)
        throw new SourceError(`${shownLocation(location)} is larger than ${formatBytes(maxBytes)}`, 'too_large');
      parts.push(chunk);
    }
  } catch (error) {
    throw asReadError(error, location, options.signal);
  } finally {
    stream.destroy();
  }
  return new TextDecoder('utf-8').decode(Buffer.concat(parts, size));
}

/** GET a URL and parse its body as JSON; not JSON → SourceError 'invalid'. */
export async function fetchJson(url: string, options: ReadOptions = {}): Promise<unknown> {
  if (!isUrl(url)) throw new SourceError(`${shownLocation(url)} is not an http:// or https:// URL`, 'invalid');
  const text = await readSourceText(url, options);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new SourceError(
      `${shownLocation(url)} is not JSON (it begins ${JSON.stringify(text.trimStart().slice(0, 40))})`,
      'invalid',
    );
  }
}

/**
 * The location as it may appear in an error message: a URL without its query, fragment
 * and credentials, since IPTV providers put account names and passwords there and these
 * messages end up in logs and the API.
 */
export function shownLocation(location: string): string {
  // Any scheme: a location Antenna refuses (ftp://user:password@…) is named in the refusal.
  if (!SCHEME.test(location.trim())) return location;
  try {
    const url = new URL(location.trim());
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return location.replace(/[?#].*$/s, '').replace(/^(\s*[a-z][a-z0-9+.-]*:\/\/)[^/]*@/i, '$1');
  }
}

// --- URLs ------------------------------------------------------------------------------

async function urlChunks(location: string, options: OpenOptions): Promise<AsyncGenerator<Buffer>> {
  const url = parseHttpUrl(location);
  const watchdog = new Watchdog(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.signal);
  let response: Response;
  try {
    response = await fetch(url, { signal: watchdog.signal, redirect: 'follow', headers: credentialsOf(url) });
  } catch (error) {
    watchdog.stop();
    throw watchdog.explain(error, location, 'did not answer');
  }
  if (response.status >= 400 || !response.body) {
    watchdog.stop();
    await response.body?.cancel().catch(() => undefined);
    const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    throw new SourceError(`${shownLocation(location)} answered ${status}`, 'http_status', response.status);
  }
  return bodyChunks(response.body, watchdog, location);
}

function parseHttpUrl(location: string): URL {
  try {
    return new URL(location);
  } catch {
    throw new SourceError(`${shownLocation(location)} is not a valid URL`, 'invalid');
  }
}

/**
 * fetch refuses URLs with user:password@ in them, which playlist URLs sometimes have and
 * curl and VLC accept: they are sent as Basic authentication instead (and, per the fetch
 * standard, dropped on a redirect to another origin).
 */
function credentialsOf(url: URL): Record<string, string> {
  if (url.username === '' && url.password === '') return {};
  const user = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = '';
  url.password = '';
  return { authorization: `Basic ${Buffer.from(user).toString('base64')}` };
}

async function* bodyChunks(
  body: AsyncIterable<Uint8Array>,
  watchdog: Watchdog,
  location: string,
): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of body) {
      watchdog.stop();
      yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      watchdog.start();
    }
  } catch (error) {
    throw watchdog.explain(error, location, 'stopped sending');
  } finally {
    watchdog.stop();
  }
}

/**
 * Aborts a fetch when the caller aborts or when the server keeps us waiting `timeoutMs`,
 * and says which. The clock runs only while we wait for the server: a consumer that is
 * slow to take a chunk (a guide written to SQLite) must not count against it.
 */
class Watchdog {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private timedOut = false;
  readonly signal: AbortSignal;

  constructor(
    private readonly timeoutMs: number,
    private readonly callerSignal: AbortSignal | undefined,
  ) {
    this.signal = callerSignal ? AbortSignal.any([callerSignal, this.controller.signal]) : this.controller.signal;
    this.start();
  }

  start(): void {
    this.stop();
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, this.timeoutMs);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The error to throw for a failed fetch or body read. */
  explain(error: unknown, location: string, verb: string): unknown {
    if (this.timedOut)
      return new SourceError(`${shownLocation(location)} ${verb} within ${formatSeconds(this.timeoutMs)}`, 'timeout');
    if (this.callerSignal?.aborted) return this.callerSignal.reason;
    if (error instanceof SourceError) return error;
    return new SourceError(`${shownLocation(location)} could not be reached (${networkCause(error)})`, 'unreachable');
  }
}

/** undici's "fetch failed" hides the useful part (ECONNREFUSED, ENOTFOUND, ...) in `cause`. */
function networkCause(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return NETWORK_CODES[code] ?? code;
    current = current.cause;
  }
  return error instanceof Error ? error.message : String(error);
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
  UND_ERR_SOCKET: 'connection closed',
};

// --- files -----------------------------------------------------------------------------

async function fileChunks(location: string): Promise<AsyncGenerator<Buffer>> {
  const scheme = SCHEME.exec(location);
  if (scheme)
    throw new SourceError(
      `${shownLocation(location)}: only http://, https:// and local files are supported, not ${scheme[1]}://`,
      'invalid',
    );
  if (location === '') throw new SourceError('The source location is empty', 'invalid');
  const handle = await open(location, 'r').catch((error: unknown) => {
    throw fileError(error, location);
  });
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    throw new SourceError(`${location} is not a file`, 'invalid');
  }
  return streamChunks(handle.createReadStream(), location);
}

async function* streamChunks(stream: ReadStream, location: string): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) yield chunk;
  } catch (error) {
    throw fileError(error, location);
  } finally {
    stream.destroy();
  }
}

function fileError(error: unknown, location: string): SourceError {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new SourceError(`${location} does not exist`, 'not_found');
  if (code === 'EACCES' || code === 'EPERM')
    return new SourceError(`${location} cannot be read (permission denied)`, 'unreachable');
  if (code === 'EISDIR') return new SourceError(`${location} is not a file`, 'invalid');
  return new SourceError(
    `${location} cannot be read (${error instanceof Error ? error.message : String(error)})`,
    'unreachable',
  );
}

// --- gzip ------------------------------------------------------------------------------

/**
 * Peeks at the first two bytes: the gzip magic means gunzip, whatever the name or the
 * Content-Encoding said (fetch has already undone a declared Content-Encoding; a .gz
 * served as application/octet-stream arrives still compressed).
 */
async function gunzipIfGzip(chunks: AsyncGenerator<Buffer>): Promise<Readable> {
  const head: Buffer[] = [];
  let headBytes = 0;
  try {
    while (headBytes < GZIP_SNIFF_BYTES) {
      const next = await chunks.next();
      if (next.done) break;
      head.push(next.value);
      headBytes += next.value.length;
    }
  } catch (error) {
    await chunks.return(undefined);
    throw error;
  }
  const first = Buffer.concat(head, headBytes);
  const body = Readable.from(replay(head, chunks), { objectMode: false });
  return isGzip(first) ? gunzipStream(body) : body;
}

async function* replay(head: Buffer[], rest: AsyncGenerator<Buffer>): AsyncGenerator<Buffer> {
  try {
    yield* head;
    for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
  } finally {
    // Reached when the consumer stops early too: closes the file or cancels the download.
    await rest.return(undefined);
  }
}

// --- messages --------------------------------------------------------------------------

function asReadError(error: unknown, location: string, signal: AbortSignal | undefined): unknown {
  if (error instanceof SourceError) return error;
  if (signal?.aborted) return signal.reason;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('Z_')) {
    return new SourceError(
      `${shownLocation(location)} looks like gzip but does not decompress (${(error as Error).message})`,
      'invalid',
    );
  }
  return error;
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(ms < 1000 ? 2 : 1))} s`;
}

function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return mib >= 1 ? `${Number(mib.toFixed(1))} MiB` : `${bytes} bytes`;
}
