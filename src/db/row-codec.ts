/**
 * Conversions between JavaScript values and SQLite column values, and a builder for
 * "insert or update only the given fields" statements. Used by the repositories only.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';

export type SqlValue = string | number | bigint | Buffer | null;

export type ColumnKind = 'text' | 'int' | 'real' | 'bool' | 'json';

export function encodeValue(kind: ColumnKind, value: unknown): SqlValue {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'bool':
      return value ? 1 : 0;
    case 'json':
      return JSON.stringify(value);
    default:
      return value as SqlValue;
  }
}

/** field name in the write input → [column, kind] */
export type ColumnMap = Readonly<Record<string, readonly [column: string, kind: ColumnKind]>>;

type AnyStatement = Statement<unknown[], unknown>;

const statementCache = new WeakMap<Db, Map<string, AnyStatement>>();

function cachedStatement(db: Db, sql: string): AnyStatement {
  let cache = statementCache.get(db);
  if (!cache) statementCache.set(db, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) cache.set(sql, (statement = db.prepare<unknown[], unknown>(sql)));
  return statement;
}

/**
 * Inserts a row, or updates the fields the input gives when the id exists. Fields the
 * input leaves undefined keep their stored value (a rescan must not reset watch
 * state); null clears a field. `created_at` is kept on update.
 */
export function upsertRow(
  db: Db,
  table: string,
  columns: ColumnMap,
  input: Record<string, unknown>,
  fixed: Record<string, SqlValue> = {},
): void {
  const now = Date.now();
  const values: Record<string, SqlValue> = { ...fixed };
  // The given fields name the statement; building its SQL again per row cost most of
  // an import's allocations (about 10 KB a row).
  let given = '';
  for (const field in columns) {
    const value = input[field];
    if (value === undefined) continue;
    const [column, kind] = columns[field] as readonly [string, ColumnKind];
    values[column] = encodeValue(kind, value);
    given += `${column},`;
  }
  values.created_at = typeof input.created_at === 'number' ? input.created_at : now;
  values.updated_at = typeof input.updated_at === 'number' ? input.updated_at : now;
  upsertStatement(db, table, values, `${Object.keys(fixed).join(',')}|${given}`).run(values);
}

const upsertStatements = new WeakMap<Db, Map<string, AnyStatement>>();

/** The prepared upsert for this table and these columns (`columns` names them: the fixed ones, then the given ones). */
function upsertStatement(db: Db, table: string, values: Record<string, SqlValue>, columns: string): AnyStatement {
  let byKey = upsertStatements.get(db);
  if (!byKey) upsertStatements.set(db, (byKey = new Map()));
  const key = `${table}:${columns}`;
  let prepared = byKey.get(key);
  if (!prepared) {
    // created_at is inserted but never updated: a row keeps the time it was first added.
    const names = Object.keys(values).filter((name) => name !== 'created_at');
    const updates = names.filter((name) => name !== 'id').map((name) => `${name} = excluded.${name}`);
    const sql =
      `INSERT INTO ${table} (${names.join(', ')}, created_at) VALUES (${names.map((n) => '@' + n).join(', ')}, @created_at) ` +
      `ON CONFLICT (id) DO UPDATE SET ${updates.join(', ')}`;
    byKey.set(key, (prepared = db.prepare<unknown[], unknown>(sql)));
  }
  return prepared;
}

/** Runs a cached prepared statement; for repositories whose SQL text is fixed. */
export function statement(db: Db, sql: string): AnyStatement {
  return cachedStatement(db, sql);
}

/**
 * Updates the fields the input gives (undefined: left alone; null: cleared) and
 * `updated_at` of one row. False when no row has this id.
 */
export function updateRow(
  db: Db,
  table: string,
  columns: ColumnMap,
  id: string,
  input: Record<string, unknown>,
  now = Date.now(),
): boolean {
  const values: Record<string, SqlValue> = { id, updated_at: now };
  const sets: string[] = [];
  for (const field in columns) {
    const value = input[field];
    if (value === undefined || field === 'id') continue;
    const [column, kind] = columns[field] as readonly [string, ColumnKind];
    values[column] = encodeValue(kind, value);
    sets.push(`${column} = @${column}`);
  }
  sets.push('updated_at = @updated_at');
  return cachedStatement(db, `UPDATE ${table} SET ${sets.join(', ')} WHERE id = @id`).run(values).changes > 0;
}
