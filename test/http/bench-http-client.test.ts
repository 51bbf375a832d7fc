/**
 * The reading clients of bench/reads-under-writes.mjs (bench/bench-http-client.mjs): what
 * they count is what the bench reports, so they are tested against a real node:http
 * server: bodies taken in over many reads, 304s, a connection the server closed while
 * idle, and the answers they refuse (chunked, no length).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain JS without a declaration file (allowJs is off); typed below
import * as impl from '../../bench/bench-http-client.mjs';

interface Answer {
  status: number;
  etag: string | undefined;
  bytes: number;
  ms: number;
}
interface Connection {
  get(path: string, headers?: Record<string, string>): Promise<Answer>;
  close(): void;
}
const { BenchConnection, parseHead, requestBytes } = impl as {
  BenchConnection: new (port: number, host?: string, timeoutMs?: number) => Connection;
  parseHead(text: string): { status: number; etag: string | undefined; contentLength: number; close: boolean };
  requestBytes(host: string, path: string, headers?: Record<string, string>): string;
};

const servers: http.Server[] = [];
const connections: Connection[] = [];
afterEach(async () => {
  for (const connection of connections.splice(0)) connection.close();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function serve(
  handler: http.RequestListener,
  options: http.ServerOptions = {},
): Promise<{ port: number; server: http.Server }> {
  const server = http.createServer(options, handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server };
}

function connect(port: number, timeoutMs?: number): Connection {
  const connection = new BenchConnection(port, '127.0.0.1', timeoutMs);
  connections.push(connection);
  return connection;
}

describe('bench HTTP client', () => {
  it('counts a large body taken in over many reads, and sends the Host and headers given', async () => {
    const body = Buffer.alloc(5 * 1024 * 1024 + 7, 'x');
    const seen: { host?: string | undefined; inm?: string | string[] | undefined }[] = [];
    const { port } = await serve((request, response) => {
      seen.push({ host: request.headers.host, inm: request.headers['if-none-match'] });
      response.writeHead(200, { etag: '"v1"', 'content-length': body.length }).end(body);
    });
    const connection = connect(port);
    const first = await connection.get('/list', { 'if-none-match': '"v0"' });
    const second = await connection.get('/list');
    expect(first).toMatchObject({ status: 200, etag: '"v1"', bytes: body.length });
    expect(second.bytes).toBe(body.length);
    expect(first.ms).toBeGreaterThan(0);
    expect(seen).toEqual([
      { host: `127.0.0.1:${port}`, inm: '"v0"' },
      { host: `127.0.0.1:${port}`, inm: undefined },
    ]);
  });

  it('keeps one connection alive across requests, and takes a 304 (no body) on it', async () => {
    const sockets = new Set<unknown>();
    const { port } = await serve((request, response) => {
      sockets.add(request.socket);
      if (request.headers['if-none-match'] === '"v1"') response.writeHead(304, { etag: '"v1"' }).end();
      else response.writeHead(200, { etag: '"v1"', 'content-length': 2 }).end('[]');
    });
    const connection = connect(port);
    expect(await connection.get('/a')).toMatchObject({ status: 200, bytes: 2 });
    expect(await connection.get('/a', { 'if-none-match': '"v1"' })).toMatchObject({
      status: 304,
      etag: '"v1"',
      bytes: 0,
    });
    expect(await connection.get('/a')).toMatchObject({ status: 200, bytes: 2 });
    expect(sockets.size).toBe(1);
  });

  it('opens a new connection when the server closed the last one (idle timeout, Connection: close)', async () => {
    const { port } = await serve(
      (_request, response) => response.writeHead(200, { 'content-length': 3, connection: 'close' }).end('abc'),
      { keepAliveTimeout: 50 },
    );
    const connection = connect(port);
    expect(await connection.get('/a')).toMatchObject({ status: 200, bytes: 3 });
    expect(await connection.get('/b')).toMatchObject({ status: 200, bytes: 3 });
    const idle = await serve((_request, response) => response.writeHead(200, { 'content-length': 1 }).end('z'), {
      keepAliveTimeout: 50,
    });
    const kept = connect(idle.port);
    expect(await kept.get('/a')).toMatchObject({ bytes: 1 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await kept.get('/a')).toMatchObject({ bytes: 1 });
  });

  it('sends a request again once on a new connection when a kept-alive one is closed before any of its answer came', async () => {
    const served = new WeakMap<object, number>();
    let cut = 0;
    const { port } = await serve((request, response) => {
      const n = (served.get(request.socket) ?? 0) + 1;
      served.set(request.socket, n);
      if (n === 2) {
        // As a server's idle timeout closing the connection the request went out on.
        cut++;
        request.socket.destroy();
        return;
      }
      response.writeHead(200, { 'content-length': 2 }).end('ok');
    });
    const connection = connect(port);
    expect(await connection.get('/a')).toMatchObject({ status: 200, bytes: 2 });
    expect(await connection.get('/a')).toMatchObject({ status: 200, bytes: 2 });
    expect(cut).toBe(1);
  });

  it('refuses answers it cannot count, and a connection cut mid-body, with a message', async () => {
    const { port } = await serve((request, response) => {
      if (request.url === '/chunked') {
        response.writeHead(200, { 'transfer-encoding': 'chunked' });
        response.end('abc');
      } else {
        response.writeHead(200, { 'content-length': 1000 });
        response.write('partial');
        response.socket?.destroy();
      }
    });
    await expect(connect(port).get('/chunked')).rejects.toThrow(/chunked/);
    await expect(connect(port).get('/cut')).rejects.toThrow(/closed the connection before the answer ended/);
  });

  it('gives up on an answer that does not come within its timeout', async () => {
    const { port } = await serve(() => undefined);
    await expect(connect(port, 200).get('/never')).rejects.toThrow(/no answer within 0.2 s/);
  });

  it('parseHead: status, ETag, length and close for any header case and order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 599 }).filter((status) => status !== 304 && status !== 204),
        fc.nat({ max: 1e9 }),
        fc.stringMatching(/^"[A-Za-z0-9_-]{1,30}"$/),
        fc.boolean(),
        fc.boolean(),
        (status, length, etag, upper, close) => {
          const name = (text: string) => (upper ? text.toUpperCase() : text);
          const lines = [
            `HTTP/1.1 ${status} Whatever`,
            `${name('etag')}: ${etag}`,
            `${name('content-length')}:${length}`,
            ...(close ? [`${name('connection')}: close`] : []),
          ];
          expect(parseHead(lines.join('\r\n'))).toEqual({ status, etag, contentLength: length, close });
        },
      ),
    );
    expect(parseHead('HTTP/1.1 304 Not Modified\r\nETag: "a"')).toEqual({
      status: 304,
      etag: '"a"',
      contentLength: 0,
      close: false,
    });
    expect(() => parseHead('HTTP/1.1 200 OK\r\netag: "a"')).toThrow(/without a Content-Length/);
    expect(() => parseHead('SSH-2.0-OpenSSH')).toThrow(/not an HTTP\/1.1 status line/);
  });

  it('requestBytes: a GET with its Host and headers, ended by a blank line', () => {
    expect(requestBytes('127.0.0.1:8089', '/api/v1/shows', { 'accept-encoding': 'gzip' })).toBe(
      'GET /api/v1/shows HTTP/1.1\r\nHost: 127.0.0.1:8089\r\naccept-encoding: gzip\r\n\r\n',
    );
  });
});
