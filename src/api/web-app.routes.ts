/**
 * The Antenna app (web/, built by Vite into dist/web) at the server's root. Hashed
 * assets under /assets are cached for good (their names change with their content);
 * the page itself is never cached, so a new build is seen on the next load. Each of the
 * app's sections has its own URL, and a request for one (a bookmark, a reload) gets the
 * page, which routes in the browser. Only those paths do: an unknown API path stays a
 * JSON 404.
 */
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sendError } from '../http/error-reply.js';

/** The first path segments of the app's sections (web/src/routes.tsx), besides `/`. */
export const APP_SECTIONS = ['library', 'guide', 'live', 'search', 'schedule', 'settings', 'watch', 'tv'] as const;

/** Where `npm run build` puts the app: dist/web, from src/api or dist/api alike. */
export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../../dist/web', import.meta.url));

const IMMUTABLE = 'public, max-age=31536000, immutable';

export async function registerWebApp(app: FastifyInstance, webDir: string = DEFAULT_WEB_DIR): Promise<void> {
  const indexFile = join(webDir, 'index.html');
  const built = existsSync(indexFile);
  // Kept in memory, read again only when a new build replaced it (its assets' names changed with it).
  let page: { bytes: Buffer; modified: number } | undefined;
  const currentPage = (): Buffer | undefined => {
    try {
      const modified = statSync(indexFile).mtimeMs;
      if (page?.modified !== modified) page = { bytes: readFileSync(indexFile), modified };
      return page.bytes;
    } catch {
      return undefined;
    }
  };
  const sendPage = (_request: unknown, reply: FastifyReply) => {
    const bytes = currentPage();
    if (!bytes) {
      return sendError(reply, {
        status: 503,
        code: 'app_not_built',
        message: 'The web app has not been built: run `npm run build` (npm ci does it), then start the server again.',
      });
    }
    return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(bytes);
  };
  const hidden = { schema: { hide: true } };
  app.get('/', hidden, sendPage);
  for (const section of APP_SECTIONS) {
    app.get(`/${section}`, hidden, sendPage);
    app.get(`/${section}/*`, hidden, sendPage);
  }
  if (!built) return;
  await app.register(fastifyStatic, {
    root: join(webDir, 'assets'),
    prefix: '/assets/',
    decorateReply: false,
    index: false,
    wildcard: true,
    cacheControl: false,
    setHeaders: (reply) => reply.header('cache-control', IMMUTABLE),
  });
  // Files Vite copies from web/public (the icon), at the root: cached for a day, they keep their names.
  for (const name of ['favicon.svg']) {
    if (existsSync(join(webDir, name)))
      app.get(`/${name}`, hidden, (_request, reply) =>
        reply
          .header('cache-control', 'public, max-age=86400')
          .type('image/svg+xml')
          .send(readFileSync(join(webDir, name))),
      );
  }
}
