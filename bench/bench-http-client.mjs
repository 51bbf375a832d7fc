/**
 * The reading clients of bench/reads-under-writes.mjs: one keep-alive HTTP/1.1 connection
 * per client, each answer read into one buffer the connection reuses (net's `onread`) and
 * counted, never kept. Why not node:http (or undici): the bench's 20 clients share one
 * thread, and taking in 20 lists of 56 MB at once through either kept that thread at
 * 104-114 % of a core, measured; the bench then timed its own clients (each answer
 * waited on their event loop, not on the server). This client takes the same answers at
 * 51-58 % of a core: 725 lists in 10 s where node:http took in 333 and undici 311, against
 * the same server. It reads only what the bench's servers send: answers with a
 * Content-Length (or none, for 304), one request at a time per connection.
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';

const HEADER_END = Buffer.from('\r\n\r\n');
/** Bytes read at a time: large reads, few callbacks. */
const READ_BYTES = 1 << 20;
/** Headers longer than this are not an answer this client expects. */
const MAX_HEADER_BYTES = 64 * 1024;

/** An answer's status line and the headers the bench uses, from the bytes before the blank line. */
export function parseHead(text) {
  const [statusLine = '', ...lines] = text.split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!status) throw new Error(`not an HTTP/1.1 status line: ${JSON.stringify(statusLine.slice(0, 80))}`);
  const headers = new Map();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  if (/chunked/i.test(headers.get('transfer-encoding') ?? ''))
    throw new Error('a chunked answer: this client reads answers with a Content-Length only');
  const code = Number(status[1]);
  const length = headers.get('content-length');
  if (length === undefined && code !== 304 && code !== 204)
    throw new Error(`a ${code} answer without a Content-Length`);
  return {
    status: code,
    etag: headers.get('etag'),
    contentLength: Number(length ?? 0),
    close: /close/i.test(headers.get('connection') ?? ''),
  };
}

/** The request's bytes: GET, the Host a browser would send (the server's cache keys on it), and `headers`. */
export function requestBytes(host, path, headers = {}) {
  const lines = [
    `GET ${path} HTTP/1.1`,
    `Host: ${host}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

export class BenchConnection {
  #socket;
  #pending;
  #head = Buffer.alloc(0);
  #answer;
  #buffer = Buffer.allocUnsafe(READ_BYTES);

  constructor(port, host = '127.0.0.1', timeoutMs = 60_000) {
    this.port = port;
    this.host = host;
    this.timeoutMs = timeoutMs;
  }

  /** GETs `path`: its status, ETag, body bytes and time to the last byte (ms). One request at a time. */
  get(path, headers = {}) {
    if (this.#pending) return Promise.reject(new Error('one request at a time per connection'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => this.#fail(new Error(`GET ${path}: no answer within ${this.timeoutMs / 1000} s`)),
        this.timeoutMs,
      );
      const bytes = requestBytes(`${this.host}:${this.port}`, path, headers);
      const reused = this.#socket !== undefined && !this.#socket.destroyed;
      this.#pending = { resolve, reject, timer, started: performance.now(), bytes, retry: reused };
      this.#head = Buffer.alloc(0);
      this.#answer = undefined;
      this.#connected().write(bytes);
    });
  }

  close() {
    this.#socket?.destroy();
    this.#socket = undefined;
  }

  /** The open socket, or a new one: a server may close an idle keep-alive connection between requests. */
  #connected() {
    if (this.#socket && !this.#socket.destroyed) return this.#socket;
    // Events of a socket this connection has let go of (closed after a `Connection: close` answer) are not the current
    // request's.
    const mine = () => this.#socket === socket;
    const socket = net.connect({
      host: this.host,
      port: this.port,
      onread: { buffer: this.#buffer, callback: (n, buffer) => void (mine() && this.#read(buffer.subarray(0, n))) },
    });
    socket.setNoDelay(true);
    socket.on('error', (error) => mine() && this.#fail(error, true));
    socket.on(
      'close',
      () => mine() && this.#fail(new Error('the server closed the connection before the answer ended'), true),
    );
    this.#socket = socket;
    return socket;
  }

  /** Bytes read: the head until its blank line, then the body's length counted down. */
  #read(bytes) {
    if (!this.#pending) return;
    if (!this.#answer) {
      // The head is copied only when it comes in more than one read (the read buffer is reused); the body is never
      // copied.
      const head = this.#head.length === 0 ? bytes : Buffer.concat([this.#head, bytes]);
      const end = head.indexOf(HEADER_END);
      if (end < 0) {
        this.#head = Buffer.from(head);
        if (head.length > MAX_HEADER_BYTES) this.#fail(new Error('an answer whose head is over 64 KB'));
        return;
      }
      try {
        this.#answer = { ...parseHead(head.subarray(0, end).toString('latin1')), bytes: 0 };
      } catch (error) {
        this.#fail(error);
        return;
      }
      bytes = head.subarray(end + HEADER_END.length);
    }
    const answer = this.#answer;
    answer.bytes += bytes.length;
    if (answer.bytes > answer.contentLength)
      this.#fail(new Error(`more bytes than the Content-Length (${answer.contentLength})`));
    else if (answer.bytes === answer.contentLength) this.#done(answer);
  }

  #done(answer) {
    const pending = this.#pending;
    clearTimeout(pending.timer);
    this.#pending = undefined;
    if (answer.close) this.close();
    pending.resolve({
      status: answer.status,
      etag: answer.etag,
      bytes: answer.bytes,
      ms: performance.now() - pending.started,
    });
  }

  #fail(error, retry = false) {
    const pending = this.#pending;
    if (!pending) return;
    this.close();
    // Only a socket's end with nothing of the answer read yet is retried.
    if (retry && pending.retry && !this.#answer && this.#head.length === 0) {
      // A kept-alive connection the server closed as the request went out (its idle timeout): sent again once on a new
      // one, as HTTP agents do; its time counts.
      pending.retry = false;
      this.#connected().write(pending.bytes);
      return;
    }
    clearTimeout(pending.timer);
    this.#pending = undefined;
    pending.reject(error);
  }
}
