/**
 * The answer front: repeats of interface-A reads answered straight from the response
 * cache, before Fastify routes them.
 *
 * Why: a cached single-resource answer is a few hundred bytes, and building Fastify's
 * request and reply objects around it cost as much as the rest of the answer put
 * together (about half the throughput of a bare node:http server in `npm run bench`).
 *
 * How: every answer interface A's routes give from the cache is remembered under its
 * raw request line (Host header and URL), which determine everything its cache key
 * holds. A later GET or HEAD with the same Host and URL is answered from that cache
 * entry if the library has not changed since; anything else (first requests, other
 * methods, errors, a changed library, a compressed variant not made yet) goes on to
 * the router as before, except the gzip of a list in pieces, which the front waits
 * for as the route would (see encodingFor). Both paths build their headers with
 * `answerHeaders`, so the bytes are the same; test/http/answer-front.test.ts checks
 * that on a real port.
 * Fastify's hooks never see these answers, so the front reports each one to /metrics
 * itself (under the route pattern the route remembered it with).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CORS_HEADERS } from '../http/cors.js';
import { accepts, type CachedBody, type Encoding, type Payload, negotiateEncoding } from './cached-body.js';
import type { ResponseCache } from './response-cache.js';

type Headers = Readonly<Record<string, string>>;
/** Per body and encoding: the 304 headers, then the 200 headers (which add the length and encoding). */
const headerMemo = new WeakMap<CachedBody, Map<Encoding, readonly [Headers, Headers]>>();

/**
 * The headers of an interface-A answer from the cache: `[forNotModified, forOk]`.
 * Made once per body and encoding, since node:http copies them as they are.
 */
export function answerHeaders(body: CachedBody, encoding: Encoding): readonly [Headers, Headers] {
  let byEncoding = headerMemo.get(body);
  if (!byEncoding) headerMemo.set(body, (byEncoding = new Map()));
  let headers = byEncoding.get(encoding);
  if (!headers) {
    const notModified: Headers = {
      ...CORS_HEADERS,
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-cache',
      vary: 'Accept-Encoding',
      etag: body.etagFor(encoding),
    };
    headers = [notModified, encoding === 'identity' ? notModified : { ...notModified, 'content-encoding': encoding }];
    byEncoding.set(encoding, headers);
  }
  return headers;
}

/** Per payload: the 200 headers with its content-length, so writeHead gets one finished object. */
const okWithLength = new WeakMap<Payload, Headers>();

/** The 200 headers of `payload` (the bytes of `body` in `encoding`), its length included. */
export function okHeadersFor(body: CachedBody, encoding: Encoding, payload: Payload): Headers {
  let headers = okWithLength.get(payload);
  if (!headers) {
    headers = { ...answerHeaders(body, encoding)[1], 'content-length': String(payload.length) };
    okWithLength.set(payload, headers);
  }
  return headers;
}

/**
 * The encoding to answer in: compressing a small body saves nothing. A compressed variant
 * not made yet is waited for only when it is a few milliseconds away (see gzipSoon).
 */
export function encodingFor(body: CachedBody, acceptEncoding: string | undefined): Encoding {
  let encoding = body.compressible() ? negotiateEncoding(acceptEncoding) : 'identity';
  // A patched body in pieces is gzipped piece by piece at once (only its changed pieces
  // are compressed again): a client that takes gzip too gets that rather than wait for brotli.
  if (
    encoding === 'br' &&
    body.patched &&
    body.piecewise &&
    !body.encodedNow('br') &&
    accepts(acceptEncoding, 'gzip')
  ) {
    // Brotli is still made once the list has stayed current a while (see below), and sent from then on.
    if (performance.now() - body.madeAt >= COMPRESS_PATCHED_AFTER_MS) void body.encoded('br').catch(() => undefined);
    encoding = 'gzip';
  }
  // A patched body (a list under a stream of position writes) is sent as it is until its
  // compressed variant is ready, rather than every reader waiting for a compression that
  // the next write makes stale; its gzip in pieces is waited for when only the pieces
  // the write changed are left to deflate.
  if (encoding !== 'identity' && body.patched && !body.encodedNow(encoding)) {
    const soon = encoding === 'gzip' && body.gzipSoon();
    // Only once it has stayed current a while: under a steady stream of writes every body
    // is soon replaced, and compressing each one (50 MB) would only pile up work. A gzip
    // in pieces is started at once: each piece is deflated once, whatever bodies share it.
    if ((encoding === 'gzip' && body.piecewise) || performance.now() - body.madeAt >= COMPRESS_PATCHED_AFTER_MS)
      void body.encoded(encoding).catch(() => undefined);
    return soon ? 'gzip' : 'identity';
  }
  return encoding;
}

/** A patched body is compressed once it has been current this long (see encodingFor). */
const COMPRESS_PATCHED_AFTER_MS = 1000;

/** Remembered request lines; the oldest are forgotten first beyond this. */
const DEFAULT_MAX_REMEMBERED = 20_000;
/** Longer request lines are not remembered (they go through the router), which bounds the memory to about 20 MB. */
const MAX_LINE_LENGTH = 1024;

/** A request the front answered, for /metrics (Fastify's onResponse hook never sees these). */
export type FrontAnswered = (route: string, method: string, status: number, startedAt: number) => void;

export interface AnswerFrontOptions {
  /** Request lines remembered (default 20,000). */
  maxRemembered?: number;
  /** Told of each answer: its route pattern, method, status and performance.now() when it began. */
  answered?: FrontAnswered | undefined;
}

/** A remembered request line: its cache entry, and the route pattern it is counted under. */
interface Remembered {
  key: string;
  route: string;
}

export class AnswerFront {
  private readonly remembered = new Map<string, Remembered>();
  private readonly maxRemembered: number;
  private readonly answered: FrontAnswered | undefined;
  private open = true;

  constructor(
    private readonly cache: ResponseCache,
    /** The library generation the cached answers of `route` (a pattern) must have been built from. */
    private readonly generation: (route: string) => string,
    options: AnswerFrontOptions = {},
  ) {
    this.maxRemembered = options.maxRemembered ?? DEFAULT_MAX_REMEMBERED;
    this.answered = options.answered;
  }

  /** Called by a route (pattern `route`) that answered `request` from cache entry `key`. */
  remember(request: IncomingMessage, key: string, route = ''): void {
    const line = requestLine(request);
    if (line.length > MAX_LINE_LENGTH || this.remembered.get(line)?.key === key) return;
    this.remembered.delete(line);
    this.remembered.set(line, { key, route });
    if (this.remembered.size > this.maxRemembered) {
      const oldest = this.remembered.keys().next();
      if (!oldest.done) this.remembered.delete(oldest.value);
    }
  }

  /** Stops answering, so requests during shutdown get the router's 503. */
  close(): void {
    this.open = false;
    this.remembered.clear();
  }

  size(): number {
    return this.remembered.size;
  }

  /**
   * Answers a repeat of a remembered request and returns true; false hands it to the
   * router. Never throws: this runs outside Fastify's error handling, so anything
   * unexpected (the library's generation unreadable, say) is left to the router too.
   */
  tryAnswer(request: IncomingMessage, response: ServerResponse): boolean {
    if (!this.open || (request.method !== 'GET' && request.method !== 'HEAD')) return false;
    try {
      return this.answerFromCache(request, response);
    } catch {
      return response.headersSent;
    }
  }

  private answerFromCache(request: IncomingMessage, response: ServerResponse): boolean {
    const startedAt = performance.now();
    const remembered = this.remembered.get(requestLine(request));
    if (remembered === undefined) return false;
    const body = this.cache.peek(remembered.key, this.generation(remembered.route));
    if (!body) return false;

    const encoding = encodingFor(body, request.headers['accept-encoding']);
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatch !== undefined && body.matches(ifNoneMatch)) {
      response.writeHead(304, answerHeaders(body, encoding)[0]);
      response.end();
      this.counted(remembered.route, request, 304, startedAt);
      return true;
    }
    const payload = body.payloadNow(encoding);
    if (payload) {
      this.send(request, response, body, encoding, payload);
      this.counted(remembered.route, request, 200, startedAt);
      return true;
    }
    // A list's gzip, its pieces being deflated off the event loop (see encodingFor): sent once made.
    if (encoding !== 'gzip' || !body.piecewise) return false;
    const route = remembered.route;
    body.encoded(encoding).then(
      (made) => this.sendLater(request, response, body, encoding, made, route, startedAt),
      // Deflating failed (it is tried again by the next reader): this one is sent the bytes as they are.
      () => this.sendLater(request, response, body, 'identity', body.identityPayload, route, startedAt),
    );
    return true;
  }

  private send(
    request: IncomingMessage,
    response: ServerResponse,
    body: CachedBody,
    encoding: Encoding,
    payload: Payload,
  ): void {
    // One finished object: any setHeader before writeHead would send node:http down its slow path.
    response.writeHead(200, okHeadersFor(body, encoding, payload));
    sendParts(response, request.method === 'HEAD' ? [] : payload.parts);
  }

  /** An answer sent after tryAnswer returned: nothing may throw out of it (no router is left to answer instead). */
  private sendLater(
    request: IncomingMessage,
    response: ServerResponse,
    body: CachedBody,
    encoding: Encoding,
    payload: Payload,
    route: string,
    startedAt: number,
  ): void {
    // The client left while its gzip was made: nothing to send, and no answer to count.
    if (response.destroyed || response.socket?.destroyed === true) return;
    try {
      this.send(request, response, body, encoding, payload);
    } catch {
      response.destroy();
      return;
    }
    try {
      this.counted(route, request, 200, startedAt);
    } catch {
      // The answer is sent: a failure to count it is not the client's.
    }
  }

  private counted(route: string, request: IncomingMessage, status: number, startedAt: number): void {
    // Should counting throw, tryAnswer still returns true: the answer is sent, the router must not send a second.
    this.cache.countFrontHit(route);
    this.answered?.(route, request.method ?? 'GET', status, startedAt);
  }
}

/**
 * Ends `response` with `parts` (a list in pieces, or its gzip: a few hundred buffers),
 * written one after another and never joined (see Payload). Corked, so they reach the
 * socket as one writev rather than a write each.
 */
export function sendParts(response: ServerResponse, parts: readonly Buffer[]): void {
  if (parts.length <= 1) {
    response.end(parts[0]);
    return;
  }
  response.cork();
  for (const part of parts) response.write(part);
  response.end();
  response.uncork();
}

function requestLine(request: IncomingMessage): string {
  return `${request.headers.host ?? ''}\n${request.url ?? ''}`;
}
