/** Where a recording's commercial detection stands, and the marks it found while the recording was still written. */
import type { Db } from '../../db/database.js';
import { statement } from '../../db/row-codec.js';
import type { DetectionState } from '../../model/library/file-item.schemas.js';

export type { DetectionState };

export interface CommercialDetection {
  state: DetectionState;
  /** Why, for the failed states. */
  error: string | null;
}

/** Undefined when the item is no recording (an import: Antenna detects no commercials in those). */
export function getCommercialDetection(db: Db, itemId: string): CommercialDetection | undefined {
  return statement(
    db,
    'SELECT commercials_state AS state, commercials_error AS error FROM recordings WHERE item_id = ?',
  ).get(itemId) as CommercialDetection | undefined;
}

/** Sets the state; the error is kept only for the failed states. False when the item is no recording (gone). */
export function setCommercialDetection(db: Db, itemId: string, state: DetectionState, error?: string | null): boolean {
  const kept = state === 'failed' || state === 'live_failed' ? (error ?? null) : null;
  return (
    statement(db, 'UPDATE recordings SET commercials_state = ?, commercials_error = ? WHERE item_id = ?').run(
      state,
      kept,
      itemId,
    ).changes > 0
  );
}

/** Marks a live run found: the item's `commercials` until the final pass writes its own. */
export function setLiveCommercials(db: Db, itemId: string, commercials: readonly number[], now = Date.now()): void {
  statement(db, 'UPDATE items SET commercials = ?, updated_at = ? WHERE id = ?').run(
    commercials.length > 0 ? JSON.stringify(commercials) : null,
    now,
    itemId,
  );
}

/** The item's stored marks ([] when none). */
export function getStoredCommercials(db: Db, itemId: string): number[] {
  const text = statement(db, 'SELECT commercials FROM items WHERE id = ?').pluck().get(itemId) as string | null;
  return text ? (JSON.parse(text) as number[]) : [];
}
