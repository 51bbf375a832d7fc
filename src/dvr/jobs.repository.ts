/** Scheduled recording jobs. The DVR writes them; interface A reads them. */
import type { Db } from '../db/database.js';
import { type ColumnMap, statement, upsertRow } from '../db/row-codec.js';
import type { JobItem } from '../library/library.schemas.js';

export interface JobInput {
  /** `<start epoch seconds>-<rule id>` */
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
};

export function upsertJob(db: Db, input: JobInput): void {
  upsertRow(db, 'jobs', JOB_COLUMNS, { ...input });
}

export function deleteJob(db: Db, id: string): boolean {
  return statement(db, 'DELETE FROM jobs WHERE id = ?').run(id).changes > 0;
}

export function getJob(db: Db, id: string): JobRow | undefined {
  return statement(db, 'SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
}

export function listJobs(db: Db): JobRow[] {
  return statement(db, 'SELECT * FROM jobs ORDER BY start_time ASC, id ASC').all() as JobRow[];
}
