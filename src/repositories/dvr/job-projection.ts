/**
 * Jobs are written to the wire by SQLite, as playable items are (item-projection.ts):
 * JobSchema compiled into one SQL expression per row, the list joined in the same query.
 * Rendering 2,600 jobs as JavaScript objects cost ~60 ms, a stall every reader of any
 * route waited behind each time a re-plan changed them (issue 21); this is a few.
 *
 * A job's `item` is stored as it is shown (the schema's fields that have a value), so it
 * goes out as it is: reading each of its fields out of the JSON cost as much as the
 * JavaScript it replaces.
 */
import type { TSchema } from '@sinclair/typebox';
import { JobSchema } from '../../model/library/library.schemas.js';
import { jsonObjectSql, jsonValueSql } from '../library/item-projection.js';

/**
 * The stored item as it is (compacted when written: jobs.repository.ts, compactJobItem),
 * its image URL made absolute when it points at this server.
 */
const ITEM_SQL = `CASE WHEN substr(j.item ->> '$.image_url', 1, 1) = '/' THEN json_set(j.item, '$.image_url', @base || (j.item ->> '$.image_url')) ELSE j.item END`;

const JOB_SOURCES: Record<string, string> = {
  id: 'j.id',
  name: 'j.name',
  start_time: 'j.start_time',
  end_time: 'j.end_time',
  duration: '(j.end_time - j.start_time)',
  channels: 'j.channels',
  channel: 'j.channel',
  skipped: 'j.skipped',
  failed: 'j.failed',
  error: 'j.error',
  updated_at: 'j.updated_at',
  item: ITEM_SQL,
};

/** Compiled when the module loads, so a schema field without a source stops start-up. */
const JOB_JSON = jsonObjectSql(JobSchema as TSchema, JOB_SOURCES, (schema, expression) =>
  schema.type === 'object' ? expression : jsonValueSql(schema, expression),
);

/** One SQL expression yielding the JSON object text of the job row `j` (`@base`: the absolute base URL). */
export function jobJsonSql(): string {
  return JOB_JSON;
}
