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

const contentEpisode = compile(EpisodeSchema);
const contentMovie = compile(ContentMovieSchema);
const contentVideo = compile(VideoSchema);

export function serializeContent(items: readonly ContentItem[]): string {
  const parts = items.map((item) => {
    if ('show_id' in item) return contentEpisode(item);
    if ('video_group_id' in item) return contentVideo(item);
    return contentMovie(item);
  });
  return `[${parts.join(',')}]`;
}

/** The response schema of a content list, for validation docs and OpenAPI. */
export const ContentListSchema = Type.Array(Type.Union([EpisodeSchema, ContentMovieSchema, VideoSchema]), {
  description: 'each item in its own shape: episode, movie or video',
});
