/** Scheduled recording jobs. The DVR writes them; interface A reads them. */
import type { Db } from '../../db/database.js';
import { holdsNoItems } from '../../common/body-segments.js';
import { type Steps, stepClock } from '../../common/work-in-steps.js';
import { type ColumnMap, statement, upsertRow } from '../../db/row-codec.js';
import { type JobItem, JobItemSchema } from '../../model/library/library.schemas.js';
import type { PlannedJob } from '../../model/dvr/planned-job.js';
import { jobJsonSql } from './job-projection.js';
import { totalChanges } from '../library/library-state.repository.js';

export interface JobInput {
  /** `<start epoch seconds>-<n>` (see src/dvr/planning/job-ids.ts) */
  id: string;
  name: string;
  start_time: number;
  end_time: number;
  channels?: string[];
  channel?: string | null;
  skipped?: boolean;
  failed?: boolean;
  error?: string | null;
  item: JobItem;
  updated_at?: number;
  /** Default 'scheduled'. Rows written here that the planner must leave alone (seeded data) say 'finished'. */
  state?: JobState;
}

export interface JobRow {
  id: string;
  name: string;
  start_time: number;
  end_time: number;
  channels: string;
  channel: string | null;
  skipped: number;
  failed: number;
  error: string | null;
  item: string;
  updated_at: number;
}

const JOB_COLUMNS: ColumnMap = {
  id: ['id', 'text'],
  name: ['name', 'text'],
  start_time: ['start_time', 'int'],
  end_time: ['end_time', 'int'],
  channels: ['channels', 'json'],
  channel: ['channel', 'text'],
  skipped: ['skipped', 'bool'],
  failed: ['failed', 'bool'],
  error: ['error', 'text'],
  item: ['item', 'json'],
  state: ['state', 'text'],
};

/**
 * Writes of the jobs table by this process, per connection: interface A's job answers
 * depend on that table alone, so they are built again only when it changed (not at
 * every position a player reports, nor at a guide refresh's swap). Every write of the
 * table is made here, through trackJobWrites.
 */
const jobWrites = new WeakMap<Db, number>();

/** How many writes this process made to the jobs table through `db` (any change of it moves this). */
export function jobWriteCount(db: Db): number {
  return jobWrites.get(db) ?? 0;
}

/** Runs `write`; if it changed any row (total_changes moved), the jobs table counts as written. */
export function trackJobWrites<T>(db: Db, write: () => T): T {
  const before = totalChanges(db);
  try {
    return write();
  } finally {
    if (totalChanges(db) !== before) jobWrites.set(db, jobWriteCount(db) + 1);
  }
}

/** The job item schema's fields, in its order. */
const JOB_ITEM_FIELDS = Object.keys(JobItemSchema.properties) as Array<keyof JobItem>;

/**
 * A job item as it is stored: the schema's fields that have a value, in the schema's
 * order, nulls and anything else left out. Interface A's job list is the stored item as
 * it is (job-projection.ts), so every write of an item goes through this.
 */
export function compactJobItem(item: JobItem): JobItem {
  const out: Record<string, unknown> = {};
  for (const field of JOB_ITEM_FIELDS) {
    const value = item[field];
    if (value !== null && value !== undefined) out[field] = value;
  }
  return out as JobItem;
}

export function upsertJob(db: Db, input: JobInput): void {
  trackJobWrites(db, () => {
    upsertRow(db, 'jobs', JOB_COLUMNS, { ...input, item: compactJobItem(input.item) });
  });
}

export function deleteJob(db: Db, id: string): boolean {
  return trackJobWrites(db, () => {
    return statement(db, 'DELETE FROM jobs WHERE id = ?').run(id).changes > 0;
  });
}

export function getJob(db: Db, id: string): JobRow | undefined {
  return statement(db, 'SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
}

/** Interface A's job list as JSON bytes, in start-time order (job-projection.ts); `base`: the absolute base URL. */
export function listJobsJson(db: Db, base: string): Buffer {
  return holdsNoItems(
    statement(
      db,
      `SELECT CAST('[' || coalesce(group_concat(${jobJsonSql()}, ',' ORDER BY j.start_time, j.id), '') || ']' AS BLOB) FROM jobs j`,
    )
      .pluck()
      .get({ base }) as Buffer,
  );
}

/** One job as interface A's JSON bytes, if there is a job with this id. */
export function getJobJson(db: Db, id: string, base: string): Buffer | undefined {
  const json = statement(db, `SELECT CAST(${jobJsonSql()} AS BLOB) FROM jobs j WHERE j.id = @id`)
    .pluck()
    .get({ base, id }) as Buffer | undefined;
  return json && holdsNoItems(json);
}

export function listJobs(db: Db): JobRow[] {
  return statement(db, 'SELECT * FROM jobs ORDER BY start_time ASC, id ASC').all() as JobRow[];
}

export type JobState = 'scheduled' | 'recording' | 'finished';

/** A job with what the DVR keeps beside its interface-A fields. */
export interface DvrJobRow extends JobRow {
  rule_id: number | null;
  state: JobState;
  source_id: string | null;
  recording_id: string | null;
  episode_key: string | null;
  /** The end it had when it started recording (see setRecordingEnd). */
  planned_end_time: number | null;
}

/** A job as the planner made it. */
export type ScheduledJobInput = PlannedJob;

/**
 * The compared columns of a planned job, joined: the planner hands an unchanged job to the next re-plan as the same
 * object.
 */
const joinedOf = new WeakMap<object, string>();

/**
 * JSON of the items (compacted) and channel lists of planned jobs: the planner hands the same objects to every re-plan,
 * so each is written out once.
 */
const jsonOf = new WeakMap<object, string>();
function cachedJson(value: object, prepare: (value: never) => object = (same) => same): string {
  let json = jsonOf.get(value);
  if (json === undefined) jsonOf.set(value, (json = JSON.stringify(prepare(value as never))));
  return json;
}
const itemJson = (item: JobItem) => cachedJson(item, compactJobItem);

/**
 * Makes the JSON of planned jobs' items and channel lists ahead of replaceScheduledJobs,
 * which then only writes; in steps of about `stepMs` (common/work-in-steps.ts).
 */
export function* prepareJobRows(planned: readonly ScheduledJobInput[], stepMs: number): Steps<true> {
  const clock = stepClock(stepMs);
  for (let i = 0; i < planned.length; i++) {
    if (clock.due(i)) yield;
    const job = planned[i] as ScheduledJobInput;
    cachedJson(job.channels);
    itemJson(job.item);
  }
  return true;
}

/**
 * The scheduled jobs as written: id → the compared columns, joined (what replaceScheduledJobs compares a plan with).
 */
export type WrittenPlan = Map<string, string>;

/** A scheduled job the write changed: new (`wasSkipped` undefined), or written again; what it is now. */
export interface PlanChange {
  job: ScheduledJobInput;
  wasSkipped: boolean | undefined;
}
/** Whether a job's joined columns (WrittenPlan's value) say it is skipped: the sixth column. */
const joinedSkipped = (joined: string) => joined.split('\u0000')[5] === '1';

/**
 * Makes the scheduled jobs exactly the planned ones. Jobs that started or finished are
 * history and stay. Only differences are written: a job whose plan did not change
 * keeps its row and its `updated_at`, so clients that poll see real changes only, and
 * a re-plan of tens of thousands of jobs costs little when little changed.
 *
 * `written`: what the last call returned, to compare with instead of reading every
 * scheduled row back (the scheduler's re-plan after a rule change). Only this function
 * changes scheduled rows; a job that left 'scheduled' since is left alone by the
 * statements below either way. Returns what is written now.
 */
export function replaceScheduledJobs(
  db: Db,
  planned: readonly ScheduledJobInput[],
  now = Date.now(),
  written?: WrittenPlan,
  changed?: PlanChange[],
): WrittenPlan {
  return trackJobWrites(db, () => {
    const after: WrittenPlan = new Map();
    db.transaction(() => {
      // Read, not copied: what is left of it after the loop (ids not planned again) is found through `after`.
      const before =
        written !== undefined
          ? written
          : new Map(
              (
                statement(
                  db,
                  "SELECT id, name, start_time, end_time, channels, channel, skipped, error, item, source_id FROM jobs WHERE state = 'scheduled'",
                )
                  .raw(true)
                  .all() as unknown[][]
              ).map((row) => [row[0] as string, row.slice(1).join('\u0000')]),
            );
      const write = jobWriter(db, now, changed);
      for (const job of planned) write(job, before, after);
      const remove = statement(db, "DELETE FROM jobs WHERE id = ? AND state = 'scheduled'");
      for (const id of before.keys()) if (!after.has(id)) remove.run(id);
    }).immediate();
    return after;
  });
}

/**
 * replaceScheduledJobs for a plan that differs from the one written (`written`, what the
 * last call returned) only by `gone` and `added` jobs (a re-plan after one rule's change:
 * job-placing-again.ts): only those are compared and written. Updates and returns `written`.
 */
export function changeScheduledJobs(
  db: Db,
  changes: { gone: readonly ScheduledJobInput[]; added: readonly ScheduledJobInput[] },
  written: WrittenPlan,
  now = Date.now(),
  changed?: PlanChange[],
): WrittenPlan {
  return trackJobWrites(db, () => {
    db.transaction(() => {
      const write = jobWriter(db, now, changed);
      const addedIds = new Set(changes.added.map((job) => job.id));
      const remove = statement(db, "DELETE FROM jobs WHERE id = ? AND state = 'scheduled'");
      for (const job of changes.gone) {
        if (addedIds.has(job.id)) continue;
        remove.run(job.id);
        written.delete(job.id);
      }
      for (const job of changes.added) write(job, written, written);
    }).immediate();
    return written;
  });
}

/** Writes a planned job unless `before` has it as it is; records what is written in `after`. */
function jobWriter(
  db: Db,
  now: number,
  changed: PlanChange[] | undefined,
): (job: ScheduledJobInput, before: WrittenPlan, after: WrittenPlan) => void {
  // Positional parameters: binding by name cost a third of writing a 40,000-job plan.
  const insert = statement(
    db,
    `INSERT INTO jobs (id, name, start_time, end_time, channels, channel, skipped, failed, error, item, source_id, rule_id, episode_key, state, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, 'scheduled', ?, ?)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, start_time = excluded.start_time, end_time = excluded.end_time, channels = excluded.channels,
       channel = excluded.channel, skipped = excluded.skipped, error = excluded.error, item = excluded.item, rule_id = excluded.rule_id,
       source_id = excluded.source_id, episode_key = excluded.episode_key, updated_at = excluded.updated_at
     WHERE jobs.state = 'scheduled'`,
  );
  return (job, before, after) => {
    const known = joinedOf.get(job);
    if (known !== undefined && before.get(job.id) === known) {
      after.set(job.id, known);
      return;
    }
    // The columns compared with the stored row, in the order of replaceScheduledJobs' SELECT.
    const compared = [
      job.name,
      job.start,
      job.end,
      cachedJson(job.channels),
      job.channel ?? null,
      job.skipped ? 1 : 0,
      job.error ?? null,
      itemJson(job.item),
      job.sourceId ?? null,
    ] as const;
    const old = before.get(job.id);
    const joined = compared.join('\u0000');
    joinedOf.set(job, joined);
    after.set(job.id, joined);
    if (old === joined) return;
    const wrote = insert.run(job.id, ...compared, job.ruleId, job.episodeKey ?? null, now, now).changes > 0;
    // A job that left 'scheduled' meanwhile is not written (the upsert's WHERE), nor told as changed.
    if (wrote) changed?.push({ job, wasSkipped: old === undefined ? undefined : joinedSkipped(old) });
  };
}

export function getDvrJob(db: Db, id: string): DvrJobRow | undefined {
  return statement(db, 'SELECT * FROM jobs WHERE id = ?').get(id) as DvrJobRow | undefined;
}

export function listJobsInState(db: Db, state: JobState): DvrJobRow[] {
  return statement(db, 'SELECT * FROM jobs WHERE state = ? ORDER BY start_time, id').all(state) as DvrJobRow[];
}

/** Scheduled, not skipped, and due at `now` (epoch seconds): started and not yet over. */
export function listDueJobs(db: Db, now: number): DvrJobRow[] {
  return statement(
    db,
    "SELECT * FROM jobs WHERE state = 'scheduled' AND skipped = 0 AND start_time <= ? AND end_time > ? ORDER BY start_time, id",
  ).all(now, now) as DvrJobRow[];
}

/** The next scheduled job to start after `now` (epoch seconds): what it is, where and when. */
export function nextScheduledJob(
  db: Db,
  now: number,
): { name: string; channel: string | null; start_time: number } | undefined {
  return statement(
    db,
    `SELECT name, channel, start_time FROM jobs WHERE state = 'scheduled' AND skipped = 0 AND start_time > ?
     ORDER BY start_time, id LIMIT 1`,
  ).get(now) as { name: string; channel: string | null; start_time: number } | undefined;
}

/** When the next scheduled job begins, epoch seconds. */
export function nextJobStart(db: Db): number | undefined {
  return (
    (statement(db, "SELECT min(start_time) FROM jobs WHERE state = 'scheduled' AND skipped = 0").pluck().get() as
      | number
      | null) ?? undefined
  );
}

export function markJobRecording(
  db: Db,
  id: string,
  fields: { channel: string; sourceId: string; recordingId: string },
  now = Date.now(),
): void {
  trackJobWrites(db, () => {
    statement(
      db,
      "UPDATE jobs SET state = 'recording', channel = ?, source_id = ?, recording_id = ?, skipped = 0, error = NULL, planned_end_time = coalesce(planned_end_time, end_time), updated_at = ? WHERE id = ?",
    ).run(fields.channel, fields.sourceId, fields.recordingId, now, id);
  });
}

/**
 * Stored jobs' ids with what names their programme (the planner keeps a programme's id: job-ids.ts); `startedOnly`:
 * recording or finished.
 */
export interface JobProgrammeRow {
  id: string;
  ruleId: number | null;
  start: number;
  programId: string | null;
  title: string;
  episodeTitle: string | null;
}

export function listJobProgrammes(db: Db, startedOnly = false): JobProgrammeRow[] {
  return statement(
    db,
    `SELECT id, rule_id AS ruleId, start_time AS start, json_extract(item, '$.program_id') AS programId, coalesce(json_extract(item, '$.title'), name) AS title,
            json_extract(item, '$.episode_title') AS episodeTitle FROM jobs${startedOnly ? " WHERE state IN ('recording', 'finished')" : ''}`,
  ).all() as JobProgrammeRow[];
}

/** A recording job's new end (the guide extended its programme); false when the job is not recording. */
export function setRecordingEnd(db: Db, id: string, end: number, now = Date.now()): boolean {
  return trackJobWrites(db, () => {
    // A recording resumed from before planned_end_time existed gets it here, from the end it had: the limit counts from
    // there.
    return (
      statement(
        db,
        "UPDATE jobs SET planned_end_time = coalesce(planned_end_time, end_time), end_time = ?, updated_at = ? WHERE id = ? AND state = 'recording'",
      ).run(end, now, id).changes > 0
    );
  });
}

/** The job is over: failed when it recorded nothing; `error` says why it failed or stopped early. */
export function finishJob(
  db: Db,
  id: string,
  result: { failed: boolean; error?: string | undefined; item?: JobItem },
  now = Date.now(),
): void {
  trackJobWrites(db, () => {
    statement(
      db,
      "UPDATE jobs SET state = 'finished', failed = ?, error = ?, item = coalesce(?, item), updated_at = ? WHERE id = ?",
    ).run(
      result.failed ? 1 : 0,
      result.error ?? null,
      result.item ? JSON.stringify(compactJobItem(result.item)) : null,
      now,
      id,
    );
  });
}

/** The job's `item` follows its recording's flags (delayed while it records, processed afterwards). */
export function patchJobItem(db: Db, id: string, patch: Partial<JobItem>, now = Date.now()): void {
  trackJobWrites(db, () => {
    statement(db, 'UPDATE jobs SET item = json_patch(item, ?), updated_at = ? WHERE id = ?').run(
      JSON.stringify(patch),
      now,
      id,
    );
  });
}

/** A job the user skipped by hand stays skipped through re-planning. */
export function addJobSkip(db: Db, id: string, now = Date.now()): void {
  statement(db, 'INSERT OR IGNORE INTO dvr_job_skips (job_id, skipped_at) VALUES (?, ?)').run(id, now);
}

export function listJobSkips(db: Db): Set<string> {
  return new Set(statement(db, 'SELECT job_id FROM dvr_job_skips').pluck().all() as string[]);
}

/** Forgets finished jobs (and hand skips) whose end is before `before`, epoch seconds. */
export function deleteJobsEndedBefore(db: Db, before: number): void {
  trackJobWrites(db, () => {
    statement(db, "DELETE FROM jobs WHERE state = 'finished' AND end_time < ?").run(before);
    statement(db, "DELETE FROM dvr_job_skips WHERE CAST(substr(job_id, 1, instr(job_id, '-') - 1) AS INTEGER) < ?").run(
      before - 2 * 86400,
    );
  });
}

/** The scheduled jobs that end after `now` (epoch seconds). */
export function listScheduledJobsEndingAfter(db: Db, now: number): DvrJobRow[] {
  return statement(db, "SELECT * FROM jobs WHERE state = 'scheduled' AND end_time > ?").all(now) as DvrJobRow[];
}

/** Ids of every job that is recording or finished. */
export function settledJobIds(db: Db): Set<string> {
  return new Set(
    statement(db, "SELECT id FROM jobs WHERE state IN ('recording', 'finished')").pluck().all() as string[],
  );
}

/** What /metrics counts jobs as: a skipped job apart from the scheduled, a failed one apart from the finished. */
export const JOB_COUNT_STATES = ['scheduled', 'skipped', 'recording', 'finished', 'failed'] as const;
export type JobCountState = (typeof JOB_COUNT_STATES)[number];

/** The jobs the DVR lists, by state (every state present, 0 when none): one grouped pass over the jobs table. */
export function countJobsByState(db: Db): Record<JobCountState, number> {
  const counts: Record<JobCountState, number> = { scheduled: 0, skipped: 0, recording: 0, finished: 0, failed: 0 };
  const rows = statement(
    db,
    `SELECT CASE WHEN state = 'scheduled' AND skipped = 1 THEN 'skipped' WHEN state = 'finished' AND failed = 1 THEN 'failed' ELSE state END AS state,
            count(*) AS count FROM jobs GROUP BY 1`,
  ).all() as { state: JobCountState; count: number }[];
  for (const row of rows) counts[row.state] = row.count;
  return counts;
}
