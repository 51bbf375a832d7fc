/**
 * GuideWriter's generations (issue 21) on a real temp SQLite file: a refresh's rows are
 * placed beside the current ones and unseen by every reader (guide, grid, planner, search,
 * the refresh's judging count) until the swap; the swap shows all of them at once; the
 * replaced rows are deleted afterwards; a refresh not applied leaves nothing behind.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { programmesOfChannels } from '../../src/repositories/dvr/guide-grid.repository.js';
import {
  countProgrammesEndingAfter,
  GuideWriter,
  iterateProgrammes,
  iterateProgrammeTuplesMatching,
  iterateProgrammeTuplesOn,
  programmesBetween,
  programmeTuplesOf,
  saveGuide,
} from '../../src/repositories/dvr/guide.repository.js';
import { searchProgrammes } from '../../src/repositories/library/search.repository.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

const T0 = 1_900_000_800;
const KEY = 'g\tc1';

let temp: TempLibrary;

beforeEach(() => {
  temp = createTempLibrary();
  saveGuide(temp.db, { id: 'g', location: '/guide.xml', origin: 'managed' });
});
afterEach(() => temp.close());

/**
 * A writer holding `count` hour-long programmes on c1 titled `<title> <n>`; batches of 7, so staging is flushed many
 * times.
 */
function writerOf(title: string, count: number): GuideWriter {
  const writer = new GuideWriter(temp.db, 'g', { batchSize: 7 });
  writer.channel({ id: 'c1', displayNames: ['One'] });
  for (let i = 0; i < count; i++)
    writer.programme({
      channel: 'c1',
      start: T0 + i * 3600,
      stop: T0 + (i + 1) * 3600,
      title: `${title} ${i}`,
      seriesId: title,
    });
  return writer;
}

/** The titles every reader of programmes gives, each sorted: they must agree. */
function titlesRead(): Record<string, string[]> {
  const db = temp.db;
  const sorted = (titles: Iterable<string>) => [...titles].sort();
  const tupleTitle = (row: unknown[]) => String(row[4]);
  return {
    all: sorted([...iterateProgrammes(db, 0)].map((p) => p.title)),
    between: sorted(programmesBetween(db, 'g', 'c1', 0, T0 * 2).map((p) => p.title)),
    grid: sorted(programmesOfChannels(db, [['g', 'c1']], T0, T0 + 1000 * 3600).map((p) => p.title)),
    on: sorted([...iterateProgrammeTuplesOn(db, 0, [KEY])].map(tupleTitle)),
    of: sorted(programmeTuplesOf(db, KEY, 0, T0 * 2).map(tupleTitle)),
    matching: sorted(
      [
        ...iterateProgrammeTuplesMatching(db, 0, {
          channelKeys: [],
          seriesIds: ['Old', 'New'],
          titles: [],
          substrings: [],
        }),
      ].map(tupleTitle),
    ),
    search: sorted(searchProgrammes(temp.db, 'old OR new', 0, [KEY], 1000).map((p) => p.title)),
  };
}

const everywhere = (titles: string[]) => ({
  all: titles,
  between: titles,
  grid: titles,
  on: titles,
  of: titles,
  matching: titles,
  search: titles,
});
const titled = (title: string, count: number) => Array.from({ length: count }, (_, i) => `${title} ${i}`).sort();

describe('GuideWriter', () => {
  it('places a refresh unseen, swaps it in whole, then deletes what it replaced', async () => {
    writerOf('Old', 30).commit({ skipped: 0 });
    expect(titlesRead()).toEqual(everywhere(titled('Old', 30)));

    const next = writerOf('New', 20);
    await next.place();
    // Placed, not swapped: 50 rows in the table, every reader and the judging count still on the old guide.
    expect(temp.db.prepare('SELECT count(*) FROM programmes').pluck().get()).toBe(50);
    expect(titlesRead()).toEqual(everywhere(titled('Old', 30)));
    expect(countProgrammesEndingAfter(temp.db, 'g', 0)).toBe(30);

    next.commit({ skipped: 0 });
    expect(titlesRead()).toEqual(everywhere(titled('New', 20)));
    expect(countProgrammesEndingAfter(temp.db, 'g', 0)).toBe(20);

    await next.dropReplaced();
    expect(temp.db.prepare('SELECT count(*) FROM programmes').pluck().get()).toBe(20);
    expect(temp.db.prepare('SELECT count(*) FROM programme_fts').pluck().get()).toBe(20);
    expect(titlesRead()).toEqual(everywhere(titled('New', 20)));
  });

  it('leaves nothing of a refresh not applied, staged or placed', async () => {
    writerOf('Old', 10).commit({ skipped: 0 });
    const tables = () =>
      temp.db.prepare("SELECT count(*) FROM temp.sqlite_master WHERE name LIKE 'programmes_staging%'").pluck().get();

    const staged = writerOf('New', 15);
    staged.flush();
    expect(tables()).toBe(1);
    await staged.abandon();
    expect(tables()).toBe(0);

    const placed = writerOf('New', 15);
    await placed.place();
    await placed.abandon();
    expect(tables()).toBe(0);
    expect(temp.db.prepare('SELECT count(*) FROM programmes').pluck().get()).toBe(10);
    expect(temp.db.prepare('SELECT count(*) FROM programme_fts').pluck().get()).toBe(10);
    expect(titlesRead()).toEqual(everywhere(titled('Old', 10)));
  });

  it('an empty refresh deletes what it replaced, never the rows of a later refresh of the guide', async () => {
    writerOf('Old', 5).commit({ skipped: 0 });
    const empty = writerOf('Empty', 0);
    empty.commit({ skipped: 0 });
    // A later refresh swapped in before the empty one got to delete what it replaced.
    const next = writerOf('New', 4);
    next.commit({ skipped: 0 });
    await empty.dropReplaced();
    expect(titlesRead().all).toEqual(titled('New', 4));
    await next.dropReplaced();
    expect(temp.db.prepare('SELECT title FROM programmes ORDER BY title').pluck().all()).toEqual(titled('New', 4));
  });

  it('deletes rows a crashed refresh left (a generation no guide has) with the next refresh it replaces', async () => {
    writerOf('Old', 5).commit({ skipped: 0 });
    // A refresh placed, then the process stopped: its rows stay, unread.
    await writerOf('Lost', 5).place();
    expect(titlesRead().all).toEqual(titled('Old', 5));
    const next = writerOf('New', 5);
    await next.place();
    next.commit({ skipped: 0 });
    await next.dropReplaced();
    expect(temp.db.prepare('SELECT title FROM programmes ORDER BY title').pluck().all()).toEqual(titled('New', 5));
  });
});
