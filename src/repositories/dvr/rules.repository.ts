/**
 * Recording rules: a numeric id and the definition the management interface accepted,
 * kept as JSON. What a definition means is the DVR's business (dvr/planning/rules/); this layer
 * stores and returns it unread.
 */
import type { Db } from '../../db/database.js';
import { statement } from '../../db/row-codec.js';

/** A row of dvr_rules, its definition parsed but not interpreted. */
export interface RuleRecord {
  id: number;
  definition: unknown;
}

interface RuleRow {
  id: number;
  definition: string;
}

const toRecord = (row: RuleRow): RuleRecord => ({ id: row.id, definition: JSON.parse(row.definition) as unknown });

export function listRules(db: Db): RuleRecord[] {
  return (statement(db, 'SELECT id, definition FROM dvr_rules ORDER BY id').all() as RuleRow[]).map(toRecord);
}

export function getRule(db: Db, id: number): RuleRecord | undefined {
  const row = statement(db, 'SELECT id, definition FROM dvr_rules WHERE id = ?').get(id) as RuleRow | undefined;
  return row ? toRecord(row) : undefined;
}

/** Stores a new rule; its id. */
export function insertRule(db: Db, definition: object, now = Date.now()): number {
  const id = statement(db, 'INSERT INTO dvr_rules (definition, created_at, updated_at) VALUES (?, ?, ?)').run(
    JSON.stringify(definition),
    now,
    now,
  ).lastInsertRowid;
  return Number(id);
}

export function replaceRule(db: Db, id: number, definition: object, now = Date.now()): boolean {
  return (
    statement(db, 'UPDATE dvr_rules SET definition = ?, updated_at = ? WHERE id = ?').run(
      JSON.stringify(definition),
      now,
      id,
    ).changes > 0
  );
}

export function deleteRule(db: Db, id: number): boolean {
  return statement(db, 'DELETE FROM dvr_rules WHERE id = ?').run(id).changes > 0;
}
