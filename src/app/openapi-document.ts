/**
 * The OpenAPI documents as the route schemas generate them: the server's, from an app
 * wired as `antenna server` wires it (library, management, DVR, media, status) over an
 * empty in-memory library, and the player's. `npm run openapi` writes them to
 * docs/openapi.json and docs/openapi-player.json, and a test fails when a committed
 * copy drifts from the code. Nothing is started: no scan, no timer, no file written.
 */
import { NO_LIVE_BUFFERS } from '../streaming/buffer-hls-session.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { buildHttpApp } from '../api/http-app.js';
import { buildPlayerHttpApp } from '../player/player-http-app.js';
import { PathBoundary } from '../common/path-boundary.js';
import { openMemoryDatabase } from '../db/database.js';
import { DvrService } from '../dvr/dvr.service.js';
import { NotFoundError } from '../common/errors.js';
import { HlsService } from '../streaming/hls-sessions.service.js';
import { LibraryService } from '../library/library.service.js';
import { LibraryEditsService } from '../management/library-edits.service.js';
import { MediaFilesService } from '../management/media-files.service.js';
import { PlayerRegistry } from '../devices/player-registry.service.js';
import { NO_EVENTS } from '../model/events/event.schemas.js';
import { EventLog } from '../events/event-log.service.js';
import type { PlayerService } from '../player/player.service.js';

export async function generateOpenApiDocument(): Promise<unknown> {
  const db = openMemoryDatabase();
  const logger = pino({ level: 'silent' });
  // Named, never created: the DVR writes only when it records, and it is never started here.
  const unused = join(tmpdir(), 'antenna-openapi-unused');
  const dvr = new DvrService(db, {
    recordingsDir: unused,
    thumbnailsDir: unused,
    workDir: unused,
    sources: { sources: [], guides: [] },
    logger,
    refreshInterval: 0,
  });
  // Never started: it makes no folder and runs nothing until a playlist is asked for.
  const hls = new HlsService({
    dir: unused,
    ffmpeg: 'ffmpeg',
    ffprobe: 'ffprobe',
    encoder: 'software',
    maxTranscodes: 1,
    checkItem: (id) => {
      throw new NotFoundError('file', id);
    },
    openItem: (id) => Promise.reject(new NotFoundError('file', id)),
    resolveChannel: (number) => {
      throw new NotFoundError('channel', number);
    },
    liveBuffer: NO_LIVE_BUFFERS,
  });
  const app = await buildHttpApp({
    library: new LibraryService(db),
    hls,
    management: {
      files: new MediaFilesService(db, { recordingsDir: unused, boundary: PathBoundary.closed() }),
      edits: new LibraryEditsService(db),
      dvr,
      players: new PlayerRegistry(db, { emit: NO_EVENTS, logger, machineAddress: () => undefined }),
      events: new EventLog(db, { logger }),
      token: undefined,
      roots: () => [],
      requestScan: () => undefined,
    },
    scanStatus: () => ({
      phase: 'idle',
      filesSeen: 0,
      probed: 0,
      thumbnails: 0,
      toProbe: 0,
      toThumbnail: 0,
      running: false,
    }),
    logger,
    fallbackBaseUrl: 'http://localhost:8089',
  });
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
    await dvr.stop();
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
