/** DVR sources (M3U playlists, HDHomeRun tuners) and the channels each one offers. */
import type { Db } from '../db/database.js';
import { statement } from '../db/row-codec.js';

export type SourceKind = 'm3u' | 'hdhomerun';
export type Origin = 'config' | 'managed';

export interface SourceRow {
  id: string;
  kind: SourceKind;
  location: string;
  name: string;
  stream_limit: number;
  origin: Origin;
  refreshed_at: number | null;
  error: string | null;
  skipped: number;
  /** Channels read at the last good refresh (counted, not stored). */
  channels: number;
}

export interface SourceChannel {
  number: string;
  name: string;
  call_sign?: string | undefined;
  image_url?: string | undefined;
  hd: boolean;
  stream_url: string;
  guide_id?: string | undefined;
  guide_name?: string | undefined;
  group_title?: string | undefined;
}

export interface StreamableChannel {
  id: string;
  number: string;
  name: string;
  source_id: string;
  stream_url: string;
  image_url: string | null;
  call_sign: string | null;
  hd: number;
  favorited: number;
  guide_id: string | null;
  guide_name: string | null;
}

/** A source's columns, and how many channels its last good refresh read. */
const SOURCE_COLUMNS = 'id, kind, location, name, stream_limit, origin, refreshed_at, error, skipped, (SELECT count(*) FROM channels WHERE channels.source_id = dvr_sources.id) AS channels';

export function listSources(db: Db): SourceRow[] {
  return statement(db, `SELECT ${SOURCE_COLUMNS} FROM dvr_sources ORDER BY created_at, id`).all() as SourceRow[];
}

export function getSource(db: Db, id: string): SourceRow | undefined {
  return statement(db, `SELECT ${SOURCE_COLUMNS} FROM dvr_sources WHERE id = ?`).get(id) as
    | SourceRow
    | undefined;
}

/** Adds a source, or updates its name, limit and origin when it exists (a managed source named again in the config becomes config-owned). */
export function saveSource(db: Db, source: Pick<SourceRow, 'id' | 'kind' | 'location' | 'name' | 'stream_limit' | 'origin'>, now = Date.now()): void {
  statement(
    db,
    `INSERT INTO dvr_sources (id, kind, location, name, stream_limit, origin, created_at, updated_at)
     VALUES (@id, @kind, @location, @name, @stream_limit, @origin, @now, @now)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, stream_limit = excluded.stream_limit, origin = excluded.origin, updated_at = excluded.updated_at`,
  ).run({ ...source, now });
}

/** Config-owned sources not in `keep` are removed with their channels (the config no longer names them). */
export function removeConfigSourcesExcept(db: Db, keep: readonly string[]): void {
  for (const source of listSources(db)) {
    if (source.origin === 'config' && !keep.includes(source.id)) deleteSource(db, source.id);
  }
}

export function deleteSource(db: Db, id: string): boolean {
  return db.transaction(() => {
    statement(db, 'DELETE FROM channels WHERE source_id = ?').run(id);
    return statement(db, 'DELETE FROM dvr_sources WHERE id = ?').run(id).changes > 0;
  })();
}

/** Records a refresh: the channels the source offers now replace those it offered before. */
export function replaceSourceChannels(
  db: Db,
  sourceId: string,
  result: { channels: readonly SourceChannel[]; skipped: number; streamLimit?: number; name?: string },
  now = Date.now(),
): void {
  db.transaction(() => {
    statement(db, 'DELETE FROM channels WHERE source_id = ?').run(sourceId);
    const insert = statement(
      db,
      `INSERT INTO channels (id, number, name, call_sign, image_url, hd, source_id, stream_url, guide_id, guide_name, group_title, created_at, updated_at)
       VALUES (@id, @number, @name, @call_sign, @image_url, @hd, @source_id, @stream_url, @guide_id, @guide_name, @group_title, @now, @now)
       ON CONFLICT (id) DO NOTHING`,
    );
    for (const channel of result.channels) {
      insert.run({
        id: `${sourceId}-${channel.number}`,
        number: channel.number,
        name: channel.name,
        call_sign: channel.call_sign ?? null,
        image_url: channel.image_url ?? null,
        hd: channel.hd ? 1 : 0,
        source_id: sourceId,
        stream_url: channel.stream_url,
        guide_id: channel.guide_id ?? null,
        guide_name: channel.guide_name ?? null,
        group_title: channel.group_title ?? null,
        now,
      });
    }
    statement(
      db,
      `UPDATE dvr_sources SET refreshed_at = @now, error = NULL, skipped = @skipped,
         stream_limit = coalesce(@limit, stream_limit), name = coalesce(@name, name), updated_at = @now WHERE id = @id`,
    ).run({ id: sourceId, now, skipped: result.skipped, limit: result.streamLimit ?? null, name: result.name ?? null });
  })();
}

/** The numbers of the channels a source offers now (what a refresh is judged against). */
export function listSourceChannelNumbers(db: Db, sourceId: string): string[] {
  return statement(db, 'SELECT number FROM channels WHERE source_id = ? ORDER BY CAST(number AS REAL), number').pluck().all(sourceId) as string[];
}

/** A refresh that failed or was not applied keeps the channels from the last good one and says why. */
export function setSourceError(db: Db, sourceId: string, error: string, now = Date.now()): void {
  statement(db, 'UPDATE dvr_sources SET error = ?, updated_at = ? WHERE id = ?').run(error, now, sourceId);
}

/** Every channel with a stream, favorites resolved, in channel-number order. */
export function listStreamableChannels(db: Db): StreamableChannel[] {
  return statement(
    db,
    `SELECT c.id, c.number, c.name, c.source_id, c.stream_url, c.image_url, c.call_sign, c.hd, c.guide_id, c.guide_name,
            (f.number IS NOT NULL) AS favorited
       FROM channels c JOIN dvr_sources s ON s.id = c.source_id LEFT JOIN channel_favorites f ON f.number = c.number
      WHERE c.stream_url IS NOT NULL
      ORDER BY CAST(c.number AS INTEGER),
            CASE WHEN instr(c.number, '.') > 0 THEN CAST(substr(c.number, instr(c.number, '.') + 1) AS INTEGER) ELSE -1 END,
            c.number, s.created_at, c.id`,
  ).all() as StreamableChannel[];
}

export function setChannelFavorite(db: Db, number: string, favorite: boolean): void {
  if (favorite) statement(db, 'INSERT OR IGNORE INTO channel_favorites (number) VALUES (?)').run(number);
  else statement(db, 'DELETE FROM channel_favorites WHERE number = ?').run(number);
  // The row's own column follows, so interface A (which reads it) agrees.
  statement(db, 'UPDATE channels SET favorited = ?, updated_at = ? WHERE number = ?').run(favorite ? 1 : 0, Date.now(), number);
}

/** After a refresh re-created channel rows: their favorite flags from the user's list. */
export function applyChannelFavorites(db: Db): void {
  statement(db, 'UPDATE channels SET favorited = (number IN (SELECT number FROM channel_favorites))').run();
}
