/**
 * Job ids: `<start>-<n>`, and which programme of a rule starting at one second keeps which n
 * (src/dvr/planning/job-ids.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assignJobIds,
  type IdCandidate,
  parseJobId,
  ruleOfJobId,
  SAME_START_STEP,
} from '../../src/dvr/planning/job-ids.js';

const T = 1_900_000_000;
const candidate = (programme: string, channel: string, start = T, ruleId = 4): IdCandidate => ({
  start,
  ruleId,
  programme,
  channel,
});
const ids = (list: IdCandidate[], known?: Map<string, string>) => {
  const assigned = assignJobIds(list, known);
  return list.map((c) => assigned.get(c));
};

describe('job ids', () => {
  it('reads the two numbers and the rule, and nothing else', () => {
    expect(parseJobId(`${T}-${4 + SAME_START_STEP}`)).toEqual({ start: T, n: 4 + SAME_START_STEP });
    expect(ruleOfJobId(`${T}-${4 + 2 * SAME_START_STEP}`)).toBe(4);
    for (const bad of ['', '12', '12-', '-3', '1-2-3', 'a-1', '1.5-2', `${'9'.repeat(20)}-1`])
      expect(parseJobId(bad)).toBeUndefined();
  });

  it('without history: the first by channel number has <start>-<rule>, the others + k × 2^32', () => {
    expect(ids([candidate('pid:B', '10'), candidate('pid:A', '9')])).toEqual([`${T}-${4 + SAME_START_STEP}`, `${T}-4`]);
    expect(ids([candidate('pid:A', '9', T + 60)])).toEqual([`${T + 60}-4`]);
  });

  it('a programme keeps its id when another of the group moves away, and an id stored for another programme is not reused', () => {
    const before = new Map([
      [`${T}-4`, 'pid:A'],
      [`${T}-${4 + SAME_START_STEP}`, 'pid:B'],
    ]);
    // A moved to another start: B keeps its id, and the free <start>-<rule> is not handed to it.
    expect(ids([candidate('pid:B', '10')], before)).toEqual([`${T}-${4 + SAME_START_STEP}`]);
    // A newcomer on a lower channel does not take A's or B's id.
    expect(ids([candidate('pid:C', '2'), candidate('pid:B', '10'), candidate('pid:A', '9')], before)).toEqual([
      `${T}-${4 + 2 * SAME_START_STEP}`,
      `${T}-${4 + SAME_START_STEP}`,
      `${T}-4`,
    ]);
  });

  it('gives a merely planned job’s id to the rule’s new programme there, never a held one', () => {
    const before = new Map([[`${T}-4`, 'pid:A']]);
    expect(ids([candidate('pid:Z', '9')].slice(), before)).toEqual([`${T}-${4 + SAME_START_STEP}`]);
    expect(
      assignJobIds([candidate('pid:Z', '9')], before, new Set())
        .values()
        .next().value,
    ).toBe(`${T}-4`);
    expect(
      assignJobIds([candidate('pid:Z', '9')], before, new Set([`${T}-4`]))
        .values()
        .next().value,
    ).toBe(`${T}-${4 + SAME_START_STEP}`);
  });

  it('gives unique ids of the right shape, keeping every known programme’s id (property)', () => {
    const programmes = fc.uniqueArray(fc.constantFrom('pid:A', 'pid:B', 'pid:C', 'pid:D', 'pid:E'), { minLength: 1 });
    fc.assert(
      fc.property(
        programmes,
        programmes,
        fc.array(fc.nat({ max: 99 }), { minLength: 5, maxLength: 5 }),
        (now, earlier, channels) => {
          const known = new Map(earlier.map((programme, k) => [`${T}-${4 + k * SAME_START_STEP}`, programme]));
          const list = now.map((programme, i) => candidate(programme, String(channels[i])));
          const given = ids(list, known);
          expect(new Set(given).size).toBe(given.length);
          for (const [i, id] of given.entries()) {
            expect(ruleOfJobId(id!)).toBe(4);
            expect(parseJobId(id!)?.start).toBe(T);
            const mine = [...known].find(([, programme]) => programme === list[i]!.programme)?.[0];
            if (mine) expect(id).toBe(mine);
            else expect(known.has(id!)).toBe(false);
          }
        },
      ),
    );
  });
});
