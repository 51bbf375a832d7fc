/** A real, migrated SQLite library in a fresh temporary directory, and an app over it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildHttpApp, type HttpAppOptions } from '../../src/api/http-app.js';
import { type Db, databasePath, openDatabase, prepareDataDir } from '../../src/db/database.js';
import { ItemStateLog } from '../../src/common/item-state-log.js';
import { LibraryService, type LibraryServiceOptions } from '../../src/library/library.service.js';

export interface TempLibrary {
  dir: string;
  db: Db;
  library: LibraryService;
  close(): void;
}

export function tempDir(prefix = 'antenna-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function createTempLibrary(options: LibraryServiceOptions = {}): TempLibrary {
  const dir = tempDir();
  prepareDataDir(dir);
  const db = openDatabase(databasePath(dir));
  return {
    dir,
    db,
    // As the server wires it: item state writes through the management services patch cached answers.
    library: new LibraryService(db, { stateLog: new ItemStateLog(), ...options }),
    close() {
      if (db.open) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The full HTTP app over a temp library; logs are silent unless a test asks. */
export async function buildTestApp(
  temp: TempLibrary,
  options: Partial<Omit<HttpAppOptions, 'library'>> = {},
): Promise<FastifyInstance> {
  const app = await buildHttpApp({
    library: temp.library,
    logger: pino({ level: 'silent' }),
    fallbackBaseUrl: 'http://localhost:8089',
    // Node's process metrics (an event-loop histogram, a GC observer) are never removed: hundreds of test apps would
    // pile them up.
    processMetrics: false,
    ...options,
  });
  await app.ready();
  return app;
}
