/**
 * Playable items: episodes, movies and videos in one table and one id space, so an id
 * names a playable item whatever its kind. Lists are filtered and sorted in SQL.
 */
import { describedArray, describeSegments } from '../../common/body-segments.js';
import type { ItemStateLog } from '../../common/item-state-log.js';
import type { Db } from '../../db/database.js';
import { type ColumnMap, statement, updateRow, upsertRow } from '../../db/row-codec.js';
import { type SqlFragment, itemFilterTerms, itemOrderBy, whereClause } from '../list-sql.js';
import type { DefaultItemOrder, ItemFilter, ItemSort, SortRequest } from '../../model/list-query.js';
import { type ItemShape, itemJsonSql, type MovieShape, mixedItemJsonSql } from './item-projection.js';
import { totalChanges } from './library-state.repository.js';

export type ItemKind = 'episode' | 'movie' | 'video';
export type ItemSource = 'recordings' | 'imports';

interface ItemInputBase {
  id: string;
  source: ItemSource;
  program_id?: string | null;
  path?: string | null;
  channel?: string | null;
  summary?: string | null;
  full_summary?: string | null;
  content_rating?: string | null;
  image_url?: string | null;
  thumbnail_url?: string | null;
  duration?: number | null;
  playback_time?: number;
  genres?: string[] | null;
  tags?: string[] | null;
  categories?: string[] | null;
  labels?: string[] | null;
  commercials?: number[] | null;
  watched?: boolean;
  favorited?: boolean;
  delayed?: boolean;
  cancelled?: boolean;
  corrupted?: boolean;
  completed?: boolean;
  processed?: boolean;
  locked?: boolean;
  verified?: boolean;
  last_watched_at?: number | null;
  created_at?: number;
  updated_at?: number;
}

export interface EpisodeInput extends ItemInputBase {
  show_id: string;
  season_number?: number | null;
  episode_number?: number | null;
  episode_title?: string | null;
  event_title?: string | null;
  original_air_date?: string | null;
  cast?: string[] | null;
  directors?: string[] | null;
}

export interface MovieInput extends ItemInputBase {
  title: string;
  release_year?: number | null;
  release_date?: string | null;
  cast?: string[] | null;
  directors?: string[] | null;
}

export interface VideoInput extends ItemInputBase {
  video_group_id: string;
  video_title?: string | null;
  season_number?: number | null;
  episode_number?: number | null;
  original_air_date?: string | null;
}

const COMMON_COLUMNS: ColumnMap = {
  id: ['id', 'text'],
  source: ['source', 'text'],
  program_id: ['program_id', 'text'],
  path: ['path', 'text'],
  channel: ['channel', 'text'],
  summary: ['summary', 'text'],
  full_summary: ['full_summary', 'text'],
  content_rating: ['content_rating', 'text'],
  image_url: ['image_url', 'text'],
  thumbnail_url: ['thumbnail_url', 'text'],
  duration: ['duration', 'real'],
  playback_time: ['playback_time', 'real'],
  genres: ['genres', 'json'],
  tags: ['tags', 'json'],
  categories: ['categories', 'json'],
  labels: ['labels', 'json'],
  commercials: ['commercials', 'json'],
  watched: ['watched', 'bool'],
  favorited: ['favorited', 'bool'],
  delayed: ['delayed', 'bool'],
  cancelled: ['cancelled', 'bool'],
  corrupted: ['corrupted', 'bool'],
  completed: ['completed', 'bool'],
  processed: ['processed', 'bool'],
  locked: ['locked', 'bool'],
  verified: ['verified', 'bool'],
  last_watched_at: ['last_watched_at', 'int'],
};

const EPISODE_COLUMNS: ColumnMap = {
  ...COMMON_COLUMNS,
  show_id: ['show_id', 'text'],
  season_number: ['season_number', 'int'],
  episode_number: ['episode_number', 'int'],
  episode_title: ['title', 'text'],
  event_title: ['event_title', 'text'],
  original_air_date: ['original_air_date', 'text'],
  cast: ['cast_members', 'json'],
  directors: ['directors', 'json'],
};

const MOVIE_COLUMNS: ColumnMap = {
  ...COMMON_COLUMNS,
  title: ['title', 'text'],
  release_year: ['release_year', 'int'],
  release_date: ['release_date', 'text'],
  cast: ['cast_members', 'json'],
  directors: ['directors', 'json'],
};

const VIDEO_COLUMNS: ColumnMap = {
  ...COMMON_COLUMNS,
  video_group_id: ['video_group_id', 'text'],
  video_title: ['title', 'text'],
  season_number: ['season_number', 'int'],
  episode_number: ['episode_number', 'int'],
  original_air_date: ['original_air_date', 'text'],
};

export function upsertEpisode(db: Db, input: EpisodeInput): void {
  upsertRow(db, 'items', EPISODE_COLUMNS, { ...input }, { kind: 'episode' });
}

export function upsertMovie(db: Db, input: MovieInput): void {
  upsertRow(db, 'items', MOVIE_COLUMNS, { ...input }, { kind: 'movie' });
}

export function upsertVideo(db: Db, input: VideoInput): void {
  upsertRow(db, 'items', VIDEO_COLUMNS, { ...input }, { kind: 'video' });
}

/** What probing found: the item is processed, and corrupted when ffprobe could not read it. */
export function setProbeResults(
  db: Db,
  id: string,
  probe: { duration: number | null; tags: string[] | null; corrupted: boolean; updatedAt: number },
): void {
  statement(
    db,
    'UPDATE items SET duration = ?, tags = ?, corrupted = ?, processed = 1, updated_at = ? WHERE id = ?',
  ).run(
    probe.duration,
    probe.tags && probe.tags.length > 0 ? JSON.stringify(probe.tags) : null,
    probe.corrupted ? 1 : 0,
    probe.updatedAt,
    id,
  );
}

export interface ItemFileRow {
  id: string;
  kind: ItemKind;
  source: ItemSource;
  path: string | null;
  /**
   * An import: ffprobe could not read the file (it is not media), or, with `damaged`, it plays but is cut short. A
   * recording: damaged.
   */
  corrupted: 0 | 1;
  /** An import that plays but is cut short (import_files.damaged): it is served, up to `duration`. */
  damaged: 0 | 1;
  duration: number | null;
}

/** Kind, source, file and probe verdict of a playable item, or undefined for an unknown id. */
export function getItemFile(db: Db, id: string): ItemFileRow | undefined {
  return statement(
    db,
    `SELECT i.id, i.kind, i.source, i.path, i.corrupted, f.damaged IS NOT NULL AS damaged, i.duration
     FROM items i LEFT JOIN import_files f ON f.item_id = i.id WHERE i.id = ?`,
  ).get(id) as ItemFileRow | undefined;
}

/** Watch state as a player reports it; false when no such item. */
export function setWatchState(
  db: Db,
  id: string,
  state: { watched?: boolean; playbackTime?: number; lastWatchedAt: number | null; updatedAt: number },
): boolean {
  return (
    statement(
      db,
      `UPDATE items SET watched = coalesce(@watched, watched), playback_time = coalesce(@playback_time, playback_time),
         last_watched_at = coalesce(@last_watched_at, last_watched_at), updated_at = @updated_at WHERE id = @id`,
    ).run({
      id,
      watched: state.watched === undefined ? null : state.watched ? 1 : 0,
      playback_time: state.playbackTime ?? null,
      last_watched_at: state.lastWatchedAt,
      updated_at: state.updatedAt,
    }).changes > 0
  );
}

const ITEM_FLAG_COLUMNS: ColumnMap = {
  favorited: ['favorited', 'bool'],
  labels: ['labels', 'json'],
  locked: ['locked', 'bool'],
  verified: ['verified', 'bool'],
};

/** What a user sets on a playable item; false when there is none with this id. */
export function updateItemFlags(
  db: Db,
  id: string,
  fields: { favorited?: boolean; labels?: string[] | null; locked?: boolean; verified?: boolean },
): boolean {
  return updateRow(db, 'items', ITEM_FLAG_COLUMNS, id, fields);
}

/** False when there is no such item (removed meanwhile). */
export function setThumbnailUrl(db: Db, id: string, url: string | null): boolean {
  return statement(db, 'UPDATE items SET thumbnail_url = ? WHERE id = ?').run(url, id).changes > 0;
}

export function deleteItem(db: Db, id: string): boolean {
  return statement(db, 'DELETE FROM items WHERE id = ?').run(id).changes > 0;
}

/** Which items a list covers. */
export type ItemScope =
  | { kind: ItemKind }
  | { all: true }
  | { showId: string }
  | { videoGroupId: string }
  | { collectionId: string; collectionType: 'movies' | 'shows' }
  | { playlistId: string };

const JOIN_PARENTS = `LEFT JOIN shows s ON s.id = i.show_id LEFT JOIN video_groups g ON g.id = i.video_group_id`;

function scopeSql(scope: ItemScope): { from: string; terms: SqlFragment[] } {
  if ('kind' in scope) return { from: 'items i', terms: [{ sql: 'i.kind = ?', params: [scope.kind] }] };
  if ('all' in scope) return { from: 'items i', terms: [] };
  if ('showId' in scope) return { from: 'items i', terms: [{ sql: 'i.show_id = ?', params: [scope.showId] }] };
  if ('videoGroupId' in scope) {
    return { from: 'items i', terms: [{ sql: 'i.video_group_id = ?', params: [scope.videoGroupId] }] };
  }
  if ('playlistId' in scope) {
    return {
      from: 'playlist_items p JOIN items i ON i.id = p.item_id',
      terms: [{ sql: 'p.playlist_id = ?', params: [scope.playlistId] }],
    };
  }
  if (scope.collectionType === 'movies') {
    return {
      from: 'collection_movies cm JOIN items i ON i.id = cm.movie_id',
      terms: [{ sql: 'cm.collection_id = ?', params: [scope.collectionId] }],
    };
  }
  return {
    from: 'collection_shows cs JOIN items i ON i.show_id = cs.show_id',
    terms: [{ sql: 'cs.collection_id = ?', params: [scope.collectionId] }],
  };
}

/** How a list's items are written: all in one shape, or each kind in its own ('mixed'). */
export type ListShape = Exclude<ItemShape, 'content_movie'> | { mixed: MovieShape };

/**
 * A list as the JSON array bytes interface A sends: SQLite writes each item's JSON
 * (see item-projection.ts) in the list's order. `base` resolves server-relative image URLs.
 */
export function listItemsJson(
  db: Db,
  scope: ItemScope,
  filter: ItemFilter,
  sort: SortRequest<ItemSort>,
  fallback: ItemSort | DefaultItemOrder,
  shape: ListShape,
  base: string,
): Buffer {
  const { from, terms } = scopeSql(scope);
  const where = whereClause([...terms, ...itemFilterTerms(filter)]);
  const json = typeof shape === 'string' ? itemJsonSql(shape) : mixedItemJsonSql(shape.mixed);
  const sql = `SELECT i.id, CAST(${json} AS BLOB) FROM ${from} ${JOIN_PARENTS} ${where.sql} ${itemOrderBy(sort, fallback)}`;
  // Each row arrives as bytes, never as a JavaScript string, and is joined once at the end.
  const rows = statement(db, sql)
    .raw(true)
    .iterate({ base }, ...where.params) as Iterable<[string, Buffer]>;
  return describedArray(rows, {
    // Sorts never read item state; these filters do (an item may join or leave the list).
    patchable: filter.watched === undefined && filter.favorited === undefined && filter.verified === undefined,
    render: (id) =>
      statement(db, `SELECT CAST(${json} AS BLOB) FROM items i ${JOIN_PARENTS} WHERE i.id = @id`)
        .pluck()
        .get({ base, id }) as Buffer | undefined,
  });
}

/** One item's JSON bytes in the given shape, if an item of that kind has this id. */
export function getItemJson(
  db: Db,
  id: string,
  shape: Exclude<ItemShape, 'content_movie'>,
  base: string,
): Buffer | undefined {
  const kind: ItemKind = shape;
  const sql = `SELECT CAST(${itemJsonSql(shape)} AS BLOB) FROM items i ${JOIN_PARENTS} WHERE i.id = @id AND i.kind = @kind`;
  const render = (itemId: string) => statement(db, sql).pluck().get({ base, id: itemId, kind }) as Buffer | undefined;
  const body = render(id);
  return body && describeSegments(body, { ids: [id], starts: [0], ends: [body.length], patchable: true, render });
}

/**
 * `write`, which changes only item `id`'s state (watch state, favorite, labels, locked,
 * verified), logged as such so cached answers are patched rather than built again
 * (common/item-state-log.ts). Without a log it is an ordinary write.
 */
export function trackItemState<T>(
  db: Db,
  log: ItemStateLog | undefined,
  id: string,
  write: () => T,
  progress = false,
): T {
  if (!log) return write();
  // Its show or video group changes with it (last watched, unwatched count): answers holding those are patched too.
  const parents = statement(db, 'SELECT show_id, video_group_id FROM items WHERE id = ?').raw(true).get(id) as
    | [string | null, string | null]
    | undefined;
  const ids: string[] = [id];
  for (const parent of parents ?? []) if (parent !== null) ids.push(parent);
  return log.track(ids, () => totalChanges(db), write, progress);
}
