/**
 * Playable items are written to the wire by SQLite itself: each interface-A item
 * shape is compiled, from its TypeBox schema, into one SQL expression that yields the
 * item's JSON text (fields in schema order, null fields left out), and a list is
 * concatenated in the same query. Building 50,000 JavaScript objects only to
 * serialize them again costs seconds; this costs a fraction of one, and the schema
 * still decides exactly which fields go out and how each is typed.
 */
import type { TSchema } from '@sinclair/typebox';
import { ContentMovieSchema, EpisodeSchema, MovieSchema, VideoSchema } from '../../model/library/library.schemas.js';

export type ItemShape = 'episode' | 'movie' | 'content_movie' | 'video';

/** `@base` is the bound absolute base URL; stored URLs starting with `/` point at this server. */
const url = (column: string) => `CASE WHEN substr(${column}, 1, 1) = '/' THEN @base || ${column} ELSE ${column} END`;

/** Where each payload field comes from: columns of `items i`, the parent show `s` or video group `g`. */
const COMMON_SOURCES: Record<string, string> = {
  id: 'i.id',
  show_id: 'i.show_id',
  video_group_id: 'i.video_group_id',
  // Required in the schemas (clients type it so): an item without a guide's id carries its own stable id.
  program_id: 'coalesce(i.program_id, i.id)',
  path: 'i.path',
  channel: 'i.channel',
  season_number: 'i.season_number',
  episode_number: 'i.episode_number',
  event_title: 'i.event_title',
  summary: 'i.summary',
  full_summary: 'i.full_summary',
  content_rating: 'i.content_rating',
  image_url: url('i.image_url'),
  thumbnail_url: url('i.thumbnail_url'),
  duration: 'i.duration',
  playback_time: 'i.playback_time',
  original_air_date: 'i.original_air_date',
  release_year: 'i.release_year',
  release_date: 'i.release_date',
  genres: 'i.genres',
  tags: 'i.tags',
  categories: 'i.categories',
  cast: 'i.cast_members',
  directors: 'i.directors',
  labels: 'i.labels',
  commercials: 'i.commercials',
  watched: 'i.watched',
  favorited: 'i.favorited',
  delayed: 'i.delayed',
  cancelled: 'i.cancelled',
  corrupted: 'i.corrupted',
  completed: 'i.completed',
  processed: 'i.processed',
  locked: 'i.locked',
  verified: 'i.verified',
  last_watched_at: 'i.last_watched_at',
  created_at: 'i.created_at',
  updated_at: 'i.updated_at',
};

const SHAPES: Record<ItemShape, { schema: TSchema; sources: Record<string, string> }> = {
  // An episode's `title` is its show's name; its own title is `episode_title`.
  episode: { schema: EpisodeSchema, sources: { ...COMMON_SOURCES, title: 's.name', episode_title: 'i.title' } },
  movie: { schema: MovieSchema, sources: { ...COMMON_SOURCES, title: 'i.title' } },
  content_movie: { schema: ContentMovieSchema, sources: { ...COMMON_SOURCES, title: 'i.title' } },
  // A video's `title` is its group's name; its own title is `video_title`.
  video: { schema: VideoSchema, sources: { ...COMMON_SOURCES, title: 'g.name', video_title: 'i.title' } },
};

interface PropertySchema {
  type?: string;
}

/** The JSON text of one value, or NULL (which drops the field), by the schema's type. */
export function jsonValueSql(schema: PropertySchema, expression: string): string {
  switch (schema.type) {
    case 'string':
      // json_quote(NULL) is the bare text null, never a quoted string: nullif turns it back into NULL.
      return `nullif(json_quote(${expression}), 'null')`;
    case 'integer':
      // The items table's CHECK constraints keep integer columns integers: their text is their JSON.
      return expression;
    case 'number':
      // Number columns have NUMERIC affinity, so whole values are stored as integers and
      // come out as JavaScript writes them (1800, not 1800.0); CHECK constraints keep text
      // out. Infinity has no JSON form, so such a value is left out like a null.
      return `iif(abs(${expression}) <= 1.7976931348623157e308, ${expression}, NULL)`;
    case 'boolean':
      return `iif(${expression}, 'true', 'false')`;
    case 'array':
      // Stored as JSON array text; the items table's CHECK constraints refuse anything else.
      return expression;
    default:
      throw new Error(`item projection: no SQL encoding for schema type ${String(schema.type)}`);
  }
}

/** One SQL expression yielding the JSON object text of a row, in the shape's schema. */
export function jsonObjectSql(
  schema: TSchema,
  sources: Readonly<Record<string, string>>,
  valueSql: (schema: PropertySchema, expression: string) => string = jsonValueSql,
): string {
  const { properties, required = [] } = schema as unknown as {
    properties: Record<string, PropertySchema>;
    required?: string[];
  };
  const members = Object.entries(properties).map(([name, property]) => {
    const source = sources[name];
    if (source === undefined) throw new Error(`item projection: no source for field '${name}'`);
    const value = valueSql(property, source);
    // A required number is 0 when not known (or not finite): clients type it as always there.
    if (required.includes(name) && property.type === 'number') return `',"${name}":' || coalesce(${value}, '0')`;
    // NULL || text is NULL, and concat() skips NULLs: a missing value becomes no member at all.
    return `',"${name}":' || ${value}`;
  });
  // One concat() of all members allocates once per row; a chain of || would copy the row ~40 times.
  return `concat('{', substr(concat(${members.join(', ')}), 2), '}')`;
}

// Compiled when the module loads, so a schema field without a source stops start-up.
const COMPILED = Object.fromEntries(
  Object.entries(SHAPES).map(([shape, { schema, sources }]) => [shape, jsonObjectSql(schema, sources)]),
) as Record<ItemShape, string>;

export function itemJsonSql(shape: ItemShape): string {
  return COMPILED[shape];
}

/** How a mixed list renders movies: as `/movies` does ('movie'), or as collection and playlist content do. */
export type MovieShape = 'movie' | 'content_movie';

/** JSON text of a row of any kind, each kind in its own shape. */
export function mixedItemJsonSql(movieShape: MovieShape): string {
  return `CASE i.kind WHEN 'episode' THEN ${itemJsonSql('episode')} WHEN 'video' THEN ${itemJsonSql('video')} ELSE ${itemJsonSql(movieShape)} END`;
}
