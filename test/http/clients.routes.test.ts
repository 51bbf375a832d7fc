/**
 * The players the server knows, over HTTP and on a real temp database: a registration
 * lists the player (Channels' fields too), heartbeats keep it online and tell playback
 * starting and stopping, silence makes it offline once, a restart of the server keeps
 * the list (offline until heard from), "Play on…" and notify reach a stand-in
 * interface B, and bad input is a 400 that says what to fix.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PathBoundary } from '../../src/common/path-boundary.js';
import { PlayerRegistry } from '../../src/devices/player-registry.service.js';
import { LibraryEditsService } from '../../src/management/library-edits.service.js';
import { MediaFilesService } from '../../src/management/media-files.service.js';
import type { ClientRegistration } from '../../src/model/players/client.schemas.js';
import type { NewEvent } from '../../src/model/events/event.schemas.js';
import { type TempLibrary, buildTestApp, createTempLibrary } from '../support/temp-library.js';

let temp: TempLibrary;
let app: FastifyInstance;
let players: PlayerRegistry;
let now = 1_800_000_000_000;
const events: NewEvent[] = [];
let fakePlayer: Server;
let fakePort: number;
const received: { method: string; url: string; body: string }[] = [];

const registration = (overrides: Partial<ClientRegistration> = {}): ClientRegistration => ({
  name: 'Living Room',
  hostname: 'tv-box',
  port: 57000,
  platform: 'Linux',
  app_version: '0.1.0',
  backend: 'mpv',
  status: { status: 'stopped', muted: false },
  ...overrides,
});

function makeRegistry(): PlayerRegistry {
  return new PlayerRegistry(temp.db, {
    emit: (event) => events.push(event),
    logger: pino({ level: 'silent' }),
    machineAddress: () => '192.168.50.2',
    now: () => now,
  });
}

async function buildApp(): Promise<FastifyInstance> {
  return buildTestApp(temp, {
    management: {
      files: new MediaFilesService(temp.db, {
        recordingsDir: join(temp.dir, 'recordings'),
        boundary: PathBoundary.closed(),
      }),
      edits: new LibraryEditsService(temp.db),
      token: undefined,
      roots: () => [],
      players,
    },
  });
}

const put = (id: string, body: unknown, remoteAddress = '192.168.50.30') =>
  app.inject({ method: 'PUT', url: `/dvr/clients/${id}`, payload: body as object, remoteAddress });
const list = async () =>
  (await app.inject({ method: 'GET', url: '/dvr/clients/info' })).json() as Record<string, unknown>[];

beforeAll(async () => {
  temp = createTempLibrary();
  players = makeRegistry();
  players.start();
  app = await buildApp();
  fakePlayer = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ method: request.method ?? '', url: request.url ?? '', body });
      if (request.url?.includes('/missing')) {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ status: 404, code: 'not_found', message: "No recording with id 'missing'." }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: 'playing', muted: false, playback_time: 0 }));
    });
  });
  await new Promise<void>((resolve) => fakePlayer.listen(0, '127.0.0.1', resolve));
  fakePort = (fakePlayer.address() as AddressInfo).port;
});

afterAll(async () => {
  players.stop();
  await app.close();
  fakePlayer.close();
  temp.close();
});

beforeEach(() => {
  events.length = 0;
});

describe('GET /dvr/clients/info', () => {
  it('lists a registered player with the fields remote apps read', async () => {
    const answer = await put('aaaaaaaa11111111', registration());
    expect(answer.statusCode).toBe(200);
    const [client] = await list();
    expect(client).toMatchObject({
      device_id: 'aaaaaaaa11111111',
      id: 'aaaaaaaa11111111',
      name: 'Living Room',
      device: 'Antenna player (mpv)',
      hostname: 'tv-box',
      local_ip: '192.168.50.30',
      remote_ip: '192.168.50.30',
      port: 57000,
      platform: 'Linux',
      app_version: '0.1.0',
      online: true,
      connected: true,
      last_seen_at: now,
      seen_at: now,
      status: { status: 'stopped', muted: false },
    });
    expect(String(client?.platform)).not.toMatch(/^(Android |iOS|iPadOS)/);
    expect(events.map((e) => e.kind)).toEqual(['player.online']);
  });

  it('tells playback starting and stopping from heartbeats, once each', async () => {
    const playing = registration({
      status: {
        status: 'playing',
        muted: false,
        channel: { number: '7', name: 'Seven' },
        now_playing: { title: 'News' },
      },
    });
    await put('aaaaaaaa11111111', playing);
    await put('aaaaaaaa11111111', { ...playing, status: { ...playing.status, playback_time: 30 } });
    await put('aaaaaaaa11111111', registration());
    expect(events.map((e) => [e.kind, e.data.channel])).toEqual([
      ['playback.started', '7'],
      ['playback.stopped', undefined],
    ]);
    expect(events[0]?.message).toBe('Living Room plays channel 7 Seven (News).');
  });

  it('does not take a loopback, link-local or public address from a heartbeat of another machine', async () => {
    for (const local_ip of ['127.0.0.1', '169.254.1.1', '8.8.8.8']) {
      const answer = await put('ffffffff77777777', registration({ name: 'Sly', local_ip }));
      expect(answer.json().local_ip, local_ip).toBe('192.168.50.30');
    }
    expect((await app.inject({ method: 'DELETE', url: '/dvr/clients/ffffffff77777777' })).statusCode).toBe(204);
    events.length = 0;
  });

  it('lists a player that names its address there, and one on this machine at its network address', async () => {
    await put('bbbbbbbb22222222', registration({ name: 'Den', local_ip: '192.168.50.40' }));
    await app.inject({
      method: 'PUT',
      url: '/dvr/clients/cccccccc33333333',
      payload: registration({ name: 'Box' }),
      remoteAddress: '127.0.0.1',
    });
    const byId = Object.fromEntries((await list()).map((c) => [c.device_id, c]));
    expect(byId.bbbbbbbb22222222?.local_ip).toBe('192.168.50.40');
    expect(byId.cccccccc33333333?.local_ip).toBe('192.168.50.2');
  });

  it('marks a silent player offline once, and online again at its next heartbeat', async () => {
    now += 46_000;
    await put('bbbbbbbb22222222', registration({ name: 'Den', local_ip: '192.168.50.40' }));
    players.sweep();
    players.sweep();
    const offline = events.filter((e) => e.kind === 'player.offline').map((e) => e.data.device_id);
    expect(offline.sort()).toEqual(['aaaaaaaa11111111', 'cccccccc33333333']);
    const byId = Object.fromEntries((await list()).map((c) => [c.device_id, c]));
    expect(byId.aaaaaaaa11111111).toMatchObject({ online: false, connected: false });
    expect(byId.bbbbbbbb22222222).toMatchObject({ online: true });
    events.length = 0;
    await put('aaaaaaaa11111111', registration());
    expect(events.map((e) => e.kind)).toEqual(['player.online']);
  });

  it('keeps the list across a server restart, the same device id being the same player', async () => {
    const firstSeen = (await list()).find((c) => c.device_id === 'aaaaaaaa11111111')?.first_seen_at;
    players.stop();
    now += 60_000;
    players = makeRegistry();
    players.start();
    await app.close();
    app = await buildApp();
    const before = await list();
    expect(before.length).toBe(3);
    expect(before.every((c) => c.online === false)).toBe(true);
    await put('aaaaaaaa11111111', registration({ name: 'Living Room TV', app_version: '0.2.0' }));
    const after = (await list()).find((c) => c.device_id === 'aaaaaaaa11111111');
    expect(after).toMatchObject({
      name: 'Living Room TV',
      app_version: '0.2.0',
      online: true,
      first_seen_at: firstSeen,
    });
    expect((await list()).length).toBe(3);
  });
});

describe('play on and notify', () => {
  beforeAll(async () => {
    // From this machine: a loopback address is taken only from a heartbeat that came over loopback.
    await put('dddddddd44444444', registration({ name: 'Fake', local_ip: '127.0.0.1', port: fakePort }), '127.0.0.1');
  });

  it("sends an item or a channel to the player's interface B and answers its status", async () => {
    received.length = 0;
    const item = await app.inject({
      method: 'POST',
      url: '/dvr/clients/dddddddd44444444/play',
      payload: { item_id: 'ep1' },
    });
    expect(item.statusCode).toBe(200);
    expect(item.json()).toMatchObject({ status: 'playing' });
    const channel = await app.inject({
      method: 'POST',
      url: '/dvr/clients/dddddddd44444444/play',
      payload: { channel: '7' },
    });
    expect(channel.statusCode).toBe(200);
    const notify = await app.inject({
      method: 'POST',
      url: '/dvr/clients/dddddddd44444444/notify',
      payload: { title: 'Recording failed', message: 'The News: the source stopped.' },
    });
    expect(notify.statusCode).toBe(200);
    expect(received.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /api/play/recording/ep1',
      'POST /api/play/channel/7',
      'POST /api/notify',
    ]);
    expect(JSON.parse(received[2]?.body ?? '{}')).toEqual({
      title: 'Recording failed',
      message: 'The News: the source stopped.',
    });
  });

  it('passes on what the player refuses, and names a player it cannot reach', async () => {
    const missing = await app.inject({
      method: 'POST',
      url: '/dvr/clients/dddddddd44444444/play',
      payload: { item_id: 'missing' },
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toMatch(/missing/);
    // Port 9 on loopback: nothing listens (discard).
    await put('eeeeeeee55555555', registration({ name: 'Gone', local_ip: '127.0.0.1', port: 9 }), '127.0.0.1');
    const gone = await app.inject({
      method: 'POST',
      url: '/dvr/clients/eeeeeeee55555555/play',
      payload: { channel: '7' },
    });
    expect(gone.statusCode).toBe(502);
    expect(gone.json()).toMatchObject({
      code: 'player_unreachable',
      message: expect.stringMatching(/Gone \(127\.0\.0\.1:9\)/),
    });
  });

  it('answers 404 for a player it does not know, and 400 for both or neither of item and channel', async () => {
    const unknown = await app.inject({
      method: 'POST',
      url: '/dvr/clients/ffffffff66666666/play',
      payload: { channel: '7' },
    });
    expect(unknown.statusCode).toBe(404);
    const neither = await app.inject({ method: 'POST', url: '/dvr/clients/dddddddd44444444/play', payload: {} });
    expect(neither.statusCode).toBe(400);
    expect(neither.json().message).toMatch(/either item_id/);
  });

  it('forgets a player, and 404s one it does not know', async () => {
    expect((await app.inject({ method: 'DELETE', url: '/dvr/clients/eeeeeeee55555555' })).statusCode).toBe(204);
    expect((await app.inject({ method: 'DELETE', url: '/dvr/clients/eeeeeeee55555555' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/dvr/clients/eeeeeeee55555555' })).statusCode).toBe(404);
  });
});

describe('bad registrations', () => {
  it('are 400s naming the field, for any body that is not a registration', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record({ name: fc.string(), port: fc.oneof(fc.integer(), fc.string()) }),
          fc.constant({ ...registration(), port: 0 }),
          fc.constant({ ...registration(), backend: 'vlc' }),
          fc.constant({ ...registration(), local_ip: 'not-an-address' }),
          fc.constant({ ...registration(), extra: true }),
          fc.constant({ ...registration(), status: { status: 'dancing', muted: false } }),
        ),
        async (body) => {
          const answer = await put('abcdefgh12345678', body);
          expect(answer.statusCode).toBe(400);
          expect(answer.json()).toMatchObject({ status: 400, code: expect.any(String), message: expect.any(String) });
        },
      ),
      { numRuns: 40 },
    );
  });

  it('are 400s for a device id that is not one', async () => {
    for (const id of ['short', 'x'.repeat(80), '-leading-dash-1234', 'has.dot12345']) {
      const answer = await put(id, registration());
      expect(answer.statusCode).toBe(400);
    }
  });
});
