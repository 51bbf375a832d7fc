/**
 * The indexed guide query a rule's edit reads (iterateProgrammeTuplesMatching) on a real
 * temp SQLite file: for random guides and queries it hands over exactly the programmes the
 * rules' own JavaScript matching selects (case ignored as the rules ignore it, LIKE's own
 * characters taken literally), and it reads them through the indexes.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GuideQuery,
  GuideWriter,
  iterateProgrammeTuplesMatching,
  likeContaining,
  programmesMatchingSql,
  saveGuide,
} from '../../src/repositories/dvr/guide.repository.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

const T0 = 1_900_000_800;
let temp: TempLibrary;

beforeAll(() => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  saveGuide(temp.db, { id: 'g', location: '/guide.xml', origin: 'managed' });
});
afterAll(() => temp?.close());

// Letters in both cases, LIKE's wildcards and escape, a space, and non-ASCII letters whose case SQLite does not fold.
const text = (max: number) =>
  fc.string({ unit: fc.constantFrom('a', 'A', 'b', 'B', '%', '_', '\\', ' ', 'é', 'É'), maxLength: max });
const ascii = (max: number) =>
  fc.string({ unit: fc.constantFrom('a', 'A', 'b', 'B', '%', '_', '\\', ' '), minLength: 1, maxLength: max });

const programme = fc.record({
  channel: fc.constantFrom('c1', 'c2', 'c3'),
  slot: fc.integer({ min: 0, max: 20 }),
  title: text(5),
  summary: fc.option(text(8), { nil: undefined }),
  seriesId: fc.option(fc.constantFrom('s1', 's2', 's3'), { nil: undefined }),
});

const query = fc.record({
  channelKeys: fc.uniqueArray(fc.constantFrom('g\tc1', 'g\tc2', 'g\tc3', 'other\tc1'), { maxLength: 2 }),
  seriesIds: fc.uniqueArray(fc.constantFrom('s1', 's2', 'zz'), { maxLength: 2 }),
  titles: fc.array(ascii(4), { maxLength: 3 }),
  substrings: fc.array(ascii(3), { maxLength: 3 }),
});

type Written = {
  channel: string;
  start: number;
  stop: number;
  title: string;
  summary?: string | undefined;
  seriesId?: string | undefined;
};

/** What the series and keyword rules select, as they do it in JavaScript. */
function selects(p: Written, q: GuideQuery, after: number): boolean {
  if (p.stop <= after) return false;
  const title = p.title.toLowerCase();
  return (
    q.channelKeys.includes(`g\t${p.channel}`) ||
    (p.seriesId !== undefined && q.seriesIds.includes(p.seriesId)) ||
    q.titles.some((t) => t.toLowerCase() === title) ||
    q.substrings.some(
      (s) => title.includes(s.toLowerCase()) || (p.summary ?? '').toLowerCase().includes(s.toLowerCase()),
    )
  );
}

function writeGuide(list: readonly Written[]): void {
  const writer = new GuideWriter(temp.db, 'g');
  for (const channel of ['c1', 'c2', 'c3']) writer.channel({ id: channel, displayNames: [channel] });
  for (const p of list) writer.programme(p);
  writer.commit({ skipped: 0 });
}

describe('the indexed guide query', () => {
  it('hands over exactly what the rules select, for random guides and queries', () => {
    fc.assert(
      fc.property(
        fc.array(programme, { maxLength: 30 }),
        query,
        fc.integer({ min: 0, max: 20 }),
        (drawn, q, afterSlot) => {
          const list: Written[] = drawn.map((p, i) => ({
            ...p,
            start: T0 + p.slot * 600 + i,
            stop: T0 + (p.slot + 1) * 600 + i,
          }));
          writeGuide(list);
          const after = T0 + afterSlot * 600;
          const got = [...iterateProgrammeTuplesMatching(temp.db, after, q)].map((row) => `${row[1]}@${row[2]}`);
          const expected = list.filter((p) => selects(p, q, after)).map((p) => `${p.channel}@${p.start}`);
          expect(got.sort()).toEqual(expected.sort());
        },
      ),
      { numRuns: 300 },
    );
  });

  it('escapes LIKE wildcards so that they match only themselves', () => {
    expect(likeContaining('50%_off\\')).toBe('%50\\%\\_off\\\\%');
    writeGuide([
      { channel: 'c1', start: T0, stop: T0 + 600, title: '50% off' },
      { channel: 'c1', start: T0 + 600, stop: T0 + 1200, title: '50 percent off', summary: 'a_b' },
    ]);
    const titles = (q: Partial<GuideQuery>) =>
      [
        ...iterateProgrammeTuplesMatching(temp.db, 0, {
          channelKeys: [],
          seriesIds: [],
          titles: [],
          substrings: [],
          ...q,
        }),
      ].map((row) => row[4]);
    expect(titles({ substrings: ['0% O'] })).toEqual(['50% off']);
    expect(titles({ substrings: ['a_b'] })).toEqual(['50 percent off']);
    expect(titles({ substrings: ['a%b'] })).toEqual([]);
    expect(titles({ titles: ['50% OFF'] })).toEqual(['50% off']);
  });

  it('reads series ids, titles and channels through indexes, not the whole guide', () => {
    const plan = temp.db
      .prepare(`EXPLAIN QUERY PLAN ${programmesMatchingSql(0)}`)
      .all({ channels: '[]', seriesIds: '[]', titles: '[]', after: 0 }) as { detail: string }[];
    const details = plan.map((row) => row.detail).join('\n');
    expect(details).toContain('programmes_series_id');
    expect(details).toContain('programmes_title_nocase');
    expect(details).toContain('programmes_channel_start');
    expect(details).not.toMatch(/SCAN (programmes|p)\b/);
  });
});
