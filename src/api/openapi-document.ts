/**
 * The OpenAPI document as the route schemas generate it, from an app over an empty
 * in-memory library. `npm run openapi` writes it to docs/openapi.json, and a test
 * fails when the committed copy drifts from the code.
 */
import pino from 'pino';
import { openMemoryDatabase } from '../db/database.js';
import { LibraryService } from '../library/library.service.js';
import { buildHttpApp } from './http-app.js';

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

export function formatOpenApiDocument(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
