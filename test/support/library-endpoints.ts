/**
 * Interface A's routes and the query parameters each one accepts, written from the
 * specification and the compatibility notes (not read from the code under test),
 * with an id from the seed library for each route that takes one.
 */

export const BOOLEAN_VALUES = ['true', 'false'] as const;
export const ORDER_VALUES = ['asc', 'desc'] as const;
export const SOURCE_VALUES = ['recordings', 'imports'] as const;
export const COLLECTION_TYPE_VALUES = ['movies', 'shows'] as const;
export const PARENT_SORT_VALUES = ['alpha', 'date_added', 'date_released'] as const;
export const ITEM_SORT_VALUES = ['date_added', 'date_aired', 'title', 'episode_title', 'duration'] as const;
export const MOVIE_SORT_VALUES = ['alpha', 'date_added', 'date_released', 'duration'] as const;

export type ParamTable = Readonly<Record<string, readonly string[]>>;

const PARENT_PARAMS: ParamTable = {
  watched: BOOLEAN_VALUES,
  favorited: BOOLEAN_VALUES,
  sort: PARENT_SORT_VALUES,
  order: ORDER_VALUES,
};
const ITEM_PARAMS: ParamTable = {
  watched: BOOLEAN_VALUES,
  favorited: BOOLEAN_VALUES,
  verified: BOOLEAN_VALUES,
  source: SOURCE_VALUES,
  sort: ITEM_SORT_VALUES,
  order: ORDER_VALUES,
};
const VIDEO_PARAMS: ParamTable = {
  watched: BOOLEAN_VALUES,
  favorited: BOOLEAN_VALUES,
  verified: BOOLEAN_VALUES,
  sort: ITEM_SORT_VALUES,
  order: ORDER_VALUES,
};
const MOVIE_PARAMS: ParamTable = { ...ITEM_PARAMS, sort: MOVIE_SORT_VALUES };

export interface RouteInfo {
  /** The route as registered, with `:id` for the path parameter. */
  route: string;
  /** An id that exists in the seed library, for routes with `:id`. */
  sampleId?: string;
  /** Query parameters the route accepts, with their allowed values. */
  params: ParamTable;
}

export const ROUTES: readonly RouteInfo[] = [
  { route: '/api/v1/shows', params: PARENT_PARAMS },
  { route: '/api/v1/shows/:id', sampleId: 'show-a', params: {} },
  { route: '/api/v1/shows/:id/episodes', sampleId: 'show-b', params: ITEM_PARAMS },
  { route: '/api/v1/episodes', params: ITEM_PARAMS },
  { route: '/api/v1/episodes/:id', sampleId: 'ep-a1', params: {} },
  { route: '/api/v1/movies', params: MOVIE_PARAMS },
  { route: '/api/v1/movies/:id', sampleId: 'mov-1', params: {} },
  { route: '/api/v1/video_groups', params: PARENT_PARAMS },
  { route: '/api/v1/video_groups/:id', sampleId: 'videos-0a1b2c3d', params: {} },
  { route: '/api/v1/video_groups/:id/videos', sampleId: 'videos-0a1b2c3d', params: VIDEO_PARAMS },
  { route: '/api/v1/videos', params: VIDEO_PARAMS },
  { route: '/api/v1/videos/:id', sampleId: 'vid-1', params: {} },
  { route: '/api/v1/collections', params: { collection_type: COLLECTION_TYPE_VALUES } },
  { route: '/api/v1/collections/:id', sampleId: 'col-movies', params: {} },
  { route: '/api/v1/collections/:id/content', sampleId: 'col-shows', params: ITEM_PARAMS },
  { route: '/api/v1/playlists', params: {} },
  { route: '/api/v1/playlists/:id', sampleId: 'pl-mix', params: {} },
  { route: '/api/v1/playlists/:id/content', sampleId: 'pl-mix', params: ITEM_PARAMS },
  { route: '/api/v1/jobs', params: {} },
  { route: '/api/v1/jobs/:id', sampleId: '1700000000-12', params: {} },
  // Beyond the specification, called by real clients (compatibility notes).
  { route: '/api/v1/all', params: ITEM_PARAMS },
  { route: '/api/v1/channels', params: {} },
];

export const ID_ROUTES = ROUTES.filter((r) => r.route.includes(':id'));

/** The route's path with `rawId` (already encoded as the caller wants it) in place of `:id`. */
export function pathFor(route: RouteInfo, rawId?: string): string {
  return route.route.replace(':id', rawId ?? route.sampleId ?? '');
}

/** The route in OpenAPI form: `/api/v1/shows/{id}`. */
export function openApiPath(route: RouteInfo): string {
  return route.route.replace(':id', '{id}');
}
