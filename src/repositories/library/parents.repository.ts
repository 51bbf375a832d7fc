/**
 * Shows and video groups: the parents of episodes and videos. They share one shape,
 * so one repository serves both; the derived counts are aggregated from `items` on
 * every read and never stored.
 */
import type { Db } from '../../db/database.js';
import { type ColumnMap, statement, updateRow, upsertRow } from '../../db/row-codec.js';
import type { ParentFilter, ParentSort, SortRequest } from '../../model/list-query.js';
import { parentOrderBy, whereClause, type SqlFragment } from '../list-sql.js';

export type ParentKind = 'show' | 'video_group';

interface ParentTable {
  table: 'shows' | 'video_groups';
  foreignKey: 'show_id' | 'video_group_id';
}

const TABLES: Record<ParentKind, ParentTable> = {
  show: { table: 'shows', foreignKey: 'show_id' },
  video_group: { table: 'video_groups', foreignKey: 'video_group_id' },
};

export interface ParentInput {
  id: string;
  name: string;
  summary?: string | null;
  image_url?: string | null;
  release_year?: number | null;
  release_date?: string | null;
  genres?: string[] | null;
  categories?: string[] | null;
  labels?: string[] | null;
  favorited?: boolean;
  created_at?: number;
  updated_at?: number;
}

export interface ShowInput extends ParentInput {
  cast?: string[] | null;
}

export interface ParentRow {
  id: string;
  name: string;
  summary: string | null;
  image_url: string | null;
  release_year: number | null;
  release_date: string | null;
  genres: string | null;
  categories: string | null;
  labels: string | null;
  cast_members?: string | null;
  favorited: number;
  created_at: number;
  updated_at: number;
  child_count: number;
  number_unwatched: number;
  last_watched_at: number | null;
  last_recorded_at: number | null;
}

const PARENT_COLUMNS: ColumnMap = {
  id: ['id', 'text'],
  name: ['name', 'text'],
  summary: ['summary', 'text'],
  image_url: ['image_url', 'text'],
  release_year: ['release_year', 'int'],
  release_date: ['release_date', 'text'],
  genres: ['genres', 'json'],
  categories: ['categories', 'json'],
  labels: ['labels', 'json'],
  favorited: ['favorited', 'bool'],
};

const SHOW_COLUMNS: ColumnMap = { ...PARENT_COLUMNS, cast: ['cast_members', 'json'] };

export function upsertShow(db: Db, input: ShowInput): void {
  upsertRow(db, 'shows', SHOW_COLUMNS, { ...input });
}

export function upsertVideoGroup(db: Db, input: ParentInput): void {
  upsertRow(db, 'video_groups', PARENT_COLUMNS, { ...input });
}

/** Deletes a show or video group and, through the foreign key, its episodes or videos. */
/** Favorite and labels of a show or video group; false when there is none with this id. */
export function updateParentFlags(
  db: Db,
  kind: ParentKind,
  id: string,
  fields: { favorited?: boolean; labels?: string[] | null },
): boolean {
  return updateRow(db, TABLES[kind].table, PARENT_FLAG_COLUMNS, id, fields);
}

const PARENT_FLAG_COLUMNS: ColumnMap = { favorited: ['favorited', 'bool'], labels: ['labels', 'json'] };

export function deleteParent(db: Db, kind: ParentKind, id: string): boolean {
  return statement(db, `DELETE FROM ${TABLES[kind].table} WHERE id = ?`).run(id).changes > 0;
}

function selectParents(kind: ParentKind, where: SqlFragment, having: string, orderBy: string): string {
  const { table, foreignKey } = TABLES[kind];
  return `SELECT t.*, count(i.id) AS child_count,
      coalesce(sum(i.watched = 0), 0) AS number_unwatched,
      max(i.last_watched_at) AS last_watched_at,
      max(CASE WHEN i.source = 'recordings' THEN i.created_at END) AS last_recorded_at
    FROM ${table} t LEFT JOIN items i ON i.${foreignKey} = t.id
    ${where.sql}
    GROUP BY t.id ${having}
    ${orderBy}`;
}

export function getParent(db: Db, kind: ParentKind, id: string): ParentRow | undefined {
  const where = { sql: 'WHERE t.id = ?', params: [id] };
  return statement(db, selectParents(kind, where, '', '')).get(...where.params) as ParentRow | undefined;
}

/** The shows or video groups with these ids, in the order given (unknown ids left out). */
export function getParentsByIds(db: Db, kind: ParentKind, ids: readonly string[]): ParentRow[] {
  if (ids.length === 0) return [];
  const where = { sql: 'WHERE t.id IN (SELECT value FROM json_each(?))', params: [JSON.stringify(ids)] };
  const rows = statement(db, selectParents(kind, where, '', '')).all(...where.params) as ParentRow[];
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export function listParents(
  db: Db,
  kind: ParentKind,
  filter: ParentFilter,
  sort: SortRequest<ParentSort>,
): ParentRow[] {
  const terms: SqlFragment[] = [];
  if (filter.favorited !== undefined) terms.push({ sql: 't.favorited = ?', params: [filter.favorited ? 1 : 0] });
  const where = whereClause(terms);
  // "watched" on a parent means every child watched, so it filters the aggregate.
  const having =
    filter.watched === undefined ? '' : filter.watched ? 'HAVING number_unwatched = 0' : 'HAVING number_unwatched > 0';
  return statement(db, selectParents(kind, where, having, parentOrderBy(sort))).all(...where.params) as ParentRow[];
}
