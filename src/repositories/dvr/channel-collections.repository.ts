/** The user's channel collections: a name and channel numbers (JSON, in order). */
import type { Db } from '../../db/database.js';
import { statement } from '../../db/row-codec.js';

export interface ChannelCollectionRow {
  id: number;
  name: string;
  items: string[];
}

interface Row {
  id: number;
  name: string;
  items: string;
}

const toRow = (row: Row): ChannelCollectionRow => ({ ...row, items: JSON.parse(row.items) as string[] });

export function listChannelCollections(db: Db): ChannelCollectionRow[] {
  return (
    statement(db, 'SELECT id, name, items FROM channel_collections ORDER BY name COLLATE NOCASE, id').all() as Row[]
  ).map(toRow);
}

export function getChannelCollection(db: Db, id: number): ChannelCollectionRow | undefined {
  const row = statement(db, 'SELECT id, name, items FROM channel_collections WHERE id = ?').get(id) as Row | undefined;
  return row ? toRow(row) : undefined;
}

/** The id of the collection called `name` (any case), if one is. */
export function channelCollectionNamed(db: Db, name: string): number | undefined {
  const row = statement(db, 'SELECT id FROM channel_collections WHERE name = ? COLLATE NOCASE').get(name) as
    | { id: number }
    | undefined;
  return row?.id;
}

export function insertChannelCollection(db: Db, name: string, items: readonly string[], now = Date.now()): number {
  return Number(
    statement(db, 'INSERT INTO channel_collections (name, items, created_at, updated_at) VALUES (?, ?, ?, ?)').run(
      name,
      JSON.stringify(items),
      now,
      now,
    ).lastInsertRowid,
  );
}

/** False when no collection has this id. */
export function updateChannelCollection(
  db: Db,
  id: number,
  name: string,
  items: readonly string[],
  now = Date.now(),
): boolean {
  return (
    statement(db, 'UPDATE channel_collections SET name = ?, items = ?, updated_at = ? WHERE id = ?').run(
      name,
      JSON.stringify(items),
      now,
      id,
    ).changes > 0
  );
}

export function deleteChannelCollection(db: Db, id: number): boolean {
  return statement(db, 'DELETE FROM channel_collections WHERE id = ?').run(id).changes > 0;
}
