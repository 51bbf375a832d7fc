/**
 * TypeBox schemas of interface A's resources. One schema gives the response
 * serializer (which drops undeclared fields), the TypeScript type and the OpenAPI
 * document. Every property is optional because null values are omitted.
 * Field order follows the specification's tables.
 */
import { type Static, type TOptional, type TSchema, Type } from '@sinclair/typebox';
import { StringEnum } from '../../common/string-enum.js';

const Id = Type.String({ description: 'unique identifier' });
const Millis = Type.Integer({ description: 'epoch milliseconds' });
const DateString = Type.String({ description: 'YYYY-MM-DD', pattern: '^\\d{4}-\\d{2}-\\d{2}$' });
const Strings = Type.Array(Type.String());
const Seconds = Type.Number({ description: 'seconds' });
const Flag = Type.Boolean();

/** Every property optional: null values are omitted from payloads, so any field may be absent. */
function optional<T extends Record<string, TSchema>>(properties: T) {
  return Object.fromEntries(Object.entries(properties).map(([key, schema]) => [key, Type.Optional(schema)])) as {
    [K in keyof T]: TOptional<T[K]>;
  };
}

/**
 * Fields every playable item always carries: clients type them as required (program_id derived for imports, 0 for an
 * unknown time).
 */
const ALWAYS_PRESENT = ['program_id', 'duration', 'playback_time'] as const;
type AlwaysPresent = (typeof ALWAYS_PRESENT)[number];

/** As `optional`, but a playable item's ALWAYS_PRESENT fields stay required. */
function playable<T extends Record<string, TSchema>>(properties: T) {
  return Object.fromEntries(
    Object.entries(properties).map(([key, schema]) => [
      key,
      (ALWAYS_PRESENT as readonly string[]).includes(key) ? schema : Type.Optional(schema),
    ]),
  ) as { [K in keyof T]: K extends AlwaysPresent ? T[K] : TOptional<T[K]> };
}

const itemFlags = {
  watched: Flag,
  favorited: Flag,
  delayed: Flag,
  cancelled: Flag,
  corrupted: Flag,
  completed: Flag,
  processed: Flag,
  locked: Flag,
  verified: Flag,
};

const itemTimes = { last_watched_at: Millis, created_at: Millis, updated_at: Millis };

export const ShowSchema = Type.Object(
  optional({
    id: Id,
    name: Type.String(),
    summary: Type.String(),
    image_url: Type.String({ description: 'poster image URL' }),
    release_year: Type.Integer(),
    release_date: DateString,
    genres: Strings,
    categories: Strings,
    labels: Strings,
    cast: Strings,
    episode_count: Type.Integer(),
    number_unwatched: Type.Integer(),
    favorited: Flag,
    last_watched_at: Millis,
    last_recorded_at: Millis,
    created_at: Millis,
    updated_at: Millis,
  }),
  { title: 'Show' },
);

export const VideoGroupSchema = Type.Object(
  optional({
    id: Type.String({ description: "'videos-' followed by a hexadecimal digest" }),
    name: Type.String(),
    summary: Type.String(),
    image_url: Type.String(),
    release_year: Type.Integer(),
    release_date: DateString,
    genres: Strings,
    categories: Strings,
    labels: Strings,
    video_count: Type.Integer(),
    number_unwatched: Type.Integer(),
    favorited: Flag,
    last_watched_at: Millis,
    created_at: Millis,
    updated_at: Millis,
  }),
  { title: 'Video group' },
);

export const CollectionSchema = Type.Object(
  optional({
    id: Id,
    collection_type: StringEnum(['movies', 'shows']),
    name: Type.String(),
    image_url: Type.String(),
    labels: Strings,
    content_count: Type.Integer(),
    last_watched_at: Millis,
    created_at: Millis,
    updated_at: Millis,
  }),
  { title: 'Collection' },
);

export const PlaylistSchema = Type.Object(
  optional({
    id: Id,
    name: Type.String(),
    labels: Strings,
    content_count: Type.Integer(),
    last_watched_at: Millis,
    created_at: Millis,
    updated_at: Millis,
  }),
  { title: 'Playlist' },
);

export const EpisodeSchema = Type.Object(
  playable({
    id: Id,
    show_id: Id,
    program_id: Type.String(),
    path: Type.String(),
    channel: Type.String(),
    season_number: Type.Integer(),
    episode_number: Type.Integer(),
    title: Type.String({ description: "the show's name" }),
    episode_title: Type.String(),
    event_title: Type.String({ description: 'title of a sporting event' }),
    summary: Type.String(),
    full_summary: Type.String(),
    content_rating: Type.String(),
    image_url: Type.String(),
    thumbnail_url: Type.String(),
    duration: Seconds,
    playback_time: Seconds,
    original_air_date: DateString,
    genres: Strings,
    tags: Strings,
    categories: Strings,
    cast: Strings,
    directors: Strings,
    labels: Strings,
    commercials: Type.Array(Type.Number(), { description: 'seconds: start, end, start, end, ...' }),
    ...itemFlags,
    ...itemTimes,
  }),
  { title: 'Episode' },
);

const movieFields = {
  id: Id,
  program_id: Type.String(),
  path: Type.String(),
  channel: Type.String(),
  title: Type.String(),
  summary: Type.String(),
  full_summary: Type.String(),
  content_rating: Type.String(),
  image_url: Type.String(),
  thumbnail_url: Type.String(),
  duration: Seconds,
  playback_time: Seconds,
  release_year: Type.Integer(),
  release_date: DateString,
  genres: Strings,
  tags: Strings,
  categories: Strings,
  cast: Strings,
  directors: Strings,
  labels: Strings,
  commercials: Type.Array(Type.Number(), { description: 'seconds: start, end, start, end, ...' }),
};

const { locked: _locked, ...flagsWithoutLocked } = itemFlags;
const { channel: _channel, full_summary: _fullSummary, ...contentMovieFields } = movieFields;

/** A movie as `/api/v1/movies` serves it: the specification leaves `locked` out of this payload. */
export const MovieSchema = Type.Object(playable({ ...movieFields, ...flagsWithoutLocked, ...itemTimes }), {
  title: 'Movie',
});

/**
 * A movie inside collection or playlist content: the specification's list for these
 * items (with `locked`, without `channel` and `full_summary`), plus the movie fields
 * the compatibility notes name.
 */
export const ContentMovieSchema = Type.Object(playable({ ...contentMovieFields, ...itemFlags, ...itemTimes }), {
  title: 'Movie (in collection or playlist content)',
});

export const VideoSchema = Type.Object(
  playable({
    id: Id,
    video_group_id: Id,
    program_id: Type.String({ description: 'an id derived from the item (videos have no guide programme)' }),
    path: Type.String(),
    title: Type.String({ description: "the video group's name" }),
    video_title: Type.String(),
    season_number: Type.Integer(),
    episode_number: Type.Integer(),
    summary: Type.String(),
    full_summary: Type.String(),
    content_rating: Type.String(),
    image_url: Type.String(),
    thumbnail_url: Type.String(),
    duration: Seconds,
    playback_time: Seconds,
    original_air_date: DateString,
    genres: Strings,
    tags: Strings,
    categories: Strings,
    labels: Strings,
    ...itemFlags,
    ...itemTimes,
  }),
  { title: 'Video' },
);

/** The airing item a job records, in episode or movie shape. */
export const JobItemSchema = Type.Object(
  optional({
    show_id: Id,
    program_id: Type.String(),
    season_number: Type.Integer(),
    episode_number: Type.Integer(),
    title: Type.String(),
    episode_title: Type.String(),
    summary: Type.String(),
    full_summary: Type.String(),
    content_rating: Type.String(),
    image_url: Type.String(),
    duration: Seconds,
    playback_time: Seconds,
    original_air_date: DateString,
    release_year: Type.Integer(),
    release_date: DateString,
    genres: Strings,
    tags: Strings,
    categories: Strings,
    cast: Strings,
    directors: Strings,
    ...itemFlags,
  }),
  { title: 'Job item' },
);

export const JobSchema = Type.Object(
  optional({
    id: Type.String({ description: '<start epoch seconds>-<rule id>' }),
    name: Type.String(),
    start_time: Type.Integer({ description: 'epoch seconds' }),
    end_time: Type.Integer({ description: 'epoch seconds' }),
    duration: Type.Integer({ description: 'end_time - start_time, seconds' }),
    channels: Type.Array(Type.String(), { description: 'channel numbers the job may record from' }),
    channel: Type.String({ description: 'channel number the job is set to record from' }),
    skipped: Flag,
    failed: Flag,
    error: Type.String(),
    updated_at: Millis,
    item: JobItemSchema,
  }),
  { title: 'Job' },
);

export const ChannelSchema = Type.Object(
  optional({
    id: Id,
    number: Type.String(),
    name: Type.String(),
    call_sign: Type.String(),
    image_url: Type.String(),
    hd: Flag,
    favorited: Flag,
  }),
  { title: 'Channel' },
);

export type Show = Static<typeof ShowSchema>;
export type VideoGroup = Static<typeof VideoGroupSchema>;
export type Collection = Static<typeof CollectionSchema>;
export type Playlist = Static<typeof PlaylistSchema>;
export type Episode = Static<typeof EpisodeSchema>;
export type Movie = Static<typeof MovieSchema>;
export type ContentMovie = Static<typeof ContentMovieSchema>;
export type Video = Static<typeof VideoSchema>;
export type JobItem = Static<typeof JobItemSchema>;
export type Job = Static<typeof JobSchema>;
export type Channel = Static<typeof ChannelSchema>;
