/**
 * A deterministic library for service and HTTP tests, written only through the
 * store's own write functions. Every timestamp is fixed, so expectations can be
 * exact. The inputs are exported too: tests derive expected orders and filters
 * from them (never from the code under test).
 *
 * Shape of the library (T = BASE_TIME):
 * - shows: 'alpha Show' (every episode watched), 'Bravo' (favorited, nothing
 *   watched), 'charlie' (no episodes), 'Delta' (one of two watched), 'BRAVO'
 *   (same name as 'Bravo' ignoring case; its only episode watched). 'Bravo' and
 *   'charlie' share a created_at.
 * - episodes from both sources, one with every optional field, some with none.
 * - movies with a release date, with a year only, with neither; duration ties.
 * - video groups 'concerts' (one of two watched), 'Animals' (all watched), 'Empty'.
 * - a movies collection, a shows collection, an empty movies collection.
 * - a playlist mixing movies, episodes and videos with one movie twice; an empty one.
 * - two jobs and four channels ("10", "2.10", "4", "2.1").
 */
import type { Db } from '../../src/db/database.js';
import { type ChannelInput, upsertChannel } from '../../src/repositories/dvr/channels.repository.js';
import { type JobInput, upsertJob } from '../../src/repositories/dvr/jobs.repository.js';
import {
  type CollectionInput,
  type PlaylistInput,
  addCollectionMember,
  appendPlaylistItems,
  setPlaylistItems,
  upsertCollection,
  upsertPlaylist,
} from '../../src/repositories/library/collections.repository.js';
import {
  type EpisodeInput,
  type MovieInput,
  type VideoInput,
  upsertEpisode,
  upsertMovie,
  upsertVideo,
} from '../../src/repositories/library/items.repository.js';
import type { JobItem } from '../../src/model/library/library.schemas.js';
import {
  type ParentInput,
  type ShowInput,
  upsertShow,
  upsertVideoGroup,
} from '../../src/repositories/library/parents.repository.js';

/** 2023-11-14T22:13:20Z in epoch milliseconds. */
export const BASE_TIME = 1_700_000_000_000;
const T = BASE_TIME;

export const SHOWS: readonly ShowInput[] = [
  {
    id: 'show-a',
    name: 'alpha Show',
    summary: 'Every episode of this one was watched.',
    image_url: '/images/alpha.jpg',
    release_year: 2010,
    release_date: '2010-05-01',
    genres: ['Drama', 'Mystery'],
    categories: ['Series'],
    labels: ['keep'],
    cast: ['Ada Byrne', 'Tom Ellery'],
    favorited: false,
    created_at: T + 1_000,
    updated_at: T + 1_500,
  },
  {
    id: 'show-b',
    name: 'Bravo',
    image_url: 'https://cdn.example.com/bravo.jpg',
    release_year: 2014,
    favorited: true,
    created_at: T + 2_000,
    updated_at: T + 2_500,
  },
  {
    // No episodes at all; created at the same instant as show-b.
    id: 'show-c',
    name: 'charlie',
    created_at: T + 2_000,
    updated_at: T + 2_000,
  },
  {
    id: 'show-d',
    name: 'Delta',
    release_year: 2012,
    release_date: '2012-01-01',
    created_at: T + 3_000,
    updated_at: T + 3_100,
  },
  {
    // Equal to 'Bravo' ignoring case: alphabetical ties are broken by id.
    id: 'show-e',
    name: 'BRAVO',
    release_year: 2015,
    release_date: '2015-06-01',
    created_at: T + 500,
    updated_at: T + 600,
  },
];

export const EPISODES: readonly EpisodeInput[] = [
  {
    // Every optional field set.
    id: 'ep-a1',
    show_id: 'show-a',
    source: 'recordings',
    program_id: 'EP000001',
    path: '/media/recordings/alpha/S01E01.mpg',
    channel: '2.1',
    season_number: 1,
    episode_number: 1,
    episode_title: 'Pilot',
    event_title: 'Opening Night',
    summary: 'It begins.',
    full_summary: 'It begins, at length.',
    content_rating: 'TV-14',
    image_url: '/images/a1.jpg',
    thumbnail_url: '/thumbs/a1.jpg',
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
  },
  {
    id: 'ep-a2',
    show_id: 'show-a',
    source: 'imports',
    path: '/media/tv/alpha/S01E02.mkv',
    season_number: 1,
    episode_number: 2,
    episode_title: 'second',
    duration: 1750.5,
    original_air_date: '2010-05-08',
    watched: true,
    last_watched_at: T + 60_000,
    created_at: T + 11_000,
    updated_at: T + 11_000,
  },
  {
    id: 'ep-b1',
    show_id: 'show-b',
    source: 'recordings',
    season_number: 1,
    episode_number: 1,
    episode_title: 'Zed',
    image_url: 'https://cdn.example.com/b1.jpg',
    thumbnail_url: 'http://other.example.net/t/b1.png',
    duration: 3600,
    original_air_date: '2014-01-01',
    favorited: true,
    created_at: T + 12_000,
    updated_at: T + 12_000,
  },
  {
    // Created at the same instant as ep-b1; no duration, no air date.
    id: 'ep-b2',
    show_id: 'show-b',
    source: 'recordings',
    season_number: 1,
    episode_number: 2,
    episode_title: 'apple',
    created_at: T + 12_000,
    updated_at: T + 12_000,
  },
  {
    // No episode title; same duration as ep-a1.
    id: 'ep-b3',
    show_id: 'show-b',
    source: 'imports',
    season_number: 2,
    episode_number: 1,
    duration: 1800,
    original_air_date: '2014-09-09',
    verified: true,
    created_at: T + 9_000,
    updated_at: T + 9_000,
  },
  {
    id: 'ep-d1',
    show_id: 'show-d',
    source: 'recordings',
    season_number: 1,
    episode_number: 1,
    episode_title: 'Mango',
    duration: 2400,
    original_air_date: '2012-01-01',
    watched: true,
    last_watched_at: T + 70_000,
    created_at: T + 13_000,
    updated_at: T + 13_000,
  },
  {
    // The bare minimum: no season, episode, duration or air date.
    id: 'ep-d2',
    show_id: 'show-d',
    source: 'imports',
    episode_title: 'Banana',
    created_at: T + 14_000,
    updated_at: T + 14_000,
  },
  {
    // Watched, but without a last-watched time.
    id: 'ep-e1',
    show_id: 'show-e',
    source: 'imports',
    season_number: 1,
    episode_number: 1,
    episode_title: 'Kiwi',
    duration: 1200,
    original_air_date: '2015-06-01',
    watched: true,
    created_at: T + 8_000,
    updated_at: T + 8_000,
  },
];

export const MOVIES: readonly MovieInput[] = [
  {
    id: 'mov-1',
    source: 'imports',
    title: 'The Matrix',
    program_id: 'MV000001',
    path: '/media/movies/The Matrix (1999).mkv',
    channel: '4',
    summary: 'A hacker learns the truth.',
    full_summary: 'A hacker learns the truth about reality.',
    content_rating: 'R',
    image_url: '/images/matrix.jpg',
    thumbnail_url: '/thumbs/matrix.jpg',
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
    locked: true,
    verified: true,
    completed: true,
    processed: true,
    last_watched_at: T + 80_000,
    created_at: T + 20_000,
    updated_at: T + 20_500,
  },
  {
    // Release year only.
    id: 'mov-2',
    source: 'recordings',
    title: 'alien',
    channel: '2.10',
    duration: 7020,
    release_year: 1979,
    created_at: T + 21_000,
    updated_at: T + 21_000,
  },
  {
    // Neither release date nor year, no duration; created with mov-2.
    id: 'mov-3',
    source: 'imports',
    title: 'Zardoz',
    created_at: T + 21_000,
    updated_at: T + 21_000,
  },
  {
    // Same duration as mov-1.
    id: 'mov-4',
    source: 'recordings',
    title: 'Brazil',
    duration: 8160,
    release_year: 1985,
    release_date: '1985-02-20',
    favorited: true,
    created_at: T + 19_000,
    updated_at: T + 19_000,
  },
];

export const VIDEO_GROUPS: readonly ParentInput[] = [
  {
    id: 'videos-0a1b2c3d',
    name: 'concerts',
    summary: 'Live music.',
    image_url: '/images/concerts.png',
    categories: ['concert'],
    labels: ['music'],
    favorited: true,
    created_at: T + 30_000,
    updated_at: T + 30_100,
  },
  {
    id: 'videos-ffee99',
    name: 'Animals',
    release_year: 2020,
    release_date: '2020-02-02',
    genres: ['Nature'],
    created_at: T + 31_000,
    updated_at: T + 31_000,
  },
  {
    // No videos; created with 'concerts'.
    id: 'videos-00aa',
    name: 'Empty',
    created_at: T + 30_000,
    updated_at: T + 30_000,
  },
];

export const VIDEOS: readonly VideoInput[] = [
  {
    id: 'vid-1',
    video_group_id: 'videos-0a1b2c3d',
    source: 'imports',
    path: '/media/videos/concerts/rome.mp4',
    video_title: 'Live at Rome',
    season_number: 1,
    episode_number: 2,
    full_summary: 'The whole concert.',
    content_rating: 'G',
    image_url: '/images/rome.jpg',
    duration: 600,
    watched: true,
    last_watched_at: T + 90_000,
    created_at: T + 40_000,
    updated_at: T + 40_000,
  },
  {
    id: 'vid-2',
    video_group_id: 'videos-0a1b2c3d',
    source: 'imports',
    video_title: 'Arena',
    season_number: 1,
    episode_number: 1,
    duration: 300,
    original_air_date: '2019-07-01',
    verified: true,
    created_at: T + 41_000,
    updated_at: T + 41_000,
  },
  {
    // Created with vid-1; no season, episode or duration.
    id: 'vid-3',
    video_group_id: 'videos-ffee99',
    source: 'imports',
    video_title: 'Cats',
    watched: true,
    favorited: true,
    last_watched_at: T + 95_000,
    created_at: T + 40_000,
    updated_at: T + 40_000,
  },
];

export const COLLECTIONS: readonly CollectionInput[] = [
  {
    id: 'col-movies',
    collection_type: 'movies',
    name: 'Sci-Fi Classics',
    image_url: '/images/scifi.jpg',
    labels: ['sf'],
    created_at: T + 50_000,
    updated_at: T + 50_500,
  },
  { id: 'col-shows', collection_type: 'shows', name: 'comedy', created_at: T + 51_000, updated_at: T + 51_500 },
  {
    id: 'col-empty',
    collection_type: 'movies',
    name: 'Empty collection',
    created_at: T + 52_000,
    updated_at: T + 52_000,
  },
];

export const COLLECTION_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  'col-movies': ['mov-1', 'mov-2', 'mov-3'],
  'col-shows': ['show-a', 'show-b', 'show-c'],
  'col-empty': [],
};

export const PLAYLISTS: readonly PlaylistInput[] = [
  { id: 'pl-mix', name: 'Weekend mix', labels: ['weekend'], created_at: T + 60_000, updated_at: T + 60_500 },
  { id: 'pl-empty', name: 'empty list', created_at: T + 61_000, updated_at: T + 61_000 },
];

/** pl-mix in playlist order; mov-2 appears twice (the last one appended separately). */
export const PLAYLIST_ITEMS: Readonly<Record<string, readonly string[]>> = {
  'pl-mix': ['mov-2', 'ep-b1', 'vid-2', 'ep-a1', 'mov-2'],
  'pl-empty': [],
};

export const JOBS: readonly JobInput[] = [
  {
    id: '1700000000-12',
    name: 'Evening News',
    start_time: 1_700_000_000,
    end_time: 1_700_001_800,
    channels: ['2.1', '2.10'],
    channel: '2.1',
    item: {
      show_id: 'show-b',
      program_id: 'EP000099',
      season_number: 3,
      episode_number: 3,
      title: 'Bravo',
      episode_title: 'Tonight',
      summary: 'The news.',
      image_url: '/images/job.jpg',
      genres: ['News'],
      // A null member must be omitted from the payload like every other null.
      original_air_date: null,
      watched: false,
      locked: true,
    } as unknown as JobItem,
    updated_at: T + 100,
  },
  {
    id: '1699990000-7',
    name: 'Late Movie',
    start_time: 1_699_990_000,
    end_time: 1_699_997_200,
    channels: ['4'],
    skipped: true,
    failed: true,
    error: 'No tuner was free.',
    item: { title: 'Late Movie', image_url: 'https://img.example.com/late.jpg', release_year: 1970 },
    updated_at: T + 200,
  },
];

export const CHANNELS: readonly ChannelInput[] = [
  { id: 'ch-10', number: '10', name: 'Ten', call_sign: 'KTEN', hd: true },
  { id: 'ch-2-10', number: '2.10', name: 'Two Ten' },
  { id: 'ch-4', number: '4', name: 'Four', image_url: '/logos/4.png', favorited: true },
  { id: 'ch-2-1', number: '2.1', name: 'Two One', image_url: 'https://logos.example.com/21.png', hd: true },
];

/** Fills an empty library with the data above. Deterministic: every timestamp is fixed. */
export function seedLibrary(db: Db): void {
  db.transaction(() => {
    for (const show of SHOWS) upsertShow(db, show);
    for (const episode of EPISODES) upsertEpisode(db, episode);
    for (const movie of MOVIES) upsertMovie(db, movie);
    for (const group of VIDEO_GROUPS) upsertVideoGroup(db, group);
    for (const video of VIDEOS) upsertVideo(db, video);
    for (const collection of COLLECTIONS) {
      upsertCollection(db, collection);
      for (const member of COLLECTION_MEMBERS[collection.id] ?? []) addCollectionMember(db, collection.id, member);
      // Adding members stamps updated_at with the clock: write the fixed one back.
      upsertCollection(db, collection);
    }
    for (const playlist of PLAYLISTS) {
      upsertPlaylist(db, playlist);
      const items = PLAYLIST_ITEMS[playlist.id] ?? [];
      setPlaylistItems(db, playlist.id, items.slice(0, -1));
      if (items.length > 0) appendPlaylistItems(db, playlist.id, items.slice(-1));
      upsertPlaylist(db, playlist);
    }
    for (const job of JOBS) upsertJob(db, job);
    for (const channel of CHANNELS) upsertChannel(db, channel);
  })();
}
