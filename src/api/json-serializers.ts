/**
 * JSON serializers compiled from the resource schemas, so a payload carries exactly
 * the declared fields in the declared order. (Playable items are compiled from their
 * schemas into SQL instead: see library/item-projection.ts.)
 */
import fastJson from 'fast-json-stringify';
import { Type, type TSchema } from '@sinclair/typebox';
import {
  ChannelSchema,
  CollectionSchema,
  ContentMovieSchema,
  EpisodeSchema,
  MovieSchema,
  PlaylistSchema,
  ShowSchema,
  VideoGroupSchema,
  VideoSchema,
} from '../model/library/library.schemas.js';

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
  collection: one(CollectionSchema),
  playlist: one(PlaylistSchema),
  channel: one(ChannelSchema),
};

const mixedDescription = 'each item in its own shape: episode, movie or video';

/** The response schema of collection and playlist content, for OpenAPI. */
export const ContentListSchema = Type.Array(Type.Union([EpisodeSchema, ContentMovieSchema, VideoSchema]), {
  description: mixedDescription,
});

/** The response schema of `/api/v1/all`, for OpenAPI. */
export const AllListSchema = Type.Array(Type.Union([EpisodeSchema, MovieSchema, VideoSchema]), {
  description: mixedDescription,
});
