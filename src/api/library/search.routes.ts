/**
 * GET /dvr/search: shows, video groups, episodes, movies and videos from the library,
 * and upcoming programmes from the guide, whose names hold every word of `q`. Under
 * /dvr, the management namespace: interface A's paths are fixed by its specification.
 * Items go out as the JSON bytes SQLite wrote in their interface-A shapes; the rest
 * through serializers compiled from their schemas, so the answer is the schema's.
 */
import fastJson from 'fast-json-stringify';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DvrService } from '../../dvr/dvr.service.js';
import { airingOut } from '../../dvr/dvr-resource-mappers.js';
import type { GuideMatch } from '../../dvr/lineup/guide-search.service.js';
import type { LibraryService } from '../../library/library.service.js';
import { CORS_HEADERS } from '../../http/cors.js';
import { ErrorSchema } from '../../http/error-reply.js';
import {
  GuideMatchSchema,
  SEARCH_DEFAULT_LIMIT,
  SearchQuerySchema,
  SearchResultsSchema,
} from '../../model/library/search.schemas.js';
import { serializers } from '../json-serializers.js';
import { TAGS } from '../openapi-tags.js';

export interface SearchRoutesDeps {
  library: LibraryService;
  /** Absent: no guide to search (programmes is then always empty). */
  dvr?: DvrService | undefined;
  baseUrl: (request: FastifyRequest) => string;
}

const serializeProgrammes = fastJson(Type.Array(GuideMatchSchema) as object) as (value: unknown) => string;

export const guideMatchOut = (match: GuideMatch) => ({
  ...airingOut(match.airing),
  channel: match.channel,
  ...(match.channelName ? { channel_name: match.channelName } : {}),
  on_now: match.onNow,
  ...(match.job ? { job: match.job } : {}),
});

const list = (items: readonly Buffer[]) =>
  Buffer.concat([
    Buffer.from('['),
    ...items.flatMap((item, i) => (i === 0 ? [item] : [Buffer.from(','), item])),
    Buffer.from(']'),
  ]);

export function registerSearchRoutes(app: FastifyInstance, deps: SearchRoutesDeps): void {
  app.get(
    '/dvr/search',
    {
      schema: {
        summary:
          'Search shows, movies, videos, episodes and upcoming guide programmes by name (every word must appear)',
        tags: [TAGS.management],
        querystring: SearchQuerySchema,
        response: { 200: SearchResultsSchema, 400: ErrorSchema },
      },
    },
    (request, reply) => {
      const { q, limit = SEARCH_DEFAULT_LIMIT } = request.query as { q: string; limit?: number };
      const found = deps.library.search(q, limit, { baseUrl: deps.baseUrl(request) });
      const programmes = deps.dvr ? deps.dvr.guideSearch.search(q, limit).map(guideMatchOut) : [];
      const body = Buffer.concat([
        Buffer.from(
          `{"query":${JSON.stringify(q)},"shows":${serializers.show.many(found.shows)},"video_groups":${serializers.videoGroup.many(found.video_groups)},"episodes":`,
        ),
        list(found.episodes),
        Buffer.from(',"movies":'),
        list(found.movies),
        Buffer.from(',"videos":'),
        list(found.videos),
        Buffer.from(`,"programmes":${serializeProgrammes(programmes)}}`),
      ]);
      return send(reply, body);
    },
  );
}

function send(reply: FastifyReply, bytes: Buffer): FastifyReply {
  // The library and the guide change under a search: never reuse an answer without asking.
  return reply
    .headers({ ...CORS_HEADERS, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' })
    .send(bytes);
}
