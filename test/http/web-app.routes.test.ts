/**
 * The web app at the server's root: the page for `/` and every section's URL (so a
 * bookmark or a reload works), hashed assets cached for good and the page never, a
 * JSON 404 still for unknown API paths, and a JSON 503 that says what to run when the
 * app was not built. Any path under a section gets the page, never a file outside the
 * build.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_SECTIONS } from '../../src/api/web-app.routes.js';
import { type TempLibrary, buildTestApp, createTempLibrary } from '../support/temp-library.js';

let temp: TempLibrary;
let app: FastifyInstance;
let unbuilt: FastifyInstance;
const PAGE =
  '<!doctype html><title>Antenna</title><div id="root"></div><script type="module" src="/assets/index-abc123.js"></script>';

beforeAll(async () => {
  temp = createTempLibrary();
  const web = join(temp.dir, 'web');
  mkdirSync(join(web, 'assets'), { recursive: true });
  writeFileSync(join(web, 'index.html'), PAGE);
  writeFileSync(join(web, 'assets', 'index-abc123.js'), 'console.log("app")');
  writeFileSync(join(web, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(temp.dir, 'secret.txt'), 'not for the web');
  app = await buildTestApp(temp, { webDir: web });
  unbuilt = await buildTestApp(temp, { webDir: join(temp.dir, 'nothing-here') });
});

afterAll(async () => {
  await app.close();
  await unbuilt.close();
  temp.close();
});

describe('the web app', () => {
  it('sends the page for / and for every section, deep links and TV mode included, never cached', async () => {
    for (const url of [
      '/',
      '/library/recordings',
      '/library/shows/imp-show-1',
      '/watch/imp-1?start=30',
      '/tv',
      '/tv/library/movies',
      ...APP_SECTIONS.map((section) => `/${section}`),
    ]) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type'], url).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control'], url).toBe('no-cache');
      expect(response.body, url).toBe(PAGE);
    }
  });

  it('caches hashed assets for good, and answers a missing one with a 404', async () => {
    const asset = await app.inject({ url: '/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect((await app.inject({ url: '/favicon.svg' })).headers['content-type']).toBe('image/svg+xml');
    expect((await app.inject({ url: '/assets/missing-000.js' })).statusCode).toBe(404);
  });

  it('keeps unknown API paths JSON 404s, and the API where it was', async () => {
    const unknown = await app.inject({ url: '/api/v1/nothing' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ status: 404, code: 'not_found' });
    expect((await app.inject({ url: '/api/v1/shows' })).headers['content-type']).toMatch(/json/);
    expect((await app.inject({ url: '/librarything' })).statusCode).toBe(404);
  });

  it('says what to run when the app was not built', async () => {
    const response = await unbuilt.inject({ url: '/library' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ status: 503, code: 'app_not_built' });
    expect(response.json().message).toContain('npm run build');
  });

  it('answers any path under a section or /assets with the page, an asset or a 404: never a file outside the build, never a 500', async () => {
    const segment = fc.oneof(
      fc.constantFrom('..', '%2e%2e', '%2F', 'secret.txt', '..%2f..%2fsecret.txt', '%00', 'index.html'),
      fc.stringMatching(/^[A-Za-z0-9._~%-]{1,12}$/),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/assets', ...APP_SECTIONS.map((section) => `/${section}`)),
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        async (prefix, parts) => {
          const response = await app.inject({ url: `${prefix}/${parts.join('/')}` });
          expect([200, 400, 403, 404]).toContain(response.statusCode);
          expect(response.body).not.toContain('not for the web');
          if (response.statusCode >= 400) expect(response.headers['content-type']).toMatch(/json/);
        },
      ),
      { numRuns: 150 },
    );
  });
});
