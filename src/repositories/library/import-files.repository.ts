/** The importer's record of imported files (migration 002), and the clean-up of what it created. */
import type { Db } from '../../db/database.js';
import { statement } from '../../db/row-codec.js';
import type { RootKind } from '../../model/import-root.js';
import type { MediaDetails } from '../../model/library/media-details.schemas.js';

export interface ImportFileRow {
  path: string;
  root: string;
  root_kind: RootKind;
  item_id: string;
  size: number;
  mtime_ms: number;
  dev: number;
  ino: number;
  fingerprint: string;
  sidecars: string;
}

/** What a rescan compares for a file: its root (and kind), size, mtime and sidecar signature. */
export interface ImportFileState {
  root: string;
  rootKind: RootKind;
  size: number;
  mtimeMs: number;
  sidecars: string;
}

/** Every imported file's state, by path. Rows come as arrays: a rescan reads one per file in the library. */
export function listImportFileStates(db: Db): Map<string, ImportFileState> {
  const rows = statement(db, 'SELECT path, root, root_kind, size, mtime_ms, sidecars FROM import_files')
    .raw(true)
    .all() as [string, string, RootKind, number, number, string][];
  const states = new Map<string, ImportFileState>();
  for (const [path, root, rootKind, size, mtimeMs, sidecars] of rows)
    states.set(path, { root, rootKind, size, mtimeMs, sidecars });
  return states;
}

export function getImportFile(db: Db, path: string): ImportFileRow | undefined {
  return statement(
    db,
    'SELECT path, root, root_kind, item_id, size, mtime_ms, dev, ino, fingerprint, sidecars FROM import_files WHERE path = ?',
  ).get(path) as ImportFileRow | undefined;
}

/** Inserts or replaces the record of a file; a changed file is probed again. */
export function saveImportFile(db: Db, row: ImportFileRow, keepProbe: boolean): void {
  statement(
    db,
    `INSERT INTO import_files (path, root, root_kind, item_id, size, mtime_ms, dev, ino, fingerprint, sidecars)
     VALUES (@path, @root, @root_kind, @item_id, @size, @mtime_ms, @dev, @ino, @fingerprint, @sidecars)
     ON CONFLICT (path) DO UPDATE SET root = excluded.root, root_kind = excluded.root_kind, item_id = excluded.item_id,
       size = excluded.size, mtime_ms = excluded.mtime_ms, dev = excluded.dev, ino = excluded.ino,
       fingerprint = excluded.fingerprint, sidecars = excluded.sidecars` +
      (keepProbe
        ? ''
        : ', probed_at = NULL, chapters = NULL, media_details = NULL, problem = NULL, thumbnail = NULL, damaged = NULL'),
  ).run(row);
}

/** A moved file: its record follows it to the new path, keeping its item and probe results. */
export function moveImportFile(db: Db, from: string, to: ImportFileRow): void {
  statement(
    db,
    `UPDATE import_files SET path = @path, root = @root, root_kind = @root_kind, size = @size, mtime_ms = @mtime_ms,
       dev = @dev, ino = @ino, fingerprint = @fingerprint, sidecars = @sidecars WHERE path = @from`,
  ).run({ ...to, from });
}

export interface UnprobedFile {
  path: string;
  item_id: string;
}

/** Files under these roots that have not been probed yet, in path order after `after`: a page of a sweep. */
export function listUnprobedFiles(db: Db, roots: readonly string[], after = '', limit = -1): UnprobedFile[] {
  return statement(
    db,
    'SELECT path, item_id FROM import_files WHERE probed_at IS NULL AND path > ? AND root IN (SELECT value FROM json_each(?)) ORDER BY path LIMIT ?',
  ).all(after, JSON.stringify(roots), limit) as UnprobedFile[];
}

/** These files, when they are still recorded and not probed yet (files a watched change brought, probed first). */
export function unprobedAmong(db: Db, paths: readonly string[]): UnprobedFile[] {
  return statement(
    db,
    'SELECT path, item_id FROM import_files WHERE probed_at IS NULL AND path IN (SELECT value FROM json_each(?))',
  ).all(JSON.stringify(paths)) as UnprobedFile[];
}

/** How many files under these roots wait for probing and for a thumbnail. */
export function countMediaWork(db: Db, roots: readonly string[]): { unprobed: number; withoutThumbnail: number } {
  return statement(
    db,
    `SELECT count(*) FILTER (WHERE f.probed_at IS NULL) AS unprobed,
            count(*) FILTER (WHERE f.probed_at IS NOT NULL AND f.thumbnail IS NULL AND f.problem IS NULL AND (i.corrupted = 0 OR f.damaged IS NOT NULL)) AS withoutThumbnail
     FROM import_files f JOIN items i ON i.id = f.item_id WHERE f.root IN (SELECT value FROM json_each(?))`,
  ).get(JSON.stringify(roots)) as { unprobed: number; withoutThumbnail: number };
}

export interface ProbeRecord {
  probedAt: number;
  chapters: { start: number; end: number; title?: string }[] | null;
  problem: string | null;
  /** Which reader probed it: 'mp4box', 'ts-ebml', 'ts-reader', 'mediainfo' or 'ffprobe'. */
  reader: string | null;
  details: MediaDetails | null;
  /** Why the file, which plays, is damaged (cut short); null for a whole file. */
  damaged?: string | null;
}

export function saveProbeRecord(db: Db, path: string, record: ProbeRecord): void {
  statement(
    db,
    'UPDATE import_files SET probed_at = ?, chapters = ?, media_details = ?, problem = ?, probe_reader = ?, damaged = ? WHERE path = ?',
  ).run(
    record.probedAt,
    record.chapters ? JSON.stringify(record.chapters) : null,
    record.details ? JSON.stringify(record.details) : null,
    record.problem,
    record.reader,
    record.damaged ?? null,
    path,
  );
}

export interface ThumbnailWork {
  path: string;
  item_id: string;
  duration: number | null;
}

/** Probed, readable files under these roots without a thumbnail yet, in path order after `after`. */
export function listFilesNeedingThumbnails(db: Db, roots: readonly string[], after = '', limit = -1): ThumbnailWork[] {
  return statement(
    db,
    `SELECT f.path, f.item_id, i.duration FROM import_files f JOIN items i ON i.id = f.item_id
     WHERE f.probed_at IS NOT NULL AND f.thumbnail IS NULL AND (i.corrupted = 0 OR f.damaged IS NOT NULL) AND f.problem IS NULL
       AND f.path > ? AND f.root IN (SELECT value FROM json_each(?)) ORDER BY f.path LIMIT ?`,
  ).all(after, JSON.stringify(roots), limit) as ThumbnailWork[];
}

/** What earlier scans recorded under a folder: everything below it, or (not `recursive`) its own files only. */
export function listImportFileStatesUnder(db: Db, dir: string, recursive: boolean): Map<string, ImportFileState> {
  // A range on the primary key: paths under `dir/` sort between `dir/` and `dir0` ('0' follows '/').
  const rows = statement(
    db,
    'SELECT path, root, root_kind, size, mtime_ms, sidecars FROM import_files WHERE path > ? AND path < ?',
  )
    .raw(true)
    .all(`${dir}/`, `${dir}0`) as [string, string, RootKind, number, number, string][];
  const states = new Map<string, ImportFileState>();
  for (const [path, root, rootKind, size, mtimeMs, sidecars] of rows) {
    if (recursive || !path.includes('/', dir.length + 1)) states.set(path, { root, rootKind, size, mtimeMs, sidecars });
  }
  return states;
}

/** Records a thumbnail made for the file (or why none could be: `problem`). */
export function saveThumbnail(db: Db, path: string, thumbnail: string | null, problem: string | null): void {
  statement(db, 'UPDATE import_files SET thumbnail = ?, problem = coalesce(?, problem) WHERE path = ?').run(
    thumbnail,
    problem,
    path,
  );
}

export function getThumbnailPath(db: Db, itemId: string): string | undefined {
  // Imported files and DVR recordings each keep the thumbnail Antenna made of them.
  const sql =
    'SELECT thumbnail FROM import_files WHERE item_id = @id UNION ALL SELECT thumbnail FROM recordings WHERE item_id = @id';
  return (statement(db, sql).pluck().get({ id: itemId }) as string | null | undefined) ?? undefined;
}

export function chaptersOf(db: Db, itemId: string): { start: number; end: number; title?: string }[] {
  return probeFactsOf(db, itemId).chapters;
}

/** An imported item's chapters and what its file holds (absent before a probe), in one read (`GET /dvr/files/:id`). */
export function probeFactsOf(
  db: Db,
  itemId: string,
): { chapters: { start: number; end: number; title?: string }[]; media?: MediaDetails } {
  const row = statement(db, 'SELECT chapters, media_details FROM import_files WHERE item_id = ?').get(itemId) as
    | { chapters: string | null; media_details: string | null }
    | undefined;
  return {
    chapters: row?.chapters ? (JSON.parse(row.chapters) as { start: number; end: number; title?: string }[]) : [],
    ...(row?.media_details ? { media: JSON.parse(row.media_details) as MediaDetails } : {}),
  };
}

/** Artwork for an item or show, or none (undefined clears it). */
export function setArtwork(db: Db, ownerId: string, path: string | undefined): void {
  if (path === undefined) statement(db, 'DELETE FROM import_artwork WHERE owner_id = ?').run(ownerId);
  else
    statement(
      db,
      'INSERT INTO import_artwork (owner_id, path) VALUES (?, ?) ON CONFLICT (owner_id) DO UPDATE SET path = excluded.path',
    ).run(ownerId, path);
}

export function getArtworkPath(db: Db, ownerId: string): string | undefined {
  return statement(db, 'SELECT path FROM import_artwork WHERE owner_id = ?').pluck().get(ownerId) as string | undefined;
}

export interface NotMediaFile {
  item_id: string;
  path: string;
  problem: string | null;
}

/** Imported files ffprobe could not read (the first `limit` by path), and how many there are. */
export function listNotMediaFiles(db: Db, limit: number): { count: number; files: NotMediaFile[] } {
  // A damaged file (cut short) is corrupted too, but plays: it is media.
  const from = 'FROM items i JOIN import_files f ON f.item_id = i.id WHERE i.corrupted = 1 AND f.damaged IS NULL';
  const count = statement(db, `SELECT count(*) ${from}`).pluck().get() as number;
  const files =
    count === 0
      ? []
      : (statement(db, `SELECT f.item_id, f.path, f.problem ${from} ORDER BY f.path LIMIT ?`).all(
          limit,
        ) as NotMediaFile[]);
  return { count, files };
}

/** Items imported from roots inside `dir`, with their thumbnails. */
export function listImportsUnder(db: Db, dir: string): { item_id: string; thumbnail: string | null }[] {
  // A range on the indexed root column: paths under `dir/` sort between `dir/` and `dir0` ('0' follows '/').
  return statement(db, 'SELECT item_id, thumbnail FROM import_files WHERE root = ? OR (root > ? AND root < ?)').all(
    dir,
    `${dir}/`,
    `${dir}0`,
  ) as { item_id: string; thumbnail: string | null }[];
}

export function recordImportedParent(db: Db, id: string, kind: 'show' | 'video_group'): void {
  statement(db, 'INSERT OR IGNORE INTO import_parents (id, kind) VALUES (?, ?)').run(id, kind);
}

/** Shows and video groups the importer made that no longer hold any item. */
export function deleteEmptyImportedParents(db: Db): number {
  const shows = statement(
    db,
    `DELETE FROM shows WHERE id IN (SELECT id FROM import_parents WHERE kind = 'show')
       AND NOT EXISTS (SELECT 1 FROM items WHERE items.show_id = shows.id)`,
  ).run().changes;
  const groups = statement(
    db,
    `DELETE FROM video_groups WHERE id IN (SELECT id FROM import_parents WHERE kind = 'video_group')
       AND NOT EXISTS (SELECT 1 FROM items WHERE items.video_group_id = video_groups.id)`,
  ).run().changes;
  statement(
    db,
    `DELETE FROM import_parents WHERE id NOT IN (SELECT id FROM shows) AND id NOT IN (SELECT id FROM video_groups)`,
  ).run();
  statement(
    db,
    `DELETE FROM import_artwork WHERE owner_id NOT IN (SELECT id FROM items) AND owner_id NOT IN (SELECT id FROM shows)`,
  ).run();
  // Movie collections the importer made from NFO sets (ids 'imp-set-…'), once no movie is left in them.
  statement(
    db,
    `DELETE FROM collections WHERE id GLOB 'imp-set-*' AND NOT EXISTS (SELECT 1 FROM collection_movies WHERE collection_id = collections.id)`,
  ).run();
  return shows + groups;
}
