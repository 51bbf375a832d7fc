/**
 * What Node's HTTP layer does before Fastify sees a request, for the server and the
 * player alike: how long a client may take to send its request, and the answer to a
 * request Node cannot parse (a malformed request line, headers too large), in the
 * project's JSON error shape rather than Fastify's own.
 */
import { STATUS_CODES, type ServerOptions } from 'node:http';
import type { Socket } from 'node:net';

/** A client that has not sent its whole request (headers included) by then is dropped: a slow-loris holds nothing for long. */
export const REQUEST_RECEIVE_TIMEOUT_MS = 10_000;

export const HTTP_SERVER_LIMITS: ServerOptions = {
  headersTimeout: REQUEST_RECEIVE_TIMEOUT_MS,
  requestTimeout: REQUEST_RECEIVE_TIMEOUT_MS,
  // Node checks those timeouts only this often (30 s by default), which would let a
  // client hold a connection for 40 s.
  connectionsCheckingInterval: 1_000,
};

interface ClientError {
  status: 400 | 408 | 431;
  code: string;
  message: string;
}

/** The answer to an error Node's parser raised, by its code. */
export function clientErrorAnswer(errorCode: string | undefined): ClientError {
  if (errorCode === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, code: 'request_timeout', message: `The request was not sent within ${REQUEST_RECEIVE_TIMEOUT_MS / 1000} s; send it whole, then wait for the answer.` };
  }
  if (errorCode === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, code: 'headers_too_large', message: 'The request headers are too large (16 KB in all at most); send fewer or shorter headers.' };
  }
  return { status: 400, code: 'bad_request', message: 'The request is not valid HTTP/1.1 (its request line or headers could not be parsed).' };
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
export function jsonClientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answer = clientErrorAnswer(error.code);
  const body = JSON.stringify(answer);
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && isRequestError(error.code) && inFlight?.headersSent !== true) {
    socket.write(
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Access-Control-Allow-Origin: *\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
