/** `GET /status`: what is running and how large the library is. */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { LibraryService } from '../library/library.service.js';
import type { ResponseCache } from './response-cache.js';

const Count = Type.Integer({ minimum: 0 });

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
  },
  { title: 'Status' },
);

export interface StatusDeps {
  library: LibraryService;
  cache: ResponseCache;
  version: string;
  startedAt: number;
}

export function registerStatus(app: FastifyInstance, deps: StatusDeps): void {
  app.get(
    '/status',
    { schema: { summary: 'Server version, uptime and library counts', tags: ['server'], response: { 200: StatusSchema } } },
    () => ({
      name: 'antenna',
      version: deps.version,
      uptime: (Date.now() - deps.startedAt) / 1000,
      library: deps.library.counts(),
      cache: deps.cache.stats(),
    }),
  );
}
