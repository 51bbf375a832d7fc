/**
 * The user's lineup edits (channel_edits) and the channel rows they apply to: a row of
 * `channels` holds what its source says (source_*) and the result of its edit (number,
 * name, image_url, group_title, hidden, favorited, guide_channel, guide_priority), which
 * every other reader takes as the channel.
 */
import type { Db } from '../../db/database.js';
import { statement } from '../../db/row-codec.js';
import type { ChannelOwnFields } from './sources.repository.js';

/** An edit as stored: the user's values (null: the source's) and how to find its channel again. */
export interface ChannelEdit {
  id: number;
  source_key: string | null;
  source_number: string;
  source_name: string;
  number: string | null;
  name: string | null;
  logo: string | null;
  group_name: string | null;
  hidden: number | null;
  favorite: number | null;
  guide_channel: string | null;
  guide_priority: string | null;
}

/** A channel of the lineup: its row, what its source says, and its edit if it has one. */
export interface LineupRow {
  id: string;
  source_id: string;
  number: string;
  name: string;
  image_url: string | null;
  group_title: string | null;
  hidden: number;
  favorited: number;
  guide_id: string | null;
  guide_name: string | null;
  guide_channel: string | null;
  guide_priority: string | null;
  source_number: string;
  source_name: string;
  source_logo: string | null;
  source_group: string | null;
  edit_id: number | null;
  /** The channel's edit, read with it (one query for a whole lineup). */
  edit: ChannelEdit | null;
}

type JoinedRow = Omit<LineupRow, 'edit'> & { [K in keyof ChannelEdit as `e_${K}`]: ChannelEdit[K] | null };

const EDIT_FIELDS = [
  'id',
  'source_key',
  'source_number',
  'source_name',
  'number',
  'name',
  'logo',
  'group_name',
  'hidden',
  'favorite',
  'guide_channel',
  'guide_priority',
] as const;

/** A joined row as a lineup row with its edit. */
function lineupRow(joined: JoinedRow): LineupRow {
  const row: Record<string, unknown> = {};
  const edit: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(joined)) {
    if (name.startsWith('e_')) edit[name.slice(2)] = value;
    else row[name] = value;
  }
  return { ...(row as Omit<LineupRow, 'edit'>), edit: joined.e_id === null ? null : (edit as unknown as ChannelEdit) };
}

const EDIT_COLUMNS =
  'id, source_key, source_number, source_name, number, name, logo, group_name, hidden, favorite, guide_channel, guide_priority';
const LINEUP_COLUMNS =
  'c.id, c.source_id, c.number, c.name, c.image_url, c.group_title, c.hidden, c.favorited, c.guide_id, c.guide_name, c.guide_channel, c.guide_priority, ' +
  'c.source_number, c.source_name, c.source_logo, c.source_group, c.edit_id, ' +
  EDIT_FIELDS.map((field) => `e.${field} AS e_${field}`).join(', ');
const LINEUP_FROM = 'channels c JOIN dvr_sources s ON s.id = c.source_id LEFT JOIN channel_edits e ON e.id = c.edit_id';
const NUMBER_ORDER = `CAST(c.number AS INTEGER),
  CASE WHEN instr(c.number, '.') > 0 THEN CAST(substr(c.number, instr(c.number, '.') + 1) AS INTEGER) ELSE -1 END, c.number, s.created_at, c.id`;

export function listEditsOfSource(db: Db, sourceId: string): ChannelEdit[] {
  return statement(db, `SELECT ${EDIT_COLUMNS} FROM channel_edits WHERE source_id = ? ORDER BY id`).all(
    sourceId,
  ) as ChannelEdit[];
}

export function getEdit(db: Db, id: number): ChannelEdit | undefined {
  return statement(db, `SELECT ${EDIT_COLUMNS} FROM channel_edits WHERE id = ?`).get(id) as ChannelEdit | undefined;
}

/** Every channel of every source, hidden ones too, in number order. */
export function listLineup(db: Db): LineupRow[] {
  return (
    statement(db, `SELECT ${LINEUP_COLUMNS} FROM ${LINEUP_FROM} ORDER BY ${NUMBER_ORDER}`).all() as JoinedRow[]
  ).map(lineupRow);
}

export function getLineupChannel(db: Db, id: string): LineupRow | undefined {
  const joined = statement(db, `SELECT ${LINEUP_COLUMNS} FROM ${LINEUP_FROM} WHERE c.id = ?`).get(id) as
    | JoinedRow
    | undefined;
  return joined && lineupRow(joined);
}

/** Stores an edit (a new one when `id` is null) and applies it to its channel row; the edit's id. */
export function saveEdit(
  db: Db,
  sourceId: string,
  channelId: string,
  edit: Omit<ChannelEdit, 'id'> & { id: number | null },
  own: ChannelOwnFields,
  now = Date.now(),
): number {
  return db
    .transaction(() => {
      const values = { ...edit, source_id: sourceId, now };
      let id = edit.id;
      if (id === null) {
        id = Number(
          statement(
            db,
            `INSERT INTO channel_edits (source_id, ${EDIT_COLUMNS.replace('id, ', '')}, updated_at)
           VALUES (@source_id, @source_key, @source_number, @source_name, @number, @name, @logo, @group_name, @hidden, @favorite, @guide_channel, @guide_priority, @now)`,
          ).run(values).lastInsertRowid,
        );
      } else {
        statement(
          db,
          `UPDATE channel_edits SET source_key = @source_key, source_number = @source_number, source_name = @source_name, number = @number, name = @name,
           logo = @logo, group_name = @group_name, hidden = @hidden, favorite = @favorite, guide_channel = @guide_channel, guide_priority = @guide_priority,
           updated_at = @now WHERE id = @id`,
        ).run(values);
      }
      statement(
        db,
        `UPDATE channels SET number = @number, name = @name, image_url = @image_url, group_title = @group_title, hidden = @hidden, favorited = @favorite,
         guide_channel = @guide_channel, guide_priority = @guide_priority, edit_id = @edit_id, updated_at = @now WHERE id = @channelId`,
      ).run({ ...own, hidden: own.hidden ? 1 : 0, favorite: own.favorite ? 1 : 0, edit_id: id, channelId, now });
      return id;
    })
    .immediate();
}

/** Moves whenever a channel, a guide or a guide channel changes (triggers of migration 012), whoever wrote. */
export function lineupVersion(db: Db): number {
  return statement(db, 'SELECT n FROM lineup_version WHERE id = 1').pluck().get() as number;
}

/** The numbers of the channels the user hid (what the planner says a job on one could not record from). */
export function hiddenChannelNumbers(db: Db): Set<string> {
  return new Set(statement(db, 'SELECT DISTINCT number FROM channels WHERE hidden = 1').pluck().all() as string[]);
}
