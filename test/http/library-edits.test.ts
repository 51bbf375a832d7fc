/**
 * Edits through the management interface and their effect on interface A: flags on
 * items, shows and video groups; collections; playlists, including concurrent edits.
 */
import { PathBoundary } from '../../src/common/path-boundary.js';
import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LibraryEditsService } from '../../src/management/library-edits.service.js';
import { MediaFilesService } from '../../src/management/media-files.service.js';
import { EPISODES, MOVIES, seedLibrary } from '../support/seed-library.js';
import { type TempLibrary, buildTestApp, createTempLibrary } from '../support/temp-library.js';

let temp: TempLibrary;
let app: FastifyInstance;

type Json = Record<string, unknown>;
const get = async (url: string) => (await app.inject({ url })).json<Json>();
const send = (method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
  app.inject({ method, url, ...(payload === undefined ? {} : { payload: payload as Json }) });

beforeAll(async () => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  seedLibrary(temp.db);
  app = await buildTestApp(temp, {
    management: {
      files: new MediaFilesService(temp.db, {
        recordingsDir: join(temp.dir, 'recordings'),
        boundary: PathBoundary.closed(),
      }),
      edits: new LibraryEditsService(temp.db),
      token: undefined,
      roots: () => [],
    },
  });
});

afterAll(async () => {
  await app.close();
  temp.close();
});

describe('flags', () => {
  it('favorites, labels, locks and verifies an item, and interface A shows it', async () => {
    const response = await send('PATCH', '/dvr/files/mov-1', {
      favorited: true,
      labels: ['family', 'rainy day'],
      locked: true,
      verified: true,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      id: 'mov-1',
      favorited: true,
      labels: ['family', 'rainy day'],
      verified: true,
    });
    // `locked` shows where the specification lists it: on movies in collection and playlist content.
    const episodeLocked = await send('PATCH', `/dvr/files/${EPISODES[0]?.id}`, { locked: true, verified: true });
    expect(episodeLocked.json()).toMatchObject({ locked: true, verified: true });
    expect((await app.inject({ url: `/api/v1/episodes/${EPISODES[0]?.id}` })).json()).toMatchObject({
      locked: true,
      verified: true,
    });
    const favorites = (await app.inject({ url: '/api/v1/movies?favorited=true' })).json<Json[]>();
    expect(favorites.map((m) => m.id)).toContain('mov-1');
    const cleared = await send('PATCH', '/dvr/files/mov-1', { labels: null });
    expect(cleared.json().labels).toBeUndefined();
    expect(cleared.json()).toMatchObject({ favorited: true });
  });

  it('favorites and labels shows and video groups', async () => {
    const show = await send('PATCH', '/dvr/shows/show-a', { favorited: true, labels: ['kids'] });
    expect(show.statusCode).toBe(200);
    expect(show.json()).toMatchObject({ id: 'show-a', favorited: true, labels: ['kids'] });
    expect((await app.inject({ url: '/api/v1/shows?favorited=true' })).json<Json[]>().map((s) => s.id)).toContain(
      'show-a',
    );
    const group = await send('PATCH', '/dvr/video_groups/videos-0a1b2c3d', { labels: ['music'] });
    expect(group.json()).toMatchObject({ labels: ['music'] });
  });

  it('refuses empty edits, unknown fields, wrong types and unknown ids', async () => {
    expect((await send('PATCH', '/dvr/files/mov-1', {})).statusCode).toBe(400);
    expect((await send('PATCH', '/dvr/files/mov-1', { watched: true })).statusCode).toBe(400);
    expect((await send('PATCH', '/dvr/files/mov-1', { favorited: 'yes' })).json()).toMatchObject({
      status: 400,
      parameter: 'favorited',
    });
    expect((await send('PATCH', '/dvr/files/nope', { favorited: true })).statusCode).toBe(404);
    expect((await send('PATCH', '/dvr/shows/nope', { favorited: true })).statusCode).toBe(404);
  });
});

describe('collections', () => {
  it('creates, renames, fills, empties and deletes a collection, with content_count following', async () => {
    const created = await send('POST', '/dvr/collections', { name: 'Heists', collection_type: 'movies' });
    expect(created.statusCode).toBe(201);
    const id = String(created.json().id);
    expect(created.json()).toMatchObject({ name: 'Heists', collection_type: 'movies', content_count: 0 });

    expect((await send('PUT', `/dvr/collections/${id}/members/mov-1`)).json()).toMatchObject({ content_count: 1 });
    expect((await send('PUT', `/dvr/collections/${id}/members/mov-1`)).json()).toMatchObject({ content_count: 1 }); // twice is once
    const content = (await app.inject({ url: `/api/v1/collections/${id}/content` })).json<Json[]>();
    expect(content.map((m) => m.id)).toEqual(['mov-1']);

    const renamed = await send('PATCH', `/dvr/collections/${id}`, { name: 'Capers', image_url: '/images/capers.jpg' });
    expect(renamed.json()).toMatchObject({ name: 'Capers' });
    expect(String(renamed.json().image_url)).toMatch(/^http:\/\/localhost(:80)?\/images\/capers.jpg$/);

    expect((await send('DELETE', `/dvr/collections/${id}/members/mov-1`)).json()).toMatchObject({ content_count: 0 });
    expect((await send('DELETE', `/dvr/collections/${id}/members/mov-1`)).statusCode).toBe(404);
    expect((await send('DELETE', `/dvr/collections/${id}`)).statusCode).toBe(204);
    expect((await app.inject({ url: `/api/v1/collections/${id}` })).statusCode).toBe(404);
    expect((await app.inject({ url: '/api/v1/movies/mov-1' })).statusCode).toBe(200);
  });

  it('refuses a movie in a shows collection, a show in a movies one, and unknown members with a 400', async () => {
    const shows = String(
      (await send('POST', '/dvr/collections', { name: 'Sitcoms', collection_type: 'shows' })).json().id,
    );
    expect((await send('PUT', `/dvr/collections/${shows}/members/show-a`)).statusCode).toBe(200);
    const wrong = await send('PUT', `/dvr/collections/${shows}/members/mov-1`);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ code: 'invalid_member' });
    const movies = String(
      (await send('POST', '/dvr/collections', { name: 'Films', collection_type: 'movies' })).json().id,
    );
    expect((await send('PUT', `/dvr/collections/${movies}/members/show-a`)).statusCode).toBe(400);
    expect((await send('PUT', `/dvr/collections/${movies}/members/nothing`)).statusCode).toBe(400);
    expect((await send('PUT', '/dvr/collections/nope/members/mov-1')).statusCode).toBe(404);
    expect((await send('POST', '/dvr/collections', { name: 'x', collection_type: 'books' })).json()).toMatchObject({
      parameter: 'collection_type',
    });
  });

  it('allows two collections of one name: they are told apart by id', async () => {
    const a = (await send('POST', '/dvr/collections', { name: 'Twins', collection_type: 'movies' })).json();
    const b = (await send('POST', '/dvr/collections', { name: 'Twins', collection_type: 'movies' })).json();
    expect(a.id).not.toBe(b.id);
  });
});

describe('playlists', () => {
  const items = async (id: string) =>
    (await app.inject({ url: `/api/v1/playlists/${id}/content` })).json<Json[]>().map((i) => i.id);
  const episodeIds = EPISODES.map((e) => e.id).slice(0, 3);

  it('creates with items, inserts at a position, removes an entry, reorders and deletes', async () => {
    const created = await send('POST', '/dvr/playlists', {
      name: 'Friday',
      item_ids: ['mov-1', ...episodeIds.slice(0, 1)],
    });
    expect(created.statusCode).toBe(201);
    const id = String(created.json().id);
    expect(created.json()).toMatchObject({ name: 'Friday', content_count: 2 });

    await send('POST', `/dvr/playlists/${id}/items`, { item_ids: [episodeIds[1]], position: 1 });
    expect(await items(id)).toEqual(['mov-1', episodeIds[1], episodeIds[0]]);
    await send('POST', `/dvr/playlists/${id}/items`, { item_ids: ['mov-1'] }); // twice is allowed: an entry per position
    expect(await items(id)).toEqual(['mov-1', episodeIds[1], episodeIds[0], 'mov-1']);

    expect((await send('DELETE', `/dvr/playlists/${id}/items/0`)).json()).toMatchObject({ content_count: 3 });
    expect(await items(id)).toEqual([episodeIds[1], episodeIds[0], 'mov-1']);
    expect((await send('DELETE', `/dvr/playlists/${id}/items/9`)).json()).toMatchObject({
      status: 400,
      parameter: 'position',
    });

    await send('PUT', `/dvr/playlists/${id}/items`, { item_ids: ['mov-1', episodeIds[0], episodeIds[1]] });
    expect(await items(id)).toEqual(['mov-1', episodeIds[0], episodeIds[1]]);

    expect((await send('PATCH', `/dvr/playlists/${id}`, { name: 'Saturday' })).json()).toMatchObject({
      name: 'Saturday',
    });
    expect((await send('DELETE', `/dvr/playlists/${id}`)).statusCode).toBe(204);
    expect((await app.inject({ url: `/api/v1/playlists/${id}` })).statusCode).toBe(404);
  });

  it('refuses unknown items without changing the playlist', async () => {
    const id = String((await send('POST', '/dvr/playlists', { name: 'Strict', item_ids: ['mov-1'] })).json().id);
    const response = await send('POST', `/dvr/playlists/${id}/items`, { item_ids: [MOVIES[1]?.id, 'ghost'] });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ parameter: 'item_ids' });
    expect(await items(id)).toEqual(['mov-1']);
  });

  it('loses no item and keeps a consistent order when many clients add at once', async () => {
    const id = String((await send('POST', '/dvr/playlists', { name: 'Busy' })).json().id);
    const adds = Array.from({ length: 40 }, (_, n) =>
      send('POST', `/dvr/playlists/${id}/items`, { item_ids: [n % 2 ? 'mov-1' : episodeIds[0]], position: n % 3 }),
    );
    const answers = await Promise.all(adds);
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    const after = await items(id);
    expect(after).toHaveLength(40);
    expect(after.filter((i) => i === 'mov-1')).toHaveLength(20);
    expect((await get(`/api/v1/playlists/${id}`)).content_count).toBe(40);
  });

  it('answers 400 or 404, never 500, to any edit body', async () => {
    const id = String((await send('POST', '/dvr/playlists', { name: 'Fuzz' })).json().id);
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (payload) => {
        const response = await app.inject({
          method: 'POST',
          url: `/dvr/playlists/${id}/items`,
          payload: JSON.stringify(payload),
          headers: { 'content-type': 'application/json' },
        });
        expect([200, 400, 404]).toContain(response.statusCode);
        expect(() => response.json()).not.toThrow();
      }),
      { numRuns: 150 },
    );
  });
});

describe('every write endpoint, any body', () => {
  const endpoints: [method: 'POST' | 'PUT' | 'PATCH', url: string][] = [
    ['PATCH', '/dvr/files/mov-2'],
    ['PATCH', '/dvr/shows/show-b'],
    ['PATCH', '/dvr/video_groups/videos-0a1b2c3d'],
    ['POST', '/dvr/collections'],
    ['POST', '/dvr/playlists'],
    ['POST', '/dvr/scans'],
  ];

  it('answers 2xx, 400 or 404 with JSON, never 500', async () => {
    const created = (await send('POST', '/dvr/collections', { name: 'Fuzzed', collection_type: 'movies' })).json();
    const playlist = (await send('POST', '/dvr/playlists', { name: 'Fuzzed' })).json();
    endpoints.push(
      ['PATCH', `/dvr/collections/${String(created.id)}`],
      ['PATCH', `/dvr/playlists/${String(playlist.id)}`],
      ['PUT', `/dvr/playlists/${String(playlist.id)}/items`],
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...endpoints), fc.jsonValue(), async ([method, url], payload) => {
        const response = await app.inject({
          method,
          url,
          payload: JSON.stringify(payload),
          headers: { 'content-type': 'application/json' },
        });
        expect([200, 201, 202, 204, 400, 404]).toContain(response.statusCode);
        if (response.statusCode !== 204) expect(() => response.json()).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });
});
