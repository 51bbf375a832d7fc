/**
 * JSON serializers compiled from the resource schemas, so a payload carries exactly
 * the declared fields in the declared order. Content lists mix item shapes, so each
 * item is serialized with its own shape's serializer.
 */
import fastJson from 'fast-json-stringify';
import { Type, type TSchema } from 'typebox';
import {
  ChannelSchema,
  CollectionSchema,
  type ContentItem,
  ContentMovieSchema,
  EpisodeSchema,
  JobSchema,
  MovieSchema,
  PlaylistSchema,
  ShowSchema,
  VideoGroupSchema,
  VideoSchema,
} from '../library/library.schemas.js';

export type Serializer = (value: unknown) => string;

function compile(schema: TSchema): Serializer {
  return fastJson(schema as object) as Serializer;
}

function one(schema: TSchema) {
  return { one: compile(schema), many: compile(Type.Array(schema)) };
}

export const serializers = {
  show: one(ShowSchema),
  videoGroup: one(VideoGroupSchema),
  episode: one(EpisodeSchema),
  movie: one(MovieSchema),
  video: one(VideoSchema),
  collection: one(CollectionSchema),
  playlist: one(PlaylistSchema),
  job: one(JobSchema),
  channel: one(ChannelSchema),
};

const movieShapes = { list: compile(MovieSchema), content: compile(ContentMovieSchema) };

/**
 * Serializes a list that mixes episodes, movies and videos, each with its own shape's
 * serializer. Movies take the `/movies` shape in `/all` ('list') and the content shape
 * (with `locked`) in collection and playlist content ('content').
 */
export function serializeMixed(items: readonly ContentItem[], movieShape: keyof typeof movieShapes): string {
  const movie = movieShapes[movieShape];
  const parts = items.map((item) => {
    if ('show_id' in item) return serializers.episode.one(item);
    if ('video_group_id' in item) return serializers.video.one(item);
    return movie(item);
  });
  return `[${parts.join(',')}]`;
}

const mixedDescription = 'each item in its own shape: episode, movie or video';

/** The response schema of collection and playlist content, for OpenAPI. */
export const ContentListSchema = Type.Array(Type.Union([EpisodeSchema, ContentMovieSchema, VideoSchema]), {
  description: mixedDescription,
});

/** The response schema of `/api/v1/all`, for OpenAPI. */
export const AllListSchema = Type.Array(Type.Union([EpisodeSchema, MovieSchema, VideoSchema]), {
  description: mixedDescription,
});
