/**
 * Search over the full-text indexes of migration 007 (library_fts: shows, video groups
 * and playable items; programme_fts: guide programmes), which triggers keep in step
 * with their tables. Every word of the query must appear, as a word or the start of
 * one ("north" finds "Northern"), in any case and with or without accents.
 */
import type { Db } from '../../db/database.js';
import { statement } from '../../db/row-codec.js';
import type { ProgrammeRow } from '../dvr/guide.repository.js';
import { currentRows } from '../dvr/guide-writer.js';
import { mixedItemJsonSql } from './item-projection.js';
import { getParentsByIds, type ParentRow } from './parents.repository.js';

/** More words than this are ignored: a title is rarely longer, and each word costs an index lookup. */
export const MAX_QUERY_WORDS = 12;

/**
 * The words of a person's query, as the FTS5 tokenizer would split them: runs of
 * letters, digits and marks (everything else separates), after NFC normalisation so
 * a decomposed "é" is one letter as the stored precomposed one is.
 */
export function queryWords(text: string): string[] {
  // A word of marks alone (a stray combining accent) would be an empty phrase to the
  // index, which matches nothing and so would empty the whole answer: left out.
  return (text.normalize('NFC').match(/[\p{L}\p{N}\p{M}\p{Co}]+/gu) ?? [])
    .filter((word) => /[\p{L}\p{N}\p{Co}]/u.test(word))
    .slice(0, MAX_QUERY_WORDS);
}

/**
 * The FTS5 MATCH expression for a query: each word a quoted prefix term, all of them
 * required. Words hold only letters, digits and marks, so no quote or operator of the
 * FTS5 syntax can come from the user. Undefined when the query has no word.
 */
export function matchExpression(text: string): string | undefined {
  const words = queryWords(text);
  return words.length === 0 ? undefined : words.map((word) => `"${word}"*`).join(' AND ');
}

export type LibraryHitKind = 'show' | 'video_group' | 'episode' | 'movie' | 'video';

export interface LibraryHits {
  shows: ParentRow[];
  videoGroups: ParentRow[];
  /** Each item's interface-A JSON (item-projection.ts), best match first. */
  episodes: Buffer[];
  movies: Buffer[];
  videos: Buffer[];
}

/**
 * Up to `limit` matches of each kind, best first (FTS5's bm25 rank: a title that is
 * mostly the query's words before one that merely contains them). One pass over the
 * index; SQLite writes the items' JSON as interface A's lists do.
 */
export function searchLibrary(db: Db, match: string, limit: number, base: string): LibraryHits {
  const sql = `
    WITH hits AS MATERIALIZED (
      SELECT d.source, d.ref, f.rank AS score FROM library_fts f JOIN search_docs d ON d.doc = f.rowid WHERE library_fts MATCH @match
    ), typed AS (
      SELECT CASE h.source WHEN 'item' THEN (SELECT kind FROM items WHERE id = h.ref) ELSE h.source END AS kind, h.ref, h.score FROM hits h
    ), numbered AS (
      SELECT kind, ref, row_number() OVER (PARTITION BY kind ORDER BY score, ref) AS n FROM typed
    )
    SELECT n.kind, n.ref, CASE WHEN i.id IS NOT NULL THEN CAST(${mixedItemJsonSql('movie')} AS BLOB) END AS json
      FROM numbered n
      LEFT JOIN items i ON n.kind IN ('episode', 'movie', 'video') AND i.id = n.ref
      LEFT JOIN shows s ON s.id = i.show_id LEFT JOIN video_groups g ON g.id = i.video_group_id
     WHERE n.n <= @limit
     ORDER BY n.kind, n.n`;
  const rows = statement(db, sql).all({ match, limit, base }) as Array<{
    kind: LibraryHitKind;
    ref: string;
    json: Buffer | null;
  }>;
  const refs = (kind: LibraryHitKind) => rows.filter((row) => row.kind === kind).map((row) => row.ref);
  const json = (kind: LibraryHitKind) => rows.flatMap((row) => (row.kind === kind && row.json ? [row.json] : []));
  return {
    shows: getParentsByIds(db, 'show', refs('show')),
    videoGroups: getParentsByIds(db, 'video_group', refs('video_group')),
    episodes: json('episode'),
    movies: json('movie'),
    videos: json('video'),
  };
}

/**
 * Programmes matching `match` that end after `after` (epoch seconds) and air on one of
 * `channelKeys` (`guide_id<TAB>xmltv_id`: guide channels that map to a channel number),
 * soonest first.
 */
export function searchProgrammes(
  db: Db,
  match: string,
  after: number,
  channelKeys: readonly string[],
  limit: number,
): ProgrammeRow[] {
  return statement(
    db,
    `SELECT p.guide_id, p.xmltv_channel, p.start, p.stop, p.title, p.episode_title, p.season, p.episode, p.summary, p.categories,
            p.original_air_date, p.is_new, p.rating, p.image_url, p.program_id, p.series_id, p.year
       FROM programme_fts f JOIN programmes p ON p.id = f.rowid
      WHERE programme_fts MATCH @match AND p.stop > @after AND ${currentRows('p.')}
        AND (p.guide_id || char(9) || p.xmltv_channel) IN (SELECT value FROM json_each(@keys))
      ORDER BY p.start, p.id
      LIMIT @limit`,
  ).all({ match, after, keys: JSON.stringify(channelKeys), limit }) as ProgrammeRow[];
}

/** The job that records an airing: what a search answer says of it. */
export interface RecordingJob {
  id: string;
  state: 'scheduled' | 'recording';
  skipped: boolean;
}

/** Jobs longer than this are not looked for (a job may start this long before the airing ends). */
const LONGEST_JOB_SECONDS = 86400;

/**
 * The job on one of `channels` that records an airing ending at `stop`: one that has not
 * finished, overlaps it and lasts to its end (padding, a "record now" begun part-way
 * and a longer slot all count; the previous programme's padding does not). A job that
 * records beats one that waits, and one that will record beats a skipped one.
 */
export function jobRecording(db: Db, channels: readonly string[], stop: number): RecordingJob | undefined {
  for (const channel of channels) {
    const row = statement(
      db,
      `SELECT id, state, skipped FROM jobs
        WHERE start_time > @from AND start_time < @stop AND end_time >= @stop AND state IN ('scheduled', 'recording')
          AND (channel = @channel OR instr(channels, @quoted) > 0)
        ORDER BY skipped, state = 'recording' DESC, start_time, id LIMIT 1`,
    ).get({ from: stop - LONGEST_JOB_SECONDS, stop, channel, quoted: JSON.stringify(channel) }) as
      | { id: string; state: RecordingJob['state']; skipped: number }
      | undefined;
    if (row) return { id: row.id, state: row.state, skipped: row.skipped === 1 };
  }
  return undefined;
}
