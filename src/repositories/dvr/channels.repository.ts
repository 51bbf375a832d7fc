/**
 * Channels offered by the DVR's sources, as the user's lineup edits make them. Listed in channel-number order ("2.1"
 * before "10").
 */
import type { Db } from '../../db/database.js';
import { type ColumnMap, statement, upsertRow } from '../../db/row-codec.js';

export interface ChannelInput {
  id: string;
  number: string;
  name: string;
  call_sign?: string | null;
  image_url?: string | null;
  hd?: boolean;
  favorited?: boolean;
  source_id?: string | null;
}

export interface ChannelRow {
  id: string;
  number: string;
  name: string;
  call_sign: string | null;
  image_url: string | null;
  hd: number;
  favorited: number;
  source_id: string | null;
}

const CHANNEL_COLUMNS: ColumnMap = {
  id: ['id', 'text'],
  number: ['number', 'text'],
  name: ['name', 'text'],
  call_sign: ['call_sign', 'text'],
  image_url: ['image_url', 'text'],
  hd: ['hd', 'bool'],
  favorited: ['favorited', 'bool'],
  source_id: ['source_id', 'text'],
};

export function upsertChannel(db: Db, input: ChannelInput): void {
  upsertRow(db, 'channels', CHANNEL_COLUMNS, { ...input });
}

export function listChannels(db: Db): ChannelRow[] {
  // Major then minor number: "2.1" < "2.10" < "10". A number two sources carry is one
  // channel to a viewer (the DVR picks the source), so it is listed once. Hidden ones are not listed.
  return statement(
    db,
    `SELECT * FROM channels WHERE id IN (
       SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY number ORDER BY created_at, id) AS n FROM channels WHERE hidden = 0) WHERE n = 1)
     ORDER BY
       CAST(number AS INTEGER),
       CASE WHEN instr(number, '.') > 0 THEN CAST(substr(number, instr(number, '.') + 1) AS INTEGER) ELSE -1 END,
       number, id`,
  ).all() as ChannelRow[];
}
