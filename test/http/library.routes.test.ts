/**
 * Interface A over HTTP (app.inject) on a real, seeded SQLite library: payloads,
 * filters, sorting, null omission, types, URLs, errors, methods, conditional GETs,
 * compression, CORS, the OpenAPI document and /status.
 *
 * Expected orders and filter results are computed from the seed's inputs with a
 * small reference model written from the specification and compatibility notes,
 * and cross-checked by hand-written expectations.
 */
import Database from 'better-sqlite3';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasePath } from '../../src/db/database.js';
import { upsertCollection } from '../../src/repositories/library/collections.repository.js';
import { upsertEpisode, upsertMovie } from '../../src/repositories/library/items.repository.js';
import { upsertShow } from '../../src/repositories/library/parents.repository.js';
import {
  ID_ROUTES,
  ITEM_SORT_VALUES,
  MOVIE_SORT_VALUES,
  ORDER_VALUES,
  PARENT_SORT_VALUES,
  ROUTES,
  type RouteInfo,
  openApiPath,
  pathFor,
} from '../support/library-endpoints.js';
import {
  BASE_TIME as T,
  CHANNELS,
  COLLECTIONS,
  COLLECTION_MEMBERS,
  EPISODES,
  JOBS,
  MOVIES,
  PLAYLISTS,
  PLAYLIST_ITEMS,
  SHOWS,
  VIDEOS,
  VIDEO_GROUPS,
  seedLibrary,
} from '../support/seed-library.js';
import { type TempLibrary, buildTestApp, createTempLibrary } from '../support/temp-library.js';

type Json = Record<string, unknown>;
type Response = LightMyRequestResponse;

const HOST = 'tv.local:8089';
const BASE = `http://${HOST}`;

let temp: TempLibrary;
let app: FastifyInstance;

beforeAll(async () => {
  temp = createTempLibrary();
  seedLibrary(temp.db);
  app = await buildTestApp(temp);
});

afterAll(async () => {
  await app.close();
  temp.close();
});

function get(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return app.inject({ method: 'GET', url, headers: { host: HOST, ...headers } });
}

async function getJson<T = Json>(url: string, headers: Record<string, string> = {}): Promise<T> {
  const res = await get(url, headers);
  expect(res.statusCode, `GET ${url}: ${res.body.slice(0, 300)}`).toBe(200);
  return res.json<T>();
}

async function ids(url: string): Promise<string[]> {
  return (await getJson<Json[]>(url)).map((item) => String(item.id));
}

/** A failure list short enough to read: the first few, then how many more. */
function summary(failures: readonly string[]): string[] {
  return failures.length <= 4 ? [...failures] : [...failures.slice(0, 4), `... and ${failures.length - 4} more`];
}

/** Every path in a JSON value where the value is null. */
function nullPaths(value: unknown, path = '$'): string[] {
  if (value === null) return [path];
  if (Array.isArray(value)) return value.flatMap((member, i) => nullPaths(member, `${path}[${i}]`));
  if (typeof value === 'object')
    return Object.entries(value).flatMap(([key, member]) => nullPaths(member, `${path}.${key}`));
  return [];
}

// ---------------------------------------------------------------------------
// Reference model of the seed, from its inputs.

type Key = string | number | null;
type Order = 'asc' | 'desc';

interface RefItem {
  id: string;
  kind: 'episode' | 'movie' | 'video';
  source: 'recordings' | 'imports';
  watched: boolean;
  favorited: boolean;
  verified: boolean;
  created_at: number;
  duration: number | null;
  original_air_date: string | null;
  release_date: string | null;
  release_year: number | null;
  own_title: string | null;
  parent_id: string | null;
  parent_name: string | null;
  season: number | null;
  episode: number | null;
}

interface RefParent {
  id: string;
  name: string;
  favorited: boolean;
  created_at: number;
  release_date: string | null;
  release_year: number | null;
  children: RefItem[];
}

const showName = (id: string) => SHOWS.find((s) => s.id === id)?.name ?? null;
const groupName = (id: string) => VIDEO_GROUPS.find((g) => g.id === id)?.name ?? null;

const REF_ITEMS: RefItem[] = [
  ...EPISODES.map(
    (e): RefItem => ({
      id: e.id,
      kind: 'episode',
      source: e.source,
      watched: e.watched ?? false,
      favorited: e.favorited ?? false,
      verified: e.verified ?? false,
      created_at: e.created_at ?? 0,
      duration: e.duration ?? null,
      original_air_date: e.original_air_date ?? null,
      release_date: null,
      release_year: null,
      own_title: e.episode_title ?? null,
      parent_id: e.show_id,
      parent_name: showName(e.show_id),
      season: e.season_number ?? null,
      episode: e.episode_number ?? null,
    }),
  ),
  ...MOVIES.map(
    (m): RefItem => ({
      id: m.id,
      kind: 'movie',
      source: m.source,
      watched: m.watched ?? false,
      favorited: m.favorited ?? false,
      verified: m.verified ?? false,
      created_at: m.created_at ?? 0,
      duration: m.duration ?? null,
      original_air_date: null,
      release_date: m.release_date ?? null,
      release_year: m.release_year ?? null,
      own_title: m.title,
      parent_id: null,
      parent_name: null,
      season: null,
      episode: null,
    }),
  ),
  ...VIDEOS.map(
    (v): RefItem => ({
      id: v.id,
      kind: 'video',
      source: v.source,
      watched: v.watched ?? false,
      favorited: v.favorited ?? false,
      verified: v.verified ?? false,
      created_at: v.created_at ?? 0,
      duration: v.duration ?? null,
      original_air_date: v.original_air_date ?? null,
      release_date: null,
      release_year: null,
      own_title: v.video_title ?? null,
      parent_id: v.video_group_id,
      parent_name: groupName(v.video_group_id),
      season: v.season_number ?? null,
      episode: v.episode_number ?? null,
    }),
  ),
];

const refItem = (id: string): RefItem => {
  const item = REF_ITEMS.find((i) => i.id === id);
  if (!item) throw new Error(`no seed item ${id}`);
  return item;
};

const toParent = (p: (typeof SHOWS)[number], kind: 'episode' | 'video'): RefParent => ({
  id: p.id,
  name: p.name,
  favorited: p.favorited ?? false,
  created_at: p.created_at ?? 0,
  release_date: p.release_date ?? null,
  release_year: p.release_year ?? null,
  children: REF_ITEMS.filter((i) => i.kind === kind && i.parent_id === p.id),
});
const REF_SHOWS = SHOWS.map((s) => toParent(s, 'episode'));
const REF_GROUPS = VIDEO_GROUPS.map((g) => toParent(g, 'video'));

/** Sorted by the keys in one direction, missing values last either way, ties by id ascending. */
function ordered<R extends { id: string }>(rows: readonly R[], keys: readonly ((row: R) => Key)[], order: Order): R[] {
  const dir = order === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    for (const key of keys) {
      const x = key(a);
      const y = key(b);
      if (x === null || y === null) {
        if (x !== y) return x === null ? 1 : -1;
        continue;
      }
      if (x < y) return -dir;
      if (x > y) return dir;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}

const lower = (s: string | null) => (s === null ? null : s.toLowerCase());
const releasedKey = (r: { release_date: string | null; release_year: number | null }) =>
  r.release_date ?? (r.release_year === null ? null : String(r.release_year));

const ITEM_SORT_KEYS: Record<string, (r: RefItem) => Key> = {
  date_added: (r) => r.created_at,
  // A movie has no air date; its release date stands in.
  date_aired: (r) => (r.kind === 'movie' ? r.release_date : r.original_air_date),
  // Episodes sort by their show's name and videos by their group's (their payload `title`).
  title: (r) => lower(r.kind === 'movie' ? r.own_title : r.parent_name),
  episode_title: (r) => (r.kind === 'movie' ? null : lower(r.own_title)),
  duration: (r) => r.duration,
};
const MOVIE_SORT_KEYS: Record<string, (r: RefItem) => Key> = {
  alpha: (r) => lower(r.own_title),
  date_added: (r) => r.created_at,
  date_released: releasedKey,
  duration: (r) => r.duration,
};
const PARENT_SORT_KEYS: Record<string, (r: RefParent) => Key> = {
  alpha: (r) => lower(r.name),
  date_added: (r) => r.created_at,
  date_released: releasedKey,
};
/** Direction when a sort is given without an order: dates and durations newest/longest first, names A to Z. */
const DEFAULT_DIRECTION: Record<string, Order> = {
  date_added: 'desc',
  date_aired: 'desc',
  date_released: 'desc',
  duration: 'desc',
  title: 'asc',
  episode_title: 'asc',
  alpha: 'asc',
};

const naturalOrder = (rows: RefItem[]) =>
  ordered(rows, [(r) => r.season, (r) => r.episode, (r) => r.original_air_date, (r) => lower(r.own_title)], 'asc');
const showNaturalOrder = (rows: RefItem[]) =>
  ordered(
    rows,
    [
      (r) => lower(r.kind === 'episode' ? r.parent_name : r.own_title),
      (r) => r.season,
      (r) => r.episode,
      (r) => r.original_air_date,
    ],
    'asc',
  );

function itemMatches(r: RefItem, name: string, value: string): boolean {
  if (name === 'source') return r.source === value;
  const flag = name === 'watched' ? r.watched : name === 'favorited' ? r.favorited : r.verified;
  return flag === (value === 'true');
}

function parentMatches(r: RefParent, name: string, value: string): boolean {
  // watched=true on a parent: every child watched (vacuously true with none); false: some unwatched.
  if (name === 'watched') return r.children.every((c) => c.watched) === (value === 'true');
  return r.favorited === (value === 'true');
}

interface ItemList {
  url: string;
  rows: () => RefItem[];
  sortKeys: Record<string, (r: RefItem) => Key>;
  filters: Record<string, readonly string[]>;
  defaultOrder: (rows: RefItem[]) => RefItem[];
}

const BOOL = ['true', 'false'] as const;
const ITEM_FILTERS = { watched: BOOL, favorited: BOOL, verified: BOOL, source: ['recordings', 'imports'] } as const;
const VIDEO_FILTERS = { watched: BOOL, favorited: BOOL, verified: BOOL } as const;
const byDateAddedDesc = (rows: RefItem[]) => ordered(rows, [(r) => r.created_at], 'desc');
const byShowEpisodes = (show: string) => () => REF_ITEMS.filter((i) => i.kind === 'episode' && i.parent_id === show);

const ITEM_LISTS: ItemList[] = [
  {
    url: '/api/v1/episodes',
    rows: () => REF_ITEMS.filter((i) => i.kind === 'episode'),
    sortKeys: ITEM_SORT_KEYS,
    filters: ITEM_FILTERS,
    defaultOrder: byDateAddedDesc,
  },
  ...['show-a', 'show-b', 'show-d'].map(
    (show): ItemList => ({
      url: `/api/v1/shows/${show}/episodes`,
      rows: byShowEpisodes(show),
      sortKeys: ITEM_SORT_KEYS,
      filters: ITEM_FILTERS,
      defaultOrder: naturalOrder,
    }),
  ),
  {
    url: '/api/v1/movies',
    rows: () => REF_ITEMS.filter((i) => i.kind === 'movie'),
    sortKeys: MOVIE_SORT_KEYS,
    filters: ITEM_FILTERS,
    defaultOrder: (rows) => ordered(rows, [MOVIE_SORT_KEYS.alpha ?? (() => null)], 'asc'),
  },
  {
    url: '/api/v1/videos',
    rows: () => REF_ITEMS.filter((i) => i.kind === 'video'),
    sortKeys: ITEM_SORT_KEYS,
    filters: VIDEO_FILTERS,
    defaultOrder: byDateAddedDesc,
  },
  {
    url: '/api/v1/video_groups/videos-0a1b2c3d/videos',
    rows: () => REF_ITEMS.filter((i) => i.parent_id === 'videos-0a1b2c3d'),
    sortKeys: ITEM_SORT_KEYS,
    filters: VIDEO_FILTERS,
    defaultOrder: naturalOrder,
  },
  {
    url: '/api/v1/all',
    rows: () => [...REF_ITEMS],
    sortKeys: ITEM_SORT_KEYS,
    filters: ITEM_FILTERS,
    defaultOrder: byDateAddedDesc,
  },
  {
    url: '/api/v1/collections/col-movies/content',
    rows: () => (COLLECTION_MEMBERS['col-movies'] ?? []).map(refItem),
    sortKeys: ITEM_SORT_KEYS,
    filters: ITEM_FILTERS,
    // A movies collection: by title.
    defaultOrder: (rows) => ordered(rows, [(r) => lower(r.own_title)], 'asc'),
  },
  {
    url: '/api/v1/collections/col-shows/content',
    rows: () =>
      REF_ITEMS.filter(
        (i) => i.kind === 'episode' && (COLLECTION_MEMBERS['col-shows'] ?? []).includes(i.parent_id ?? ''),
      ),
    sortKeys: ITEM_SORT_KEYS,
    filters: ITEM_FILTERS,
    // A shows collection: by show name, then season and episode.
    defaultOrder: showNaturalOrder,
  },
  {
    url: '/api/v1/playlists/pl-mix/content',
    rows: () => (PLAYLIST_ITEMS['pl-mix'] ?? []).map(refItem),
    sortKeys: ITEM_SORT_KEYS,
    filters: ITEM_FILTERS,
    // The playlist's own order (filtering keeps it).
    defaultOrder: (rows) => rows,
  },
];

interface ParentList {
  url: string;
  rows: RefParent[];
}
const PARENT_LISTS: ParentList[] = [
  { url: '/api/v1/shows', rows: REF_SHOWS },
  { url: '/api/v1/video_groups', rows: REF_GROUPS },
];

const idsOf = (rows: readonly { id: string }[]) => rows.map((r) => r.id);
const withQuery = (url: string, query: string) => (query ? `${url}?${query}` : url);

// ---------------------------------------------------------------------------

describe('the reference model agrees with hand-checked orders', () => {
  // Guards the model itself: if these fail, fix the model, not the server.
  it('shows', () => {
    expect(idsOf(ordered(REF_SHOWS, [(r) => lower(r.name)], 'asc'))).toEqual([
      'show-a',
      'show-b',
      'show-e',
      'show-c',
      'show-d',
    ]);
    expect(idsOf(ordered(REF_SHOWS, [(r) => lower(r.name)], 'desc'))).toEqual([
      'show-d',
      'show-c',
      'show-b',
      'show-e',
      'show-a',
    ]);
    expect(idsOf(ordered(REF_SHOWS, [(r) => r.created_at], 'desc'))).toEqual([
      'show-d',
      'show-b',
      'show-c',
      'show-a',
      'show-e',
    ]);
    expect(idsOf(ordered(REF_SHOWS, [releasedKey], 'asc'))).toEqual(['show-a', 'show-d', 'show-b', 'show-e', 'show-c']);
    expect(idsOf(REF_SHOWS.filter((s) => parentMatches(s, 'watched', 'true')))).toEqual(['show-a', 'show-c', 'show-e']);
  });

  it('items', () => {
    const movies = REF_ITEMS.filter((i) => i.kind === 'movie');
    expect(idsOf(ordered(movies, [(r) => r.duration], 'asc'))).toEqual(['mov-2', 'mov-1', 'mov-4', 'mov-3']);
    expect(idsOf(ordered(movies, [(r) => r.duration], 'desc'))).toEqual(['mov-1', 'mov-4', 'mov-2', 'mov-3']);
    expect(idsOf(byDateAddedDesc(REF_ITEMS.filter((i) => i.kind === 'episode')))).toEqual([
      'ep-d2',
      'ep-d1',
      'ep-b1',
      'ep-b2',
      'ep-a2',
      'ep-a1',
      'ep-b3',
      'ep-e1',
    ]);
    expect(idsOf(naturalOrder(byShowEpisodes('show-d')()))).toEqual(['ep-d1', 'ep-d2']);
    expect(idsOf(showNaturalOrder(ITEM_LISTS.find((l) => l.url.includes('col-shows'))?.rows() ?? []))).toEqual([
      'ep-a1',
      'ep-a2',
      'ep-b1',
      'ep-b2',
      'ep-b3',
    ]);
  });
});

describe('default orders', () => {
  it.each<[string, string[]]>([
    ['/api/v1/shows', ['show-a', 'show-b', 'show-e', 'show-c', 'show-d']],
    ['/api/v1/video_groups', ['videos-ffee99', 'videos-0a1b2c3d', 'videos-00aa']],
    ['/api/v1/movies', ['mov-2', 'mov-4', 'mov-1', 'mov-3']],
    ['/api/v1/episodes', ['ep-d2', 'ep-d1', 'ep-b1', 'ep-b2', 'ep-a2', 'ep-a1', 'ep-b3', 'ep-e1']],
    ['/api/v1/videos', ['vid-2', 'vid-1', 'vid-3']],
    [
      '/api/v1/all',
      [
        'vid-2',
        'vid-1',
        'vid-3',
        'mov-2',
        'mov-3',
        'mov-1',
        'mov-4',
        'ep-d2',
        'ep-d1',
        'ep-b1',
        'ep-b2',
        'ep-a2',
        'ep-a1',
        'ep-b3',
        'ep-e1',
      ],
    ],
    ['/api/v1/shows/show-b/episodes', ['ep-b1', 'ep-b2', 'ep-b3']],
    ['/api/v1/shows/show-d/episodes', ['ep-d1', 'ep-d2']],
    ['/api/v1/shows/show-c/episodes', []],
    ['/api/v1/video_groups/videos-0a1b2c3d/videos', ['vid-2', 'vid-1']],
    ['/api/v1/video_groups/videos-00aa/videos', []],
    ['/api/v1/collections', ['col-shows', 'col-empty', 'col-movies']],
    ['/api/v1/collections/col-movies/content', ['mov-2', 'mov-1', 'mov-3']],
    ['/api/v1/collections/col-shows/content', ['ep-a1', 'ep-a2', 'ep-b1', 'ep-b2', 'ep-b3']],
    ['/api/v1/collections/col-empty/content', []],
    ['/api/v1/playlists', ['pl-empty', 'pl-mix']],
    ['/api/v1/playlists/pl-mix/content', ['mov-2', 'ep-b1', 'vid-2', 'ep-a1', 'mov-2']],
    ['/api/v1/playlists/pl-empty/content', []],
    ['/api/v1/jobs', ['1699990000-7', '1700000000-12']],
    ['/api/v1/channels', ['ch-2-1', 'ch-2-10', 'ch-4', 'ch-10']],
  ])('%s', async (url, expected) => {
    expect(await ids(url)).toEqual(expected);
  });
});

describe('sorting of item lists (every sort, both orders, nulls last, ties by id)', () => {
  for (const list of ITEM_LISTS) {
    describe(list.url, () => {
      it('default order', async () => {
        expect(await ids(list.url)).toEqual(idsOf(list.defaultOrder(list.rows())));
      });
      for (const sort of Object.keys(list.sortKeys)) {
        const key = list.sortKeys[sort] ?? (() => null);
        for (const order of ['asc', 'desc', undefined] as const) {
          const query = order ? `sort=${sort}&order=${order}` : `sort=${sort}`;
          it(query, async () => {
            const expected = ordered(list.rows(), [key], order ?? DEFAULT_DIRECTION[sort] ?? 'asc');
            expect(await ids(withQuery(list.url, query))).toEqual(idsOf(expected));
          });
        }
      }
    });
  }

  it('rejects the sorts of other endpoints', async () => {
    for (const [url, sort] of [
      ['/api/v1/movies', 'title'],
      ['/api/v1/movies', 'episode_title'],
      ['/api/v1/episodes', 'alpha'],
      ['/api/v1/episodes', 'date_released'],
      ['/api/v1/all', 'alpha'],
      ['/api/v1/shows', 'duration'],
      ['/api/v1/video_groups', 'title'],
    ] as const) {
      const res = await get(`${url}?sort=${sort}`);
      expect(res.statusCode, `${url}?sort=${sort}`).toBe(400);
      expect(res.json<Json>().parameter).toBe('sort');
    }
  });

  it('hand-checked: nulls last in both directions', async () => {
    expect(await ids('/api/v1/movies?sort=duration&order=asc')).toEqual(['mov-2', 'mov-1', 'mov-4', 'mov-3']);
    expect(await ids('/api/v1/movies?sort=duration&order=desc')).toEqual(['mov-1', 'mov-4', 'mov-2', 'mov-3']);
    expect(await ids('/api/v1/movies?sort=date_released&order=asc')).toEqual(['mov-2', 'mov-4', 'mov-1', 'mov-3']);
    expect(await ids('/api/v1/movies?sort=date_released&order=desc')).toEqual(['mov-1', 'mov-4', 'mov-2', 'mov-3']);
    expect(await ids('/api/v1/shows/show-b/episodes?sort=episode_title&order=asc')).toEqual([
      'ep-b2',
      'ep-b1',
      'ep-b3',
    ]);
    expect(await ids('/api/v1/shows/show-b/episodes?sort=episode_title&order=desc')).toEqual([
      'ep-b1',
      'ep-b2',
      'ep-b3',
    ]);
  });

  it('hand-checked: ties broken by id ascending in both directions', async () => {
    // ep-b1 and ep-b2 share created_at; ep-a1 and ep-b3 share a duration.
    expect(await ids('/api/v1/shows/show-b/episodes?sort=date_added&order=desc')).toEqual(['ep-b1', 'ep-b2', 'ep-b3']);
    expect(await ids('/api/v1/shows/show-b/episodes?sort=date_added&order=asc')).toEqual(['ep-b3', 'ep-b1', 'ep-b2']);
    expect(await ids('/api/v1/episodes?sort=duration&order=asc')).toEqual([
      'ep-e1',
      'ep-a2',
      'ep-a1',
      'ep-b3',
      'ep-d1',
      'ep-b1',
      'ep-b2',
      'ep-d2',
    ]);
    // Episodes sort by their show's name under `title`: 'Bravo' and 'BRAVO' tie.
    expect(await ids('/api/v1/episodes?sort=title&order=desc')).toEqual([
      'ep-d1',
      'ep-d2',
      'ep-b1',
      'ep-b2',
      'ep-b3',
      'ep-e1',
      'ep-a1',
      'ep-a2',
    ]);
  });

  it('a sort on playlist content replaces the playlist order, keeping duplicates', async () => {
    // 'alien' (mov-2, twice), 'alpha Show' (ep-a1), 'Bravo' (ep-b1), 'concerts' (vid-2).
    expect(await ids('/api/v1/playlists/pl-mix/content?sort=title&order=asc')).toEqual([
      'mov-2',
      'mov-2',
      'ep-a1',
      'ep-b1',
      'vid-2',
    ]);
  });
});

describe('sorting of shows and video groups', () => {
  for (const list of PARENT_LISTS) {
    describe(list.url, () => {
      for (const sort of PARENT_SORT_VALUES) {
        for (const order of ['asc', 'desc', undefined] as const) {
          const query = order ? `sort=${sort}&order=${order}` : `sort=${sort}`;
          it(query, async () => {
            const key = PARENT_SORT_KEYS[sort] ?? (() => null);
            const expected = ordered(list.rows, [key], order ?? DEFAULT_DIRECTION[sort] ?? 'asc');
            expect(await ids(withQuery(list.url, query))).toEqual(idsOf(expected));
          });
        }
      }
      it('order=desc alone reverses the alphabetical default, ties still by id', async () => {
        expect(await ids(`${list.url}?order=desc`)).toEqual(idsOf(ordered(list.rows, [(r) => lower(r.name)], 'desc')));
      });
    });
  }

  it('hand-checked shows', async () => {
    expect(await ids('/api/v1/shows?order=desc')).toEqual(['show-d', 'show-c', 'show-b', 'show-e', 'show-a']);
    expect(await ids('/api/v1/shows?sort=date_added&order=desc')).toEqual([
      'show-d',
      'show-b',
      'show-c',
      'show-a',
      'show-e',
    ]);
    expect(await ids('/api/v1/shows?sort=date_added&order=asc')).toEqual([
      'show-e',
      'show-a',
      'show-b',
      'show-c',
      'show-d',
    ]);
    expect(await ids('/api/v1/shows?sort=date_released&order=desc')).toEqual([
      'show-e',
      'show-b',
      'show-d',
      'show-a',
      'show-c',
    ]);
    expect(await ids('/api/v1/shows?sort=date_released&order=asc')).toEqual([
      'show-a',
      'show-d',
      'show-b',
      'show-e',
      'show-c',
    ]);
  });

  it('hand-checked video groups', async () => {
    expect(await ids('/api/v1/video_groups?sort=date_added&order=desc')).toEqual([
      'videos-ffee99',
      'videos-00aa',
      'videos-0a1b2c3d',
    ]);
    expect(await ids('/api/v1/video_groups?sort=date_released&order=asc')).toEqual([
      'videos-ffee99',
      'videos-00aa',
      'videos-0a1b2c3d',
    ]);
  });
});

describe('filters', () => {
  for (const list of ITEM_LISTS) {
    describe(list.url, () => {
      for (const [name, values] of Object.entries(list.filters)) {
        for (const value of values) {
          it(`${name}=${value}`, async () => {
            const expected = list.defaultOrder(list.rows().filter((r) => itemMatches(r, name, value)));
            expect(await ids(`${list.url}?${name}=${value}`)).toEqual(idsOf(expected));
          });
        }
      }
      it('filters combine with AND and with a sort', async () => {
        const names = Object.keys(list.filters);
        const query = names.includes('source') ? 'watched=false&source=recordings' : 'watched=false&verified=false';
        const pairs = query.split('&').map((p) => p.split('=') as [string, string]);
        const rows = list.rows().filter((r) => pairs.every(([n, v]) => itemMatches(r, n, v)));
        expect(await ids(`${list.url}?${query}&sort=duration&order=asc`)).toEqual(
          idsOf(ordered(rows, [(r) => r.duration], 'asc')),
        );
      });
    });
  }

  for (const list of PARENT_LISTS) {
    describe(list.url, () => {
      for (const name of ['watched', 'favorited']) {
        for (const value of BOOL) {
          it(`${name}=${value}`, async () => {
            const expected = ordered(
              list.rows.filter((r) => parentMatches(r, name, value)),
              [(r) => lower(r.name)],
              'asc',
            );
            expect(await ids(`${list.url}?${name}=${value}`)).toEqual(idsOf(expected));
          });
        }
      }
    });
  }

  it('hand-checked: watched on shows means every episode watched; a show without episodes counts as watched', async () => {
    expect(await ids('/api/v1/shows?watched=true')).toEqual(['show-a', 'show-e', 'show-c']);
    expect(await ids('/api/v1/shows?watched=false')).toEqual(['show-b', 'show-d']);
    expect(await ids('/api/v1/shows?favorited=true')).toEqual(['show-b']);
    expect(await ids('/api/v1/shows?watched=false&favorited=false')).toEqual(['show-d']);
  });

  it('hand-checked: watched on video groups means every video watched; an empty group counts as watched', async () => {
    expect(await ids('/api/v1/video_groups?watched=true')).toEqual(['videos-ffee99', 'videos-00aa']);
    expect(await ids('/api/v1/video_groups?watched=false')).toEqual(['videos-0a1b2c3d']);
    expect(await ids('/api/v1/video_groups?favorited=true')).toEqual(['videos-0a1b2c3d']);
  });

  it('hand-checked: item filters', async () => {
    expect(await ids('/api/v1/episodes?source=recordings')).toEqual(['ep-d1', 'ep-b1', 'ep-b2', 'ep-a1']);
    expect(await ids('/api/v1/episodes?source=imports')).toEqual(['ep-d2', 'ep-a2', 'ep-b3', 'ep-e1']);
    expect(await ids('/api/v1/movies?verified=true')).toEqual(['mov-1']);
    expect(await ids('/api/v1/all?favorited=true')).toEqual(['vid-3', 'mov-1', 'mov-4', 'ep-b1']);
    expect(await ids('/api/v1/playlists/pl-mix/content?source=recordings')).toEqual([
      'mov-2',
      'ep-b1',
      'ep-a1',
      'mov-2',
    ]);
    expect(await ids('/api/v1/collections/col-shows/content?watched=true')).toEqual(['ep-a1', 'ep-a2']);
  });

  it('collection_type filters collections', async () => {
    expect(await ids('/api/v1/collections?collection_type=movies')).toEqual(['col-empty', 'col-movies']);
    expect(await ids('/api/v1/collections?collection_type=shows')).toEqual(['col-shows']);
  });

  it('unknown parameters are ignored on every endpoint', async () => {
    for (const route of ROUTES) {
      const url = pathFor(route);
      const plain = await get(url);
      const extra = await get(`${url}?foo=bar&limit=1&page=2&Watched=maybe&sort%5B%5D=x`);
      expect(extra.statusCode, url).toBe(200);
      expect(extra.body, url).toBe(plain.body);
      expect(extra.headers.etag, url).toBe(plain.headers.etag);
    }
  });
});

describe('payloads', () => {
  it('a show with every field', async () => {
    expect(await getJson('/api/v1/shows/show-a')).toStrictEqual({
      id: 'show-a',
      name: 'alpha Show',
      summary: 'Every episode of this one was watched.',
      image_url: `${BASE}/images/alpha.jpg`,
      release_year: 2010,
      release_date: '2010-05-01',
      genres: ['Drama', 'Mystery'],
      categories: ['Series'],
      labels: ['keep'],
      cast: ['Ada Byrne', 'Tom Ellery'],
      episode_count: 2,
      number_unwatched: 0,
      favorited: false,
      last_watched_at: T + 60_000,
      last_recorded_at: T + 10_000,
      created_at: T + 1_000,
      updated_at: T + 1_500,
    });
  });

  it('a show with nothing optional omits it', async () => {
    expect(await getJson('/api/v1/shows/show-c')).toStrictEqual({
      id: 'show-c',
      name: 'charlie',
      episode_count: 0,
      number_unwatched: 0,
      favorited: false,
      created_at: T + 2_000,
      updated_at: T + 2_000,
    });
  });

  it('an episode with every field: title is the show name, episode_title its own', async () => {
    const episode = await getJson('/api/v1/episodes/ep-a1');
    const { thumbnail_url: thumbnail, ...rest } = episode;
    // The specification allows either an absolute URL or a server-relative path for an episode thumbnail.
    expect([`${BASE}/thumbs/a1.jpg`, '/thumbs/a1.jpg']).toContain(thumbnail);
    expect(rest).toStrictEqual({
      id: 'ep-a1',
      show_id: 'show-a',
      program_id: 'EP000001',
      path: '/media/recordings/alpha/S01E01.mpg',
      channel: '2.1',
      season_number: 1,
      episode_number: 1,
      title: 'alpha Show',
      episode_title: 'Pilot',
      event_title: 'Opening Night',
      summary: 'It begins.',
      full_summary: 'It begins, at length.',
      content_rating: 'TV-14',
      image_url: `${BASE}/images/a1.jpg`,
      duration: 1800,
      playback_time: 12.5,
      original_air_date: '2010-05-01',
      genres: ['Drama'],
      tags: ['HD', 'CC'],
      categories: ['Episode'],
      cast: ['Ada Byrne'],
      directors: ['Kim Lee'],
      labels: ['first'],
      commercials: [300, 420.5, 900, 1020],
      watched: true,
      favorited: false,
      delayed: true,
      cancelled: false,
      corrupted: false,
      completed: true,
      processed: true,
      locked: true,
      verified: true,
      last_watched_at: T + 50_000,
      created_at: T + 10_000,
      updated_at: T + 10_500,
    });
  });

  it('a bare episode', async () => {
    expect(await getJson('/api/v1/episodes/ep-d2')).toStrictEqual({
      id: 'ep-d2',
      show_id: 'show-d',
      // Always present (clients type them as required): its own id without a guide's, 0 while not known.
      program_id: 'ep-d2',
      title: 'Delta',
      episode_title: 'Banana',
      duration: 0,
      playback_time: 0,
      watched: false,
      favorited: false,
      delayed: false,
      cancelled: false,
      corrupted: false,
      completed: false,
      processed: false,
      locked: false,
      verified: false,
      created_at: T + 14_000,
      updated_at: T + 14_000,
    });
  });

  const MATRIX_COMMON = {
    id: 'mov-1',
    program_id: 'MV000001',
    path: '/media/movies/The Matrix (1999).mkv',
    title: 'The Matrix',
    summary: 'A hacker learns the truth.',
    content_rating: 'R',
    image_url: `${BASE}/images/matrix.jpg`,
    thumbnail_url: `${BASE}/thumbs/matrix.jpg`,
    duration: 8160,
    playback_time: 100,
    release_year: 1999,
    release_date: '1999-03-31',
    genres: ['Action', 'Science fiction'],
    tags: ['4K'],
    categories: ['Feature Film'],
    cast: ['Keanu Reeves'],
    directors: ['Lana Wachowski', 'Lilly Wachowski'],
    labels: ['classic'],
    commercials: [10, 20],
    watched: true,
    favorited: true,
    delayed: false,
    cancelled: false,
    corrupted: false,
    completed: true,
    processed: true,
    verified: true,
    last_watched_at: T + 80_000,
    created_at: T + 20_000,
    updated_at: T + 20_500,
  };

  it('a movie from the movie endpoints has no locked property', async () => {
    const expected = { ...MATRIX_COMMON, channel: '4', full_summary: 'A hacker learns the truth about reality.' };
    expect(await getJson('/api/v1/movies/mov-1')).toStrictEqual(expected);
    const listed = (await getJson<Json[]>('/api/v1/movies')).find((m) => m.id === 'mov-1');
    expect(listed).toStrictEqual(expected);
    for (const movie of await getJson<Json[]>('/api/v1/movies')) expect(movie).not.toHaveProperty('locked');
  });

  it('a movie in collection or playlist content has locked, and no channel or full_summary', async () => {
    const expected = { ...MATRIX_COMMON, locked: true };
    const inCollection = (await getJson<Json[]>('/api/v1/collections/col-movies/content')).find(
      (m) => m.id === 'mov-1',
    );
    expect(inCollection).toStrictEqual(expected);
    const mov2 = { id: 'mov-2', title: 'alien', duration: 7020, playback_time: 0, release_year: 1979, locked: false };
    const content = await getJson<Json[]>('/api/v1/playlists/pl-mix/content');
    expect(content[0]).toMatchObject(mov2);
    expect(content[4]).toMatchObject(mov2);
    for (const movie of [content[0], content[4]]) {
      expect(movie).not.toHaveProperty('channel');
      expect(movie).not.toHaveProperty('full_summary');
    }
  });

  it('/api/v1/all gives every item the shape its own endpoint gives it (a movie as /movies does)', async () => {
    const all = await getJson<Json[]>('/api/v1/all');
    for (const item of all) {
      const kind = 'show_id' in item ? 'episodes' : 'video_group_id' in item ? 'videos' : 'movies';
      expect(item).toStrictEqual(await getJson(`/api/v1/${kind}/${String(item.id)}`));
    }
    expect(all.some((item) => !('show_id' in item) && !('video_group_id' in item))).toBe(true);
  });

  it('episodes and videos in content keep their own shapes', async () => {
    const content = await getJson<Json[]>('/api/v1/playlists/pl-mix/content');
    expect(content[1]).toMatchObject({ id: 'ep-b1', show_id: 'show-b', title: 'Bravo', episode_title: 'Zed' });
    expect(content[1]).toStrictEqual(await getJson('/api/v1/episodes/ep-b1'));
    expect(content[2]).toStrictEqual(await getJson('/api/v1/videos/vid-2'));
    expect(content[3]).toStrictEqual(await getJson('/api/v1/episodes/ep-a1'));
    for (const episode of await getJson<Json[]>('/api/v1/collections/col-shows/content')) {
      expect(episode).toStrictEqual(await getJson(`/api/v1/episodes/${String(episode.id)}`));
    }
  });

  it('a video: title is the group name, video_title its own', async () => {
    expect(await getJson('/api/v1/videos/vid-1')).toStrictEqual({
      id: 'vid-1',
      video_group_id: 'videos-0a1b2c3d',
      program_id: 'vid-1',
      path: '/media/videos/concerts/rome.mp4',
      title: 'concerts',
      video_title: 'Live at Rome',
      season_number: 1,
      episode_number: 2,
      full_summary: 'The whole concert.',
      content_rating: 'G',
      image_url: `${BASE}/images/rome.jpg`,
      duration: 600,
      playback_time: 0,
      watched: true,
      favorited: false,
      delayed: false,
      cancelled: false,
      corrupted: false,
      completed: false,
      processed: false,
      locked: false,
      verified: false,
      last_watched_at: T + 90_000,
      created_at: T + 40_000,
      updated_at: T + 40_000,
    });
    for (const video of await getJson<Json[]>('/api/v1/videos')) {
      expect(video.title).toBe(groupName(String(video.video_group_id)));
    }
  });

  it('video groups', async () => {
    expect(await getJson('/api/v1/video_groups/videos-0a1b2c3d')).toStrictEqual({
      id: 'videos-0a1b2c3d',
      name: 'concerts',
      summary: 'Live music.',
      image_url: `${BASE}/images/concerts.png`,
      categories: ['concert'],
      labels: ['music'],
      video_count: 2,
      number_unwatched: 1,
      favorited: true,
      last_watched_at: T + 90_000,
      created_at: T + 30_000,
      updated_at: T + 30_100,
    });
    expect(await getJson('/api/v1/video_groups/videos-00aa')).toStrictEqual({
      id: 'videos-00aa',
      name: 'Empty',
      video_count: 0,
      number_unwatched: 0,
      favorited: false,
      created_at: T + 30_000,
      updated_at: T + 30_000,
    });
  });

  it('collections', async () => {
    const expected = [
      {
        id: 'col-shows',
        collection_type: 'shows',
        name: 'comedy',
        content_count: 5,
        last_watched_at: T + 60_000,
        created_at: T + 51_000,
        updated_at: T + 51_500,
      },
      {
        id: 'col-empty',
        collection_type: 'movies',
        name: 'Empty collection',
        content_count: 0,
        created_at: T + 52_000,
        updated_at: T + 52_000,
      },
      {
        id: 'col-movies',
        collection_type: 'movies',
        name: 'Sci-Fi Classics',
        image_url: `${BASE}/images/scifi.jpg`,
        labels: ['sf'],
        content_count: 3,
        last_watched_at: T + 80_000,
        created_at: T + 50_000,
        updated_at: T + 50_500,
      },
    ];
    expect(await getJson('/api/v1/collections')).toStrictEqual(expected);
    expect(await getJson('/api/v1/collections/col-movies')).toStrictEqual(expected[2]);
    expect(await getJson('/api/v1/collections/col-shows')).toStrictEqual(expected[0]);
  });

  it('playlists', async () => {
    const expected = [
      { id: 'pl-empty', name: 'empty list', content_count: 0, created_at: T + 61_000, updated_at: T + 61_000 },
      {
        id: 'pl-mix',
        name: 'Weekend mix',
        labels: ['weekend'],
        content_count: 5,
        last_watched_at: T + 50_000,
        created_at: T + 60_000,
        updated_at: T + 60_500,
      },
    ];
    expect(await getJson('/api/v1/playlists')).toStrictEqual(expected);
    expect(await getJson('/api/v1/playlists/pl-mix')).toStrictEqual(expected[1]);
  });

  it('jobs: seconds for start and end, duration = end - start, null item members omitted', async () => {
    const expected = [
      {
        id: '1699990000-7',
        name: 'Late Movie',
        start_time: 1_699_990_000,
        end_time: 1_699_997_200,
        duration: 7_200,
        channels: ['4'],
        skipped: true,
        failed: true,
        error: 'No tuner was free.',
        updated_at: T + 200,
        item: { title: 'Late Movie', image_url: 'https://img.example.com/late.jpg', release_year: 1970 },
      },
      {
        id: '1700000000-12',
        name: 'Evening News',
        start_time: 1_700_000_000,
        end_time: 1_700_001_800,
        duration: 1_800,
        channels: ['2.1', '2.10'],
        channel: '2.1',
        skipped: false,
        failed: false,
        updated_at: T + 100,
        item: {
          show_id: 'show-b',
          program_id: 'EP000099',
          season_number: 3,
          episode_number: 3,
          title: 'Bravo',
          episode_title: 'Tonight',
          summary: 'The news.',
          image_url: `${BASE}/images/job.jpg`,
          genres: ['News'],
          watched: false,
          locked: true,
        },
      },
    ];
    expect(await getJson('/api/v1/jobs')).toStrictEqual(expected);
    expect(await getJson('/api/v1/jobs/1700000000-12')).toStrictEqual(expected[1]);
    expect(await getJson('/api/v1/jobs/1699990000-7')).toStrictEqual(expected[0]);
  });

  it('channels, in channel-number order', async () => {
    expect(await getJson('/api/v1/channels')).toStrictEqual([
      {
        id: 'ch-2-1',
        number: '2.1',
        name: 'Two One',
        image_url: 'https://logos.example.com/21.png',
        hd: true,
        favorited: false,
      },
      { id: 'ch-2-10', number: '2.10', name: 'Two Ten', hd: false, favorited: false },
      { id: 'ch-4', number: '4', name: 'Four', image_url: `${BASE}/logos/4.png`, hd: false, favorited: true },
      { id: 'ch-10', number: '10', name: 'Ten', call_sign: 'KTEN', hd: true, favorited: false },
    ]);
  });

  it('shows and video groups have a name and no title', async () => {
    for (const parent of [
      ...(await getJson<Json[]>('/api/v1/shows')),
      ...(await getJson<Json[]>('/api/v1/video_groups')),
    ]) {
      expect(typeof parent.name).toBe('string');
      expect(parent).not.toHaveProperty('title');
    }
  });

  it('each show and group lists exactly its own children', async () => {
    for (const show of REF_SHOWS) {
      const listed = await getJson<Json[]>(`/api/v1/shows/${show.id}/episodes`);
      expect(listed.map((e) => e.id).sort()).toEqual(idsOf(show.children).sort());
      for (const e of listed) expect(e).toMatchObject({ show_id: show.id, title: show.name });
    }
    for (const group of REF_GROUPS) {
      const listed = await getJson<Json[]>(`/api/v1/video_groups/${group.id}/videos`);
      expect(listed.map((v) => v.id).sort()).toEqual(idsOf(group.children).sort());
    }
  });
});

describe('null omission and types, on every endpoint', () => {
  const QUERIES = ['', 'sort=duration&order=asc', 'watched=true', 'source=imports', 'collection_type=shows'];

  async function everyBody(): Promise<[string, unknown][]> {
    const bodies: [string, unknown][] = [];
    const urls = [
      ...ROUTES.map((r) => pathFor(r)),
      ...ID_ROUTES.flatMap((route) => {
        const seedIds: Record<string, readonly { id: string }[]> = {
          shows: SHOWS,
          episodes: EPISODES,
          movies: MOVIES,
          video_groups: VIDEO_GROUPS,
          videos: VIDEOS,
          collections: COLLECTIONS,
          playlists: PLAYLISTS,
          jobs: JOBS,
        };
        const resource = route.route.split('/')[3] ?? '';
        return (seedIds[resource] ?? []).map((r) => pathFor(route, encodeURIComponent(r.id)));
      }),
    ];
    for (const url of new Set(urls)) {
      for (const query of QUERIES) {
        const res = await get(withQuery(url, query));
        if (res.statusCode === 200) bodies.push([withQuery(url, query), res.json()]);
      }
    }
    return bodies;
  }

  it('no property is ever null, at any depth', async () => {
    const bodies = await everyBody();
    expect(bodies.length).toBeGreaterThan(100);
    const found = bodies.flatMap(([url, body]) => nullPaths(body).map((p) => `${url} ${p}`));
    expect(found).toEqual([]);
  });

  it('ids are strings, timestamps integer milliseconds, release_year an integer, dates YYYY-MM-DD', async () => {
    const problems: string[] = [];
    const check = (url: string, value: unknown, path: string): void => {
      if (Array.isArray(value)) {
        value.forEach((v, i) => check(url, v, `${path}[${i}]`));
        return;
      }
      if (typeof value !== 'object' || value === null) return;
      const object = value as Json;
      const isJob = 'start_time' in object;
      for (const [key, member] of Object.entries(object)) {
        const where = `${url} ${path}.${key}=${JSON.stringify(member)}`;
        if (
          ['id', 'show_id', 'video_group_id', 'program_id', 'channel', 'number'].includes(key) &&
          typeof member !== 'string'
        )
          problems.push(where);
        if (/_at$/.test(key) && !(Number.isInteger(member) && String(member).length === 13)) problems.push(where);
        if (
          [
            'release_year',
            'season_number',
            'episode_number',
            'episode_count',
            'video_count',
            'number_unwatched',
            'content_count',
          ].includes(key)
        ) {
          if (!Number.isInteger(member)) problems.push(where);
        }
        if (
          ['release_date', 'original_air_date'].includes(key) &&
          !(typeof member === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(member))
        ) {
          problems.push(where);
        }
        if (['genres', 'tags', 'categories', 'cast', 'directors', 'labels', 'channels'].includes(key)) {
          if (!(Array.isArray(member) && member.every((m) => typeof m === 'string'))) problems.push(where);
        }
        if (key === 'commercials' && !(Array.isArray(member) && member.every((m) => typeof m === 'number')))
          problems.push(where);
        if (['duration', 'playback_time'].includes(key) && typeof member !== 'number') problems.push(where);
        if (
          isJob &&
          ['start_time', 'end_time'].includes(key) &&
          !(Number.isInteger(member) && String(member).length === 10)
        ) {
          problems.push(where);
        }
        if (
          [
            'watched',
            'favorited',
            'delayed',
            'cancelled',
            'corrupted',
            'completed',
            'processed',
            'locked',
            'verified',
            'skipped',
            'failed',
            'hd',
          ].includes(key)
        ) {
          if (typeof member !== 'boolean') problems.push(where);
        }
        check(url, member, `${path}.${key}`);
      }
      if (isJob && object.duration !== Number(object.end_time) - Number(object.start_time))
        problems.push(`${url} ${path}: job duration`);
    };
    for (const [url, body] of await everyBody()) check(url, body, '$');
    expect(problems).toEqual([]);
  });
});

describe('image URLs', () => {
  it('server-relative paths become absolute with the Host header; absolute URLs are left alone', async () => {
    expect((await getJson('/api/v1/shows/show-a')).image_url).toBe('http://tv.local:8089/images/alpha.jpg');
    expect((await getJson('/api/v1/shows/show-a', { host: 'media-box:9000' })).image_url).toBe(
      'http://media-box:9000/images/alpha.jpg',
    );
    expect((await getJson('/api/v1/shows/show-b')).image_url).toBe('https://cdn.example.com/bravo.jpg');
    expect(await getJson('/api/v1/episodes/ep-b1')).toMatchObject({
      image_url: 'https://cdn.example.com/b1.jpg',
      thumbnail_url: 'http://other.example.net/t/b1.png',
    });
    expect((await getJson('/api/v1/movies/mov-1')).image_url).toBe(`${BASE}/images/matrix.jpg`);
    expect((await getJson('/api/v1/videos/vid-1')).image_url).toBe(`${BASE}/images/rome.jpg`);
    expect((await getJson('/api/v1/video_groups/videos-0a1b2c3d')).image_url).toBe(`${BASE}/images/concerts.png`);
    expect((await getJson('/api/v1/collections/col-movies')).image_url).toBe(`${BASE}/images/scifi.jpg`);
  });

  it('an IPv6 Host header is kept as it is', async () => {
    expect((await getJson('/api/v1/shows/show-a', { host: '[::1]:8089' })).image_url).toBe(
      'http://[::1]:8089/images/alpha.jpg',
    );
  });

  it('a malformed Host header falls back to the configured base', async () => {
    const res = await get('/api/v1/shows/show-a', { host: 'evil.example/<script>' });
    expect(res.statusCode).toBe(200);
    expect(res.json<Json>().image_url).toBe('http://localhost:8089/images/alpha.jpg');
  });

  it('answers for one host are never served to another', async () => {
    const a = await getJson<Json[]>('/api/v1/shows', { host: 'one.local:8089' });
    const b = await getJson<Json[]>('/api/v1/shows', { host: 'two.local:8089' });
    expect(a[0]?.image_url).toBe('http://one.local:8089/images/alpha.jpg');
    expect(b[0]?.image_url).toBe('http://two.local:8089/images/alpha.jpg');
  });

  it('every image_url in every body is absolute', async () => {
    const bad: string[] = [];
    const walk = (url: string, value: unknown): void => {
      if (Array.isArray(value)) value.forEach((v) => walk(url, v));
      else if (typeof value === 'object' && value !== null) {
        for (const [key, member] of Object.entries(value)) {
          if (key === 'image_url' && !(typeof member === 'string' && /^https?:\/\//.test(member)))
            bad.push(`${url}: ${String(member)}`);
          walk(url, member);
        }
      }
    };
    for (const route of ROUTES) walk(route.route, await getJson(pathFor(route)));
    expect(bad).toEqual([]);
  });

  describe('with a public URL', () => {
    let publicTemp: TempLibrary;
    let publicApp: FastifyInstance;
    beforeAll(async () => {
      publicTemp = createTempLibrary();
      seedLibrary(publicTemp.db);
      publicApp = await buildTestApp(publicTemp, { publicUrl: 'https://media.example.org/' });
    });
    afterAll(async () => {
      await publicApp.close();
      publicTemp.close();
    });

    it('uses the public URL whatever the Host header says', async () => {
      for (const host of [HOST, 'localhost', 'evil.example']) {
        const show = (await publicApp.inject({ url: '/api/v1/shows/show-a', headers: { host } })).json<Json>();
        expect(show.image_url).toBe('https://media.example.org/images/alpha.jpg');
      }
      const jobs = (await publicApp.inject({ url: '/api/v1/jobs' })).json<Json[]>();
      expect((jobs[1]?.item as Json).image_url).toBe('https://media.example.org/images/job.jpg');
      const channels = (await publicApp.inject({ url: '/api/v1/channels' })).json<Json[]>();
      expect(channels.map((c) => c.image_url)).toEqual([
        'https://logos.example.com/21.png',
        undefined,
        'https://media.example.org/logos/4.png',
        undefined,
      ]);
      const show = (await publicApp.inject({ url: '/api/v1/shows/show-b' })).json<Json>();
      expect(show.image_url).toBe('https://cdn.example.com/bravo.jpg');
    });
  });
});

describe('errors', () => {
  const expectNotFound = (res: Response, what: string) => {
    expect(res.statusCode, `${what}: ${res.body.slice(0, 200)}`).toBe(404);
    expect(String(res.headers['content-type']), what).toMatch(/^application\/json/);
    const body = res.json<Json>();
    expect(body, what).toMatchObject({ status: 404, code: 'not_found' });
    expect(typeof body.message, what).toBe('string');
  };

  it('an unknown id answers 404 JSON on every route with an id', async () => {
    for (const route of ID_ROUTES) {
      expectNotFound(await get(pathFor(route, 'does-not-exist')), route.route);
    }
  });

  it('an id of another kind answers 404', async () => {
    for (const url of [
      '/api/v1/movies/ep-a1',
      '/api/v1/episodes/mov-1',
      '/api/v1/videos/ep-a1',
      '/api/v1/shows/videos-00aa',
      '/api/v1/video_groups/show-a',
      '/api/v1/shows/videos-00aa/episodes',
      '/api/v1/video_groups/show-a/videos',
      '/api/v1/collections/pl-mix',
      '/api/v1/playlists/col-movies/content',
      '/api/v1/jobs/ep-a1',
      '/api/v1/shows/SHOW-A',
    ]) {
      expectNotFound(await get(url), url);
    }
  });

  const ODD_IDS: [string, string][] = [
    ['5000 characters', 'x'.repeat(5000)],
    ['unicode, URL-encoded', encodeURIComponent('ünï cødé ☃ 💥')],
    ['quotes', `"quoted'`],
    ['quotes, URL-encoded', encodeURIComponent(`"quoted'`)],
    ['SQL', encodeURIComponent("show-a' OR '1'='1")],
    ['../, encoded', '..%2F..%2Fetc%2Fpasswd'],
    ['../, raw', '../../../../etc/passwd'],
    ['%00', '%00'],
    ['a real id then %00', 'show-a%00'],
    ['invalid percent-encoding %E0%A4%A', '%E0%A4%A'],
    ['a lone %', '%'],
    ['%ZZ', '%ZZ'],
    ['an encoded slash', 'show-a%2Fepisodes'],
  ];

  it.each(ODD_IDS)('an id with odd bytes (%s) answers 404 JSON on every route', async (_name, rawId) => {
    const failures: string[] = [];
    for (const route of ID_ROUTES) {
      const url = pathFor(route, rawId);
      const res = await get(url);
      let body: Json | undefined;
      try {
        body = res.json<Json>();
      } catch {
        body = undefined;
      }
      if (
        res.statusCode !== 404 ||
        body?.status !== 404 ||
        body.code !== 'not_found' ||
        typeof body.message !== 'string'
      ) {
        failures.push(`${route.route}: ${res.statusCode} ${res.body.slice(0, 120)}`);
      }
    }
    expect(summary(failures)).toEqual([]);
  });

  it('an unknown route answers 404 JSON', async () => {
    for (const url of [
      '/api/v1/nope',
      '/api/v2/shows',
      '/api/v1/shows/show-a/nope',
      '/nope',
      '/api/v1/episodes/ep-a1/episodes',
    ]) {
      expectNotFound(await get(url), url);
    }
  });

  interface Invalid {
    query: string;
    parameter: string;
    allowed: readonly string[];
  }
  const invalidFor = (route: RouteInfo): Invalid[] => {
    const out: Invalid[] = [];
    const bad: Record<string, string> = {
      watched: 'maybe',
      favorited: 'yes',
      verified: '1',
      source: 'x',
      sort: 'bogus',
      order: 'up',
      collection_type: 'x',
    };
    for (const [parameter, allowed] of Object.entries(route.params)) {
      out.push({ query: `${parameter}=${bad[parameter] ?? 'x'}`, parameter, allowed });
      out.push({ query: `${parameter}=`, parameter, allowed });
      out.push({ query: `${parameter}=${allowed[0]}&${parameter}=${allowed[1]}`, parameter, allowed });
      out.push({ query: `${parameter}=${(allowed[0] ?? '').toUpperCase()}`, parameter, allowed });
    }
    return out;
  };

  it.each(ROUTES.filter((r) => Object.keys(r.params).length > 0).map((r) => [r.route, r] as const))(
    'invalid parameter values answer 400 naming the parameter and its values: %s',
    async (_route, route) => {
      for (const { query, parameter, allowed } of invalidFor(route)) {
        const url = `${pathFor(route)}?${query}`;
        const res = await get(url);
        expect(res.statusCode, url).toBe(400);
        expect(String(res.headers['content-type']), url).toMatch(/^application\/json/);
        const body = res.json<Json>();
        expect(body, url).toMatchObject({ status: 400, parameter });
        expect([...((body.allowed as string[] | undefined) ?? [])].sort(), url).toEqual([...allowed].sort());
        const message = String(body.message);
        expect(message, url).toContain(parameter);
        for (const value of allowed) expect(message, url).toContain(value);
      }
    },
  );

  it('the repeated parameter watched=true&watched=false answers 400', async () => {
    const res = await get('/api/v1/episodes?watched=true&watched=false');
    expect(res.statusCode).toBe(400);
    expect(res.json<Json>()).toMatchObject({ status: 400, parameter: 'watched', allowed: ['true', 'false'] });
  });

  it('a valid value next to an invalid one still answers 400 for the invalid one', async () => {
    const res = await get('/api/v1/movies?sort=alpha&order=sideways');
    expect(res.statusCode).toBe(400);
    expect(res.json<Json>().parameter).toBe('order');
  });

  it('each documented value is accepted on every endpoint that takes the parameter', async () => {
    for (const route of ROUTES) {
      for (const [parameter, allowed] of Object.entries(route.params)) {
        for (const value of allowed) {
          const url = `${pathFor(route)}?${parameter}=${value}`;
          expect((await get(url)).statusCode, url).toBe(200);
        }
      }
    }
  });
});

describe('methods', () => {
  const expect405 = (res: Response, what: string) => {
    expect(res.statusCode, `${what}: ${res.body.slice(0, 200)}`).toBe(405);
    expect(res.headers.allow, what).toBe('GET, HEAD');
    expect(String(res.headers['content-type']), what).toMatch(/^application\/json/);
    expect(res.json<Json>(), what).toMatchObject({ status: 405 });
    expect(typeof res.json<Json>().message, what).toBe('string');
  };

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'] as const)(
    '%s on every interface-A path answers 405 with Allow: GET, HEAD',
    async (method) => {
      for (const route of ROUTES) {
        const url = pathFor(route);
        expect405(await app.inject({ method, url }), `${method} ${url}`);
      }
    },
  );

  it('405 whatever the request body: a JSON object', async () => {
    for (const route of ROUTES) {
      const url = pathFor(route);
      const res = await app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        payload: '{"name":"x"}',
      });
      expect405(res, `POST ${url}`);
    }
  });

  it('405 whatever the request body: Content-Type application/json with an empty body', async () => {
    const failures: string[] = [];
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      for (const route of ROUTES) {
        const url = pathFor(route);
        const res = await app.inject({ method, url, headers: { 'content-type': 'application/json' }, payload: '' });
        if (res.statusCode !== 405 || res.headers.allow !== 'GET, HEAD')
          failures.push(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 100)}`);
      }
    }
    expect(summary(failures)).toEqual([]);
  });

  it('405 whatever the request body: malformed JSON or an unsupported media type', async () => {
    const failures: string[] = [];
    for (const route of ROUTES) {
      const url = pathFor(route);
      for (const [type, payload] of [
        ['application/json', '{oops'],
        ['application/xml', '<show/>'],
      ] as const) {
        const res = await app.inject({ method: 'PUT', url, headers: { 'content-type': type }, payload });
        if (res.statusCode !== 405 || res.headers.allow !== 'GET, HEAD')
          failures.push(`PUT ${url} (${type}): ${res.statusCode} ${res.body.slice(0, 100)}`);
      }
    }
    expect(summary(failures)).toEqual([]);
  });

  it('writes by HTTP change nothing', async () => {
    const before = await get('/api/v1/shows');
    await app.inject({ method: 'DELETE', url: '/api/v1/shows/show-a' });
    await app.inject({
      method: 'POST',
      url: '/api/v1/shows',
      headers: { 'content-type': 'application/json' },
      payload: '{"id":"x","name":"x"}',
    });
    const after = await get('/api/v1/shows');
    expect(after.headers.etag).toBe(before.headers.etag);
    expect(after.body).toBe(before.body);
  });

  it('HEAD answers 200 with no body and the headers of GET, on every path', async () => {
    for (const route of ROUTES) {
      const url = pathFor(route);
      const getRes = await get(url);
      const headRes = await app.inject({ method: 'HEAD', url, headers: { host: HOST } });
      expect(headRes.statusCode, url).toBe(200);
      expect(headRes.body, url).toBe('');
      expect(headRes.headers.etag, url).toBe(getRes.headers.etag);
      expect(headRes.headers['content-length'], url).toBe(getRes.headers['content-length']);
      expect(Number(getRes.headers['content-length']), url).toBe(getRes.rawPayload.length);
      expect(headRes.headers['content-type'], url).toBe(getRes.headers['content-type']);
    }
  });
});

describe('conditional requests and the response cache', () => {
  it('every answer carries a strong ETag; If-None-Match with it answers 304 with no body', async () => {
    for (const route of ROUTES) {
      const url = pathFor(route);
      const first = await get(url);
      const etag = String(first.headers.etag);
      expect(etag, url).toMatch(/^"[^"]+"$/);
      expect(etag.startsWith('W/'), url).toBe(false);
      const again = await get(url, { 'if-none-match': etag });
      expect(again.statusCode, url).toBe(304);
      expect(again.body, url).toBe('');
      expect(again.headers.etag, url).toBe(etag);
    }
  });

  it('the ETag is the same for the same answer and differs between answers', async () => {
    const a1 = await get('/api/v1/shows');
    const a2 = await get('/api/v1/shows');
    const b = await get('/api/v1/shows?order=desc');
    expect(a1.headers.etag).toBe(a2.headers.etag);
    expect(b.headers.etag).not.toBe(a1.headers.etag);
  });

  it('If-None-Match with a list, or the weak form of the tag, also answers 304; another tag answers 200', async () => {
    const { etag } = (await get('/api/v1/movies')).headers;
    expect((await get('/api/v1/movies', { 'if-none-match': `"nope", ${String(etag)}` })).statusCode).toBe(304);
    expect((await get('/api/v1/movies', { 'if-none-match': `W/${String(etag)}` })).statusCode).toBe(304);
    const other = await get('/api/v1/movies', { 'if-none-match': '"something-else"' });
    expect(other.statusCode).toBe(200);
    expect(other.json<Json[]>().length).toBe(MOVIES.length);
  });

  it('a conditional GET answered 304 costs no cache miss', async () => {
    const url = '/api/v1/episodes?sort=duration';
    const { etag } = (await get(url)).headers;
    const before = (await getJson<{ cache: { misses: number; hits: number } }>('/status')).cache;
    for (let i = 0; i < 3; i++) expect((await get(url, { 'if-none-match': String(etag) })).statusCode).toBe(304);
    const after = (await getJson<{ cache: { misses: number; hits: number } }>('/status')).cache;
    expect(after.misses).toBe(before.misses);
    expect(after.hits).toBeGreaterThanOrEqual(before.hits + 3);
  });

  it('the library counts in /status match the library', async () => {
    const status = await getJson<{ name: string; version: string; uptime: number; library: Json }>('/status');
    expect(status.name).toBe('antenna');
    expect(typeof status.version).toBe('string');
    expect(status.uptime).toBeGreaterThanOrEqual(0);
    expect(status.library).toEqual({
      shows: SHOWS.length,
      episodes: EPISODES.length,
      movies: MOVIES.length,
      video_groups: VIDEO_GROUPS.length,
      videos: VIDEOS.length,
      collections: COLLECTIONS.length,
      playlists: PLAYLISTS.length,
      jobs: JOBS.length,
      channels: CHANNELS.length,
    });
  });

  describe('after a write through the store', () => {
    let own: TempLibrary;
    let ownApp: FastifyInstance;
    beforeAll(async () => {
      // Interval 0: another connection's commit is seen by the very next request.
      own = createTempLibrary({ externalCheckIntervalMs: 0 });
      seedLibrary(own.db);
      ownApp = await buildTestApp(own);
    });
    afterAll(async () => {
      await ownApp.close();
      own.close();
    });
    const ownGet = (url: string, headers: Record<string, string> = {}) => ownApp.inject({ url, headers });

    it('a stale ETag answers 200 with the new body and a new ETag', async () => {
      const first = await ownGet('/api/v1/shows/show-a');
      const stale = String(first.headers.etag);
      upsertShow(own.db, { id: 'show-a', name: 'Alpha, renamed' });
      const next = await ownGet('/api/v1/shows/show-a', { 'if-none-match': stale });
      expect(next.statusCode).toBe(200);
      expect(next.headers.etag).not.toBe(stale);
      expect(next.json<Json>().name).toBe('Alpha, renamed');
      expect((await ownGet('/api/v1/shows/show-a', { 'if-none-match': String(next.headers.etag) })).statusCode).toBe(
        304,
      );
    });

    it('lists and derived fields reflect the write at once', async () => {
      const shows = (await ownGet('/api/v1/shows?watched=true')).json<Json[]>();
      expect(shows.map((s) => s.id)).toContain('show-c');
      await ownGet('/api/v1/collections/col-shows');
      upsertEpisode(own.db, { id: 'ep-c1', show_id: 'show-c', source: 'recordings', created_at: T + 999_000 });
      expect((await ownGet('/api/v1/shows?watched=true')).json<Json[]>().map((s) => s.id)).not.toContain('show-c');
      expect((await ownGet('/api/v1/shows/show-c')).json<Json>()).toMatchObject({
        episode_count: 1,
        number_unwatched: 1,
        last_recorded_at: T + 999_000,
      });
      expect((await ownGet('/api/v1/collections/col-shows')).json<Json>().content_count).toBe(6);
      expect((await ownGet('/api/v1/episodes')).json<Json[]>()[0]?.id).toBe('ep-c1');
      upsertMovie(own.db, { id: 'mov-2', source: 'recordings', title: 'Alien' });
      expect((await ownGet('/api/v1/playlists/pl-mix/content')).json<Json[]>()[0]?.title).toBe('Alien');
      upsertCollection(own.db, { id: 'col-new', collection_type: 'movies', name: 'A new one' });
      expect((await ownGet('/api/v1/collections')).json<Json[]>()[0]?.id).toBe('col-new');
    });

    it('a write through another connection is seen too', async () => {
      const before = await ownGet('/api/v1/shows');
      const other = new Database(databasePath(own.dir));
      try {
        upsertShow(other, { id: 'show-0', name: '0 first', created_at: T, updated_at: T });
      } finally {
        other.close();
      }
      const after = await ownGet('/api/v1/shows', { 'if-none-match': String(before.headers.etag) });
      expect(after.statusCode).toBe(200);
      expect(after.json<Json[]>()[0]?.id).toBe('show-0');
    });
  });
});

describe('a small response cache', () => {
  let small: TempLibrary;
  let smallApp: FastifyInstance;
  const LIMIT = 8 * 1024;
  beforeAll(async () => {
    small = createTempLibrary();
    seedLibrary(small.db);
    smallApp = await buildTestApp(small, { cacheBytes: LIMIT });
  });
  afterAll(async () => {
    await smallApp.close();
    small.close();
  });

  it('stays within its bound and still answers exactly what the large cache answers', async () => {
    for (let round = 0; round < 2; round++) {
      for (const route of ROUTES) {
        for (const query of ['', 'order=desc', 'sort=date_added']) {
          const url = withQuery(pathFor(route), query);
          const expected = await get(url);
          const res = await smallApp.inject({ url, headers: { host: HOST } });
          expect(res.statusCode, url).toBe(expected.statusCode);
          expect(res.body, url).toBe(expected.body);
          expect(res.headers.etag, url).toBe(expected.headers.etag);
        }
      }
    }
    const { cache } = (await smallApp.inject({ url: '/status' })).json<{ cache: { bytes: number; entries: number } }>();
    expect(cache.bytes).toBeLessThanOrEqual(LIMIT);
    expect(cache.entries).toBeGreaterThan(0);
  });
});

describe('compression', () => {
  it.each([
    ['gzip', gunzipSync],
    ['br', brotliDecompressSync],
  ] as const)(
    'Accept-Encoding: %s gives a body that decompresses to the identical JSON, under its own ETag',
    async (encoding, decompress) => {
      for (const url of ['/api/v1/all', '/api/v1/episodes', '/api/v1/shows']) {
        const plain = await get(url);
        expect(plain.headers['content-encoding'], url).toBeUndefined();
        const packed = await get(url, { 'accept-encoding': encoding });
        expect(packed.statusCode, url).toBe(200);
        expect(packed.headers['content-encoding'], url).toBe(encoding);
        expect(String(packed.headers.vary).toLowerCase(), url).toContain('accept-encoding');
        expect(decompress(packed.rawPayload).toString('utf8'), url).toBe(plain.body);
        expect(packed.rawPayload.length, url).toBeLessThan(plain.rawPayload.length);
        expect(Number(packed.headers['content-length']), url).toBe(packed.rawPayload.length);
        const etag = String(packed.headers.etag);
        expect(etag, url).toMatch(/^"[^"]+"$/);
        expect(etag, url).not.toBe(plain.headers.etag);
        const again = await get(url, { 'accept-encoding': encoding, 'if-none-match': etag });
        expect(again.statusCode, url).toBe(304);
      }
    },
  );

  it('prefers br, honours q-values and refusals', async () => {
    const url = '/api/v1/all';
    expect((await get(url, { 'accept-encoding': 'gzip, deflate, br' })).headers['content-encoding']).toBe('br');
    expect((await get(url, { 'accept-encoding': 'br;q=0.5, gzip' })).headers['content-encoding']).toBe('gzip');
    expect((await get(url, { 'accept-encoding': 'br;q=0, gzip;q=0' })).headers['content-encoding']).toBeUndefined();
    expect((await get(url, { 'accept-encoding': 'identity' })).headers['content-encoding']).toBeUndefined();
  });
});

describe('CORS', () => {
  const ORIGIN = { origin: 'http://app.example.com' };

  it('answers carry Access-Control-Allow-Origin: *', async () => {
    for (const route of ROUTES) {
      const res = await get(pathFor(route), ORIGIN);
      expect(res.headers['access-control-allow-origin'], route.route).toBe('*');
    }
  });

  it('the routes beside interface A carry them too, as do 304s and HEADs', async () => {
    for (const url of ['/status', '/api/openapi.json', '/api/docs/json']) {
      const res = await get(url, ORIGIN);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['access-control-allow-origin'], url).toBe('*');
    }
    const first = await get('/api/v1/shows', ORIGIN);
    const notModified = await get('/api/v1/shows', { ...ORIGIN, 'if-none-match': String(first.headers.etag) });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.headers['access-control-allow-origin']).toBe('*');
    expect(notModified.headers['access-control-expose-headers']).toBe('ETag');
    const head = await app.inject({ method: 'HEAD', url: '/api/v1/movies', headers: ORIGIN });
    expect(head.headers['access-control-allow-origin']).toBe('*');
  });

  it('a preflight succeeds for GET', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/api/v1/shows',
      headers: { ...ORIGIN, 'access-control-request-method': 'GET' },
    });
    expect([200, 204]).toContain(res.statusCode);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-allow-methods'])).toContain('GET');
  });

  it('the ETag header is exposed to scripts', async () => {
    const res = await get('/api/v1/shows', ORIGIN);
    expect(String(res.headers['access-control-expose-headers']).toLowerCase()).toContain('etag');
  });

  it('error answers carry Access-Control-Allow-Origin too, so browser clients can read them', async () => {
    const failures: string[] = [];
    for (const [method, url] of [
      ['GET', '/api/v1/shows/nope'],
      ['GET', '/api/v1/nope'],
      ['GET', '/api/v1/shows?sort=bogus'],
      ['POST', '/api/v1/shows'],
      ['GET', '/api/v1/shows/%E0%A4%A'],
    ] as const) {
      const res = await app.inject({ method, url, headers: ORIGIN });
      if (res.headers['access-control-allow-origin'] !== '*') failures.push(`${method} ${url} (${res.statusCode})`);
    }
    expect(summary(failures)).toEqual([]);
  });
});

describe('documentation', () => {
  it('/api/openapi.json is an OpenAPI 3.1 document listing every interface-A path', async () => {
    const res = await get('/api/openapi.json');
    expect(res.statusCode).toBe(200);
    const doc = res.json<{ openapi: string; paths: Record<string, Json> }>();
    expect(doc.openapi).toMatch(/^3\.1\./);
    for (const route of ROUTES) {
      expect(doc.paths[openApiPath(route)], route.route).toHaveProperty('get');
    }
  });

  it('the OpenAPI document lists the documented values of each query parameter', async () => {
    const doc = (await get('/api/openapi.json')).json<{ paths: Record<string, { get: { parameters?: Json[] } }> }>();
    for (const route of ROUTES) {
      const parameters = doc.paths[openApiPath(route)]?.get.parameters ?? [];
      for (const [name, allowed] of Object.entries(route.params)) {
        const declared = parameters.find((p) => p.name === name && p.in === 'query');
        expect(declared, `${route.route} ${name}`).toBeDefined();
        expect(
          ((declared?.schema as Json | undefined)?.enum as string[] | undefined)?.slice().sort(),
          `${route.route} ${name}`,
        ).toEqual([...allowed].sort());
      }
    }
  });

  it('/api/docs answers an HTML page', async () => {
    let res = await get('/api/docs');
    for (let hops = 0; hops < 3 && res.statusCode >= 300 && res.statusCode < 400; hops++) {
      const location = String(res.headers.location);
      res = await get(location.startsWith('/') ? location : `/api/docs/${location.replace(/^\.\//, '')}`);
    }
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
    expect(res.body).toMatch(/<html/i);
  });
});

describe('sort and order values are the documented ones', () => {
  // Spelled out once more against the compatibility notes, independently of the route table.
  it('item, movie and parent sorts and orders are all accepted', async () => {
    for (const sort of ITEM_SORT_VALUES) expect((await get(`/api/v1/episodes?sort=${sort}`)).statusCode).toBe(200);
    for (const sort of MOVIE_SORT_VALUES) expect((await get(`/api/v1/movies?sort=${sort}`)).statusCode).toBe(200);
    for (const sort of PARENT_SORT_VALUES)
      expect((await get(`/api/v1/video_groups?sort=${sort}`)).statusCode).toBe(200);
    for (const order of ORDER_VALUES) expect((await get(`/api/v1/videos?order=${order}`)).statusCode).toBe(200);
  });
});
