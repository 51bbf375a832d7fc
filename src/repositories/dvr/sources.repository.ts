/** DVR sources (M3U playlists, HDHomeRun tuners) and the channels each one offers. */
import type { Db } from '../../db/database.js';
import { statement } from '../../db/row-codec.js';

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
  /** The kind of the refresh not applied that `error` tells of (meaningless once error is null). */
  rejected: string | null;
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
  /** `guide id` TAB `xmltv id`: the guide channel the user chose. */
  guide_channel: string | null;
  /** A JSON array of guide ids the user wants tried first. */
  guide_priority: string | null;
}

/** A source's columns, and how many channels its last good refresh read. */
const SOURCE_COLUMNS =
  'id, kind, location, name, stream_limit, origin, refreshed_at, error, rejected, skipped, (SELECT count(*) FROM channels WHERE channels.source_id = dvr_sources.id) AS channels';

export function listSources(db: Db): SourceRow[] {
  return statement(db, `SELECT ${SOURCE_COLUMNS} FROM dvr_sources ORDER BY created_at, id`).all() as SourceRow[];
}

export function getSource(db: Db, id: string): SourceRow | undefined {
  return statement(db, `SELECT ${SOURCE_COLUMNS} FROM dvr_sources WHERE id = ?`).get(id) as SourceRow | undefined;
}

/**
 * Adds a source, or updates its name, limit and origin when it exists (a managed source named again in the config
 * becomes config-owned).
 */
export function saveSource(
  db: Db,
  source: Pick<SourceRow, 'id' | 'kind' | 'location' | 'name' | 'stream_limit' | 'origin'>,
  now = Date.now(),
): void {
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
  return db
    .transaction(() => {
      statement(db, 'DELETE FROM channels WHERE source_id = ?').run(id);
      return statement(db, 'DELETE FROM dvr_sources WHERE id = ?').run(id).changes > 0;
    })
    .immediate();
}

/**
 * A channel as a refresh writes it: what the source offers, and what the user's edit makes of it (default: the same).
 */
export type RefreshedChannel = SourceChannel & { own?: ChannelOwnFields };

/** What the user's edit makes of a channel (dvr/lineup/lineup-edits.ts computes it). */
export interface ChannelOwnFields {
  number: string;
  name: string;
  image_url: string | null;
  group_title: string | null;
  hidden: boolean;
  favorite: boolean;
  guide_channel: string | null;
  guide_priority: string | null;
  edit_id: number | null;
}

/** How an edit finds its channel at the next refresh. */
export interface EditIdentity {
  id: number;
  source_key: string | null;
  source_number: string;
  source_name: string;
}

/**
 * Records a refresh: the channels the source offers now replace those it offered before,
 * each with the user's edit applied, and the edits found again learn the channel's
 * number, name and stable id at the source as they are now. One transaction.
 */
export function replaceSourceChannels(
  db: Db,
  sourceId: string,
  result: {
    channels: readonly RefreshedChannel[];
    skipped: number;
    streamLimit?: number;
    name?: string;
    identities?: readonly EditIdentity[];
  },
  now = Date.now(),
): void {
  db.transaction(() => {
    statement(db, 'DELETE FROM channels WHERE source_id = ?').run(sourceId);
    const insert = statement(
      db,
      `INSERT INTO channels (id, number, name, call_sign, image_url, hd, favorited, source_id, stream_url, guide_id, guide_name, group_title,
                             source_number, source_name, source_logo, source_group, hidden, edit_id, guide_channel, guide_priority, created_at, updated_at)
       VALUES (@id, @number, @name, @call_sign, @image_url, @hd, @favorited, @source_id, @stream_url, @guide_id, @guide_name, @group_title,
               @source_number, @source_name, @source_logo, @source_group, @hidden, @edit_id, @guide_channel, @guide_priority, @now, @now)
       ON CONFLICT (id) DO NOTHING`,
    );
    for (const channel of result.channels) {
      const own = channel.own;
      insert.run({
        // The source's number: the id stays while the source keeps it, whatever the user's number.
        id: `${sourceId}-${channel.number}`,
        number: own?.number ?? channel.number,
        name: own?.name ?? channel.name,
        call_sign: channel.call_sign ?? null,
        image_url: own ? own.image_url : (channel.image_url ?? null),
        hd: channel.hd ? 1 : 0,
        favorited: own?.favorite ? 1 : 0,
        source_id: sourceId,
        stream_url: channel.stream_url,
        guide_id: channel.guide_id ?? null,
        guide_name: channel.guide_name ?? null,
        group_title: own ? own.group_title : (channel.group_title ?? null),
        source_number: channel.number,
        source_name: channel.name,
        source_logo: channel.image_url ?? null,
        source_group: channel.group_title ?? null,
        hidden: own?.hidden ? 1 : 0,
        edit_id: own?.edit_id ?? null,
        guide_channel: own?.guide_channel ?? null,
        guide_priority: own?.guide_priority ?? null,
        now,
      });
    }
    const identify = statement(
      db,
      'UPDATE channel_edits SET source_key = @source_key, source_number = @source_number, source_name = @source_name WHERE id = @id',
    );
    for (const identity of result.identities ?? []) identify.run(identity);
    statement(
      db,
      `UPDATE dvr_sources SET refreshed_at = @now, error = NULL, skipped = @skipped,
         stream_limit = coalesce(@limit, stream_limit), name = coalesce(@name, name), updated_at = @now WHERE id = @id`,
    ).run({ id: sourceId, now, skipped: result.skipped, limit: result.streamLimit ?? null, name: result.name ?? null });
  }).immediate();
}

/** The numbers of the channels a source offers now (what a refresh is judged against). */
export function listSourceChannelNumbers(db: Db, sourceId: string): string[] {
  // The source's own numbers: a channel the user renumbered is still the source's number to it.
  return statement(
    db,
    'SELECT source_number FROM channels WHERE source_id = ? ORDER BY CAST(source_number AS REAL), source_number',
  )
    .pluck()
    .all(sourceId) as string[];
}

/** A refresh that failed or was not applied keeps the channels from the last good one and says why. */
export function setSourceError(
  db: Db,
  sourceId: string,
  error: string,
  now = Date.now(),
  rejected: string | null = null,
): void {
  statement(db, 'UPDATE dvr_sources SET error = ?, rejected = ?, updated_at = ? WHERE id = ?').run(
    error,
    rejected,
    now,
    sourceId,
  );
}

/** Every channel with a stream that the user has not hidden, in channel-number order. */
export function listStreamableChannels(db: Db): StreamableChannel[] {
  return statement(
    db,
    `SELECT c.id, c.number, c.name, c.source_id, c.stream_url, c.image_url, c.call_sign, c.hd, c.guide_id, c.guide_name,
            c.guide_channel, c.guide_priority, c.favorited
       FROM channels c JOIN dvr_sources s ON s.id = c.source_id
      WHERE c.stream_url IS NOT NULL AND c.hidden = 0
      ORDER BY CAST(c.number AS INTEGER),
            CASE WHEN instr(c.number, '.') > 0 THEN CAST(substr(c.number, instr(c.number, '.') + 1) AS INTEGER) ELSE -1 END,
            c.number, s.created_at, c.id`,
  ).all() as StreamableChannel[];
}
