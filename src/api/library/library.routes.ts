/**
 * Interface A: the read-only library API under /api/v1, plus `/api/v1/all` and
 * `/api/v1/channels`, which real clients call beyond the specification. Handlers
 * only parse parameters, call the library service and hand bytes to the response
 * cache; any other method on these paths is answered 405.
 */
import { Readable } from 'node:stream';
import { describedArray, describeSegments } from '../../common/body-segments.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { LibraryService } from '../../library/library.service.js';
import {
  ChannelSchema,
  CollectionSchema,
  EpisodeSchema,
  JobSchema,
  MovieSchema,
  PlaylistSchema,
  ShowSchema,
  VideoGroupSchema,
  VideoSchema,
} from '../../model/library/library.schemas.js';
import type { MapContext } from '../../library/resource-mappers.js';
import { type AnswerFront, answerHeaders, encodingFor, okHeadersFor } from '../../answer-cache/answer-front.js';
import { ErrorSchema, sendError } from '../../http/error-reply.js';
import { AllListSchema, ContentListSchema, serializers } from '../json-serializers.js';
import {
  CollectionQuerySchema,
  ItemQuerySchema,
  MovieQuerySchema,
  ParentQuerySchema,
  VideoQuerySchema,
  toItemQuery,
  toParentQuery,
} from '../query.schemas.js';
import type { CachedBody, Encoding, Payload } from '../../answer-cache/cached-body.js';
import type { ResponseCache } from '../../answer-cache/response-cache.js';
import { TAGS } from '../openapi-tags.js';

export interface InterfaceADeps {
  library: LibraryService;
  cache: ResponseCache;
  /** Remembers each answer so that repeats are answered before routing. */
  front: AnswerFront;
  /** The absolute base URL for payload links, from --public-url or the request. */
  baseUrl: (request: FastifyRequest) => string;
}

type Query = Record<string, string | undefined>;

interface RouteSpec {
  url: string;
  summary: string;
  description?: string;
  querystring?: TSchema & { properties?: Record<string, unknown> };
  withId?: boolean;
  response: TSchema;
  /** Builds the JSON text; throws NotFoundError for an unknown id. */
  render: (id: string, query: Query, context: MapContext) => string | Buffer;
}

/** Routes built from the jobs table alone: their answers follow LibraryService.jobsGeneration. */
const JOB_ROUTES = new Set(['/api/v1/jobs', '/api/v1/jobs/:id']);

/** The generation of the library an answer of `route` (its pattern) is built from: what its cache entry must match. */
export function generationOf(library: LibraryService, route: string): string {
  return JOB_ROUTES.has(route) ? library.jobsGeneration() : library.generation();
}

const LIST_NOTE = 'Filters combine with AND. Sorting is stable: ties are broken by id.';

function specs(library: LibraryService): RouteSpec[] {
  const s = serializers;
  return [
    {
      url: '/api/v1/shows',
      summary: 'List shows',
      description: `Alphabetical by default. ${LIST_NOTE}`,
      querystring: ParentQuerySchema,
      response: Type.Array(ShowSchema),
      render: (_, q, c) => {
        const query = toParentQuery(q);
        return parentsJson(library.listShows(query, c), s.show.one, query.watched === undefined, (id) =>
          s.show.one(library.getShow(id, c)),
        );
      },
    },
    {
      url: '/api/v1/shows/:id',
      summary: 'Get a show',
      withId: true,
      response: ShowSchema,
      render: (id, _, c) =>
        parentsJson(
          [library.getShow(id, c)],
          s.show.one,
          true,
          (showId) => s.show.one(library.getShow(showId, c)),
          true,
        ),
    },
    {
      url: '/api/v1/shows/:id/episodes',
      summary: "List a show's episodes",
      description: `In season and episode order by default. ${LIST_NOTE}`,
      withId: true,
      querystring: ItemQuerySchema,
      response: Type.Array(EpisodeSchema),
      render: (id, q, c) => library.listShowEpisodes(id, toItemQuery(q), c),
    },
    {
      url: '/api/v1/episodes',
      summary: 'List episodes',
      description: `Newest first by default. ${LIST_NOTE}`,
      querystring: ItemQuerySchema,
      response: Type.Array(EpisodeSchema),
      render: (_, q, c) => library.listEpisodes(toItemQuery(q), c),
    },
    {
      url: '/api/v1/episodes/:id',
      summary: 'Get an episode',
      withId: true,
      response: EpisodeSchema,
      render: (id, _, c) => library.getEpisode(id, c),
    },
    {
      url: '/api/v1/movies',
      summary: 'List movies',
      description: `Alphabetical by default. ${LIST_NOTE}`,
      querystring: MovieQuerySchema,
      response: Type.Array(MovieSchema),
      render: (_, q, c) => library.listMovies(toItemQuery(q), c),
    },
    {
      url: '/api/v1/movies/:id',
      summary: 'Get a movie',
      withId: true,
      response: MovieSchema,
      render: (id, _, c) => library.getMovie(id, c),
    },
    {
      url: '/api/v1/video_groups',
      summary: 'List video groups',
      description: `Alphabetical by default. ${LIST_NOTE}`,
      querystring: ParentQuerySchema,
      response: Type.Array(VideoGroupSchema),
      render: (_, q, c) => {
        const query = toParentQuery(q);
        return parentsJson(library.listVideoGroups(query, c), s.videoGroup.one, query.watched === undefined, (id) =>
          s.videoGroup.one(library.getVideoGroup(id, c)),
        );
      },
    },
    {
      url: '/api/v1/video_groups/:id',
      summary: 'Get a video group',
      withId: true,
      response: VideoGroupSchema,
      render: (id, _, c) =>
        parentsJson(
          [library.getVideoGroup(id, c)],
          s.videoGroup.one,
          true,
          (groupId) => s.videoGroup.one(library.getVideoGroup(groupId, c)),
          true,
        ),
    },
    {
      url: '/api/v1/video_groups/:id/videos',
      summary: "List a video group's videos",
      description: `In season, episode and title order by default. ${LIST_NOTE}`,
      withId: true,
      querystring: VideoQuerySchema,
      response: Type.Array(VideoSchema),
      render: (id, q, c) => library.listGroupVideos(id, toItemQuery(q), c),
    },
    {
      url: '/api/v1/videos',
      summary: 'List videos',
      description: `Newest first by default. ${LIST_NOTE}`,
      querystring: VideoQuerySchema,
      response: Type.Array(VideoSchema),
      render: (_, q, c) => library.listVideos(toItemQuery(q), c),
    },
    {
      url: '/api/v1/videos/:id',
      summary: 'Get a video',
      withId: true,
      response: VideoSchema,
      render: (id, _, c) => library.getVideo(id, c),
    },
    {
      url: '/api/v1/collections',
      summary: 'List collections, alphabetically',
      querystring: CollectionQuerySchema,
      response: Type.Array(CollectionSchema),
      render: (_, q, c) =>
        s.collection.many(library.listCollections(q.collection_type as 'movies' | 'shows' | undefined, c)),
    },
    {
      url: '/api/v1/collections/:id',
      summary: 'Get a collection',
      withId: true,
      response: CollectionSchema,
      render: (id, _, c) => s.collection.one(library.getCollection(id, c)),
    },
    {
      url: '/api/v1/collections/:id/content',
      summary: "List a collection's content",
      description:
        `A movies collection lists its movies (alphabetical by default); a shows collection the episodes of its shows ` +
        `(by show, season and episode by default). ${LIST_NOTE}`,
      withId: true,
      querystring: ItemQuerySchema,
      response: ContentListSchema,
      render: (id, q, c) => library.listCollectionContent(id, toItemQuery(q), c),
    },
    {
      url: '/api/v1/playlists',
      summary: 'List playlists, alphabetically',
      response: Type.Array(PlaylistSchema),
      render: () => s.playlist.many(library.listPlaylists()),
    },
    {
      url: '/api/v1/playlists/:id',
      summary: 'Get a playlist',
      withId: true,
      response: PlaylistSchema,
      render: (id) => s.playlist.one(library.getPlaylist(id)),
    },
    {
      url: '/api/v1/playlists/:id/content',
      summary: "List a playlist's items",
      description: `Movies, episodes and videos, each in its own shape, in the playlist's order unless a sort is given. ${LIST_NOTE}`,
      withId: true,
      querystring: ItemQuerySchema,
      response: ContentListSchema,
      render: (id, q, c) => library.listPlaylistContent(id, toItemQuery(q), c),
    },
    {
      url: '/api/v1/jobs',
      summary: 'List scheduled recording jobs',
      description: 'In start-time order. start_time and end_time are epoch seconds.',
      response: Type.Array(JobSchema),
      render: (_, __, c) => library.listJobs(c),
    },
    {
      url: '/api/v1/jobs/:id',
      summary: 'Get a scheduled recording job',
      withId: true,
      response: JobSchema,
      render: (id, _, c) => library.getJob(id, c),
    },
    {
      url: '/api/v1/all',
      summary: 'List every episode, movie and video',
      description: `Each item in its own shape; the filters and sorts of /api/v1/episodes. Newest first by default. ${LIST_NOTE}`,
      querystring: ItemQuerySchema,
      response: AllListSchema,
      render: (_, q, c) => library.listAll(toItemQuery(q), c),
    },
    {
      url: '/api/v1/channels',
      summary: 'List channels',
      description: 'In channel-number order.',
      response: Type.Array(ChannelSchema),
      render: (_, __, c) => s.channel.many(library.listChannels(c)),
    },
  ];
}

/** The query parameters a route declares, in a fixed order: the cache key ignores unknown ones. */
function declaredQuery(spec: RouteSpec, raw: Query): Query {
  const known: Query = {};
  for (const name of Object.keys(spec.querystring?.properties ?? {})) {
    if (raw[name] !== undefined) known[name] = raw[name];
  }
  return known;
}

/**
 * Shows or video groups as JSON (a list, or `single`: the one alone), each one's bytes
 * described (common/body-segments.ts): an episode's position or watched mark changes its
 * show's `last_watched_at` and `number_unwatched`, and the cache then writes that show
 * again rather than the whole list. `patchable`: false for a list filtered by watched.
 */
function parentsJson<T extends { id?: string | undefined }>(
  parents: readonly T[],
  one: (parent: T) => string,
  patchable: boolean,
  render: (id: string) => string,
  single = false,
): Buffer {
  const how = {
    patchable,
    render: (id: string) => {
      try {
        return Buffer.from(render(id), 'utf8');
      } catch {
        return undefined; // gone meanwhile: the answer is built again
      }
    },
  };
  const rows = parents.map((parent) => [parent.id ?? '', Buffer.from(one(parent), 'utf8')] as const);
  if (!single) return describedArray(rows, how);
  const [id, body] = rows[0] as readonly [string, Buffer];
  return describeSegments(body, { ids: [id], starts: [0], ends: [body.length], ...how });
}

function toBytes(body: string | Buffer): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}

/**
 * Answers from the response cache, building the body on a miss. Synchronous unless a
 * compressed variant must first be made: this is the hot path of every interface-A read.
 */
function answer(
  deps: InterfaceADeps,
  spec: RouteSpec,
  request: FastifyRequest,
  reply: FastifyReply,
): void | Promise<FastifyReply> {
  const id = (request.params as { id?: string }).id ?? '';
  const query = declaredQuery(spec, request.query as Query);
  const baseUrl = deps.baseUrl(request);
  const key = `${spec.url}\n${baseUrl}\n${id}\n${JSON.stringify(query)}`;
  const generation = generationOf(deps.library, spec.url);
  const body =
    deps.cache.get(key, generation, spec.url) ??
    deps.cache.set(key, generation, toBytes(spec.render(id, query, { baseUrl })));

  deps.front.remember(request.raw, key, spec.url);

  const encoding = encodingFor(body, request.headers['accept-encoding']);
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && body.matches(ifNoneMatch)) {
    reply.headers(answerHeaders(body, encoding)[0]).code(304).send();
  } else if (encoding === 'identity') {
    send(reply, body, encoding, body.identityPayload);
  } else {
    // The reply itself is returned: Fastify then waits for it to finish (a stream takes a while) instead of sending a
    // second, empty answer.
    // A compression that fails (tried again by the next reader) leaves this one the bytes as they are, as the front
    // does.
    return body.encoded(encoding).then(
      (payload) => send(reply, body, encoding, payload),
      () => send(reply, body, 'identity', body.identityPayload),
    );
  }
}

/** One buffer as it is; a payload in pieces (a list, its gzip) streamed as they are, never joined (see Payload). */
function send(reply: FastifyReply, body: CachedBody, encoding: Encoding, payload: Payload): FastifyReply {
  if (payload.parts.length === 1) return reply.headers(answerHeaders(body, encoding)[1]).send(payload.parts[0]);
  return reply.headers(okHeadersFor(body, encoding, payload)).send(Readable.from(payload.parts, { objectMode: false }));
}

const OTHER_METHODS = ['DELETE', 'PATCH', 'POST', 'PUT'] as const;

export function registerLibraryRoutes(app: FastifyInstance, deps: InterfaceADeps): void {
  for (const spec of specs(deps.library)) {
    app.get(
      spec.url,
      {
        schema: {
          summary: spec.summary,
          ...(spec.description ? { description: spec.description } : {}),
          tags: [TAGS.library],
          ...(spec.querystring ? { querystring: spec.querystring } : {}),
          response: { 200: spec.response, 400: ErrorSchema, 404: ErrorSchema },
        },
      },
      (request, reply) => answer(deps, spec, request, reply),
    );
    // Interface A is read-only: say so, and which methods work, instead of a bare 404.
    // Answered before the body is read, so no body (or a broken one) changes the answer.
    app.route({
      method: [...OTHER_METHODS],
      url: spec.url,
      schema: { hide: true },
      onRequest: (_request, reply, done) => {
        sendError(reply.header('allow', 'GET, HEAD'), {
          status: 405,
          code: 'method_not_allowed',
          message: 'Interface A is read-only: use GET or HEAD. Changes go through the management interface.',
        });
        done();
      },
      handler: (_request, reply) => reply,
    });
  }
}
