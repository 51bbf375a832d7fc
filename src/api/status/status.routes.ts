/** `GET /status`: what is running and how large the library is. */
import type { FastifyInstance } from 'fastify';
import type { LibraryService } from '../../library/library.service.js';
import type { ScanStatus } from '../../importer/scan-scheduler.js';
import type { ResponseCache } from '../../answer-cache/response-cache.js';
import { TAGS } from '../openapi-tags.js';
import { type EventsStatus, PROBLEMS_SHOWN, StatusSchema } from '../../model/status.schemas.js';

export interface StatusDeps {
  library: LibraryService;
  cache: ResponseCache;
  version: string;
  startedAt: number;
  scanStatus?: (() => ScanStatus) | undefined;
  eventsStatus?: (() => EventsStatus) | undefined;
  dvrStatus?:
    | (() => {
        recording: string[];
        recording_files: string[];
        refreshing: boolean;
        streams: { channel: string; source: string; recordings: number; viewers: number; bytes: number }[];
      })
    | undefined;
}

function scanOf(status: ScanStatus, library: LibraryService) {
  const last = status.last;
  const notMedia = library.notMediaFiles(PROBLEMS_SHOWN);
  return {
    running: status.running,
    phase: status.phase,
    files_seen: status.filesSeen,
    probed: status.probed,
    to_probe: status.toProbe,
    thumbnails: status.thumbnails,
    to_thumbnail: status.toThumbnail,
    ...(status.perSecond !== undefined ? { files_per_second: status.perSecond } : {}),
    ...(status.secondsLeft !== undefined ? { seconds_left: status.secondsLeft } : {}),
    ...(last
      ? {
          last: {
            finished_at: last.finishedAt,
            added: last.summary.added,
            updated: last.summary.updated,
            moved: last.summary.moved,
            removed: last.summary.removed,
            unchanged: last.summary.unchanged,
            failed: last.summary.failed.length,
            duration_ms: last.summary.durationMs,
            problems: last.summary.failed.slice(0, PROBLEMS_SHOWN).map(({ path, reason }) => ({ path, reason })),
          },
        }
      : {}),
    not_media: {
      count: notMedia.count,
      files: notMedia.files.map((file) => ({
        id: file.item_id,
        path: file.path,
        reason: file.problem ?? 'ffprobe could not read it',
      })),
    },
  };
}

export function registerStatus(app: FastifyInstance, deps: StatusDeps): void {
  app.get(
    '/status',
    {
      schema: {
        summary: 'Server version, uptime and library counts',
        tags: [TAGS.status],
        response: { 200: StatusSchema },
      },
    },
    () => ({
      name: 'antenna',
      version: deps.version,
      uptime: (Date.now() - deps.startedAt) / 1000,
      library: deps.library.counts(),
      cache: deps.cache.stats(),
      ...(deps.scanStatus ? { scan: scanOf(deps.scanStatus(), deps.library) } : {}),
      ...(deps.dvrStatus ? { dvr: deps.dvrStatus() } : {}),
      ...(deps.eventsStatus ? { events: deps.eventsStatus() } : {}),
    }),
  );
}
