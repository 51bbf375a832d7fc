/** `GET /status`: what is running and how large the library is. */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { LibraryService } from '../library/library.service.js';
import type { ScanStatus } from '../importer/scan-scheduler.js';
import type { ResponseCache } from './response-cache.js';
import { TAGS } from './openapi-tags.js';

const Count = Type.Integer({ minimum: 0 });
/** Problems listed in /status; the count says how many there are in all. */
const PROBLEMS_SHOWN = 100;
const Problem = Type.Object({ path: Type.String(), reason: Type.String() });

export const StatusSchema = Type.Object(
  {
    name: Type.String(),
    version: Type.String(),
    uptime: Type.Number({ description: 'seconds since the server started' }),
    library: Type.Object({
      shows: Count,
      episodes: Count,
      movies: Count,
      video_groups: Count,
      videos: Count,
      collections: Count,
      playlists: Count,
      jobs: Count,
      channels: Count,
    }),
    cache: Type.Object(
      {
        entries: Count,
        bytes: Count,
        hits: Count,
        misses: Count,
        front_hits: Type.Integer({ minimum: 0, description: 'hits answered before routing (included in hits)' }),
      },
      { description: 'interface A response cache: a miss is one query and serialization' },
    ),
    scan: Type.Optional(
      Type.Object(
        {
          running: Type.Boolean(),
          phase: Type.String({ description: 'idle, walking, importing, probing, thumbnails or done' }),
          files_seen: Count,
          probed: Count,
          to_probe: Count,
          last: Type.Optional(
            Type.Object({
              finished_at: Type.Integer({ description: 'epoch milliseconds' }),
              added: Count,
              updated: Count,
              moved: Count,
              removed: Count,
              unchanged: Count,
              failed: Count,
              duration_ms: Count,
              problems: Type.Array(Problem, { description: `what the scan could not import and why (links leading outside the roots, unreadable folders, files that are not media); the first ${PROBLEMS_SHOWN}` }),
            }),
          ),
          not_media: Type.Object(
            {
              count: Count,
              files: Type.Array(Type.Object({ id: Type.String(), path: Type.String(), reason: Type.String() }), { description: `the first ${PROBLEMS_SHOWN} by path` }),
            },
            { description: 'files in the library that ffprobe could not read: listed here, never served' },
          ),
        },
        { description: 'the importer: the scan in progress, and the last one finished' },
      ),
    ),
    dvr: Type.Optional(
      Type.Object(
        {
          recording: Type.Array(Type.String(), { description: 'ids of the jobs recording now' }),
          refreshing: Type.Boolean({ description: 'sources and guides are being read' }),
          streams: Type.Array(
            Type.Object({ channel: Type.String(), source: Type.String(), recordings: Type.Integer(), viewers: Type.Integer(), bytes: Type.Integer() }),
            { description: 'upstream connections open now; recordings and viewers of a channel share one' },
          ),
        },
        { description: 'the DVR' },
      ),
    ),
  },
  { title: 'Status' },
);

export interface StatusDeps {
  library: LibraryService;
  cache: ResponseCache;
  version: string;
  startedAt: number;
  scanStatus?: (() => ScanStatus) | undefined;
  dvrStatus?: (() => { recording: string[]; refreshing: boolean; streams: { channel: string; source: string; recordings: number; viewers: number; bytes: number }[] }) | undefined;
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
      files: notMedia.files.map((file) => ({ id: file.item_id, path: file.path, reason: file.problem ?? 'ffprobe could not read it' })),
    },
  };
}

export function registerStatus(app: FastifyInstance, deps: StatusDeps): void {
  app.get(
    '/status',
    { schema: { summary: 'Server version, uptime and library counts', tags: [TAGS.status], response: { 200: StatusSchema } } },
    () => ({
      name: 'antenna',
      version: deps.version,
      uptime: (Date.now() - deps.startedAt) / 1000,
      library: deps.library.counts(),
      cache: deps.cache.stats(),
      ...(deps.scanStatus ? { scan: scanOf(deps.scanStatus(), deps.library) } : {}),
      ...(deps.dvrStatus ? { dvr: deps.dvrStatus() } : {}),
    }),
  );
}
