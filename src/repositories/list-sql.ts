/**
 * Interface A's list parameters (model/list-query.ts) turned into SQL fragments.
 * Pure: every fragment comes from the fixed tables below, never from request text;
 * values travel as bound parameters.
 */
import type { DefaultItemOrder, ItemFilter, ItemSort, Order, ParentSort, SortRequest } from '../model/list-query.js';

export interface SqlFragment {
  sql: string;
  params: unknown[];
}

interface SortKey {
  expressions: readonly string[];
  defaultOrder: Order;
  /** The expressions are never NULL (NOT NULL columns): no nulls-last term, so an index can serve the order. */
  notNull?: boolean;
}

/** Item columns are under alias `i`; the parent show `s`, the video group `g`, a playlist row `p`. */
const ITEM_SORT_KEYS: Record<ItemSort | DefaultItemOrder, SortKey> = {
  date_added: { expressions: ['i.created_at'], defaultOrder: 'desc', notNull: true },
  date_aired: { expressions: ['coalesce(i.original_air_date, i.release_date)'], defaultOrder: 'desc' },
  date_released: {
    expressions: ['coalesce(i.release_date, CAST(i.release_year AS TEXT))'],
    defaultOrder: 'desc',
  },
  title: {
    expressions: ["CASE i.kind WHEN 'episode' THEN s.name WHEN 'video' THEN g.name ELSE i.title END COLLATE NOCASE"],
    defaultOrder: 'asc',
  },
  alpha: { expressions: ['i.title COLLATE NOCASE'], defaultOrder: 'asc' },
  episode_title: {
    expressions: ["CASE WHEN i.kind = 'movie' THEN NULL ELSE i.title END COLLATE NOCASE"],
    defaultOrder: 'asc',
  },
  duration: { expressions: ['i.duration'], defaultOrder: 'desc' },
  natural: {
    expressions: ['i.season_number', 'i.episode_number', 'i.original_air_date', 'i.title COLLATE NOCASE'],
    defaultOrder: 'asc',
  },
  show_natural: {
    expressions: [
      "CASE i.kind WHEN 'episode' THEN s.name ELSE i.title END COLLATE NOCASE",
      'i.season_number',
      'i.episode_number',
      'i.original_air_date',
    ],
    defaultOrder: 'asc',
  },
  position: { expressions: ['p.position'], defaultOrder: 'asc', notNull: true },
};

/** Show and video group columns are under alias `t`. */
const PARENT_SORT_KEYS: Record<ParentSort, SortKey> = {
  alpha: { expressions: ['t.name COLLATE NOCASE'], defaultOrder: 'asc' },
  date_added: { expressions: ['t.created_at'], defaultOrder: 'desc', notNull: true },
  date_released: { expressions: ['coalesce(t.release_date, CAST(t.release_year AS TEXT))'], defaultOrder: 'desc' },
};

/**
 * ORDER BY for a key: missing values last in either direction, then ties broken by
 * `tieBreak` ascending, so equal keys always come back in the same order.
 */
function orderBy(key: SortKey, order: Order | undefined, tieBreak: string): string {
  const direction = (order ?? key.defaultOrder) === 'asc' ? 'ASC' : 'DESC';
  const terms = key.expressions.flatMap((expression) =>
    key.notNull ? [`${expression} ${direction}`] : [`(${expression}) IS NULL`, `${expression} ${direction}`],
  );
  return `ORDER BY ${[...terms, `${tieBreak} ASC`].join(', ')}`;
}

export function itemOrderBy(request: SortRequest<ItemSort>, fallback: ItemSort | DefaultItemOrder): string {
  return orderBy(ITEM_SORT_KEYS[request.sort ?? fallback], request.order, 'i.id');
}

export function parentOrderBy(request: SortRequest<ParentSort>): string {
  return orderBy(PARENT_SORT_KEYS[request.sort ?? 'alpha'], request.order, 't.id');
}

/** WHERE terms (joined with AND by the caller) for the item filters. */
export function itemFilterTerms(filter: ItemFilter): SqlFragment[] {
  const terms: SqlFragment[] = [];
  if (filter.watched !== undefined) terms.push({ sql: 'i.watched = ?', params: [filter.watched ? 1 : 0] });
  if (filter.favorited !== undefined) terms.push({ sql: 'i.favorited = ?', params: [filter.favorited ? 1 : 0] });
  if (filter.verified !== undefined) terms.push({ sql: 'i.verified = ?', params: [filter.verified ? 1 : 0] });
  if (filter.source !== undefined) terms.push({ sql: 'i.source = ?', params: [filter.source] });
  return terms;
}

/** Joins WHERE terms; an empty list matches everything. */
export function whereClause(terms: readonly SqlFragment[]): SqlFragment {
  if (terms.length === 0) return { sql: '', params: [] };
  return { sql: `WHERE ${terms.map((t) => `(${t.sql})`).join(' AND ')}`, params: terms.flatMap((t) => t.params) };
}
