/**
 * GET /dvr/search: its query and its answer. Library matches come in their
 * interface-A shapes (library.schemas.ts); guide matches are programmes
 * (dvr.schemas.ts) with the channel to watch or record them on.
 */
import { Type } from '@sinclair/typebox';
import { AiringSchema } from '../dvr/dvr.schemas.js';
import { EpisodeSchema, MovieSchema, ShowSchema, VideoGroupSchema, VideoSchema } from './library.schemas.js';

export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_LIMIT = 100;
export const SEARCH_MAX_LENGTH = 200;

export const SearchQuerySchema = Type.Object(
  {
    q: Type.String({
      minLength: 1,
      maxLength: SEARCH_MAX_LENGTH,
      description:
        'the words to look for: every one must begin a word of the name or title (any case, accents ignored)',
    }),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: SEARCH_MAX_LIMIT,
        default: SEARCH_DEFAULT_LIMIT,
        description: 'at most this many results of each kind',
      }),
    ),
  },
  { additionalProperties: false },
);

export const GuideMatchSchema = Type.Object(
  {
    ...AiringSchema.properties,
    channel: Type.String({ description: 'the channel number it airs on (watch or record it there)' }),
    channel_name: Type.Optional(Type.String()),
    on_now: Type.Boolean({ description: 'it has started and not ended' }),
    job: Type.Optional(
      Type.Object(
        {
          id: Type.String(),
          state: Type.Union([Type.Literal('scheduled'), Type.Literal('recording')]),
          skipped: Type.Boolean(),
        },
        { description: 'the job that records it, when one does' },
      ),
    ),
  },
  { title: 'Guide match' },
);

export const SearchResultsSchema = Type.Object(
  {
    query: Type.String({ description: 'the query as given' }),
    shows: Type.Array(ShowSchema),
    video_groups: Type.Array(VideoGroupSchema),
    episodes: Type.Array(EpisodeSchema),
    movies: Type.Array(MovieSchema),
    videos: Type.Array(VideoSchema),
    programmes: Type.Array(GuideMatchSchema, { description: 'guide airings that have not ended, soonest first' }),
  },
  { title: 'Search results' },
);
