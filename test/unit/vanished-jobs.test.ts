/**
 * Which scheduled jobs a plan lost are kept, skipped with the reason, until they end
 * (vanished-jobs.ts): those whose programme or channel went from under them, not those
 * the plan has another way or the user changed.
 */
import { describe, expect, it } from 'vitest';
import type { StoredRule } from '../../src/dvr/planning/rules/rule-types.js';
import {
  keptVanishedJob,
  type StoredScheduledJob,
  type VanishedJobLookups,
} from '../../src/dvr/planning/vanished-jobs.js';

const NOW = 1_900_000_000;
const series: StoredRule = { id: 7, definition: { type: 'series', title: 'Harbour Lights', padding_before: 60 } };
const slot: StoredRule = { id: 8, definition: { type: 'slot', channel: '2', start_time: NOW + 3600, duration: 1800 } };

const stored = (over: Partial<StoredScheduledJob> = {}): StoredScheduledJob => ({
  id: `${NOW + 3540}-7`,
  rule_id: 7,
  name: 'Harbour Lights',
  start_time: NOW + 3540,
  end_time: NOW + 5400,
  channels: '["2","4"]',
  item: JSON.stringify({ title: 'Harbour Lights', program_id: 'EP1' }),
  episode_key: 'pid:EP1',
  error: null,
  ...over,
});

const lookups = (over: Partial<VanishedJobLookups> = {}): VanishedJobLookups => ({
  now: NOW,
  plannedIds: new Set(),
  plannedProgrammes: new Set(),
  placedEpisodes: new Set(),
  userSkips: new Set(),
  rule: (id) => [series, slot].find((rule) => rule.id === id),
  programmeOf: (_job, item) => `pid:${item.program_id as string}`,
  offered: () => true,
  hidden: () => false,
  aired: () => false,
  ...over,
});

describe('a job the plan lost', () => {
  it.each([
    [
      'its programme is gone from the guide',
      stored(),
      lookups(),
      /^the guide no longer lists this programme at this time/,
    ],
    [
      'its channels are no longer offered',
      stored(),
      lookups({ offered: () => false }),
      /^no source offers channel 2, 4 any more/,
    ],
    [
      'its channel is hidden by the user',
      stored(),
      lookups({ offered: () => false, hidden: (number) => number === '4' }),
      /^you hid channel 2, 4 in the lineup: show it again/,
    ],
    [
      'a slot whose channel is no longer offered',
      stored({ rule_id: 8, id: `${NOW + 3600}-8`, start_time: NOW + 3600 }),
      lookups({ offered: () => false }),
      /^no source offers channel/,
    ],
  ])('is kept, skipped, when %s', (_what, job, at, error) => {
    expect(keptVanishedJob(job, at)).toMatchObject({
      id: job.id,
      ruleId: job.rule_id,
      skipped: true,
      error: expect.stringMatching(error),
      start: job.start_time,
      end: job.end_time,
    });
  });

  it.each([
    ['it has ended', stored({ end_time: NOW }), lookups()],
    ['the plan has its id', stored(), lookups({ plannedIds: new Set([`${NOW + 3540}-7`]) })],
    ['the user skipped it', stored(), lookups({ userSkips: new Set([`${NOW + 3540}-7`]) })],
    ['its rule is gone', stored({ rule_id: 99 }), lookups()],
    [
      'its rule is paused',
      stored(),
      lookups({ rule: () => ({ ...series, definition: { ...series.definition, paused: true } }) }),
    ],
    [
      'its rule planned the programme at another time (the guide moved it)',
      stored(),
      lookups({ plannedProgrammes: new Set(['7 pid:EP1']) }),
    ],
    ['another job records the episode', stored(), lookups({ placedEpisodes: new Set(['pid:EP1']) })],
    [
      'its programme still airs then (the rule no longer selects it)',
      stored(),
      lookups({ aired: (number, from, to) => number === '4' && from <= NOW + 3600 && NOW + 3600 < to }),
    ],
    [
      'a slot whose channel is still offered (the slot was edited)',
      stored({ rule_id: 8, id: `${NOW + 3600}-8` }),
      lookups(),
    ],
    ['no rule planned it', stored({ rule_id: null }), lookups()],
  ])('goes when %s', (_what, job, at) => {
    expect(keptVanishedJob(job, at)).toBeUndefined();
  });

  it('asks the guide for its programme starting within the job (whatever padding it was planned with), on the channels still offered', () => {
    const asked: [string, number, number, string][] = [];
    keptVanishedJob(
      stored(),
      lookups({
        offered: (number) => number === '4',
        aired: (number, from, to, programme) => (asked.push([number, from, to, programme]), false),
      }),
    );
    expect(asked).toEqual([['4', NOW + 3540, NOW + 5400, 'pid:EP1']]);
  });
});
