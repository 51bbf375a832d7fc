/** Recording rules: a numeric id and the definition the management interface accepted. */
import type { Db } from '../db/database.js';
import { statement } from '../db/row-codec.js';
import type { RuleDefinition, StoredRule } from '../model/rule.schemas.js';

interface RuleRow {
  id: number;
  definition: string;
}

const toRule = (row: RuleRow): StoredRule => ({ id: row.id, definition: JSON.parse(row.definition) as RuleDefinition });

export function listRules(db: Db): StoredRule[] {
  return (statement(db, 'SELECT id, definition FROM dvr_rules ORDER BY id').all() as RuleRow[]).map(toRule);
}

export function getRule(db: Db, id: number): StoredRule | undefined {
  const row = statement(db, 'SELECT id, definition FROM dvr_rules WHERE id = ?').get(id) as RuleRow | undefined;
  return row ? toRule(row) : undefined;
}

export function insertRule(db: Db, definition: RuleDefinition, now = Date.now()): StoredRule {
  const id = statement(db, 'INSERT INTO dvr_rules (definition, created_at, updated_at) VALUES (?, ?, ?)').run(JSON.stringify(definition), now, now)
    .lastInsertRowid;
  return { id: Number(id), definition };
}

export function replaceRule(db: Db, id: number, definition: RuleDefinition, now = Date.now()): boolean {
  return statement(db, 'UPDATE dvr_rules SET definition = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(definition), now, id).changes > 0;
}

export function deleteRule(db: Db, id: number): boolean {
  return statement(db, 'DELETE FROM dvr_rules WHERE id = ?').run(id).changes > 0;
}
