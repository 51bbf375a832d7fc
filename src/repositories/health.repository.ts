/** The read `GET /health` makes of the database. */
import type { Db } from '../db/database.js';
import { statement } from '../db/row-codec.js';

/**
 * How long the check may wait for a lock. better-sqlite3 is synchronous, so a wait
 * blocks the event loop: the connection's own 5 s would freeze every answer for that
 * long while a monitor asks every few seconds.
 */
export const HEALTH_BUSY_TIMEOUT_MS = 100;

/**
 * Reads the schema table, under a short busy timeout; throws when the database cannot
 * be read (closed, locked past the timeout, I/O error, corrupt first page). `SELECT 1`
 * alone would prove nothing: it touches no table, so it takes no lock and reads no page.
 * The connection's busy timeout is put back before returning (nothing else runs
 * in between: the calls are synchronous).
 */
export function checkDatabaseReadable(db: Db, busyTimeoutMs = HEALTH_BUSY_TIMEOUT_MS): void {
  // Prepared once and kept (db.pragma() prepares its statement at every call: half the check's cost).
  const previous = statement(db, 'PRAGMA busy_timeout').pluck().get() as number;
  statement(db, `PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`).get();
  try {
    statement(db, 'SELECT count(*) FROM sqlite_schema').pluck().get();
  } finally {
    statement(db, `PRAGMA busy_timeout = ${Math.floor(previous)}`).get();
  }
}
