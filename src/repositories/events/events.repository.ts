/** The recent event log: appended, read after an id, trimmed to the newest N. */
import type { Db } from '../../db/database.js';
import { statement } from '../../db/row-codec.js';

export interface EventRow {
  id: number;
  kind: string;
  at: number;
  severity: string;
  message: string;
  /** JSON. */
  data: string;
}

export function lastEventId(db: Db): number {
  return (statement(db, 'SELECT coalesce(max(id), 0) AS id FROM events').get() as { id: number }).id;
}

export function insertEvent(db: Db, row: EventRow): void {
  statement(
    db,
    'INSERT INTO events (id, kind, at, severity, message, data) VALUES (@id, @kind, @at, @severity, @message, @data)',
  ).run(row);
}

/** Events after `id`, oldest first, at most `limit`. */
export function eventsAfter(db: Db, id: number, limit: number): EventRow[] {
  return statement(db, 'SELECT id, kind, at, severity, message, data FROM events WHERE id > ? ORDER BY id LIMIT ?').all(
    id,
    limit,
  ) as EventRow[];
}

/** The newest `limit` events, newest first. */
export function latestEvents(db: Db, limit: number): EventRow[] {
  return statement(db, 'SELECT id, kind, at, severity, message, data FROM events ORDER BY id DESC LIMIT ?').all(
    limit,
  ) as EventRow[];
}

/** Keeps the newest `keep` events. */
export function trimEvents(db: Db, keep: number): void {
  statement(db, 'DELETE FROM events WHERE id <= (SELECT coalesce(max(id), 0) FROM events) - ?').run(keep);
}
