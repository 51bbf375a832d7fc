/** Library-wide facts: its change generation, its counts, and the configured import roots. */
import type { Db } from '../../db/database.js';
import type { ImportRoot } from '../../model/import-root.js';
import { statement } from '../../db/row-codec.js';

/** Rows inserted, updated or deleted by this connection since it opened. Reads no table, takes no lock. */
export function totalChanges(db: Db): number {
  return statement(db, 'SELECT total_changes()').pluck().get() as number;
}

/**
 * Moves whenever another connection commits. Reading it opens a read transaction,
 * which costs file-lock system calls, so callers should not read it per request.
 */
export function dataVersion(db: Db): number {
  return statement(db, 'PRAGMA data_version').pluck().get() as number;
}

export interface LibraryCounts {
  shows: number;
  episodes: number;
  movies: number;
  video_groups: number;
  videos: number;
  collections: number;
  playlists: number;
  jobs: number;
  channels: number;
}

export function countLibrary(db: Db): LibraryCounts {
  return statement(
    db,
    `SELECT
       (SELECT count(*) FROM shows) AS shows,
       (SELECT count(*) FROM items WHERE kind = 'episode') AS episodes,
       (SELECT count(*) FROM items WHERE kind = 'movie') AS movies,
       (SELECT count(*) FROM video_groups) AS video_groups,
       (SELECT count(*) FROM items WHERE kind = 'video') AS videos,
       (SELECT count(*) FROM collections) AS collections,
       (SELECT count(*) FROM playlists) AS playlists,
       (SELECT count(*) FROM jobs) AS jobs,
       (SELECT count(*) FROM channels) AS channels`,
  ).get() as LibraryCounts;
}

/** Makes the stored import roots exactly the configured ones. */
export function replaceImportRoots(db: Db, roots: readonly ImportRoot[]): void {
  db.transaction(() => {
    statement(db, 'DELETE FROM import_roots').run();
    const insert = statement(db, 'INSERT OR IGNORE INTO import_roots (kind, path) VALUES (?, ?)');
    for (const root of roots) insert.run(root.kind, root.path);
  }).immediate();
}

/** True when the library holds no shows, movies, video groups, items, collections or playlists. */
export function isLibraryEmpty(db: Db): boolean {
  return (
    statement(
      db,
      `SELECT NOT EXISTS (SELECT 1 FROM items) AND NOT EXISTS (SELECT 1 FROM shows)
          AND NOT EXISTS (SELECT 1 FROM video_groups) AND NOT EXISTS (SELECT 1 FROM collections)
          AND NOT EXISTS (SELECT 1 FROM playlists)`,
    )
      .pluck()
      .get() === 1
  );
}
