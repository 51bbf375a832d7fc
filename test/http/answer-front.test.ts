/**
 * The answer front on a real port (inject() never reaches it): a repeated request is
 * answered before routing, with exactly the status, headers and bytes the route gave;
 * anything it cannot answer goes on to the route.
 */
import type { FastifyInstance } from 'fastify';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertMovie } from '../../src/repositories/library/items.repository.js';
import { ROUTES, pathFor } from '../support/library-endpoints.js';
import { MOVIES, seedLibrary } from '../support/seed-library.js';
import { type TempLibrary, buildTestApp, createTempLibrary } from '../support/temp-library.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

let temp: TempLibrary;
let app: FastifyInstance;
let port: number;

function send(
  path: string,
  options: { method?: string; headers?: Record<string, string>; port?: number } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: options.port ?? port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Everything but the Date header, which moves with the clock. */
function comparable(answer: Answer) {
  const { date: _date, ...headers } = answer.headers;
  return { status: answer.status, headers, body: answer.body.toString('latin1') };
}

async function cacheStats(): Promise<{ hits: number; misses: number; front_hits: number }> {
  return JSON.parse((await send('/status')).body.toString()).cache;
}

beforeAll(async () => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  seedLibrary(temp.db);
  app = await buildTestApp(temp);
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
});

afterAll(async () => {
  await app.close();
  temp.close();
});

describe('the answer front', () => {
  it.each(ROUTES.map((route) => [pathFor(route)]))(
    'answers a repeat of GET %s exactly as the route did, as a cache hit',
    async (path) => {
      const first = await send(path);
      expect(first.status).toBe(200);
      const before = await cacheStats();
      const second = await send(path);
      const after = await cacheStats();
      expect(comparable(second)).toEqual(comparable(first));
      expect(after.hits).toBe(before.hits + 1);
      expect(after.front_hits).toBe(before.front_hits + 1);
      expect(after.misses).toBe(before.misses);
    },
  );

  it('answers HEAD, a matching If-None-Match and a compressed repeat as the route does', async () => {
    const path = '/api/v1/episodes?sort=title';
    const routed = {
      head: await send(path, { method: 'HEAD' }),
      notModified: undefined as Answer | undefined,
      gzip: await send(path, { headers: { 'accept-encoding': 'gzip' } }),
    };
    const etag = String(routed.head.headers.etag);
    routed.notModified = await send(path, { headers: { 'if-none-match': etag } });
    // The routed answers above made the cache entry and its gzip variant; these come from the front.
    const before = await cacheStats();
    const head = await send(path, { method: 'HEAD' });
    const notModified = await send(path, { headers: { 'if-none-match': etag } });
    const gzip = await send(path, { headers: { 'accept-encoding': 'gzip' } });
    const after = await cacheStats();
    expect(after.front_hits).toBe(before.front_hits + 3);

    expect(comparable(head)).toEqual(comparable(routed.head));
    expect(head.body.length).toBe(0);
    expect(Number(head.headers['content-length'])).toBeGreaterThan(1024);
    expect(comparable(notModified)).toEqual(comparable(routed.notModified));
    expect(notModified.status).toBe(304);
    expect(comparable(gzip)).toEqual(comparable(routed.gzip));
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gzip.body).toString()).length).toBeGreaterThan(0);
  });

  it('never answers from a library that has changed since', async () => {
    const path = '/api/v1/movies/mov-1';
    const before = JSON.parse((await send(path)).body.toString());
    await send(path);
    const movie = MOVIES.find((m) => m.id === 'mov-1');
    upsertMovie(temp.db, { ...movie!, title: 'Renamed by a write' });
    const stats = await cacheStats();
    const after = JSON.parse((await send(path)).body.toString());
    expect((await cacheStats()).front_hits).toBe(stats.front_hits);
    expect(after.title).toBe('Renamed by a write');
    expect(after.title).not.toBe(before.title);
  });

  it('treats a different Host as a different request: payload URLs follow it', async () => {
    const path = '/api/v1/shows/show-a';
    await send(path, { headers: { host: 'first.example:8089' } });
    const first = await send(path, { headers: { host: 'first.example:8089' } });
    const second = await send(path, { headers: { host: 'second.example:8089' } });
    expect(first.body.toString()).toContain('first.example');
    expect(second.body.toString()).toContain('second.example');
    expect(second.body.toString()).not.toContain('first.example');
  });

  it('leaves other methods to the router (405) and unknown ids to it (404)', async () => {
    const path = '/api/v1/shows/show-a';
    await send(path);
    await send(path);
    const post = await send(path, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    for (let i = 0; i < 2; i++) {
      const missing = await send('/api/v1/shows/no-such-show');
      expect(missing.status).toBe(404);
      expect(JSON.parse(missing.body.toString()).code).toBe('not_found');
    }
  });
});

describe('the answer front, for a list kept in pieces', () => {
  let pieces: FastifyInstance;
  let piecesPort: number;

  beforeAll(async () => {
    // Lists cut into pieces of a few hundred bytes: their answers, and their gzip, are sent as many buffers.
    pieces = await buildTestApp(temp, { cacheChunkBytes: 300 });
    await pieces.listen({ host: '127.0.0.1', port: 0 });
    piecesPort = (pieces.server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await pieces.close();
  });

  it('sends the pieces, and the gzip made of them, exactly as the route did', async () => {
    const gzip = { 'accept-encoding': 'gzip' };
    const frontHits = async () =>
      JSON.parse((await send('/status', { port: piecesPort })).body.toString()).cache.front_hits as number;
    // Each list's first request goes to the route (the front knows no request yet): one plain, one taking gzip,
    // whose every piece is deflated off the event loop and waited for.
    const routed = await send('/api/v1/episodes', { port: piecesPort });
    const routedGzip = await send('/api/v1/episodes?sort=title', { port: piecesPort, headers: gzip });
    const before = await frontHits();
    const plain = await send('/api/v1/episodes', { port: piecesPort });
    const zipped = await send('/api/v1/episodes?sort=title', { port: piecesPort, headers: gzip });
    const head = await send('/api/v1/episodes?sort=title', { port: piecesPort, method: 'HEAD', headers: gzip });
    // All three answered by the front, not the route.
    expect(await frontHits()).toBe(before + 3);

    expect(comparable(plain)).toEqual(comparable(routed));
    expect(Number(plain.headers['content-length'])).toBe(plain.body.length);
    expect(comparable(zipped)).toEqual(comparable(routedGzip));
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(Number(zipped.headers['content-length'])).toBe(zipped.body.length);
    expect(JSON.parse(gunzipSync(zipped.body).toString()).length).toBe(JSON.parse(plain.body.toString()).length);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(zipped.headers['content-length']);
  });
});
