/**
 * The SQL that writes playable items' JSON: whatever text, numbers and lists an item
 * holds, SQLite's output parses, round-trips every value, leaves nulls out and keeps
 * the schema's field order.
 */
import fc from 'fast-check';
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonObjectSql } from '../../src/repositories/library/item-projection.js';
import { getItemJson, upsertEpisode, upsertMovie } from '../../src/repositories/library/items.repository.js';
import { EpisodeSchema, MovieSchema } from '../../src/model/library/library.schemas.js';
import { upsertShow } from '../../src/repositories/library/parents.repository.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

let temp: TempLibrary;

beforeAll(() => {
  temp = createTempLibrary();
  upsertShow(temp.db, { id: 'show', name: 'Show "quoted" \\ name' });
});

afterAll(() => temp.close());

function movieJson(id: string): Record<string, unknown> {
  const bytes = getItemJson(temp.db, id, 'movie', 'http://h');
  if (!bytes) throw new Error(`no movie ${id}`);
  return JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
}

describe('item JSON written by SQLite', () => {
  it('round-trips any text, list and number', () => {
    let n = 0;
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.array(fc.string({ maxLength: 12 }), { maxLength: 4 }),
        fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }),
        fc.option(fc.integer({ min: 1, max: 3000 }), { nil: null }),
        (text, list, duration, year) => {
          const id = `m${n++}`;
          upsertMovie(temp.db, {
            id,
            source: 'imports',
            title: text,
            summary: text,
            genres: list,
            duration,
            release_year: year,
          });
          const movie = movieJson(id);
          expect(movie.title).toBe(text);
          expect(movie.summary).toBe(text);
          expect(movie.genres).toEqual(list);
          // Always present: 0 while not known.
          if (duration === null) expect(movie.duration).toBe(0);
          else expect(movie.duration).toBe(JSON.parse(JSON.stringify(duration)));
          if (year === null) expect(movie).not.toHaveProperty('release_year');
          else expect(movie.release_year).toBe(year);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('escapes control characters, quotes and backslashes', () => {
    const text = 'a"b\\c\nd\te\u0000f\u001fg\u2028h😀';
    upsertMovie(temp.db, { id: 'escapes', source: 'imports', title: text });
    expect(movieJson('escapes').title).toBe(text);
  });

  it('writes whole numbers as JavaScript does', () => {
    upsertMovie(temp.db, { id: 'whole', source: 'imports', title: 'x', duration: 5400, playback_time: 0 });
    expect(getItemJson(temp.db, 'whole', 'movie', 'http://h')?.toString('utf8')).toContain(
      '"duration":5400,"playback_time":0,',
    );
  });

  it('leaves out a number that has no JSON form instead of writing invalid JSON (a required one is 0)', () => {
    upsertMovie(temp.db, { id: 'infinite', source: 'imports', title: 'x', duration: Number.POSITIVE_INFINITY });
    expect(movieJson('infinite').duration).toBe(0);
  });

  it('writes fields in the schema’s order, booleans as booleans, and no nulls', () => {
    upsertEpisode(temp.db, {
      id: 'ep',
      show_id: 'show',
      source: 'recordings',
      episode_title: 'E',
      watched: true,
      season_number: 2,
    });
    const text = getItemJson(temp.db, 'ep', 'episode', 'http://h')?.toString('utf8') ?? '';
    const episode = JSON.parse(text) as Record<string, unknown>;
    const schemaOrder = Object.keys(EpisodeSchema.properties);
    expect(Object.keys(episode)).toEqual(schemaOrder.filter((key) => key in episode));
    expect(episode).toMatchObject({
      title: 'Show "quoted" \\ name',
      episode_title: 'E',
      watched: true,
      favorited: false,
      season_number: 2,
    });
    expect(text).not.toContain('null');
  });

  it('answers nothing for an id of another kind', () => {
    expect(getItemJson(temp.db, 'ep', 'movie', 'http://h')).toBeUndefined();
  });

  it('refuses to compile a schema field it has no source for', () => {
    expect(() => jsonObjectSql(Type.Object({ id: Type.String(), mystery: Type.String() }), { id: 'i.id' })).toThrow(
      /no source for field 'mystery'/,
    );
    expect(() => jsonObjectSql(MovieSchema, {})).toThrow(/no source/);
  });
});

describe('the items table refuses values the JSON projection could not write', () => {
  it.each([
    ['a text duration', { duration: 'long' }],
    ['a fractional timestamp', { last_watched_at: 1.5 }],
    ['a text release year', { release_year: '1999x' }],
  ])('%s', (_name, fields) => {
    const input = { id: `bad-${Math.random()}`, source: 'imports' as const, title: 'x', ...fields } as Parameters<
      typeof upsertMovie
    >[1];
    expect(() => upsertMovie(temp.db, input)).toThrow(/CHECK constraint failed/);
  });

  it('a list column that is not a JSON array', () => {
    expect(() =>
      temp.db
        .prepare(
          "INSERT INTO items (id, kind, source, title, genres, created_at, updated_at) VALUES ('b', 'movie', 'imports', 'x', '{\"a\":1}', 1, 1)",
        )
        .run(),
    ).toThrow(/CHECK constraint failed/);
  });
});
