/**
 * Interface A's list parameters: the filters, sorts and orders a list accepts, as
 * values and types. The API parses requests into these; repositories/list-sql.ts turns
 * them into SQL.
 */

export type Order = 'asc' | 'desc';
export type Source = 'recordings' | 'imports';

export const PARENT_SORTS = ['alpha', 'date_added', 'date_released'] as const;
export const ITEM_SORTS = ['date_added', 'date_aired', 'title', 'episode_title', 'duration'] as const;
export const MOVIE_SORTS = ['alpha', 'date_added', 'date_released', 'duration'] as const;
export const ORDERS = ['asc', 'desc'] as const;
export const SOURCES = ['recordings', 'imports'] as const;
export const COLLECTION_TYPES = ['movies', 'shows'] as const;

export type ParentSort = (typeof PARENT_SORTS)[number];
export type ItemSort = (typeof ITEM_SORTS)[number] | (typeof MOVIE_SORTS)[number];
/** Orders an endpoint uses when the client names none; not accepted from clients. */
export type DefaultItemOrder = 'natural' | 'show_natural' | 'position';

export interface ItemFilter {
  watched?: boolean;
  favorited?: boolean;
  verified?: boolean;
  source?: Source;
}

export interface ParentFilter {
  /** true: every episode/video watched (vacuously true with none); false: at least one unwatched. */
  watched?: boolean;
  favorited?: boolean;
}

export interface SortRequest<S extends string> {
  sort?: S | undefined;
  order?: Order | undefined;
}

/** "true"/"false" query values to booleans; undefined stays undefined. */
export function parseBooleanParam(value: 'true' | 'false' | undefined): boolean | undefined {
  return value === undefined ? undefined : value === 'true';
}
