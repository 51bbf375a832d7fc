/**
 * The OpenAPI documents as the route schemas generate them: the server's, from an app
 * over an empty in-memory library, and the player's. `npm run openapi` writes them to
 * docs/openapi.json and docs/openapi-player.json, and a test fails when a committed
 * copy drifts from the code.
 */
import pino from 'pino';
import { openMemoryDatabase } from '../db/database.js';
import { LibraryService } from '../library/library.service.js';
import { buildHttpApp } from './http-app.js';
import { buildPlayerHttpApp } from './player-http-app.js';
import type { PlayerService } from '../player/player.service.js';

export async function generateOpenApiDocument(): Promise<unknown> {
  const db = openMemoryDatabase();
  const app = await buildHttpApp({
    library: new LibraryService(db),
    logger: pino({ level: 'silent' }),
    fallbackBaseUrl: 'http://localhost:8089',
  });
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
    db.close();
  }
}

/** Interface B's document, from the player's app (routes only: no player runs). */
export async function generatePlayerOpenApiDocument(): Promise<unknown> {
  const app = await buildPlayerHttpApp({ player: {} as PlayerService, logger: pino({ level: 'silent' }) });
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
  }
}

export function formatOpenApiDocument(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
