/**
 * Nothing outside the library is served, and no web page can make the server act:
 * `antenna server` as a process over real folders with symbolic links leading out of
 * them (named like a video, like a poster, to a folder, a loop) and one that stays
 * inside; a file that is not media; writes from other sites' pages; sources given as
 * local paths through the API; and what Node's HTTP layer answers by itself. Then
 * `antenna player` as a process: the same HTTP edges, and a token in a command's URL
 * kept out of its log when its server fails.
 */
import http from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClip, makeImage, writeText } from '../support/media-tree.js';
import { type StartedServer, startAntennaPlayer, startAntennaServer } from '../support/server-process.js';
import { tempDir } from '../support/temp-library.js';

type Json = Record<string, unknown>;

const SECRET = 'root:$6$not-a-real-hash:19000:0:99999:7:::\n';
let base: string;
let server: StartedServer;
let status: Json;

async function call(path: string, init: RequestInit = {}): Promise<{ status: number; json: Json; body: string }> {
  const response = await fetch(server.url + path, init);
  const body = await response.text();
  let json: Json = {};
  try {
    json = JSON.parse(body) as Json;
  } catch {
    // a media body
  }
  return { status: response.status, json, body };
}

async function scanned(): Promise<Json> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const current = (await call('/status')).json;
    const scan = current.scan as Json | undefined;
    if (scan?.last && scan.running === false) return current;
    if (Date.now() > deadline) throw new Error(`the scan did not finish: ${JSON.stringify(current)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Sends raw bytes and collects what comes back until the server (by default `antenna server`) closes the connection.
 */
function rawExchange(bytes: string, url = server.url): Promise<{ answer: string; ms: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve({ answer, ms: Date.now() - started }));
  });
}

function jsonBodyOf(answer: string): Json {
  return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Json;
}

beforeAll(async () => {
  base = tempDir('antenna-security-');
  const tv = join(base, 'tv');
  const movies = join(base, 'movies');
  const outside = join(base, 'outside');
  const feeds = join(base, 'feeds');
  writeText(join(outside, 'shadow'), SECRET);
  writeText(join(outside, 'passwd'), SECRET);
  // A real show outside every root: a folder link to it must not bring it in.
  makeClip(join(outside, 'Elsewhere (2001)/Season 01/Elsewhere - S01E01 - Away.mkv'));

  makeClip(join(tv, 'Harbour (2019)/Season 01/Harbour - S01E01 - Arrival.mkv'));
  makeClip(join(movies, 'Real Movie (2010)/Real Movie (2010).mkv'));
  makeImage(join(movies, 'Kept Poster (2012)/poster.jpg'));
  makeClip(join(movies, 'Kept Poster (2012)/Kept Poster (2012).mkv'));
  symlinkSync(join(outside, 'shadow'), join(movies, 'Shadow (2000).mkv'));
  mkdirSync(join(movies, 'Poster Thief (2011)'));
  makeClip(join(movies, 'Poster Thief (2011)/Poster Thief (2011).mkv'));
  symlinkSync(join(outside, 'passwd'), join(movies, 'Poster Thief (2011)/poster.jpg'));
  symlinkSync(join(outside, 'Elsewhere (2001)'), join(tv, 'Elsewhere (2001)'));
  symlinkSync(tv, join(tv, 'Harbour (2019)/loop'));
  // A link that stays inside a root is the user's own arrangement: followed.
  symlinkSync(join(movies, 'Real Movie (2010)/Real Movie (2010).mkv'), join(movies, 'Alias (2010).mkv'));
  writeText(join(movies, 'Not Media (2013).mkv'), 'this is a text file, not a video\n');
  writeText(
    join(feeds, 'guide.xml'),
    '<?xml version="1.0"?><tv><channel id="a"><display-name>A</display-name></channel></tv>',
  );

  server = await startAntennaServer([
    '--data',
    join(base, 'data'),
    '--tv',
    tv,
    '--movies',
    movies,
    '--no-sample',
    '--allow-local-source',
    feeds,
    '--allow-origin',
    'http://dashboard.local:8123',
    '--guide-refresh',
    '0',
  ]);
  status = await scanned();
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe('what is imported and served', () => {
  it('imports neither a video-named link to a file outside nor a linked folder outside, and lists both as problems', async () => {
    const movies = (await call('/api/v1/movies')).json as unknown as { title: string }[];
    expect(movies.map((m) => m.title).sort()).toEqual([
      'Alias',
      'Kept Poster',
      'Not Media',
      'Poster Thief',
      'Real Movie',
    ]);
    const shows = (await call('/api/v1/shows')).json as unknown as { name: string }[];
    expect(shows.map((s) => s.name)).toEqual(['Harbour']);
    const problems = ((status.scan as Json).last as { problems: { path: string; reason: string }[] }).problems;
    const reasonOf = (end: string) => problems.find((p) => p.path.endsWith(end))?.reason;
    expect(reasonOf('Shadow (2000).mkv')).toMatch(/outside the import roots/);
    expect(reasonOf('tv/Elsewhere (2001)')).toMatch(/outside the import roots/);
    expect(reasonOf('Poster Thief (2011)/poster.jpg')).toMatch(/outside the import roots/);
    // The loop is walked once and reported.
    expect(reasonOf('Harbour (2019)/loop')).toMatch(/loop/);
    expect((await call('/api/v1/episodes')).json).toHaveLength(1);
  });

  it('serves a link that stays inside a root, byte for byte the file it names', async () => {
    const movies = (await call('/api/v1/movies')).json as unknown as { id: string; title: string }[];
    const alias = movies.find((m) => m.title === 'Alias')?.id ?? '';
    const real = movies.find((m) => m.title === 'Real Movie')?.id ?? '';
    const aliasBytes = Buffer.from(await (await fetch(`${server.url}/dvr/files/${alias}/stream`)).arrayBuffer());
    const realBytes = Buffer.from(await (await fetch(`${server.url}/dvr/files/${real}/stream`)).arrayBuffer());
    expect(aliasBytes.length).toBeGreaterThan(1000);
    expect(aliasBytes.equals(realBytes)).toBe(true);
  });

  it('never serves the bytes of a file that is not media, and lists it in /status', async () => {
    const movies = (await call('/api/v1/movies')).json as unknown as {
      id: string;
      title: string;
      corrupted?: boolean;
    }[];
    const notMedia = movies.find((m) => m.title === 'Not Media');
    expect(notMedia?.corrupted).toBe(true);
    const answer = await call(`/dvr/files/${notMedia?.id}/stream`);
    expect(answer.status).toBe(409);
    expect(answer.json).toMatchObject({ status: 409, code: 'not_media' });
    expect(answer.body).not.toContain('text file');
    const listed = (status.scan as { not_media: { count: number; files: { id: string; path: string }[] } }).not_media;
    expect(listed.count).toBe(1);
    expect(listed.files[0]).toMatchObject({
      id: notMedia?.id,
      path: expect.stringMatching(/Not Media \(2013\)\.mkv$/),
    });
  });

  it('serves artwork only from inside the roots: a poster link to a file outside gives no image', async () => {
    const movies = (await call('/api/v1/movies')).json as unknown as {
      id: string;
      title: string;
      image_url?: string;
    }[];
    const thief = movies.find((m) => m.title === 'Poster Thief');
    expect(thief?.image_url).toBeUndefined();
    const stolen = await call(`/artwork/${thief?.id}`);
    expect(stolen.status).toBe(404);
    expect(stolen.body).not.toContain('root:');
    const kept = movies.find((m) => m.title === 'Kept Poster');
    const image = await fetch(kept?.image_url ?? '');
    expect(image.status).toBe(200);
    expect(Buffer.from(await image.arrayBuffer()).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
  });
});

describe('writes from web pages', () => {
  it('refuses a bodiless cross-origin POST with 403 JSON, and takes the same POST without Origin', async () => {
    for (const path of ['/dvr/refresh', '/dvr/channels/7/recording']) {
      const refused = await call(path, { method: 'POST', headers: { origin: 'http://evil.example' } });
      expect(refused.status, path).toBe(403);
      expect(refused.json).toMatchObject({ status: 403, code: 'forbidden_origin' });
    }
    const refresh = await call('/dvr/refresh', { method: 'POST' });
    expect(refresh.status).toBe(200);
    expect(refresh.json).toMatchObject({ sources: [], guides: [] });
    // Reached the handler: an unknown channel, not a refusal.
    expect((await call('/dvr/channels/7/recording', { method: 'POST' })).status).toBe(404);
  });

  it('takes a page the user allowed with --allow-origin, and the server’s own page', async () => {
    expect(
      (await call('/dvr/refresh', { method: 'POST', headers: { origin: 'http://dashboard.local:8123' } })).status,
    ).toBe(200);
    expect(
      (await call('/dvr/refresh', { method: 'POST', headers: { origin: new URL(server.url).origin } })).status,
    ).toBe(200);
  });

  it('counts the scheme: an https page at the server’s host and port is another origin than this http server', async () => {
    const { host } = new URL(server.url);
    const refused = await call('/dvr/refresh', { method: 'POST', headers: { origin: `https://${host}` } });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({
      status: 403,
      code: 'forbidden_origin',
      message: expect.stringContaining(`--allow-origin https://${host}`),
    });
  });
});

describe('sources and guides through the API', () => {
  it('refuses a local path outside the allowed folders, and takes one inside', async () => {
    for (const location of [
      '/etc/passwd',
      join(base, 'outside', 'shadow'),
      join(base, 'feeds', '..', 'outside', 'shadow'),
    ]) {
      const refused = await call('/dvr/guides', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ location }),
      });
      expect(refused.status, location).toBe(400);
      expect(refused.json).toMatchObject({ code: 'invalid_parameter', parameter: 'location' });
    }
    const m3u = await call('/dvr/sources', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'm3u', location: '/etc/passwd' }),
    });
    expect(m3u.status).toBe(400);
    const added = await call('/dvr/guides', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ location: join(base, 'feeds', 'guide.xml') }),
    });
    expect(added.status).toBe(201);
  });
});

describe('what Node’s HTTP layer answers', () => {
  it('answers a malformed request line and oversized headers in the JSON error shape', async () => {
    const garbage = await rawExchange('GARBAGE\r\n\r\n');
    expect(garbage.answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(jsonBodyOf(garbage.answer)).toMatchObject({ status: 400, code: 'bad_request' });
    const huge = await rawExchange(`GET /status HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge.answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(jsonBodyOf(huge.answer)).toMatchObject({ status: 431, code: 'headers_too_large' });
  });

  it('answers an HTTP/1.1 request without Host with a JSON 400, and still serves HTTP/1.0 without one', async () => {
    const hostless = await rawExchange('GET /status HTTP/1.1\r\n\r\n');
    expect(hostless.answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(hostless.answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(jsonBodyOf(hostless.answer)).toMatchObject({
      status: 400,
      code: 'missing_host',
      message: expect.stringContaining('Host'),
    });
    const old = await rawExchange('GET /health/live HTTP/1.0\r\n\r\n');
    expect(old.answer).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('answers CONNECT with a JSON 405 and closes the connection, since it is no proxy', async () => {
    const tunnel = await rawExchange('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(tunnel.answer).toMatch(/^HTTP\/1\.1 405 /);
    expect(tunnel.answer).toMatch(/\r\nAllow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS\r\n/);
    expect(tunnel.answer).toMatch(/\r\nConnection: close\r\n/);
    expect(jsonBodyOf(tunnel.answer)).toMatchObject({ status: 405, code: 'method_not_allowed' });
  });

  it('drops a client that never finishes its headers after about 10 s, with a 408 JSON answer', async () => {
    const slow = await rawExchange('GET /status HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    expect(slow.ms).toBeGreaterThanOrEqual(9_000);
    expect(slow.ms).toBeLessThan(15_000);
    expect(slow.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(jsonBodyOf(slow.answer)).toMatchObject({ status: 408, code: 'request_timeout' });
  }, 30_000);
});

describe('the player (interface B) as a process', () => {
  let player: StartedServer;
  // A server that answers every request with what GET /dvr gives: never an item.
  const standIn = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ recordings: '/srv/recordings', roots: [] }));
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
    player = await startAntennaPlayer(['--server', `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`]);
  }, 60_000);

  afterAll(async () => {
    await player?.stop();
    standIn.closeAllConnections();
    standIn.close();
  });

  it('answers a request without Host with a JSON 400, and CONNECT with a JSON 405', async () => {
    const hostless = await rawExchange('POST /api/toggle_mute HTTP/1.1\r\nContent-Length: 0\r\n\r\n', player.url);
    expect(hostless.answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(jsonBodyOf(hostless.answer)).toMatchObject({ status: 400, code: 'missing_host' });
    const tunnel = await rawExchange('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', player.url);
    expect(tunnel.answer).toMatch(/^HTTP\/1\.1 405 /);
    expect(tunnel.answer).toMatch(/\r\nAllow: GET, HEAD, POST, OPTIONS\r\n/);
    expect(jsonBodyOf(tunnel.answer)).toMatchObject({ status: 405, code: 'method_not_allowed' });
  });

  it('takes commands from its own http page, not from an https page at its host and port', async () => {
    const { origin, host } = new URL(player.url);
    expect((await fetch(`${player.url}/api/toggle_mute`, { method: 'POST', headers: { origin } })).status).toBe(200);
    const refused = await fetch(`${player.url}/api/toggle_mute`, {
      method: 'POST',
      headers: { origin: `https://${host}` },
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'forbidden_origin' });
    await fetch(`${player.url}/api/toggle_mute`, { method: 'POST' });
  });

  it('refuses an id that is not one (400), answers 502 for a server that answers nonsense, and logs no token a command carried', async () => {
    const dots = await rawExchange(
      'POST /api/play/recording/..?token=SECRET-DOTS HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
      player.url,
    );
    expect(dots.answer).toMatch(/^HTTP\/1\.1 400 /);
    const item = await fetch(`${player.url}/api/play/recording/imp-0123456789abcdef?token=SECRET-ITEM`, {
      method: 'POST',
    });
    expect(item.status).toBe(502);
    expect(await item.json()).toMatchObject({ code: 'bad_server_answer' });
    // The line comes through the process's stdout pipe, maybe after the answer.
    const deadline = Date.now() + 5000;
    while (!player.output().stdout.includes('?token=[Redacted]') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const { stdout, stderr } = player.output();
    expect(stdout).toContain('/api/play/recording/imp-0123456789abcdef?token=[Redacted]');
    expect(stdout + stderr).not.toContain('SECRET');
  });
});
