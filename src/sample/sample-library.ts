/**
 * A small library for a first start with nothing configured, so every endpoint
 * has something to show. Its ids start with `sample-`; it is removed as soon as
 * import roots are configured. It holds metadata only: no media files exist.
 */
import type { Db } from '../db/database.js';
import { statement } from '../db/row-codec.js';
import { upsertJob } from '../dvr/jobs.repository.js';
import { addCollectionMember, setPlaylistItems, upsertCollection, upsertPlaylist } from '../library/collections.repository.js';
import { upsertEpisode, upsertMovie, upsertVideo } from '../library/items.repository.js';
import { upsertShow, upsertVideoGroup } from '../library/parents.repository.js';

const PREFIX = 'sample-';

export function seedSampleLibrary(db: Db, now: number = Date.now()): void {
  const day = 86_400_000;
  db.transaction(() => {
    upsertShow(db, {
      id: 'sample-show-1',
      name: 'The Lighthouse Keepers',
      summary: 'Two keepers, one island, and the weather.',
      release_year: 2021,
      release_date: '2021-09-14',
      genres: ['Drama'],
      categories: ['Series'],
      cast: ['Ada Byrne', 'Tom Ellery'],
      created_at: now - 30 * day,
    });
    for (let episode = 1; episode <= 3; episode++) {
      upsertEpisode(db, {
        id: `sample-episode-${episode}`,
        show_id: 'sample-show-1',
        source: episode === 3 ? 'recordings' : 'imports',
        season_number: 1,
        episode_number: episode,
        episode_title: ['Arrival', 'The Fog', 'Relief Boat'][episode - 1] ?? null,
        summary: `Episode ${episode} of the sample show.`,
        original_air_date: `2021-09-${String(13 + episode).padStart(2, '0')}`,
        duration: 1800,
        channel: episode === 3 ? '4.1' : null,
        watched: episode === 1,
        last_watched_at: episode === 1 ? now - 2 * day : null,
        completed: true,
        processed: true,
        created_at: now - (30 - episode) * day,
      });
    }
    upsertMovie(db, {
      id: 'sample-movie-1',
      source: 'imports',
      title: 'Night Train to Lisbon Street',
      summary: 'A sample movie.',
      release_year: 1998,
      release_date: '1998-05-01',
      content_rating: 'PG',
      genres: ['Mystery'],
      duration: 5400,
      completed: true,
      processed: true,
      created_at: now - 10 * day,
    });
    upsertVideoGroup(db, { id: 'videos-5a3c1e0d9b7f', name: 'Garden Timelapses', categories: ['internet video'] });
    upsertVideo(db, {
      id: 'sample-video-1',
      video_group_id: 'videos-5a3c1e0d9b7f',
      source: 'imports',
      video_title: 'Tulips, April',
      duration: 95,
      completed: true,
      processed: true,
    });
    upsertCollection(db, { id: 'sample-collection-1', collection_type: 'shows', name: 'Sea Stories' });
    addCollectionMember(db, 'sample-collection-1', 'sample-show-1');
    upsertPlaylist(db, { id: 'sample-playlist-1', name: 'Rainy Sunday' });
    setPlaylistItems(db, 'sample-playlist-1', ['sample-movie-1', 'sample-episode-2', 'sample-video-1']);
    const start = Math.floor(now / 1000 / 3600 + 24) * 3600;
    upsertJob(db, {
      id: `${start}-1`,
      name: 'The Lighthouse Keepers',
      start_time: start,
      end_time: start + 1800,
      channels: ['4.1'],
      channel: '4.1',
      item: { show_id: 'sample-show-1', title: 'The Lighthouse Keepers', episode_title: 'Gale Warning', season_number: 1, episode_number: 4 },
    });
  })();
}

/** Removes everything the sample seeded; other data is untouched. */
export function removeSampleLibrary(db: Db): void {
  db.transaction(() => {
    for (const table of ['playlists', 'collections', 'items', 'shows']) {
      statement(db, `DELETE FROM ${table} WHERE id GLOB '${PREFIX}*'`).run();
    }
    statement(db, "DELETE FROM video_groups WHERE id = 'videos-5a3c1e0d9b7f'").run();
    statement(db, "DELETE FROM jobs WHERE name = 'The Lighthouse Keepers' AND item LIKE '%sample-show-1%'").run();
  })();
}
