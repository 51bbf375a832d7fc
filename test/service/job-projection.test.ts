/**
 * Interface A's jobs written by SQLite (job-projection.ts): whatever a stored job and its
 * item hold, the bytes parse to the job as the specification shapes it: nulls and absent
 * members left out, 0/1 as booleans, server-relative image URLs made absolute, fields
 * the schema does not name left out, in start-time order.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactJobItem, getJobJson, listJobsJson, upsertJob } from '../../src/repositories/dvr/jobs.repository.js';
import type { JobItem } from '../../src/model/library/library.schemas.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

let temp: TempLibrary;
beforeAll(() => {
  temp = createTempLibrary();
});
afterAll(() => temp.close());

const BASE = 'http://tv.local:8089';
const text = fc.string({ unit: 'grapheme', maxLength: 20 });
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });

const itemArbitrary = fc.record(
  {
    program_id: maybe(text),
    title: maybe(text),
    episode_title: maybe(text),
    season_number: maybe(fc.integer({ min: 0, max: 100 })),
    duration: maybe(fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 1e6 })),
    image_url: maybe(fc.oneof(fc.constant('/guide-art/x.png'), fc.webUrl(), text)),
    genres: maybe(fc.array(text, { maxLength: 3 })),
    watched: maybe(fc.boolean()),
    delayed: maybe(fc.boolean()),
    original_air_date: maybe(fc.constant('2024-05-06')),
    not_in_the_schema: maybe(text),
  },
  { requiredKeys: [] },
);

/** What the specification's job is for a stored item: its schema's non-null members, a relative image URL resolved. */
function expectedItem(item: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    if (value === null || value === undefined || key === 'not_in_the_schema') continue;
    out[key] =
      key === 'image_url' && typeof value === 'string' && value.startsWith('/')
        ? BASE + value
        : JSON.parse(JSON.stringify(value));
  }
  return out;
}

describe('jobs written by SQLite', () => {
  it('parse to each stored job as interface A shapes it', () => {
    let n = 0;
    fc.assert(
      fc.property(
        itemArbitrary,
        maybe(text),
        fc.boolean(),
        maybe(text),
        fc.array(fc.constantFrom('5', '7.1', '12'), { maxLength: 3 }),
        (item, channel, skipped, error, channels) => {
          const id = `${1_900_000_000 + n}-${n++}`;
          upsertJob(temp.db, {
            id,
            name: 'Name "q"',
            start_time: 1_900_000_000,
            end_time: 1_900_003_600,
            channels,
            channel,
            skipped,
            error,
            item: item as JobItem,
            state: 'scheduled',
          });
          const job = JSON.parse((getJobJson(temp.db, id, BASE) as Buffer).toString('utf8')) as Record<string, unknown>;
          const expected: Record<string, unknown> = {
            id,
            name: 'Name "q"',
            start_time: 1_900_000_000,
            end_time: 1_900_003_600,
            duration: 3600,
            channels,
          };
          if (channel !== null) expected.channel = channel;
          expected.skipped = skipped;
          expected.failed = false;
          if (error !== null) expected.error = error;
          expect(typeof job.updated_at).toBe('number');
          expect({ ...job, updated_at: undefined }).toEqual({
            ...expected,
            updated_at: undefined,
            item: expectedItem(item),
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('lists every job in start-time order, then by id, and an empty list as []', () => {
    const empty = createTempLibrary();
    try {
      expect(listJobsJson(empty.db, BASE).toString('utf8')).toBe('[]');
      for (const [id, start] of [
        ['30-2', 30],
        ['10-1', 10],
        ['30-1', 30],
      ] as const) {
        upsertJob(empty.db, { id, name: id, start_time: start, end_time: start + 60, item: {} as JobItem });
      }
      const jobs = JSON.parse(listJobsJson(empty.db, BASE).toString('utf8')) as Array<{ id: string; item: unknown }>;
      expect(jobs.map((job) => job.id)).toEqual(['10-1', '30-1', '30-2']);
      expect(jobs[0]?.item).toEqual({});
    } finally {
      empty.close();
    }
  });

  it('is unknown (undefined) for an id no job has', () => {
    expect(getJobJson(temp.db, 'no-such-job', BASE)).toBeUndefined();
  });

  it('shows items stored before they were compacted (migration 014) as it shows new ones', () => {
    const old = createTempLibrary();
    try {
      const stored = {
        title: 'T',
        summary: null,
        season_number: 2,
        genres: ['a'],
        watched: true,
        delayed: false,
        no_such_field: 1,
        image_url: '/art/1.png',
      };
      old.db
        .prepare(
          "INSERT INTO jobs (id, name, start_time, end_time, item, created_at, updated_at) VALUES ('5-1', 'n', 5, 6, ?, 0, 0)",
        )
        .run(JSON.stringify(stored));
      old.db.exec(readFileSync(new URL('../../src/db/migrations/014-compact-job-items.sql', import.meta.url), 'utf8'));
      const job = JSON.parse((getJobJson(old.db, '5-1', BASE) as Buffer).toString('utf8')) as { item: unknown };
      expect(job.item).toEqual({
        title: 'T',
        season_number: 2,
        genres: ['a'],
        watched: true,
        delayed: false,
        image_url: `${BASE}/art/1.png`,
      });
      // Stored as compactJobItem writes it (the schema's order): the next re-plan finds the job unchanged.
      const text = old.db.prepare("SELECT item FROM jobs WHERE id = '5-1'").pluck().get();
      expect(text).toBe(JSON.stringify(compactJobItem(stored as unknown as JobItem)));
    } finally {
      old.close();
    }
  });
});
