/** What the DVR knows about the recordings it made, beside their library items. */
import type { Db } from '../../db/database.js';
import { statement } from '../../db/row-codec.js';

export type RecordingState = 'recording' | 'finished' | 'processed';

export interface RecordingRow {
  item_id: string;
  job_id: string;
  rule_id: number | null;
  channel: string | null;
  source_id: string | null;
  episode_key: string | null;
  state: RecordingState;
  bytes: number;
  error: string | null;
  started_at: number;
  ended_at: number | null;
  path: string | null;
  locked: number;
}

const SELECT = `SELECT r.item_id, r.job_id, r.rule_id, r.channel, r.source_id, r.episode_key, r.state, r.bytes, r.error, r.started_at, r.ended_at,
                       i.path, i.locked
                  FROM recordings r JOIN items i ON i.id = r.item_id`;

export function insertRecording(
  db: Db,
  row: Pick<RecordingRow, 'item_id' | 'job_id' | 'rule_id' | 'channel' | 'source_id' | 'episode_key' | 'started_at'>,
): void {
  statement(
    db,
    `INSERT INTO recordings (item_id, job_id, rule_id, channel, source_id, episode_key, state, started_at)
     VALUES (@item_id, @job_id, @rule_id, @channel, @source_id, @episode_key, 'recording', @started_at)`,
  ).run(row);
}

export function getRecording(db: Db, itemId: string): RecordingRow | undefined {
  return statement(db, `${SELECT} WHERE r.item_id = ?`).get(itemId) as RecordingRow | undefined;
}

export function getRecordingOfJob(db: Db, jobId: string): RecordingRow | undefined {
  return statement(db, `${SELECT} WHERE r.job_id = ?`).get(jobId) as RecordingRow | undefined;
}

export function listRecordingsInState(db: Db, state: RecordingState): RecordingRow[] {
  return statement(db, `${SELECT} WHERE r.state = ? ORDER BY r.started_at`).all(state) as RecordingRow[];
}

export function setRecordingProgress(db: Db, itemId: string, bytes: number): void {
  statement(db, 'UPDATE recordings SET bytes = ? WHERE item_id = ?').run(bytes, itemId);
}

export function finishRecording(
  db: Db,
  itemId: string,
  result: { bytes: number; error?: string | undefined; endedAt: number },
): void {
  statement(db, "UPDATE recordings SET state = 'finished', bytes = ?, error = ?, ended_at = ? WHERE item_id = ?").run(
    result.bytes,
    result.error ?? null,
    result.endedAt,
    itemId,
  );
}

export function markRecordingProcessed(db: Db, itemId: string): void {
  statement(db, "UPDATE recordings SET state = 'processed' WHERE item_id = ?").run(itemId);
}

/** Episode keys of every recording that exists: the planner does not record these again. */
export function recordedEpisodeKeys(db: Db): Set<string> {
  const keys = new Set<string>(statement(db, 'SELECT episode_key FROM recorded_episodes').pluck().all() as string[]);
  const rows = statement(
    db,
    `SELECT r.episode_key, i.program_id, s.name AS show, i.season_number, i.episode_number
       FROM recordings r JOIN items i ON i.id = r.item_id LEFT JOIN shows s ON s.id = i.show_id WHERE r.forgotten = 0`,
  ).all() as {
    episode_key: string | null;
    program_id: string | null;
    show: string | null;
    season_number: number | null;
    episode_number: number | null;
  }[];
  for (const row of rows) {
    if (row.episode_key) keys.add(row.episode_key);
    if (row.program_id) keys.add(`pid:${row.program_id}`);
    if (row.show !== null && row.season_number !== null && row.episode_number !== null) {
      const episode = `${row.show.toLowerCase()}|${row.season_number}|${row.episode_number}`;
      keys.add(`sxe:${episode}`);
      // Without a programme id, season and episode are its identity for airings that have one too
      // (dvr/recording/job-item.ts).
      if (!row.program_id) keys.add(`nsxe:${episode}`);
    }
  }
  return keys;
}

/**
 * Forgets that the programme `programId` was recorded: its remembered keys go, and its
 * recordings (which stay) no longer count. False when nothing knew it.
 */
export function forgetRecordedProgramme(db: Db, programId: string): boolean {
  return db
    .transaction(() => {
      const recordings = statement(
        db,
        `SELECT r.item_id, r.episode_key, s.name AS show, i.season_number, i.episode_number
         FROM recordings r JOIN items i ON i.id = r.item_id LEFT JOIN shows s ON s.id = i.show_id WHERE i.program_id = ?`,
      ).all(programId) as {
        item_id: string;
        episode_key: string | null;
        show: string | null;
        season_number: number | null;
        episode_number: number | null;
      }[];
      const keys = new Set([`pid:${programId}`]);
      for (const row of recordings) {
        if (row.episode_key) keys.add(row.episode_key);
        if (row.show !== null && row.season_number !== null && row.episode_number !== null) {
          const episode = `${row.show.toLowerCase()}|${row.season_number}|${row.episode_number}`;
          // The nsxe: twin too: migration 016 gave one to every episode remembered before it.
          keys.add(`sxe:${episode}`).add(`nsxe:${episode}`);
        }
      }
      const forget = statement(db, 'DELETE FROM recorded_episodes WHERE episode_key = ?');
      let removed = 0;
      for (const key of keys) removed += forget.run(key).changes;
      const mark = statement(db, 'UPDATE recordings SET forgotten = 1 WHERE item_id = ?');
      for (const row of recordings) mark.run(row.item_id);
      return removed > 0 || recordings.length > 0;
    })
    .immediate();
}

/** Remembers an episode as recorded, for good: pruning or deleting its file does not make it wanted again. */
export function rememberRecordedEpisode(db: Db, keys: readonly string[], now = Date.now()): void {
  const insert = statement(db, 'INSERT OR IGNORE INTO recorded_episodes (episode_key, recorded_at) VALUES (?, ?)');
  for (const key of keys) insert.run(key, now);
}

/** A rule's finished recordings beyond the newest `keep`, oldest first, never locked ones. */
export function recordingsToPrune(db: Db, ruleId: number, keep: number): RecordingRow[] {
  return statement(
    db,
    `${SELECT} WHERE r.rule_id = ? AND r.state <> 'recording' AND i.locked = 0
       AND r.item_id NOT IN (SELECT item_id FROM recordings WHERE rule_id = ? AND state <> 'recording' ORDER BY started_at DESC LIMIT ?)
     ORDER BY r.started_at`,
  ).all(ruleId, ruleId, keep) as RecordingRow[];
}

/** What post-processing found. Probing never clears `corrupted`: the recorder's own finding stands. */
export function setRecordingPostResults(
  db: Db,
  itemId: string,
  results: {
    duration: number | null;
    tags: string[] | null;
    commercials: number[] | null;
    thumbnail: string | null;
    probeFailed: boolean;
  },
  now = Date.now(),
): void {
  statement(
    db,
    `UPDATE items SET duration = coalesce(?, duration), tags = coalesce(?, tags), commercials = ?, corrupted = max(corrupted, ?),
            processed = 1, updated_at = ? WHERE id = ?`,
  ).run(
    results.duration,
    results.tags ? JSON.stringify(results.tags) : null,
    results.commercials ? JSON.stringify(results.commercials) : null,
    results.probeFailed ? 1 : 0,
    now,
    itemId,
  );
  statement(db, 'UPDATE recordings SET thumbnail = coalesce(?, thumbnail) WHERE item_id = ?').run(
    results.thumbnail,
    itemId,
  );
}

export function isItemDelayed(db: Db, itemId: string): boolean {
  return statement(db, 'SELECT delayed FROM items WHERE id = ?').pluck().get(itemId) === 1;
}

/** The recorder's verdict on an item: flags it alone sets. */
export function setRecordingFlags(
  db: Db,
  itemId: string,
  flags: { delayed?: boolean; cancelled?: boolean; corrupted?: boolean; completed?: boolean },
  now = Date.now(),
): void {
  statement(
    db,
    `UPDATE items SET delayed = coalesce(@delayed, delayed), cancelled = coalesce(@cancelled, cancelled),
            corrupted = coalesce(@corrupted, corrupted), completed = coalesce(@completed, completed), updated_at = @now WHERE id = @id`,
  ).run({
    id: itemId,
    now,
    delayed: flags.delayed === undefined ? null : Number(flags.delayed),
    cancelled: flags.cancelled === undefined ? null : Number(flags.cancelled),
    corrupted: flags.corrupted === undefined ? null : Number(flags.corrupted),
    completed: flags.completed === undefined ? null : Number(flags.completed),
  });
}

/**
 * Deletes a recording's library item, and the show it was filed under when that show
 * now holds nothing and the importer does not own it (the DVR made it for recordings).
 */
export function deleteRecordingItem(db: Db, itemId: string): void {
  const showId = statement(db, 'SELECT show_id FROM items WHERE id = ?').pluck().get(itemId) as
    | string
    | null
    | undefined;
  statement(db, 'DELETE FROM items WHERE id = ?').run(itemId);
  if (!showId) return;
  statement(
    db,
    `DELETE FROM shows WHERE id = ? AND NOT EXISTS (SELECT 1 FROM items WHERE show_id = shows.id)
       AND id NOT IN (SELECT id FROM import_parents)`,
  ).run(showId);
}
