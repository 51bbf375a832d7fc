import fc from 'fast-check';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SourceError, fetchJson, isUrl, openSource, readSourceText } from '../../src/dvr/sources/source-reader.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

interface Loopback {
  url: string;
  close(): Promise<void>;
}

const open: Loopback[] = [];

/** A real HTTP server on 127.0.0.1, closed after each test. */
async function serve(handler: Handler): Promise<Loopback> {
  const server: Server = createServer(handler);
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const loopback = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  open.push(loopback);
  return loopback;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'antenna-source-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GUIDE = '<?xml version="1.0"?>\n<tv><channel id="a"><display-name>Ä Channel</display-name></channel></tv>\n';

function send(body: string | Buffer, headers: Record<string, string> = {}): Handler {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/octet-stream', ...headers });
    response.end(body);
  };
}

async function drain(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) parts.push(chunk);
  return Buffer.concat(parts);
}

async function failure(promise: Promise<unknown>): Promise<SourceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SourceError);
  return error as SourceError;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('isUrl', () => {
  it.each([
    ['http://a/b', true],
    ['HTTPS://a/b', true],
    ['  http://a', true],
    ['ftp://a/b', false],
    ['file:///etc/passwd', false],
    ['/var/lib/guide.xml', false],
    ['http:/a', false],
    ['httpx://a', false],
  ])('%s -> %s', (location, expected) => {
    expect(isUrl(location)).toBe(expected);
  });
});

describe('readSourceText over HTTP', () => {
  it('reads plain text', async () => {
    const server = await serve(send(GUIDE, { 'content-type': 'application/xml; charset=utf-8' }));
    expect(await readSourceText(`${server.url}/guide.xml`)).toBe(GUIDE);
  });

  it('gunzips a body that starts with the gzip magic, whatever the name and headers say', async () => {
    const server = await serve(send(gzipSync(GUIDE)));
    expect(await readSourceText(`${server.url}/guide.xml`)).toBe(GUIDE);
  });

  it('reads a body sent with Content-Encoding: gzip, and a .gz file sent with it too', async () => {
    const once = await serve(send(gzipSync(GUIDE), { 'content-encoding': 'gzip' }));
    expect(await readSourceText(`${once.url}/guide.xml`)).toBe(GUIDE);
    const twice = await serve(send(gzipSync(gzipSync(GUIDE)), { 'content-encoding': 'gzip' }));
    expect(await readSourceText(`${twice.url}/guide.xml.gz`)).toBe(GUIDE);
  });

  it('follows redirects', async () => {
    const server = await serve((request, response) => {
      if (request.url === '/a') response.writeHead(301, { location: '/b' }).end();
      else if (request.url === '/b') response.writeHead(302, { location: '/c.gz' }).end();
      else send(gzipSync(GUIDE))(request, response);
    });
    expect(await readSourceText(`${server.url}/a`)).toBe(GUIDE);
  });

  it('reports an HTTP error status with the status, and keeps credentials out of the message', async () => {
    const server = await serve((_request, response) =>
      response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not here</h1>'),
    );
    const error = await failure(
      readSourceText(`${server.url.replace('//', '//user:hunter2@')}/get.php?username=me&password=secret`),
    );
    expect(error.reason).toBe('http_status');
    expect(error.status).toBe(404);
    expect(error.message).toMatch(/answered HTTP 404 Not Found$/);
    expect(error.message).toContain(`${server.url}/get.php`);
    expect(error.message).not.toMatch(/secret|hunter2|username/);
  });

  it('sends user:password from the URL as Basic authentication', async () => {
    const server = await serve((request, response) => send(request.headers.authorization ?? 'none')(request, response));
    const withCredentials = server.url.replace('//', '//me:p%40ss@');
    expect(await readSourceText(`${withCredentials}/playlist.m3u`)).toBe(
      `Basic ${Buffer.from('me:p@ss').toString('base64')}`,
    );
  });

  it('times out on a server that never answers', async () => {
    const server = await serve(() => {});
    const started = Date.now();
    const error = await failure(readSourceText(`${server.url}/slow`, { timeoutMs: 200 }));
    expect(error.reason).toBe('timeout');
    expect(error.message).toBe(`${server.url}/slow did not answer within 0.2 s`);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('times out on a server that sends headers but no body, before openSource resolves', async () => {
    const server = await serve((_request, response) => response.writeHead(200).flushHeaders());
    const error = await failure(openSource(`${server.url}/headers-only`, { timeoutMs: 200 }));
    expect(error.reason).toBe('timeout');
  });

  it('times out on a server that stops sending halfway', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200);
      response.write('<tv>');
    });
    const stream = await openSource(`${server.url}/half`, { timeoutMs: 200 });
    const error = await failure(drain(stream));
    expect(error.reason).toBe('timeout');
    expect(error.message).toMatch(/stopped sending within 0.2 s$/);
    await expect(readSourceText(`${server.url}/half`, { timeoutMs: 200 })).rejects.toMatchObject({ reason: 'timeout' });
  });

  it('does not count a slow reader against the timeout', async () => {
    // The server has sent everything; only our reader is slow (as a guide written to SQLite is).
    const body = Buffer.alloc(4 * 1024 * 1024, 'a');
    const server = await serve(send(body));
    const stream = await openSource(`${server.url}/`, { timeoutMs: 150 });
    let bytes = 0;
    let pauses = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (pauses++ < 3) await sleep(250);
    }
    expect(bytes).toBe(body.length);
  });

  it('reports a refused connection as unreachable', async () => {
    const server = await serve(() => {});
    await server.close();
    const error = await failure(readSourceText(`${server.url}/x`));
    expect(error.reason).toBe('unreachable');
    expect(error.message).toMatch(/could not be reached \(connection refused\)/);
  });

  it('rejects with the caller’s reason when the caller aborts', async () => {
    const server = await serve(() => {});
    const controller = new AbortController();
    const reading = readSourceText(`${server.url}/x`, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('shutting down')), 50);
    await expect(reading).rejects.toThrow('shutting down');
    await expect(openSource(`${server.url}/x`, { signal: controller.signal })).rejects.toThrow('shutting down');
  });

  it('caps the size, counting what gunzipping makes', async () => {
    const plain = await serve(send('x'.repeat(5000)));
    const error = await failure(readSourceText(`${plain.url}/`, { maxBytes: 4096 }));
    expect(error.reason).toBe('too_large');
    expect(error.message).toMatch(/larger than 4096 bytes$/);
    const bomb = await serve(send(gzipSync(Buffer.alloc(64 * 1024 * 1024))));
    await expect(readSourceText(`${bomb.url}/`, { maxBytes: 1024 * 1024 })).rejects.toMatchObject({
      reason: 'too_large',
      message: expect.stringMatching(/1 MiB$/),
    });
  });

  it('reports a body that claims to be gzip but is not', async () => {
    const server = await serve(send(Buffer.from([0x1f, 0x8b, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])));
    const error = await failure(readSourceText(`${server.url}/`));
    expect(error.reason).toBe('invalid');
    expect(error.message).toMatch(/looks like gzip but does not decompress/);
  });
});

describe('openSource', () => {
  it('streams: resolves with the first bytes while the rest is still to come', async () => {
    let finish: () => void = () => {};
    const server = await serve((_request, response) => {
      response.writeHead(200);
      response.write('<tv>');
      finish = () => response.end('</tv>');
    });
    const stream = await openSource(`${server.url}/`);
    const reading = drain(stream);
    await sleep(50);
    finish();
    expect((await reading).toString()).toBe('<tv></tv>');
  });

  it('streams a large gzip guide chunk by chunk', async () => {
    const body = Buffer.alloc(20 * 1024 * 1024, 'programme ');
    const server = await serve(send(gzipSync(body)));
    const stream = await openSource(`${server.url}/big.xml.gz`);
    let bytes = 0;
    let chunks = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      chunks++;
    }
    expect(bytes).toBe(body.length);
    expect(chunks).toBeGreaterThan(100);
  });

  it('cancels the download when the reader stops early', async () => {
    let closed!: Promise<void>;
    const server = await serve((_request, response) => {
      closed = new Promise((resolve) => response.on('close', () => resolve()));
      response.writeHead(200);
      const timer = setInterval(() => response.write('x'.repeat(1024)), 5);
      response.on('close', () => clearInterval(timer));
    });
    const stream = await openSource(`${server.url}/endless`);
    for await (const _chunk of stream) break;
    await expect(Promise.race([closed.then(() => 'closed'), sleep(2000).then(() => 'still open')])).resolves.toBe(
      'closed',
    );
  });

  it('reads local files, plain or gzip, whatever their names', async () => {
    writeFileSync(join(dir, 'plain.gz'), GUIDE);
    writeFileSync(join(dir, 'packed.xml'), gzipSync(GUIDE));
    writeFileSync(join(dir, 'empty.xml'), '');
    expect((await drain(await openSource(join(dir, 'plain.gz')))).toString()).toBe(GUIDE);
    expect((await drain(await openSource(join(dir, 'packed.xml')))).toString()).toBe(GUIDE);
    expect(await readSourceText(join(dir, 'packed.xml'))).toBe(GUIDE);
    expect(await readSourceText(join(dir, 'empty.xml'))).toBe('');
  });

  it('refuses missing files, folders and other schemes with a reason', async () => {
    mkdirSync(join(dir, 'folder'), { recursive: true });
    await expect(openSource(join(dir, 'missing.m3u'))).rejects.toMatchObject({
      reason: 'not_found',
      message: `${join(dir, 'missing.m3u')} does not exist`,
    });
    await expect(readSourceText(join(dir, 'plain.gz', 'below'))).rejects.toMatchObject({ reason: 'not_found' });
    await expect(openSource(join(dir, 'folder'))).rejects.toMatchObject({
      reason: 'invalid',
      message: expect.stringContaining('is not a file'),
    });
    await expect(openSource('ftp://example.com/guide.xml')).rejects.toMatchObject({
      reason: 'invalid',
      message: expect.stringContaining('not ftp://'),
    });
    await expect(openSource('   ')).rejects.toMatchObject({ reason: 'invalid' });
    await expect(openSource('http://exa mple.com/')).rejects.toMatchObject({ reason: 'invalid' });
  });

  it('reads back any text, gzipped or not (property)', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.boolean(), async (text, gzip) => {
        const path = join(dir, `p${n++}`);
        writeFileSync(path, gzip ? gzipSync(text) : text);
        expect(await readSourceText(path)).toBe(text.replace(/^\uFEFF/, ''));
      }),
      { numRuns: 60 },
    );
  });
});

describe('fetchJson', () => {
  it('parses JSON', async () => {
    const server = await serve(
      send(JSON.stringify({ DeviceID: '1234', list: [1, 2] }), { 'content-type': 'application/json' }),
    );
    expect(await fetchJson(`${server.url}/discover.json`)).toEqual({ DeviceID: '1234', list: [1, 2] });
  });

  it('says when the answer is a web page instead', async () => {
    const server = await serve(
      send('<!DOCTYPE html><html><body>Router login</body></html>', { 'content-type': 'text/html' }),
    );
    const error = await failure(fetchJson(`${server.url}/discover.json`));
    expect(error.reason).toBe('invalid');
    expect(error.message).toBe(
      `${server.url}/discover.json is not JSON (it begins "<!DOCTYPE html><html><body>Router login<")`,
    );
  });

  it('accepts only http(s) URLs', async () => {
    writeFileSync(join(dir, 'local.json'), '{}');
    await expect(fetchJson(join(dir, 'local.json'))).rejects.toMatchObject({ reason: 'invalid' });
  });
});
