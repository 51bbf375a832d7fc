/**
 * Collections (a set of movies or of shows) and playlists (an ordered list of any
 * playable items). Counts and last-watched times are aggregated on read.
 */
import type { Db } from '../../db/database.js';
import { MembershipError } from '../../common/errors.js';
import { type ColumnMap, statement, updateRow, upsertRow } from '../../db/row-codec.js';

export type CollectionType = 'movies' | 'shows';

export interface CollectionInput {
  id: string;
  collection_type: CollectionType;
  name: string;
  image_url?: string | null;
  labels?: string[] | null;
  created_at?: number;
  updated_at?: number;
}

export interface PlaylistInput {
  id: string;
  name: string;
  labels?: string[] | null;
  created_at?: number;
  updated_at?: number;
}

export interface CollectionRow {
  id: string;
  collection_type: CollectionType;
  name: string;
  image_url: string | null;
  labels: string | null;
  content_count: number;
  last_watched_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface PlaylistRow {
  id: string;
  name: string;
  labels: string | null;
  content_count: number;
  last_watched_at: number | null;
  created_at: number;
  updated_at: number;
}

const COLLECTION_COLUMNS: ColumnMap = {
  id: ['id', 'text'],
  collection_type: ['collection_type', 'text'],
  name: ['name', 'text'],
  image_url: ['image_url', 'text'],
  labels: ['labels', 'json'],
};

const PLAYLIST_COLUMNS: ColumnMap = {
  id: ['id', 'text'],
  name: ['name', 'text'],
  labels: ['labels', 'json'],
};

export function upsertCollection(db: Db, input: CollectionInput): void {
  upsertRow(db, 'collections', COLLECTION_COLUMNS, { ...input });
}

export function deleteCollection(db: Db, id: string): boolean {
  return statement(db, 'DELETE FROM collections WHERE id = ?').run(id).changes > 0;
}

/** Adds a show to a shows collection, or a movie to a movies collection; adding twice is a no-op. */
export function addCollectionMember(db: Db, collectionId: string, memberId: string): void {
  const type = statement(db, 'SELECT collection_type FROM collections WHERE id = ?').pluck().get(collectionId) as
    | CollectionType
    | undefined;
  if (type === undefined) throw new MembershipError(`No collection with id '${collectionId}'.`);
  if (type === 'shows') {
    if (!statement(db, 'SELECT 1 FROM shows WHERE id = ?').get(memberId)) {
      throw new MembershipError(`A shows collection holds shows; '${memberId}' is not a show.`);
    }
    statement(db, 'INSERT OR IGNORE INTO collection_shows (collection_id, show_id) VALUES (?, ?)').run(
      collectionId,
      memberId,
    );
  } else {
    if (!statement(db, "SELECT 1 FROM items WHERE id = ? AND kind = 'movie'").get(memberId)) {
      throw new MembershipError(`A movies collection holds movies; '${memberId}' is not a movie.`);
    }
    statement(db, 'INSERT OR IGNORE INTO collection_movies (collection_id, movie_id) VALUES (?, ?)').run(
      collectionId,
      memberId,
    );
  }
  touch(db, 'collections', collectionId);
}

export function removeCollectionMember(db: Db, collectionId: string, memberId: string): boolean {
  const removed =
    statement(db, 'DELETE FROM collection_shows WHERE collection_id = ? AND show_id = ?').run(collectionId, memberId)
      .changes +
    statement(db, 'DELETE FROM collection_movies WHERE collection_id = ? AND movie_id = ?').run(collectionId, memberId)
      .changes;
  if (removed > 0) touch(db, 'collections', collectionId);
  return removed > 0;
}

// The content of a shows collection is the episodes of its shows, so that is what it counts.
const SELECT_COLLECTION = `SELECT c.*,
    CASE c.collection_type
      WHEN 'movies' THEN (SELECT count(*) FROM collection_movies cm WHERE cm.collection_id = c.id)
      ELSE (SELECT count(*) FROM collection_shows cs JOIN items i ON i.show_id = cs.show_id WHERE cs.collection_id = c.id)
    END AS content_count,
    CASE c.collection_type
      WHEN 'movies' THEN (SELECT max(i.last_watched_at) FROM collection_movies cm JOIN items i ON i.id = cm.movie_id
                          WHERE cm.collection_id = c.id)
      ELSE (SELECT max(i.last_watched_at) FROM collection_shows cs JOIN items i ON i.show_id = cs.show_id
            WHERE cs.collection_id = c.id)
    END AS last_watched_at
  FROM collections c`;

export function getCollection(db: Db, id: string): CollectionRow | undefined {
  return statement(db, `${SELECT_COLLECTION} WHERE c.id = ?`).get(id) as CollectionRow | undefined;
}

export function listCollections(db: Db, type?: CollectionType): CollectionRow[] {
  const order = 'ORDER BY c.name COLLATE NOCASE ASC, c.id ASC';
  if (type === undefined) return statement(db, `${SELECT_COLLECTION} ${order}`).all() as CollectionRow[];
  return statement(db, `${SELECT_COLLECTION} WHERE c.collection_type = ? ${order}`).all(type) as CollectionRow[];
}

export function upsertPlaylist(db: Db, input: PlaylistInput): void {
  upsertRow(db, 'playlists', PLAYLIST_COLUMNS, { ...input });
}

export function deletePlaylist(db: Db, id: string): boolean {
  return statement(db, 'DELETE FROM playlists WHERE id = ?').run(id).changes > 0;
}

/** Appends items at the end of a playlist, in the order given, in one transaction. */
export function appendPlaylistItems(db: Db, playlistId: string, itemIds: readonly string[]): void {
  db.transaction(() => {
    const last = statement(db, 'SELECT coalesce(max(position), -1) FROM playlist_items WHERE playlist_id = ?')
      .pluck()
      .get(playlistId) as number;
    const insert = statement(db, 'INSERT INTO playlist_items (playlist_id, position, item_id) VALUES (?, ?, ?)');
    itemIds.forEach((itemId, index) => insert.run(playlistId, last + 1 + index, itemId));
    touch(db, 'playlists', playlistId);
  }).immediate();
}

/** Replaces a playlist's whole content with `itemIds`, in that order. */
export function setPlaylistItems(db: Db, playlistId: string, itemIds: readonly string[]): void {
  db.transaction(() => {
    statement(db, 'DELETE FROM playlist_items WHERE playlist_id = ?').run(playlistId);
    appendPlaylistItems(db, playlistId, itemIds);
  }).immediate();
}

const SELECT_PLAYLIST = `SELECT pl.*,
    (SELECT count(*) FROM playlist_items p WHERE p.playlist_id = pl.id) AS content_count,
    (SELECT max(i.last_watched_at) FROM playlist_items p JOIN items i ON i.id = p.item_id
      WHERE p.playlist_id = pl.id) AS last_watched_at
  FROM playlists pl`;

export function getPlaylist(db: Db, id: string): PlaylistRow | undefined {
  return statement(db, `${SELECT_PLAYLIST} WHERE pl.id = ?`).get(id) as PlaylistRow | undefined;
}

export function listPlaylists(db: Db): PlaylistRow[] {
  return statement(db, `${SELECT_PLAYLIST} ORDER BY pl.name COLLATE NOCASE ASC, pl.id ASC`).all() as PlaylistRow[];
}

/** Renames, re-images or relabels a collection; false when there is none with this id. */
export function updateCollection(
  db: Db,
  id: string,
  fields: { name?: string; image_url?: string | null; labels?: string[] | null },
): boolean {
  return updateRow(db, 'collections', COLLECTION_COLUMNS, id, fields);
}

export function updatePlaylist(db: Db, id: string, fields: { name?: string; labels?: string[] | null }): boolean {
  return updateRow(db, 'playlists', PLAYLIST_COLUMNS, id, fields);
}

/** A playlist's item ids in order. */
export function playlistItemIds(db: Db, playlistId: string): string[] {
  return statement(db, 'SELECT item_id FROM playlist_items WHERE playlist_id = ? ORDER BY position')
    .pluck()
    .all(playlistId) as string[];
}

/** The ids in `ids` that name no playable item. */
export function unknownItemIds(db: Db, ids: readonly string[]): string[] {
  return statement(db, 'SELECT value FROM json_each(?) WHERE value NOT IN (SELECT id FROM items)')
    .pluck()
    .all(JSON.stringify(ids)) as string[];
}

function touch(db: Db, table: 'collections' | 'playlists', id: string): void {
  statement(db, `UPDATE ${table} SET updated_at = ? WHERE id = ?`).run(Date.now(), id);
}
