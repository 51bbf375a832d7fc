/**
 * What Node's HTTP layer does before Fastify sees a request, for the server and the
 * player alike: how long a client may take to send its request, and the answers Node
 * would give by itself (a request it cannot parse, headers too large, no Host header,
 * CONNECT), in the project's JSON error shape rather than Node's empty ones.
 */
import {
  type IncomingMessage,
  type RequestListener,
  STATUS_CODES,
  type Server,
  type ServerOptions,
  type ServerResponse,
  createServer,
} from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * A client that has not sent its whole request (headers included) by then is dropped: a slow-loris holds nothing for
 * long.
 */
export const REQUEST_RECEIVE_TIMEOUT_MS = 10_000;

export const HTTP_SERVER_LIMITS: ServerOptions = {
  headersTimeout: REQUEST_RECEIVE_TIMEOUT_MS,
  requestTimeout: REQUEST_RECEIVE_TIMEOUT_MS,
  // Node checks those timeouts only this often (30 s by default), which would let a
  // client hold a connection for 40 s.
  connectionsCheckingInterval: 1_000,
  // Node answers an HTTP/1.1 request without Host with an empty 400; requiringHost answers it in JSON instead.
  requireHostHeader: false,
};

/**
 * The HTTP server of the server or the player: the limits above, a JSON 400 for a
 * request without Host, and a JSON 405 for CONNECT. `methods` is what the service
 * answers (the 405's Allow header).
 */
export function createHttpServer(handler: RequestListener, methods: string): Server {
  const server = createServer(HTTP_SERVER_LIMITS, requiringHost(handler));
  // Without a listener Node closes a CONNECT's socket without a word: neither service is a proxy.
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => answerConnect(socket, methods));
  return server;
}

const MISSING_HOST = {
  status: 400,
  code: 'missing_host',
  message:
    'The request has no Host header, which HTTP/1.1 requires: send Host with the address (and port) you reach this service at.',
} as const;

/**
 * HTTP/1.1 requests need a Host (RFC 9112): both services read it (the server for the
 * URLs in its answers, both for the origin and DNS-rebinding rules). HTTP/1.0 may omit
 * it, as Node allows, and the server then names itself by its listening address.
 */
function requiringHost(handler: RequestListener): RequestListener {
  return (request: IncomingMessage, response: ServerResponse) => {
    // As Node's own check: an empty Host is a Host (RFC 9112 allows it), judged by the origin rules like any other.
    if (request.headers.host !== undefined || request.httpVersion === '1.0') {
      handler(request, response);
      return;
    }
    const body = JSON.stringify(MISSING_HOST);
    // The request's body, if any, is not read: the connection ends with the answer, as Node's own refusal ends it.
    response.writeHead(400, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'access-control-allow-origin': '*',
      connection: 'close',
    });
    response.end(body);
  };
}

function answerConnect(socket: Duplex, methods: string): void {
  socket.on('error', () => undefined);
  const body = JSON.stringify({
    status: 405,
    code: 'method_not_allowed',
    message: `This is not a proxy: CONNECT is not answered here. Use ${methods}.`,
  });
  socket.end(rawAnswer(405, body, { Allow: methods }));
}

/** A whole HTTP/1.1 answer as bytes, for a socket Node no longer answers on; the connection closes after it. */
function rawAnswer(status: number, body: string, headers: Record<string, string> = {}): string {
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}` +
    `Access-Control-Allow-Origin: *\r\nConnection: close\r\n\r\n${body}`
  );
}

interface ClientError {
  status: 400 | 408 | 431;
  code: string;
  message: string;
}

/** The answer to an error Node's parser raised, by its code. */
export function clientErrorAnswer(errorCode: string | undefined): ClientError {
  if (errorCode === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      code: 'request_timeout',
      message: `The request was not sent within ${REQUEST_RECEIVE_TIMEOUT_MS / 1000} s; send it whole, then wait for the answer.`,
    };
  }
  if (errorCode === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      code: 'headers_too_large',
      message: 'The request headers are too large (16 KB in all at most); send fewer or shorter headers.',
    };
  }
  return {
    status: 400,
    code: 'bad_request',
    message: 'The request is not valid HTTP/1.1 (its request line or headers could not be parsed).',
  };
}

/** An error of the request itself (the parser's HPE_* codes, the receive timeout), which deserves an answer. */
function isRequestError(code: string | undefined): boolean {
  return code === 'ERR_HTTP_REQUEST_TIMEOUT' || (code?.startsWith('HPE_') ?? false);
}

/**
 * Fastify's clientErrorHandler: one JSON answer, then the connection is closed, as Node
 * itself does, and as Node only when no answer has begun on the socket (an error while
 * a file streams must not write into it) and the error is the request's own.
 */
export function jsonClientErrorHandler(error: NodeJS.ErrnoException, socket: Duplex): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answer = clientErrorAnswer(error.code);
  const body = JSON.stringify(answer);
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && isRequestError(error.code) && inFlight?.headersSent !== true)
    socket.write(rawAnswer(answer.status, body));
  socket.destroy();
}
