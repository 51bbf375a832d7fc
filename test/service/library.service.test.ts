/**
 * LibraryService over a real, migrated SQLite library in a temp directory: derived
 * fields, freshness after writes, upsert semantics, collection membership rules,
 * playlist order, the change generation and the counts.
 */
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MembershipError, NotFoundError } from '../../src/common/errors.js';
import { databasePath } from '../../src/db/database.js';
import { upsertChannel } from '../../src/repositories/dvr/channels.repository.js';
import { deleteJob, upsertJob } from '../../src/repositories/dvr/jobs.repository.js';
import {
  addCollectionMember,
  appendPlaylistItems,
  deleteCollection,
  deletePlaylist,
  removeCollectionMember,
  setPlaylistItems,
  upsertCollection,
  upsertPlaylist,
} from '../../src/repositories/library/collections.repository.js';
import {
  deleteItem,
  upsertEpisode,
  upsertMovie,
  upsertVideo,
} from '../../src/repositories/library/items.repository.js';
import { DEFAULT_EXTERNAL_CHECK_INTERVAL_MS, LibraryService } from '../../src/library/library.service.js';
import type { MapContext } from '../../src/library/resource-mappers.js';
import { deleteParent, upsertShow, upsertVideoGroup } from '../../src/repositories/library/parents.repository.js';
import {
  BASE_TIME as T,
  CHANNELS,
  COLLECTIONS,
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
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

const ctx: MapContext = { baseUrl: 'http://tv.local:8089' };

// A parsed item (object) or list (array); tests know which they asked for.
type JsonObject = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Json = JsonObject & JsonObject[];
type Readable<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => R extends Buffer ? Json : R : T[K];
};

/** The service with the JSON bytes it returns for playable items parsed, so tests can look inside. */
function read(service: LibraryService): Readable<LibraryService> {
  return new Proxy(service, {
    get(target, key) {
      const member: unknown = Reflect.get(target, key);
      if (typeof member !== 'function') return member;
      return (...args: unknown[]) => {
        const result: unknown = member.apply(target, args);
        return Buffer.isBuffer(result) ? JSON.parse(result.toString('utf8')) : result;
      };
    },
  }) as unknown as Readable<LibraryService>;
}

/** A freshly seeded library per test, so writes in one test never leak into another. */
function useSeededLibrary(): () => TempLibrary {
  let temp: TempLibrary | undefined;
  beforeEach(() => {
    temp = createTempLibrary();
    seedLibrary(temp.db);
  });
  afterEach(() => {
    temp?.close();
    temp = undefined;
  });
  return () => {
    if (!temp) throw new Error('no library');
    return temp;
  };
}

describe('derived fields of the seeded library', () => {
  let temp: TempLibrary;
  beforeAll(() => {
    temp = createTempLibrary();
    seedLibrary(temp.db);
  });
  afterAll(() => temp.close());

  it('shows: episode_count, number_unwatched, last_watched_at, last_recorded_at', () => {
    const shows = Object.fromEntries(
      read(temp.library)
        .listShows({}, ctx)
        .map((s) => [s.id, s]),
    );
    const derived = (id: string) => {
      const s = shows[id];
      return {
        episode_count: s?.episode_count,
        number_unwatched: s?.number_unwatched,
        last_watched_at: s?.last_watched_at,
        last_recorded_at: s?.last_recorded_at,
      };
    };
    // show-a: ep-a2 (imports) is newer than ep-a1 (recordings): only recordings count.
    expect(derived('show-a')).toEqual({
      episode_count: 2,
      number_unwatched: 0,
      last_watched_at: T + 60_000,
      last_recorded_at: T + 10_000,
    });
    // show-b: ep-b3 (imports) is older, the two recordings share T+12_000.
    expect(derived('show-b')).toEqual({
      episode_count: 3,
      number_unwatched: 3,
      last_watched_at: undefined,
      last_recorded_at: T + 12_000,
    });
    expect(derived('show-c')).toEqual({
      episode_count: 0,
      number_unwatched: 0,
      last_watched_at: undefined,
      last_recorded_at: undefined,
    });
    // show-d: ep-d2 (imports, T+14_000) is newer than the recording ep-d1 (T+13_000).
    expect(derived('show-d')).toEqual({
      episode_count: 2,
      number_unwatched: 1,
      last_watched_at: T + 70_000,
      last_recorded_at: T + 13_000,
    });
    // show-e: watched without a timestamp, imports only.
    expect(derived('show-e')).toEqual({
      episode_count: 1,
      number_unwatched: 0,
      last_watched_at: undefined,
      last_recorded_at: undefined,
    });
  });

  it('absent derived timestamps are omitted, not null', () => {
    const c = read(temp.library).getShow('show-c', ctx);
    expect('last_watched_at' in c).toBe(false);
    expect('last_recorded_at' in c).toBe(false);
    expect(Object.values(c)).not.toContain(null);
  });

  it('getShow agrees with listShows', () => {
    for (const show of read(temp.library).listShows({}, ctx)) {
      expect(read(temp.library).getShow(show.id ?? '', ctx)).toEqual(show);
    }
  });

  it('video groups: video_count, number_unwatched, last_watched_at', () => {
    const groups = Object.fromEntries(
      read(temp.library)
        .listVideoGroups({}, ctx)
        .map((g) => [g.id, g]),
    );
    expect(groups['videos-0a1b2c3d']).toMatchObject({
      video_count: 2,
      number_unwatched: 1,
      last_watched_at: T + 90_000,
    });
    expect(groups['videos-ffee99']).toMatchObject({ video_count: 1, number_unwatched: 0, last_watched_at: T + 95_000 });
    expect(groups['videos-00aa']).toMatchObject({ video_count: 0, number_unwatched: 0 });
    expect(groups['videos-00aa']).not.toHaveProperty('last_watched_at');
  });

  it("collections: a movies collection counts its movies, a shows collection its shows' episodes", () => {
    const collections = Object.fromEntries(
      read(temp.library)
        .listCollections(undefined, ctx)
        .map((c) => [c.id, c]),
    );
    expect(collections['col-movies']).toMatchObject({ content_count: 3, last_watched_at: T + 80_000 });
    // show-a (2 episodes) + show-b (3) + show-c (0): five episodes, not three shows.
    expect(collections['col-shows']).toMatchObject({ content_count: 5, last_watched_at: T + 60_000 });
    expect(collections['col-empty']).toMatchObject({ content_count: 0 });
    expect(collections['col-empty']).not.toHaveProperty('last_watched_at');
    expect(read(temp.library).getCollection('col-shows', ctx)).toEqual(collections['col-shows']);
  });

  it('collections are listed alphabetically, ignoring case, and filter by type', () => {
    expect(
      read(temp.library)
        .listCollections(undefined, ctx)
        .map((c) => c.id),
    ).toEqual(['col-shows', 'col-empty', 'col-movies']);
    expect(
      read(temp.library)
        .listCollections('movies', ctx)
        .map((c) => c.id),
    ).toEqual(['col-empty', 'col-movies']);
    expect(
      read(temp.library)
        .listCollections('shows', ctx)
        .map((c) => c.id),
    ).toEqual(['col-shows']);
  });

  it('playlists: content_count counts duplicates, last_watched_at is the latest of its items', () => {
    expect(read(temp.library).listPlaylists()).toEqual([
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
    ]);
    expect(read(temp.library).getPlaylist('pl-mix').content_count).toBe(5);
  });

  it("episodes carry the show's name as title and their own as episode_title", () => {
    const episode = read(temp.library).getEpisode('ep-b2', ctx);
    expect(episode.title).toBe('Bravo');
    expect(episode.episode_title).toBe('apple');
    const video = read(temp.library).getVideo('vid-3', ctx);
    expect(video.title).toBe('Animals');
    expect(video.video_title).toBe('Cats');
  });

  it('server-relative image paths become absolute under the context base URL; absolute ones stay', () => {
    expect(read(temp.library).getShow('show-a', ctx).image_url).toBe('http://tv.local:8089/images/alpha.jpg');
    expect(read(temp.library).getShow('show-b', ctx).image_url).toBe('https://cdn.example.com/bravo.jpg');
    expect(read(temp.library).getShow('show-a', { baseUrl: 'https://media.example.org' }).image_url).toBe(
      'https://media.example.org/images/alpha.jpg',
    );
  });

  it('unknown ids and ids of another kind raise NotFoundError', () => {
    expect(() => read(temp.library).getShow('nope', ctx)).toThrow(NotFoundError);
    expect(() => read(temp.library).getShow('videos-00aa', ctx)).toThrow(NotFoundError);
    expect(() => read(temp.library).getVideoGroup('show-a', ctx)).toThrow(NotFoundError);
    expect(() => read(temp.library).getEpisode('mov-1', ctx)).toThrow(NotFoundError);
    expect(() => read(temp.library).getMovie('ep-a1', ctx)).toThrow(NotFoundError);
    expect(() => read(temp.library).getVideo('ep-a1', ctx)).toThrow(NotFoundError);
    expect(() => read(temp.library).getCollection('pl-mix', ctx)).toThrow(NotFoundError);
    expect(() => read(temp.library).getPlaylist('col-movies')).toThrow(NotFoundError);
    expect(() => read(temp.library).getJob('1-1', ctx)).toThrow(NotFoundError);
    expect(() => read(temp.library).listShowEpisodes('nope', {}, ctx)).toThrow(NotFoundError);
    expect(() => read(temp.library).listGroupVideos('nope', {}, ctx)).toThrow(NotFoundError);
    expect(() => read(temp.library).listCollectionContent('nope', {}, ctx)).toThrow(NotFoundError);
    expect(() => read(temp.library).listPlaylistContent('nope', {}, ctx)).toThrow(NotFoundError);
  });

  it('counts() reports the size of the library', () => {
    expect(read(temp.library).counts()).toEqual({
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

  it('jobs: start_time order, duration = end - start, null item members dropped', () => {
    const jobs = read(temp.library).listJobs(ctx);
    expect(jobs.map((j) => j.id)).toEqual(['1699990000-7', '1700000000-12']);
    for (const job of jobs) expect(job.duration).toBe((job.end_time ?? 0) - (job.start_time ?? 0));
    expect(jobs[1]?.item).not.toHaveProperty('original_air_date');
    expect(jobs[1]?.item?.image_url).toBe('http://tv.local:8089/images/job.jpg');
  });

  it('channels are in channel-number order', () => {
    expect(
      read(temp.library)
        .listChannels(ctx)
        .map((c) => c.number),
    ).toEqual(['2.1', '2.10', '4', '10']);
  });
});

describe('derived fields after writes are never stale', () => {
  const lib = useSeededLibrary();

  it('a new episode updates its show and the shows collection that holds it', () => {
    const t = lib();
    const { db } = t;
    const library = read(t.library);
    expect(library.getShow('show-c', ctx)).toMatchObject({ episode_count: 0, number_unwatched: 0 });
    upsertEpisode(db, {
      id: 'ep-c1',
      show_id: 'show-c',
      source: 'recordings',
      episode_title: 'One',
      created_at: T + 99_000,
    });
    expect(library.getShow('show-c', ctx)).toMatchObject({
      episode_count: 1,
      number_unwatched: 1,
      last_recorded_at: T + 99_000,
    });
    expect(library.getCollection('col-shows', ctx).content_count).toBe(6);
    expect(library.listCollectionContent('col-shows', {}, ctx).map((i) => i.id)).toContain('ep-c1');
  });

  it('watching an episode updates number_unwatched and every last_watched_at that covers it', () => {
    const t = lib();
    const { db } = t;
    const library = read(t.library);
    upsertEpisode(db, {
      id: 'ep-b1',
      show_id: 'show-b',
      source: 'recordings',
      watched: true,
      last_watched_at: T + 500_000,
    });
    expect(library.getShow('show-b', ctx)).toMatchObject({ number_unwatched: 2, last_watched_at: T + 500_000 });
    expect(library.getCollection('col-shows', ctx).last_watched_at).toBe(T + 500_000);
    expect(library.getPlaylist('pl-mix').last_watched_at).toBe(T + 500_000);
    expect(library.listShows({ watched: false }, ctx).map((s) => s.id)).toContain('show-b');

    upsertEpisode(db, { id: 'ep-b2', show_id: 'show-b', source: 'recordings', watched: true });
    upsertEpisode(db, { id: 'ep-b3', show_id: 'show-b', source: 'imports', watched: true });
    expect(library.getShow('show-b', ctx).number_unwatched).toBe(0);
    expect(library.listShows({ watched: true }, ctx).map((s) => s.id)).toContain('show-b');
  });

  it('last_recorded_at follows the newest recording only', () => {
    const t = lib();
    const { db } = t;
    const library = read(t.library);
    upsertEpisode(db, { id: 'ep-a9', show_id: 'show-a', source: 'imports', created_at: T + 900_000 });
    expect(library.getShow('show-a', ctx).last_recorded_at).toBe(T + 10_000);
    upsertEpisode(db, { id: 'ep-a8', show_id: 'show-a', source: 'recordings', created_at: T + 800_000 });
    expect(library.getShow('show-a', ctx).last_recorded_at).toBe(T + 800_000);
  });

  it('a watched movie or video updates its collection, group and playlist', () => {
    const t = lib();
    const { db } = t;
    const library = read(t.library);
    upsertMovie(db, { id: 'mov-2', source: 'recordings', title: 'alien', watched: true, last_watched_at: T + 700_000 });
    expect(library.getCollection('col-movies', ctx).last_watched_at).toBe(T + 700_000);
    expect(library.getPlaylist('pl-mix').last_watched_at).toBe(T + 700_000);

    upsertVideo(db, {
      id: 'vid-2',
      video_group_id: 'videos-0a1b2c3d',
      source: 'imports',
      watched: true,
      last_watched_at: T + 800_000,
    });
    expect(library.getVideoGroup('videos-0a1b2c3d', ctx)).toMatchObject({
      number_unwatched: 0,
      last_watched_at: T + 800_000,
    });
    expect(library.getPlaylist('pl-mix').last_watched_at).toBe(T + 800_000);
  });

  it('deletes update counts: an item, a show with its episodes, a membership', () => {
    const t = lib();
    const { db } = t;
    const library = read(t.library);
    expect(deleteItem(db, 'ep-a1')).toBe(true);
    expect(library.getShow('show-a', ctx)).toMatchObject({ episode_count: 1, last_watched_at: T + 60_000 });
    expect(library.getShow('show-a', ctx)).not.toHaveProperty('last_recorded_at');
    // ep-a1 was in the playlist: it leaves it with the item.
    expect(library.getPlaylist('pl-mix').content_count).toBe(4);

    expect(deleteParent(db, 'show', 'show-b')).toBe(true);
    expect(library.getCollection('col-shows', ctx).content_count).toBe(1);
    expect(library.counts().episodes).toBe(EPISODES.length - 4);

    expect(removeCollectionMember(db, 'col-movies', 'mov-1')).toBe(true);
    expect(library.getCollection('col-movies', ctx)).toMatchObject({ content_count: 2 });
    expect(library.getCollection('col-movies', ctx)).not.toHaveProperty('last_watched_at');
  });

  it('a new video joins its group and the videos list', () => {
    const t = lib();
    const { db } = t;
    const library = read(t.library);
    upsertVideo(db, {
      id: 'vid-9',
      video_group_id: 'videos-00aa',
      source: 'imports',
      video_title: 'New',
      created_at: T + 999_000,
    });
    expect(library.getVideoGroup('videos-00aa', ctx)).toMatchObject({ video_count: 1, number_unwatched: 1 });
    expect(library.listVideos({}, ctx)[0]?.id).toBe('vid-9');
    expect(library.listVideoGroups({ watched: true }, ctx).map((g) => g.id)).not.toContain('videos-00aa');
  });
});

describe('upsert semantics', () => {
  const lib = useSeededLibrary();

  it('fields left undefined keep their stored value; created_at is kept', () => {
    const t = lib();
    const { db } = t;
    const library = read(t.library);
    const before = library.getShow('show-a', ctx);
    upsertShow(db, { id: 'show-a', name: 'alpha Show renamed', created_at: 1, updated_at: T + 7_777 });
    const after = library.getShow('show-a', ctx);
    expect(after).toEqual({ ...before, name: 'alpha Show renamed', updated_at: T + 7_777 });
    expect(after.created_at).toBe(T + 1_000);
  });

  it('null clears a field, which is then omitted', () => {
    const t = lib();
    const { db } = t;
    const library = read(t.library);
    upsertShow(db, {
      id: 'show-a',
      name: 'alpha Show',
      summary: null,
      genres: null,
      image_url: null,
      release_year: null,
    });
    const show = library.getShow('show-a', ctx);
    for (const field of ['summary', 'genres', 'image_url', 'release_year']) expect(show).not.toHaveProperty(field);
    expect(show.release_date).toBe('2010-05-01');
    expect(show.cast).toEqual(['Ada Byrne', 'Tom Ellery']);
  });

  it('updated_at defaults to the time of the write', () => {
    const t = lib();
    const { db } = t;
    const library = read(t.library);
    const start = Date.now();
    upsertShow(db, { id: 'show-d', name: 'Delta' });
    const show = library.getShow('show-d', ctx);
    expect(show.updated_at).toBeGreaterThanOrEqual(start);
    expect(show.updated_at).toBeLessThanOrEqual(Date.now());
    expect(show.created_at).toBe(T + 3_000);
  });

  it('a rescan of an episode keeps watch state, flags and timestamps it does not name', () => {
    const t = lib();
    const { db } = t;
    const library = read(t.library);
    const before = library.getEpisode('ep-a1', ctx);
    upsertEpisode(db, {
      id: 'ep-a1',
      show_id: 'show-a',
      source: 'recordings',
      path: '/new/path.mpg',
      updated_at: T + 10_600,
    });
    const after = library.getEpisode('ep-a1', ctx);
    expect(after).toEqual({ ...before, path: '/new/path.mpg', updated_at: T + 10_600 });
    expect(after).toMatchObject({
      watched: true,
      locked: true,
      verified: true,
      playback_time: 12.5,
      last_watched_at: T + 50_000,
    });
  });

  it('episode fields can be cleared and flags turned off', () => {
    const t = lib();
    const { db } = t;
    const library = read(t.library);
    upsertEpisode(db, {
      id: 'ep-a1',
      show_id: 'show-a',
      source: 'recordings',
      duration: null,
      commercials: null,
      last_watched_at: null,
      watched: false,
    });
    const episode = library.getEpisode('ep-a1', ctx);
    // Cleared, duration is 0 (always present: clients type it as required).
    expect(episode.duration).toBe(0);
    expect(episode).not.toHaveProperty('commercials');
    expect(episode).not.toHaveProperty('last_watched_at');
    expect(episode.watched).toBe(false);
    expect(episode.episode_title).toBe('Pilot');
    expect(library.getShow('show-a', ctx)).toMatchObject({ number_unwatched: 1, last_watched_at: T + 60_000 });
  });

  it('movies, videos, groups, collections, playlists, jobs and channels keep unnamed fields', () => {
    const t = lib();
    const { db } = t;
    const library = read(t.library);
    upsertMovie(db, { id: 'mov-1', source: 'imports', title: 'The Matrix', updated_at: T + 1 });
    expect(library.getMovie('mov-1', ctx)).toMatchObject({
      release_date: '1999-03-31',
      watched: true,
      duration: 8160,
      created_at: T + 20_000,
    });

    upsertVideo(db, { id: 'vid-1', video_group_id: 'videos-0a1b2c3d', source: 'imports', duration: 601 });
    expect(library.getVideo('vid-1', ctx)).toMatchObject({ video_title: 'Live at Rome', duration: 601, watched: true });

    upsertVideoGroup(db, { id: 'videos-0a1b2c3d', name: 'Concerts' });
    expect(library.getVideoGroup('videos-0a1b2c3d', ctx)).toMatchObject({
      name: 'Concerts',
      favorited: true,
      labels: ['music'],
    });

    upsertCollection(db, { id: 'col-movies', collection_type: 'movies', name: 'Renamed' });
    expect(library.getCollection('col-movies', ctx)).toMatchObject({
      name: 'Renamed',
      labels: ['sf'],
      content_count: 3,
      created_at: T + 50_000,
    });

    upsertPlaylist(db, { id: 'pl-mix', name: 'Renamed mix' });
    expect(library.getPlaylist('pl-mix')).toMatchObject({ name: 'Renamed mix', labels: ['weekend'], content_count: 5 });

    upsertChannel(db, { id: 'ch-10', number: '10', name: 'Ten again' });
    expect(library.listChannels(ctx).find((c) => c.id === 'ch-10')).toMatchObject({
      name: 'Ten again',
      call_sign: 'KTEN',
      hd: true,
    });

    const job = JOBS[0];
    if (!job) throw new Error('seed has jobs');
    upsertJob(db, {
      id: job.id,
      name: job.name,
      start_time: job.start_time,
      end_time: job.end_time + 60,
      item: job.item,
    });
    expect(library.getJob(job.id, ctx)).toMatchObject({ channel: '2.1', channels: ['2.1', '2.10'], duration: 1860 });
  });
});

describe('collection membership', () => {
  const lib = useSeededLibrary();

  it('a movies collection refuses a show, and a shows collection a movie', () => {
    const t = lib();
    const { db } = t;
    const library = read(t.library);
    expect(() => addCollectionMember(db, 'col-movies', 'show-a')).toThrow(MembershipError);
    expect(() => addCollectionMember(db, 'col-shows', 'mov-1')).toThrow(MembershipError);
    expect(library.getCollection('col-movies', ctx).content_count).toBe(3);
    expect(library.getCollection('col-shows', ctx).content_count).toBe(5);
  });

  it('a movies collection refuses an episode or a video; a shows collection an episode or a group', () => {
    const { db } = lib();
    expect(() => addCollectionMember(db, 'col-movies', 'ep-a1')).toThrow(MembershipError);
    expect(() => addCollectionMember(db, 'col-movies', 'vid-1')).toThrow(MembershipError);
    expect(() => addCollectionMember(db, 'col-shows', 'ep-a1')).toThrow(MembershipError);
    expect(() => addCollectionMember(db, 'col-shows', 'videos-0a1b2c3d')).toThrow(MembershipError);
  });

  it('unknown collections and members are refused', () => {
    const { db } = lib();
    expect(() => addCollectionMember(db, 'col-nope', 'mov-1')).toThrow(MembershipError);
    expect(() => addCollectionMember(db, 'col-movies', 'mov-nope')).toThrow(MembershipError);
    expect(() => addCollectionMember(db, 'col-shows', 'show-nope')).toThrow(MembershipError);
  });

  it('adding a member twice is a no-op', () => {
    const t = lib();
    const { db } = t;
    const library = read(t.library);
    addCollectionMember(db, 'col-movies', 'mov-1');
    addCollectionMember(db, 'col-shows', 'show-a');
    expect(library.getCollection('col-movies', ctx).content_count).toBe(3);
    expect(library.getCollection('col-shows', ctx).content_count).toBe(5);
  });

  it('adding a member updates content and count at once', () => {
    const t = lib();
    const { db } = t;
    const library = read(t.library);
    addCollectionMember(db, 'col-empty', 'mov-4');
    expect(library.getCollection('col-empty', ctx).content_count).toBe(1);
    expect(library.listCollectionContent('col-empty', {}, ctx).map((i) => i.id)).toEqual(['mov-4']);
    addCollectionMember(db, 'col-shows', 'show-d');
    expect(library.getCollection('col-shows', ctx)).toMatchObject({ content_count: 7, last_watched_at: T + 70_000 });
  });

  it('a movies collection lists its movies in title order; a shows collection the episodes of its shows', () => {
    const library = read(lib().library);
    expect(library.listCollectionContent('col-movies', {}, ctx).map((i) => i.id)).toEqual(['mov-2', 'mov-1', 'mov-3']);
    expect(library.listCollectionContent('col-shows', {}, ctx).map((i) => i.id)).toEqual([
      'ep-a1',
      'ep-a2',
      'ep-b1',
      'ep-b2',
      'ep-b3',
    ]);
    expect(library.listCollectionContent('col-empty', {}, ctx)).toEqual([]);
  });
});

describe('playlists', () => {
  const lib = useSeededLibrary();

  it('content comes in playlist order, duplicates included', () => {
    const library = read(lib().library);
    expect(library.listPlaylistContent('pl-mix', {}, ctx).map((i) => i.id)).toEqual(PLAYLIST_ITEMS['pl-mix']);
    expect(library.listPlaylistContent('pl-empty', {}, ctx)).toEqual([]);
  });

  it('each item keeps its own shape', () => {
    const library = read(lib().library);
    const [movie, episode, video] = library.listPlaylistContent('pl-mix', {}, ctx);
    expect(movie).toMatchObject({ id: 'mov-2', title: 'alien' });
    expect(episode).toMatchObject({ id: 'ep-b1', show_id: 'show-b', title: 'Bravo', episode_title: 'Zed' });
    expect(video).toMatchObject({
      id: 'vid-2',
      video_group_id: 'videos-0a1b2c3d',
      title: 'concerts',
      video_title: 'Arena',
    });
  });

  it('a sort overrides the playlist order', () => {
    const library = read(lib().library);
    expect(library.listPlaylistContent('pl-mix', { sort: 'date_added', order: 'asc' }, ctx).map((i) => i.id)).toEqual([
      'ep-a1',
      'ep-b1',
      'mov-2',
      'mov-2',
      'vid-2',
    ]);
  });

  it('setPlaylistItems replaces the content; appendPlaylistItems appends, duplicates allowed', () => {
    const t = lib();
    const { db } = t;
    const library = read(t.library);
    setPlaylistItems(db, 'pl-empty', ['vid-3', 'ep-e1', 'vid-3']);
    expect(library.listPlaylistContent('pl-empty', {}, ctx).map((i) => i.id)).toEqual(['vid-3', 'ep-e1', 'vid-3']);
    appendPlaylistItems(db, 'pl-empty', ['mov-4', 'ep-e1']);
    expect(library.listPlaylistContent('pl-empty', {}, ctx).map((i) => i.id)).toEqual([
      'vid-3',
      'ep-e1',
      'vid-3',
      'mov-4',
      'ep-e1',
    ]);
    expect(library.getPlaylist('pl-empty')).toMatchObject({ content_count: 5, last_watched_at: T + 95_000 });
    setPlaylistItems(db, 'pl-empty', ['mov-1']);
    expect(library.listPlaylistContent('pl-empty', {}, ctx).map((i) => i.id)).toEqual(['mov-1']);
    expect(library.getPlaylist('pl-empty')).toMatchObject({ content_count: 1, last_watched_at: T + 80_000 });
  });

  it('filters apply to playlist content without changing its order', () => {
    const library = read(lib().library);
    expect(library.listPlaylistContent('pl-mix', { source: 'recordings' }, ctx).map((i) => i.id)).toEqual([
      'mov-2',
      'ep-b1',
      'ep-a1',
      'mov-2',
    ]);
    expect(library.listPlaylistContent('pl-mix', { watched: true }, ctx).map((i) => i.id)).toEqual(['ep-a1']);
  });
});

describe('generation()', () => {
  const lib = useSeededLibrary();

  it('does not change on reads', () => {
    const library = read(lib().library);
    const before = library.generation();
    library.listShows({}, ctx);
    library.getShow('show-a', ctx);
    library.listShowEpisodes('show-a', {}, ctx);
    library.listEpisodes({ watched: true }, ctx);
    library.getEpisode('ep-a1', ctx);
    library.listMovies({ sort: 'duration' }, ctx);
    library.getMovie('mov-1', ctx);
    library.listVideoGroups({}, ctx);
    library.getVideoGroup('videos-00aa', ctx);
    library.listGroupVideos('videos-0a1b2c3d', {}, ctx);
    library.listVideos({}, ctx);
    library.getVideo('vid-1', ctx);
    library.listAll({}, ctx);
    library.listCollections(undefined, ctx);
    library.getCollection('col-shows', ctx);
    library.listCollectionContent('col-shows', {}, ctx);
    library.listPlaylists();
    library.getPlaylist('pl-mix');
    library.listPlaylistContent('pl-mix', {}, ctx);
    library.listJobs(ctx);
    library.getJob('1700000000-12', ctx);
    library.listChannels(ctx);
    library.counts();
    expect(() => library.getShow('nope', ctx)).toThrow(NotFoundError);
    expect(library.generation()).toBe(before);
    expect(library.generation()).toBe(before);
  });

  it('changes after every kind of write', () => {
    const t = lib();
    const { db } = t;
    const library = read(t.library);
    const writes: [string, () => unknown][] = [
      ['upsertShow', () => upsertShow(db, { id: 'show-n', name: 'New' })],
      ['upsertShow (update)', () => upsertShow(db, { id: 'show-n', name: 'New' })],
      ['upsertVideoGroup', () => upsertVideoGroup(db, { id: 'videos-99', name: 'New group' })],
      ['upsertEpisode', () => upsertEpisode(db, { id: 'ep-n', show_id: 'show-n', source: 'imports' })],
      [
        'upsertEpisode (update)',
        () => upsertEpisode(db, { id: 'ep-n', show_id: 'show-n', source: 'imports', watched: true }),
      ],
      ['upsertMovie', () => upsertMovie(db, { id: 'mov-n', source: 'imports', title: 'New movie' })],
      ['upsertVideo', () => upsertVideo(db, { id: 'vid-n', video_group_id: 'videos-99', source: 'imports' })],
      ['upsertCollection', () => upsertCollection(db, { id: 'col-n', collection_type: 'shows', name: 'New' })],
      ['addCollectionMember', () => addCollectionMember(db, 'col-n', 'show-n')],
      ['addCollectionMember (again)', () => addCollectionMember(db, 'col-n', 'show-n')],
      ['removeCollectionMember', () => removeCollectionMember(db, 'col-n', 'show-n')],
      ['upsertPlaylist', () => upsertPlaylist(db, { id: 'pl-n', name: 'New' })],
      ['setPlaylistItems', () => setPlaylistItems(db, 'pl-n', ['mov-n', 'ep-n'])],
      ['appendPlaylistItems', () => appendPlaylistItems(db, 'pl-n', ['mov-n'])],
      ['setPlaylistItems (empty)', () => setPlaylistItems(db, 'pl-n', [])],
      [
        'upsertJob',
        () =>
          upsertJob(db, {
            id: '1800000000-1',
            name: 'Job',
            start_time: 1_800_000_000,
            end_time: 1_800_000_060,
            item: { title: 'Job' },
          }),
      ],
      ['upsertChannel', () => upsertChannel(db, { id: 'ch-n', number: '99', name: 'New' })],
      ['deleteJob', () => deleteJob(db, '1800000000-1')],
      ['deleteItem', () => deleteItem(db, 'vid-n')],
      ['deletePlaylist', () => deletePlaylist(db, 'pl-n')],
      ['deleteCollection', () => deleteCollection(db, 'col-n')],
      ['deleteParent', () => deleteParent(db, 'show', 'show-n')],
    ];
    const seen = new Set([library.generation()]);
    for (const [name, write] of writes) {
      write();
      const generation = library.generation();
      expect(seen.has(generation), `${name} left the generation at ${generation}`).toBe(false);
      seen.add(generation);
      // ...and reading it again without a write gives the same value.
      expect(library.generation()).toBe(generation);
    }
  });

  it('changes when another process commits, once the check interval has passed', () => {
    const t = lib();
    let clock = 1_000;
    const service = new LibraryService(t.db, { now: () => clock });
    const library = read(service);
    const before = library.generation();
    const other = new Database(databasePath(t.dir));
    try {
      other.pragma('foreign_keys = ON');
      upsertShow(other, { id: 'show-other', name: 'From elsewhere' });
    } finally {
      other.close();
    }
    // Within the interval the last read of data_version stands...
    clock += DEFAULT_EXTERNAL_CHECK_INTERVAL_MS - 1;
    expect(library.generation()).toBe(before);
    // ...and after it the other process's commit is seen.
    clock += 1;
    expect(library.generation()).not.toBe(before);
    expect(library.getShow('show-other', ctx).name).toBe('From elsewhere');
  });

  it('sees another process’s commit at once with an interval of 0', () => {
    const t = lib();
    const library = read(new LibraryService(t.db, { externalCheckIntervalMs: 0 }));
    const before = library.generation();
    const other = new Database(databasePath(t.dir));
    try {
      upsertMovie(other, { id: 'mov-other', source: 'imports', title: 'Other' });
    } finally {
      other.close();
    }
    expect(library.generation()).not.toBe(before);
  });

  it('keeps its value through commits said to be unseen (a guide refresh thread), and moves when told a commit is seen', () => {
    const t = lib();
    const service = new LibraryService(t.db, { externalCheckIntervalMs: 0 });
    const library = read(service);
    const before = library.generation();
    const other = new Database(databasePath(t.dir));
    try {
      // What the guide thread writes: rows of a generation no reader takes yet.
      other
        .prepare(
          "INSERT INTO dvr_guides (id, location, origin, created_at, updated_at) VALUES ('g', '/g.xml', 'managed', 0, 0)",
        )
        .run();
      service.externalWritesUnseen();
      expect(library.generation()).toBe(before);
      // Its swap: seen.
      service.externalWritesSeen();
      const swapped = library.generation();
      expect(swapped).not.toBe(before);
      // A commit nobody said anything of is seen as before.
      upsertMovie(other, { id: 'mov-other', source: 'imports', title: 'Other' });
      expect(library.generation()).not.toBe(swapped);
    } finally {
      other.close();
    }
  });
});

describe('jobsGeneration()', () => {
  const lib = useSeededLibrary();

  it('moves with writes of the jobs table and with other processes’ commits, not with other writes nor a guide refresh’s swap', () => {
    const t = lib();
    const service = new LibraryService(t.db, { externalCheckIntervalMs: 0 });
    const before = service.jobsGeneration();
    upsertMovie(t.db, { id: 'mov-elsewhere', source: 'imports', title: 'Not a job' });
    // A guide refresh thread's commits, its swap said to be seen: no job changed.
    const thread = new Database(databasePath(t.dir));
    try {
      thread
        .prepare(
          "INSERT INTO dvr_guides (id, location, origin, created_at, updated_at) VALUES ('g', '/g.xml', 'managed', 0, 0)",
        )
        .run();
      service.externalWritesSeen();
    } finally {
      thread.close();
    }
    expect(service.jobsGeneration()).toBe(before);
    upsertJob(t.db, {
      id: '1900000000-77',
      name: 'Job',
      start_time: 1_900_000_000,
      end_time: 1_900_001_800,
      item: { title: 'Job' },
    });
    const written = service.jobsGeneration();
    expect(written).not.toBe(before);
    // A write that changes no row of it leaves it.
    expect(deleteJob(t.db, '1900000000-78')).toBe(false);
    expect(service.jobsGeneration()).toBe(written);
    expect(deleteJob(t.db, '1900000000-77')).toBe(true);
    const deleted = service.jobsGeneration();
    expect(deleted).not.toBe(written);
    const other = new Database(databasePath(t.dir));
    try {
      upsertMovie(other, { id: 'mov-other', source: 'imports', title: 'Other' });
    } finally {
      other.close();
    }
    expect(service.jobsGeneration()).not.toBe(deleted);
  });
});

describe('counts()', () => {
  const lib = useSeededLibrary();

  it('follows writes and deletes', () => {
    const t = lib();
    const { db } = t;
    const library = read(t.library);
    upsertMovie(db, { id: 'mov-9', source: 'imports', title: 'Nine' });
    upsertVideoGroup(db, { id: 'videos-99', name: 'G' });
    upsertChannel(db, { id: 'ch-9', number: '9', name: 'Nine' });
    deleteParent(db, 'show', 'show-a');
    expect(library.counts()).toMatchObject({
      movies: MOVIES.length + 1,
      video_groups: VIDEO_GROUPS.length + 1,
      channels: CHANNELS.length + 1,
      shows: SHOWS.length - 1,
      episodes: EPISODES.length - 2,
    });
  });

  it('an empty library counts zero everywhere', () => {
    const empty = createTempLibrary();
    try {
      expect(Object.values(read(empty.library).counts())).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
      expect(read(empty.library).listShows({}, ctx)).toEqual([]);
      expect(read(empty.library).listAll({}, ctx)).toEqual([]);
    } finally {
      empty.close();
    }
  });
});
