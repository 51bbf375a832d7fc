/**
 * Database rows to interface A resources (playable items excepted: SQLite writes
 * their JSON, see item-projection.ts). Null columns are left out of the object
 * (the specification omits null properties), 0/1 become booleans, JSON columns
 * become arrays, and server-relative image paths become absolute URLs.
 */
import type { ChannelRow } from '../repositories/dvr/channels.repository.js';
import type { CollectionRow, PlaylistRow } from '../repositories/library/collections.repository.js';
import type { Channel, Collection, Playlist, Show, VideoGroup } from '../model/library/library.schemas.js';
import type { ParentRow } from '../repositories/library/parents.repository.js';

export interface MapContext {
  /** Absolute base such as `http://tv.local:8089`, without a trailing slash. */
  baseUrl: string;
}

type Out = Record<string, unknown>;

function scalar(out: Out, key: string, value: string | number | null): void {
  if (value !== null) out[key] = value;
}

function list(out: Out, key: string, json: string | null): void {
  if (json !== null) out[key] = JSON.parse(json);
}

function flag(out: Out, key: string, value: number): void {
  out[key] = value === 1;
}

/** Stored URLs that start with `/` point at this server. */
export function resolveUrl(value: string, context: MapContext): string {
  return value.startsWith('/') ? context.baseUrl + value : value;
}

function url(out: Out, key: string, value: string | null, context: MapContext): void {
  if (value !== null) out[key] = resolveUrl(value, context);
}

function parentFields(row: ParentRow, context: MapContext): Out {
  const out: Out = { id: row.id, name: row.name };
  scalar(out, 'summary', row.summary);
  url(out, 'image_url', row.image_url, context);
  scalar(out, 'release_year', row.release_year);
  scalar(out, 'release_date', row.release_date);
  list(out, 'genres', row.genres);
  list(out, 'categories', row.categories);
  list(out, 'labels', row.labels);
  return out;
}

function parentTail(out: Out, row: ParentRow): void {
  out.number_unwatched = row.number_unwatched;
  flag(out, 'favorited', row.favorited);
  scalar(out, 'last_watched_at', row.last_watched_at);
}

export function toShow(row: ParentRow, context: MapContext): Show {
  const out = parentFields(row, context);
  list(out, 'cast', row.cast_members ?? null);
  out.episode_count = row.child_count;
  parentTail(out, row);
  scalar(out, 'last_recorded_at', row.last_recorded_at);
  out.created_at = row.created_at;
  out.updated_at = row.updated_at;
  return out as Show;
}

export function toVideoGroup(row: ParentRow, context: MapContext): VideoGroup {
  const out = parentFields(row, context);
  out.video_count = row.child_count;
  parentTail(out, row);
  out.created_at = row.created_at;
  out.updated_at = row.updated_at;
  return out as VideoGroup;
}

export function toCollection(row: CollectionRow, context: MapContext): Collection {
  const out: Out = { id: row.id, collection_type: row.collection_type, name: row.name };
  url(out, 'image_url', row.image_url, context);
  list(out, 'labels', row.labels);
  out.content_count = row.content_count;
  scalar(out, 'last_watched_at', row.last_watched_at);
  out.created_at = row.created_at;
  out.updated_at = row.updated_at;
  return out as Collection;
}

export function toPlaylist(row: PlaylistRow): Playlist {
  const out: Out = { id: row.id, name: row.name };
  list(out, 'labels', row.labels);
  out.content_count = row.content_count;
  scalar(out, 'last_watched_at', row.last_watched_at);
  out.created_at = row.created_at;
  out.updated_at = row.updated_at;
  return out as Playlist;
}

export function toChannel(row: ChannelRow, context: MapContext): Channel {
  const out: Out = { id: row.id, number: row.number, name: row.name };
  scalar(out, 'call_sign', row.call_sign);
  url(out, 'image_url', row.image_url, context);
  flag(out, 'hd', row.hd);
  flag(out, 'favorited', row.favorited);
  return out as Channel;
}
