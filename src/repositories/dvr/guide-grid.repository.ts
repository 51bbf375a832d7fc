/**
 * The reads behind the guide grid (GET /dvr/guide): the programmes of a page of guide
 * channels in a window of time, and the jobs in that window. Each is one indexed query
 * whatever the page's size, so a grid of 500 channels × 14 days costs a page at a time.
 */
import type { Db } from '../../db/database.js';
import { statement } from '../../db/row-codec.js';
import type { ProgrammeRow } from './guide.repository.js';
import { currentRows } from './guide-writer.js';

/**
 * Programmes are looked for from this long before the window, so the index range
 * stays short; a programme longer than a day shows only from the day after its start
 * (the program rule type makes the same assumption).
 */
export const LONGEST_PROGRAMME = 86400;
/** Jobs likewise: a slot is at most a day, plus paddings. */
const LONGEST_JOB = 2 * 86400;

/** A programme as the grid needs it, with which of the given channel keys it airs on (its index in the list). */
export type GridProgrammeRow = Pick<
  ProgrammeRow,
  | 'start'
  | 'stop'
  | 'title'
  | 'episode_title'
  | 'season'
  | 'episode'
  | 'summary'
  | 'is_new'
  | 'program_id'
  | 'series_id'
> & {
  channel: number;
};

/**
 * The programmes of `channels` ([guide id, XMLTV id] pairs) overlapping [from, to), by
 * channel then time. One query: each pair seeks the (guide_id, xmltv_channel, start) index.
 */
export function programmesOfChannels(
  db: Db,
  channels: readonly (readonly [string, string])[],
  from: number,
  to: number,
): GridProgrammeRow[] {
  if (channels.length === 0) return [];
  return statement(
    db,
    `SELECT CAST(k.key AS INTEGER) AS channel, p.start, p.stop, p.title, p.episode_title, p.season, p.episode, p.summary, p.is_new, p.program_id, p.series_id
       FROM json_each(?) k
       JOIN programmes p ON p.guide_id = json_extract(k.value, '$[0]') AND p.xmltv_channel = json_extract(k.value, '$[1]')
      WHERE p.start >= ? AND p.start < ? AND p.stop > ? AND ${currentRows('p.')}
      ORDER BY k.key, p.start`,
  ).all(JSON.stringify(channels), from - LONGEST_PROGRAMME, to, from) as GridProgrammeRow[];
}

export interface GridJobRow {
  id: string;
  start_time: number;
  end_time: number;
  channel: string | null;
  channels: string;
  state: string;
}

/** Jobs overlapping [from, to) that record or recorded (not skipped, not failed). */
export function jobsBetween(db: Db, from: number, to: number): GridJobRow[] {
  return statement(
    db,
    `SELECT id, start_time, end_time, channel, channels, state FROM jobs
      WHERE start_time >= ? AND start_time < ? AND end_time > ? AND skipped = 0 AND failed = 0
      ORDER BY start_time`,
  ).all(from - LONGEST_JOB, to, from) as GridJobRow[];
}
