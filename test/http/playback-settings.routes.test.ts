/**
 * Playback settings over HTTP on a real temp database: the household's commercial-skip
 * mode (default ask), a player's own (or null to follow the household), what the player
 * reads back in the answer to its heartbeat, survival of a restart, a token on the
 * writes, and bad input a 400 that names what is allowed.
 */
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlayerRegistry } from '../../src/devices/player-registry.service.js';
import { LibraryEditsService } from '../../src/management/library-edits.service.js';
import { MediaFilesService } from '../../src/management/media-files.service.js';
import { PathBoundary } from '../../src/common/path-boundary.js';
import { join } from 'node:path';
import { type TempLibrary, buildTestApp, createTempLibrary } from '../support/temp-library.js';

const TOKEN = 'a-token-of-sixteen-or-more';
let temp: TempLibrary;
let app: FastifyInstance;
let players: PlayerRegistry;

const registration = {
  name: 'Den TV',
  hostname: 'den',
  port: 57000,
  platform: 'Linux',
  app_version: '0.1.0',
  backend: 'browser',
  status: { status: 'stopped', muted: false },
};
const auth = { authorization: `Bearer ${TOKEN}` };

async function build(token: string | undefined): Promise<FastifyInstance> {
  players = new PlayerRegistry(temp.db, {
    emit: () => undefined,
    logger: pino({ level: 'silent' }),
    machineAddress: () => undefined,
  });
  return buildTestApp(temp, {
    management: {
      files: new MediaFilesService(temp.db, {
        recordingsDir: join(temp.dir, 'recordings'),
        boundary: PathBoundary.closed(),
      }),
      edits: new LibraryEditsService(temp.db),
      token,
      roots: () => [],
      players,
    },
  });
}

const heartbeat = (id: string) =>
  app.inject({
    method: 'PUT',
    url: `/dvr/clients/${id}`,
    payload: registration,
    headers: auth,
    remoteAddress: '192.168.1.9',
  });

beforeAll(async () => {
  temp = createTempLibrary();
  app = await build(TOKEN);
});

afterAll(async () => {
  await app.close();
  temp.close();
});

describe('household playback settings', () => {
  it('asks at a break until the household chooses, and keeps its choice over a restart', async () => {
    expect((await app.inject({ method: 'GET', url: '/dvr/settings/playback' })).json()).toEqual({
      commercial_skip: 'ask',
    });
    const changed = await app.inject({
      method: 'PUT',
      url: '/dvr/settings/playback',
      payload: { commercial_skip: 'auto' },
      headers: auth,
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toEqual({ commercial_skip: 'auto' });
    await app.close();
    app = await build(TOKEN);
    expect((await app.inject({ method: 'GET', url: '/dvr/settings/playback' })).json()).toEqual({
      commercial_skip: 'auto',
    });
  });

  it('needs the token to change, and refuses modes it does not know with the allowed ones', async () => {
    const bare = await app.inject({
      method: 'PUT',
      url: '/dvr/settings/playback',
      payload: { commercial_skip: 'off' },
    });
    expect(bare.statusCode).toBe(401);
    const bad = await app.inject({
      method: 'PUT',
      url: '/dvr/settings/playback',
      payload: { commercial_skip: 'smart' },
      headers: auth,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ status: 400, code: 'invalid_parameter' });
    expect(bad.json().message).toMatch(/off.*ask.*auto/);
  });
});

describe('a player of its own mind', () => {
  it('follows the household until it has its own mode, and hears which in its heartbeat answer', async () => {
    await app.inject({
      method: 'PUT',
      url: '/dvr/settings/playback',
      payload: { commercial_skip: 'ask' },
      headers: auth,
    });
    expect((await heartbeat('bbbbbbbb22222222')).json()).toMatchObject({
      commercial_skip: 'ask',
      own_commercial_skip: null,
    });
    const own = await app.inject({
      method: 'PUT',
      url: '/dvr/clients/bbbbbbbb22222222/settings',
      payload: { commercial_skip: 'off' },
      headers: auth,
    });
    expect(own.statusCode).toBe(200);
    expect(own.json()).toMatchObject({ commercial_skip: 'off', own_commercial_skip: 'off' });
    // A heartbeat rewrites what the player says of itself, never what was chosen for it here.
    expect((await heartbeat('bbbbbbbb22222222')).json()).toMatchObject({ commercial_skip: 'off' });
    const back = await app.inject({
      method: 'PUT',
      url: '/dvr/clients/bbbbbbbb22222222/settings',
      payload: { commercial_skip: null },
      headers: auth,
    });
    expect(back.json()).toMatchObject({ commercial_skip: 'ask', own_commercial_skip: null });
  });

  it('answers 404 for a player it does not know and 400 for a bad body', async () => {
    const unknown = await app.inject({
      method: 'PUT',
      url: '/dvr/clients/cccccccc33333333/settings',
      payload: { commercial_skip: 'auto' },
      headers: auth,
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ status: 404, code: 'not_found' });
    const missing = await app.inject({
      method: 'PUT',
      url: '/dvr/clients/bbbbbbbb22222222/settings',
      payload: {},
      headers: auth,
    });
    expect(missing.statusCode).toBe(400);
  });

  it('answers any body with a 200 or a JSON 400, never a 500 (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (body) => {
        const answer = await app.inject({
          method: 'PUT',
          url: '/dvr/settings/playback',
          payload: JSON.stringify(body),
          headers: { ...auth, 'content-type': 'application/json' },
        });
        expect([200, 400]).toContain(answer.statusCode);
        if (answer.statusCode === 400) expect(answer.json()).toMatchObject({ status: 400 });
      }),
      { numRuns: 60 },
    );
  });
});
