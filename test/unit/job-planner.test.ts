import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Airing,
  episodeKeys,
  fits,
  guidePrefilter,
  isMovie,
  jobItemOf,
  MAX_EXTENSION,
  plan,
  type PlannerInput,
  planJobs,
  type RunningJob,
  SAME_START_STEP,
  slotProgramme,
} from '../../src/dvr/planning/job-planner.js';
import { programRule } from '../../src/dvr/planning/rules/program.rule.js';
import { keywordMatcher } from '../../src/dvr/planning/rules/keyword.rule.js';
import { slotStarts } from '../../src/dvr/planning/rules/slot.rule.js';
import type { RuleDefinition, StoredRule } from '../../src/dvr/planning/rules/rule-types.js';

const NOW = 1_800_000_000; // a fixed clock: every decision below is a function of it
const rule = (id: number, definition: RuleDefinition): StoredRule => ({ id, definition });
const airing = (over: Partial<Airing> & Pick<Airing, 'title' | 'start'>): Airing => ({
  channels: ['2'],
  stop: over.start + 1800,
  ...over,
});

function input(over: Partial<PlannerInput>): PlannerInput {
  return {
    now: NOW,
    rules: [],
    airings: [],
    channelSources: new Map([
      ['2', ['tuner']],
      ['3', ['tuner']],
      ['4', ['tuner']],
      ['5', ['m3u']],
    ]),
    sourceLimits: new Map([
      ['tuner', 2],
      ['m3u', 1],
    ]),
    sourceNames: new Map([['tuner', 'HDHomeRun 1234']]),
    recordedKeys: new Set(),
    running: [],
    userSkips: new Set(),
    ...over,
  };
}

describe('planJobs: matching', () => {
  it('a series rule by title records every airing, ids are <start>-<rule id>, padding widens the job', () => {
    const jobs = planJobs(
      input({
        rules: [rule(7, { type: 'series', title: 'the news hour', padding_before: 60, padding_after: 120 })],
        airings: [
          airing({ title: 'The News Hour', start: NOW + 100 }),
          airing({ title: 'The News Hour', start: NOW + 90_000 }),
          airing({ title: 'Other', start: NOW + 200 }),
        ],
      }),
    );
    expect(jobs.map((j) => j.id)).toEqual([`${NOW + 40}-7`, `${NOW + 89_940}-7`]);
    expect(jobs[0]).toMatchObject({
      start: NOW + 40,
      end: NOW + 100 + 1800 + 120,
      channel: '2',
      channels: ['2'],
      skipped: false,
      name: 'The News Hour',
    });
  });

  it('a series rule by series id ignores titles; new_only and allowed channels filter', () => {
    const jobs = planJobs(
      input({
        rules: [rule(1, { type: 'series', series_id: 'SH123', new_only: true, channels: ['3'] })],
        airings: [
          airing({ title: 'A', seriesId: 'SH123', start: NOW + 10, isNew: true, channels: ['2'] }),
          airing({ title: 'B', seriesId: 'SH123', start: NOW + 5000, isNew: false, channels: ['3'] }),
          airing({ title: 'C', seriesId: 'SH123', start: NOW + 9000, isNew: true, channels: ['3'] }),
        ],
      }),
    );
    expect(jobs.map((j) => j.item.title)).toEqual(['C']);
  });

  it('two different programmes of one rule starting at the same second get a job each, with ids of their own that stay the same', () => {
    const plan = (airings: Airing[]) =>
      planJobs(
        input({
          rules: [rule(4, { type: 'keyword', keyword: 'volcano' })],
          airings,
        }),
      );
    const onThree = airing({ title: 'Volcano Live', programId: 'EP2', start: NOW + 600, channels: ['3'] });
    const onTwo = airing({ title: 'Volcano Watch', programId: 'EP1', start: NOW + 600, channels: ['2'] });
    const jobs = plan([onThree, onTwo]);
    expect(jobs.map((job) => [job.id, job.item.title, job.channel, job.skipped])).toEqual([
      [`${NOW + 600}-4`, 'Volcano Watch', '2', false],
      [`${NOW + 600}-${4 + SAME_START_STEP}`, 'Volcano Live', '3', false],
    ]);
    // The second number stays the rule's id modulo 2^32, and ids never change with the guide's order.
    expect(Number(jobs[1]?.id.split('-')[1]) % SAME_START_STEP).toBe(4);
    expect(plan([onTwo, onThree]).map((job) => job.id)).toEqual(jobs.map((job) => job.id));
    // A simulcast of one programme is still one job, listing both channels.
    const simulcast = plan([onTwo, { ...onTwo, channels: ['3'] }]);
    expect(simulcast.map((job) => [job.id, job.channels])).toEqual([[`${NOW + 600}-4`, ['2', '3']]]);
  });

  it('every programme a rule selects is a job, and ids are unique (property)', () => {
    const programmes = fc.array(
      fc.record({
        title: fc.constantFrom('Volcano A', 'Volcano B', 'Volcano C', 'Other'),
        channel: fc.constantFrom('2', '3', '4'),
        slot: fc.integer({ min: 0, max: 3 }),
      }),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(programmes, (list) => {
        const airings = list.map(({ title, channel, slot }) =>
          airing({ title, programId: `EP-${title}-${slot}`, start: NOW + 600 + slot * 1800, channels: [channel] }),
        );
        const jobs = planJobs(input({ rules: [rule(9, { type: 'keyword', keyword: 'volcano' })], airings }));
        expect(new Set(jobs.map((job) => job.id)).size).toBe(jobs.length);
        const selected = new Set(
          list.filter(({ title }) => title !== 'Other').map(({ title, slot }) => `${title}@${slot}`),
        );
        expect(jobs.length).toBe(selected.size);
      }),
    );
  });

  it('a keyword rule finds the word in the title or the summary, case ignored', () => {
    const jobs = planJobs(
      input({
        rules: [rule(2, { type: 'keyword', keyword: 'Volcano' })],
        airings: [
          airing({ title: 'Volcanoes of Iceland', start: NOW + 10 }),
          airing({ title: 'Nature', summary: 'A VOLCANO erupts.', start: NOW + 4000 }),
          airing({ title: 'Cooking', summary: 'Soup.', start: NOW + 8000 }),
        ],
      }),
    );
    expect(jobs.map((j) => j.item.title)).toEqual(['Volcanoes of Iceland', 'Nature']);
  });

  it('keywords are literal text, not patterns, and work beyond ASCII', () => {
    const jobs = planJobs(
      input({
        rules: [rule(1, { type: 'keyword', keyword: 'C++ (live)' }), rule(2, { type: 'keyword', keyword: 'ÉTÉ' })],
        airings: [
          airing({ title: 'Learning C++ (Live)', start: NOW + 10 }),
          airing({ title: 'Learning C (live)', start: NOW + 4000 }),
          airing({ title: 'Un été à Paris', start: NOW + 8000 }),
        ],
      }),
    );
    expect(jobs.map((j) => [j.ruleId, j.item.title])).toEqual([
      [1, 'Learning C++ (Live)'],
      [2, 'Un été à Paris'],
    ]);
  });

  it('a program rule records one airing on one channel', () => {
    const jobs = planJobs(
      input({
        rules: [rule(3, { type: 'program', channel: '3', start_time: NOW + 600 })],
        airings: [
          airing({ title: 'Film', start: NOW + 600, channels: ['2', '3'] }),
          airing({ title: 'Film', start: NOW + 9600, channels: ['3'] }),
        ],
      }),
    );
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ id: `${NOW + 600}-3`, channel: '3', channels: ['3'] });
  });

  describe('a program rule follows its programme when the guide moves it', () => {
    const made = { type: 'program', channel: '3', start_time: NOW + 3600 } as const;
    const plan = (definition: RuleDefinition, airings: Airing[], over: Partial<PlannerInput> = {}) =>
      planJobs(input({ rules: [rule(3, definition)], airings, ...over })).map((job) => [
        job.id,
        job.item.title,
        job.channel,
      ]);

    it('by programme id, to the nearest airing of it on its channel within 12 hours', () => {
      const film = (start: number, extra: Partial<Airing> = {}) =>
        airing({ title: 'Film', programId: 'MV1', start, channels: ['3'], ...extra });
      const rule = { ...made, program_id: 'MV1', title: 'Film' };
      // Moved 40 minutes later; what took its old slot is not recorded.
      expect(
        plan(rule, [
          airing({ title: 'Darts', programId: 'SP9', start: NOW + 3600, channels: ['3'] }),
          film(NOW + 6000),
        ]),
      ).toEqual([[`${NOW + 6000}-3`, 'Film', '3']]);
      // Moved earlier; a rerun the next night (and one within reach but farther) are not it.
      expect(plan(rule, [film(NOW + 1800), film(NOW + 3600 + 7 * 3600), film(NOW + 3600 + 86400)])).toEqual([
        [`${NOW + 1800}-3`, 'Film', '3'],
      ]);
      // The same programme on another channel is not followed; nor beyond 12 hours.
      expect(plan(rule, [film(NOW + 3600, { channels: ['2'] }), film(NOW + 3600 + 13 * 3600)])).toEqual([]);
      // A title kept beside the id does not let another programme of that title in.
      expect(plan(rule, [film(NOW + 3600, { programId: 'MV2' })])).toEqual([]);
    });

    it('by title within an hour when the guide has no ids; the exact time when the rule kept nothing', () => {
      const show = (start: number, title = 'Quiz Night') => airing({ title, start, channels: ['3'] });
      expect(plan({ ...made, title: 'quiz night' }, [show(NOW + 3600, 'Darts'), show(NOW + 3600 + 50 * 60)])).toEqual([
        [`${NOW + 3600 + 3000}-3`, 'Quiz Night', '3'],
      ]);
      expect(plan({ ...made, title: 'Quiz Night' }, [show(NOW + 3600 + 61 * 60)])).toEqual([]);
      // Two within reach: the nearer; at equal distance, the earlier.
      expect(
        plan({ ...made, title: 'Quiz Night' }, [
          show(NOW + 3600 + 1800),
          show(NOW + 3600 - 1800),
          show(NOW + 3600 + 600),
        ]),
      ).toEqual([[`${NOW + 4200}-3`, 'Quiz Night', '3']]);
      expect(plan({ ...made, title: 'Quiz Night' }, [show(NOW + 3600 + 1800), show(NOW + 3600 - 1800)])).toEqual([
        [`${NOW + 1800}-3`, 'Quiz Night', '3'],
      ]);
      // A rule made before the guide had the airing records what is there at its time.
      expect(plan(made, [show(NOW + 3600, 'Darts'), show(NOW + 4000)])).toEqual([[`${NOW + 3600}-3`, 'Darts', '3']]);
      // An id kept, and a guide that has lost its ids: the exact time only.
      expect(plan({ ...made, program_id: 'EP5' }, [show(NOW + 3600, 'Darts'), show(NOW + 4000)])).toEqual([
        [`${NOW + 3600}-3`, 'Darts', '3'],
      ]);
    });

    it('plans nothing more once its job started: a rerun within reach is not taken for it', () => {
      const rule = { ...made, program_id: 'EP1', title: 'Film' };
      const rerun = airing({ title: 'Film', programId: 'EP1', start: NOW + 5 * 3600, channels: ['3'] });
      expect(plan(rule, [rerun])).toHaveLength(1);
      expect(plan(rule, [rerun], { settledIds: new Set([`${NOW - 3600}-3`]) })).toEqual([]);
      expect(plan(rule, [rerun], { settledIds: new Set([`${NOW - 3600}-${3 + SAME_START_STEP}`]) })).toEqual([]);
      expect(
        plan(rule, [rerun], {
          running: [
            {
              id: `${NOW - 60}-3`,
              ruleId: 3,
              name: 'Film',
              start: NOW - 60,
              end: NOW + 60,
              channel: '3',
              sourceId: 'tuner',
            },
          ],
        }),
      ).toEqual([]);
      // Another rule's settled job does not count.
      expect(plan(rule, [rerun], { settledIds: new Set([`${NOW - 3600}-4`, 'not-a-number']) })).toHaveLength(1);
    });
  });

  it('a paused rule plans nothing, and airings that already ended are ignored', () => {
    expect(
      planJobs(
        input({
          rules: [rule(1, { type: 'keyword', keyword: 'news', paused: true })],
          airings: [airing({ title: 'news', start: NOW + 10 })],
        }),
      ),
    ).toEqual([]);
    expect(
      planJobs(
        input({
          rules: [rule(1, { type: 'keyword', keyword: 'news' })],
          airings: [airing({ title: 'news', start: NOW - 4000 })],
        }),
      ),
    ).toEqual([]);
  });

  it('a simulcast that runs longer on one channel is one job, to the later end', () => {
    const jobs = planJobs(
      input({
        rules: [rule(4, { type: 'keyword', keyword: 'match' })],
        airings: [
          airing({ title: 'Match', start: NOW + 10, stop: NOW + 1800, channels: ['2'] }),
          airing({ title: 'Match', start: NOW + 10, stop: NOW + 3600, channels: ['5'] }),
        ],
      }),
    );
    expect(jobs.map((job) => [job.channels, job.end])).toEqual([[['2', '5'], NOW + 3600]]);
  });

  it('a program rule edited to another airing, sent back with what it kept of the old one, learns the new one', () => {
    const guide = (channel: string, start: number) =>
      start === NOW + 7200 ? { title: 'New Film', programId: 'MV9' } : undefined;
    const before = {
      type: 'program',
      channel: '2',
      start_time: NOW + 600,
      program_id: 'MV1',
      title: 'Old Film',
    } as const;
    expect(programRule.complete!({ ...before, start_time: NOW + 7200 }, guide, before)).toEqual({
      type: 'program',
      channel: '2',
      start_time: NOW + 7200,
      program_id: 'MV9',
      title: 'New Film',
    });
    // The same airing: what it kept stays, even when the guide says otherwise now.
    expect(programRule.complete!({ type: 'program', channel: '2', start_time: NOW + 600 }, guide, before)).toEqual(
      before,
    );
  });

  it('a simulcast is one job listing every channel airing it', () => {
    const jobs = planJobs(
      input({
        rules: [rule(4, { type: 'series', title: 'Show' })],
        airings: [
          airing({ title: 'Show', programId: 'EP1', start: NOW + 10, channels: ['2'] }),
          airing({ title: 'Show', programId: 'EP1', start: NOW + 10, channels: ['5'] }),
        ],
      }),
    );
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.channels).toEqual(['2', '5']);
  });
});

describe('planJobs: episodes already recorded', () => {
  const show = (start: number, episode: number, extra: Partial<Airing> = {}) =>
    airing({ title: 'Show', season: 1, episode, start, programId: `EP0000000100${episode}`, ...extra });

  it('skips an episode recorded before (by program id, or show + season + episode), and reruns of one planned', () => {
    const jobs = planJobs(
      input({
        rules: [rule(1, { type: 'series', title: 'Show' })],
        airings: [
          show(NOW + 10, 1),
          show(NOW + 4000, 2),
          show(NOW + 8000, 2),
          show(NOW + 12_000, 3, { programId: undefined }),
        ],
        recordedKeys: new Set(['pid:EP00000001001', 'sxe:show|1|3']),
      }),
    );
    expect(jobs.map((j) => j.start)).toEqual([NOW + 4000]);
  });

  it('a time-slot rule records whatever is on, even a repeat', () => {
    const jobs = planJobs(
      input({
        rules: [rule(1, { type: 'slot', channel: '2', start_time: NOW + 10, duration: 600 })],
        airings: [show(NOW, 1)],
        recordedKeys: new Set(['pid:EP00000001001']),
      }),
    );
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ start: NOW + 10, end: NOW + 610 });
    expect(jobs[0]?.item).toMatchObject({ title: 'Show', episode_number: 1, duration: 600 });
  });
});

describe('planJobs: an airing is its programme id', () => {
  it('records three shows of one evening numbered alike by the guide but with three programme ids: two on two tuners, one skipped with its reason', () => {
    const evening = (programId: string, episodeTitle: string, channel: string) =>
      airing({
        title: 'Quiz Night',
        season: 3,
        episode: 7,
        programId,
        episodeTitle,
        start: NOW + 600,
        channels: [channel],
      });
    const jobs = planJobs(
      input({
        rules: [rule(1, { type: 'series', title: 'Quiz Night' })],
        airings: [
          evening('EP0001', 'Round One', '2'),
          evening('EP0002', 'Round Two', '3'),
          evening('EP0003', 'Final', '4'),
        ],
      }),
    );
    expect(jobs).toHaveLength(3);
    expect(jobs.filter((job) => !job.skipped)).toHaveLength(2);
    const skipped = jobs.filter((job) => job.skipped);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]?.error).toMatch(/no free tuner on HDHomeRun 1234/);
    expect(new Set(jobs.map((job) => job.item.episode_title))).toEqual(new Set(['Round One', 'Round Two', 'Final']));
  });

  it('still takes season and episode where one of two airings has no programme id, and the same id as one programme', () => {
    const show = (start: number, programId: string | undefined) =>
      airing({ title: 'Show', season: 1, episode: 4, start, programId, channels: ['2'] });
    const plan = (airings: Airing[], recordedKeys: string[] = []) =>
      planJobs(
        input({ rules: [rule(1, { type: 'series', title: 'Show' })], airings, recordedKeys: new Set(recordedKeys) }),
      ).map((job) => job.start);
    expect(plan([show(NOW + 10, 'EP1'), show(NOW + 4000, undefined)])).toEqual([NOW + 10]);
    expect(plan([show(NOW + 10, undefined), show(NOW + 4000, 'EP1')])).toEqual([NOW + 10]);
    expect(plan([show(NOW + 10, 'EP1'), show(NOW + 4000, 'EP1')])).toEqual([NOW + 10]);
    expect(plan([show(NOW + 10, 'EP1'), show(NOW + 4000, 'EP2')])).toEqual([NOW + 10, NOW + 4000]);
    // Recorded before: with another id, not this one; without an id, this one.
    expect(
      plan([show(NOW + 10, 'EP2')], episodeKeys({ title: 'Show', season: 1, episode: 4, programId: 'EP1' })),
    ).toEqual([NOW + 10]);
    expect(plan([show(NOW + 10, 'EP2')], episodeKeys({ title: 'Show', season: 1, episode: 4 }))).toEqual([]);
  });
});

describe('planJobs: tuners', () => {
  it('what cannot fit is skipped with a reason, lowest priority first', () => {
    const jobs = planJobs(
      input({
        rules: [
          rule(1, { type: 'keyword', keyword: 'low', priority: -5 }),
          rule(2, { type: 'keyword', keyword: 'high', priority: 5 }),
          rule(3, { type: 'keyword', keyword: 'mid' }),
        ],
        airings: [
          airing({ title: 'low', start: NOW + 10, channels: ['2'] }),
          airing({ title: 'high', start: NOW + 10, channels: ['3'] }),
          airing({ title: 'mid', start: NOW + 10, channels: ['4'] }),
        ],
      }),
    );
    const byTitle = Object.fromEntries(jobs.map((j) => [j.item.title, j]));
    expect(byTitle.high?.skipped).toBe(false);
    expect(byTitle.mid?.skipped).toBe(false);
    expect(byTitle.low).toMatchObject({ skipped: true });
    expect(byTitle.low?.error).toMatch(/no free tuner on HDHomeRun 1234: already recording (high|mid)/);
    expect(byTitle.low?.channel).toBeUndefined();
  });

  it('two recordings of one channel share a tuner', () => {
    const jobs = planJobs(
      input({
        sourceLimits: new Map([['tuner', 1]]),
        rules: [
          rule(1, { type: 'keyword', keyword: 'a' }),
          rule(2, { type: 'slot', channel: '2', start_time: NOW + 10, duration: 3600 }),
        ],
        airings: [airing({ title: 'a', start: NOW + 10, channels: ['2'] })],
      }),
    );
    expect(jobs.filter((j) => !j.skipped)).toHaveLength(2);
  });

  it('a running recording keeps its tuner; a conflict moves to another channel of the simulcast', () => {
    const jobs = planJobs(
      input({
        sourceLimits: new Map([
          ['tuner', 1],
          ['m3u', 1],
        ]),
        running: [{ id: 'x-9', name: 'Running', start: NOW - 100, end: NOW + 5000, channel: '3', sourceId: 'tuner' }],
        rules: [rule(1, { type: 'series', title: 'Show' })],
        airings: [airing({ title: 'Show', start: NOW + 10, channels: ['2', '5'] })],
      }),
    );
    expect(jobs[0]).toMatchObject({ channel: '5', sourceId: 'm3u', skipped: false });
  });

  it('a channel no source carries is skipped with a reason; a user skip stays skipped', () => {
    const jobs = planJobs(
      input({
        rules: [
          rule(1, { type: 'slot', channel: '99', start_time: NOW + 10, duration: 600 }),
          rule(2, { type: 'slot', channel: '2', start_time: NOW + 10, duration: 600 }),
        ],
        userSkips: new Set([`${NOW + 10}-2`]),
      }),
    );
    expect(jobs.find((j) => j.ruleId === 1)).toMatchObject({ skipped: true, error: 'no source carries channel 99' });
    expect(jobs.find((j) => j.ruleId === 2)).toMatchObject({ skipped: true, error: 'skipped by the user' });
  });

  describe('a programme the guide changes while it records', () => {
    const recording = (over: Partial<RunningJob> = {}): RunningJob => ({
      id: `${NOW - 600}-1`,
      ruleId: 1,
      name: 'Cup Final',
      start: NOW - 600,
      end: NOW + 1200,
      channel: '2',
      sourceId: 'tuner',
      programme: 'pid:SP1',
      plannedEnd: NOW + 1200,
      ...over,
    });
    const final = (stop: number) => airing({ title: 'Cup Final', programId: 'SP1', start: NOW - 600, stop });
    const rules = [rule(1, { type: 'series', title: 'Cup Final' })];

    it('extended: the recording goes on to the new end, at most MAX_EXTENSION past the end it started with', () => {
      expect(plan(input({ rules, running: [recording()], airings: [final(NOW + 3000)] })).extensions).toEqual(
        new Map([[`${NOW - 600}-1`, NOW + 3000]]),
      );
      expect(
        plan(input({ rules, running: [recording()], airings: [final(NOW + 1200 + MAX_EXTENSION + 3600)] })).extensions,
      ).toEqual(new Map([[`${NOW - 600}-1`, NOW + 1200 + MAX_EXTENSION]]));
      // Already extended once: the limit still counts from where it started.
      const extended = recording({ end: NOW + 1200 + MAX_EXTENSION });
      expect(
        plan(input({ rules, running: [extended], airings: [final(NOW + 1200 + MAX_EXTENSION + 60)] })).extensions.size,
      ).toBe(0);
      // Shortened, or the same: nothing changes (a recording is never cut by a guide).
      expect(plan(input({ rules, running: [recording()], airings: [final(NOW + 600)] })).extensions.size).toBe(0);
      expect(plan(input({ rules, running: [recording()], airings: [final(NOW + 600)] })).jobs).toEqual([]);
    });

    it('the longer recording keeps its tuner: what would need it then is skipped, naming it', () => {
      const other = [rule(2, { type: 'series', title: 'Late Film' })];
      const film = airing({ title: 'Late Film', programId: 'MV1', start: NOW + 2400, channels: ['3'] });
      const oneTuner = { sourceLimits: new Map([['tuner', 1]]) };
      const before = plan(
        input({ rules: [...rules, ...other], running: [recording()], airings: [final(NOW + 1200), film], ...oneTuner }),
      );
      expect(before.jobs.map((job) => [job.item.title, job.skipped])).toEqual([['Late Film', false]]);
      const after = plan(
        input({ rules: [...rules, ...other], running: [recording()], airings: [final(NOW + 3000), film], ...oneTuner }),
      );
      expect(after.jobs.map((job) => [job.item.title, job.skipped, job.error])).toEqual([
        ['Late Film', true, 'no free tuner on HDHomeRun 1234: already recording Cup Final'],
      ]);
    });

    it('a time slot is one recording however many programmes it spans: no second job when the first programme ends', () => {
      const slot = [rule(5, { type: 'slot', channel: '2', start_time: NOW, duration: 5400 })];
      const airings = [
        airing({ title: 'A', programId: 'EP1', start: NOW, stop: NOW + 3600 }),
        airing({ title: 'B', programId: 'EP2', start: NOW + 3600, stop: NOW + 7200 }),
      ];
      const running = [
        {
          ...recording({
            id: `${NOW}-5`,
            ruleId: 5,
            name: 'channel 2',
            start: NOW,
            end: NOW + 5400,
            plannedEnd: NOW + 5400,
          }),
          programme: slotProgramme(5, NOW),
        },
      ];
      const later = {
        now: NOW + 3700,
        rules: slot,
        airings: airings.filter((a) => a.stop > NOW + 3700),
        running,
        settledIds: new Set([`${NOW}-5`]),
        knownIds: new Map([[`${NOW}-5`, slotProgramme(5, NOW)]]),
      };
      expect(plan(input(later))).toEqual({ jobs: [], extensions: new Map() });
    });

    it('a program rule’s recording is extended too (its job counts as started, not finished)', () => {
      const program = [
        rule(6, { type: 'program', channel: '2', start_time: NOW - 600, program_id: 'SP1', title: 'Cup Final' }),
      ];
      const running = [recording({ id: `${NOW - 600}-6`, ruleId: 6 })];
      // The scheduler's settled ids include the jobs recording now.
      const result = plan(
        input({ rules: program, running, settledIds: new Set([`${NOW - 600}-6`]), airings: [final(NOW + 3000)] }),
      );
      expect(result.extensions).toEqual(new Map([[`${NOW - 600}-6`, NOW + 3000]]));
    });

    it('the next programme of the rule, overlapping only by padding, is still planned', () => {
      const padded = [rule(1, { type: 'series', title: 'Cup Final', padding_after: 300 })];
      const next = airing({ title: 'Cup Final', programId: 'SP2', start: NOW + 900 });
      const jobs = planJobs(
        input({ rules: padded, running: [recording({ end: NOW + 1200 })], airings: [final(NOW + 900), next] }),
      );
      expect(jobs.map((job) => [job.item.program_id, job.start])).toEqual([['SP2', NOW + 900]]);
    });
  });

  it('does not record again a programme the guide moved while it records', () => {
    const jobs = planJobs(
      input({
        running: [
          {
            id: `${NOW - 60}-1`,
            ruleId: 1,
            name: 'news',
            start: NOW - 60,
            end: NOW + 1740,
            channel: '2',
            sourceId: 'tuner',
          },
        ],
        rules: [rule(1, { type: 'keyword', keyword: 'news' })],
        // The same news, now said to start two minutes later: a new id, but the recording covers it.
        airings: [airing({ title: 'news', start: NOW + 60 }), airing({ title: 'news', start: NOW + 7200 })],
      }),
    );
    expect(jobs.map((j) => j.start)).toEqual([NOW + 7200]);
  });

  it('never plans again a job that started or finished', () => {
    const jobs = planJobs(
      input({
        rules: [rule(1, { type: 'keyword', keyword: 'news' })],
        airings: [airing({ title: 'news', start: NOW + 10 })],
        settledIds: new Set([`${NOW + 10}-1`]),
      }),
    );
    expect(jobs).toEqual([]);
  });

  it('property: at no instant does a source carry more distinct channels than its limit', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            channel: fc.constantFrom('2', '3', '4'),
            offset: fc.integer({ min: 0, max: 20 }),
            length: fc.integer({ min: 1, max: 10 }),
          }),
          { maxLength: 25 },
        ),
        fc.integer({ min: 1, max: 3 }),
        (specs, limit) => {
          const jobs = planJobs(
            input({
              sourceLimits: new Map([['tuner', limit]]),
              rules: specs.map((s, i) =>
                rule(i + 1, {
                  type: 'slot',
                  channel: s.channel,
                  start_time: NOW + s.offset * 600,
                  duration: s.length * 600,
                }),
              ),
            }),
          );
          const placed = jobs.filter((j) => !j.skipped);
          for (let t = NOW; t < NOW + 40 * 600; t += 300) {
            const channels = new Set(placed.filter((j) => j.start <= t && t < j.end).map((j) => j.channel));
            expect(channels.size).toBeLessThanOrEqual(limit);
          }
          expect(jobs.length).toBe(specs.length);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('keyword matching', () => {
  it('property: finds exactly the keywords a naive case-blind search finds, overlapping ones included', () => {
    const letters = fc.constantFrom(...'abcAB ().+'.split(''));
    const word = fc.array(letters, { minLength: 1, maxLength: 4 }).map((chars) => chars.join(''));
    fc.assert(
      fc.property(
        fc.uniqueArray(word, { minLength: 1, maxLength: 6 }),
        fc.array(letters, { maxLength: 40 }).map((c) => c.join('')),
        (words, text) => {
          const keywords = words.map((w, i) => ({
            rule: rule(i + 1, { type: 'keyword', keyword: w }),
            needle: w.toLowerCase(),
          }));
          const expected = keywords
            .filter((k) => text.toLowerCase().includes(k.needle))
            .map((k) => k.rule.id)
            .sort();
          const match = keywordMatcher(keywords);
          expect(
            match(text, false)
              .map((r) => r.id)
              .sort(),
          ).toEqual(expected);
          expect(
            match(text, true)
              .map((r) => r.id)
              .sort(),
          ).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('an episode that fits at none of its airings is listed as skipped once', () => {
    const jobs = planJobs(
      input({
        sourceLimits: new Map([['tuner', 1]]),
        rules: [
          rule(1, { type: 'slot', channel: '3', start_time: NOW, duration: 30 * 86400, priority: 10 }),
          rule(2, { type: 'series', title: 'Show' }),
        ],
        airings: [0, 1, 2].map((day) =>
          airing({ title: 'Show', season: 1, episode: 4, start: NOW + day * 86400 + 100 }),
        ),
      }),
    );
    const show = jobs.filter((j) => j.ruleId === 2);
    expect(show).toHaveLength(1);
    expect(show[0]).toMatchObject({ start: NOW + 100, skipped: true });
  });
});

describe('helpers', () => {
  it('fits counts channels, not jobs', () => {
    const busy = [{ channel: '2', start: 0, end: 100 }];
    expect(fits(busy, '2', 50, 150, 1)).toBe(true);
    expect(fits(busy, '3', 50, 150, 1)).toBe(false);
    expect(fits(busy, '3', 100, 150, 1)).toBe(true);
  });

  it('weekly slots keep their local time and skip past weeks', () => {
    const first = NOW - 3 * 7 * 86400;
    const starts = slotStarts({ start_time: first, duration: 3600, weekly: true }, NOW, NOW + 14 * 86400);
    expect(starts.length).toBeGreaterThanOrEqual(2);
    for (const start of starts) {
      expect(new Date(start * 1000).getHours()).toBe(new Date(first * 1000).getHours());
      expect(start + 3600).toBeGreaterThan(NOW);
    }
    expect(slotStarts({ start_time: NOW - 7200, duration: 3600 }, NOW, NOW + 86400)).toEqual([]);
  });

  it('movies and episodes are told apart; items carry the recording flags unset', () => {
    expect(isMovie({ categories: ['Movie'] })).toBe(true);
    expect(isMovie({ programId: 'MV001' })).toBe(true);
    expect(isMovie({ categories: ['Movie'], season: 1 })).toBe(false);
    const item = jobItemOf(airing({ title: 'Show', season: 2, episode: 3, episodeTitle: 'Pilot', start: NOW }));
    expect(item).toMatchObject({
      title: 'Show',
      season_number: 2,
      episode_number: 3,
      episode_title: 'Pilot',
      completed: false,
      duration: 1800,
    });
    expect(item.show_id).toMatch(/^imp-show-/);
    expect(episodeKeys({ title: 'Show', season: 2, episode: 3, programId: 'EP1' })).toEqual([
      'pid:EP1',
      'sxe:show|2|3',
    ]);
  });
});

describe('what a plan asks of the guide', () => {
  it('asks the indexes when every rule can be said as series ids, titles and a few words', () => {
    const series = rule(1, { type: 'series', title: 'Nova' });
    const byId = rule(2, { type: 'series', series_id: 'SH9', title: 'Ignored' });
    const keyword = rule(3, { type: 'keyword', keyword: 'Volcano' });
    expect(guidePrefilter([series, byId, keyword]).query).toEqual({
      seriesIds: ['SH9'],
      titles: ['nova'],
      substrings: ['volcano'],
    });
    // A slot or a single programme is its channel: no matcher, the guide read by channel.
    const slot = guidePrefilter([rule(4, { type: 'slot', channel: '7', start_time: NOW, duration: 60 })]);
    expect(slot.hasMatchers).toBe(false);
    expect([...slot.channels]).toEqual(['7']);
  });

  it('falls back to matching every row in JavaScript for non-ASCII words and for many keywords', () => {
    // SQLite folds the case of ASCII letters only: "Ça" would miss "ÇA".
    expect(guidePrefilter([rule(1, { type: 'series', title: 'Ça va' })]).query).toBeUndefined();
    expect(guidePrefilter([rule(1, { type: 'keyword', keyword: 'Élan' })]).query).toBeUndefined();
    const many = Array.from({ length: 5 }, (_, i) => rule(i + 1, { type: 'keyword', keyword: `word${i}` }));
    expect(guidePrefilter(many.slice(0, 4)).query?.substrings).toHaveLength(4);
    expect(guidePrefilter(many).query).toBeUndefined();
    // A paused rule asks nothing.
    expect(guidePrefilter([rule(1, { type: 'keyword', keyword: 'x', paused: true })]).hasMatchers).toBe(false);
  });
});

describe('a plan and the order the guide is read in', () => {
  it('is the same whatever order the airings come in: simulcast channels by number, described by the airing ending last', () => {
    const T = NOW + 3600;
    const airings = [
      airing({ title: 'Derby', programId: 'EP9', start: T, stop: T + 3600, channels: ['5'] }),
      airing({ title: 'Derby', programId: 'EP9', start: T, stop: T + 1800, channels: ['3'] }),
      airing({ title: 'Derby', programId: 'EP9', start: T, stop: T + 1800, channels: ['10'] }),
      airing({ title: 'Derby day', start: T, stop: T + 1800, channels: ['4'] }),
      airing({ title: 'Derby day', start: T, stop: T + 1800, channels: ['2'] }),
    ];
    const rules = [rule(1, { type: 'keyword', keyword: 'derby' })];
    const channelSources = new Map([
      ['2', ['tuner']],
      ['3', ['tuner']],
      ['4', ['tuner']],
      ['5', ['m3u']],
      ['10', ['m3u']],
    ]);
    const planned = (list: typeof airings) => planJobs(input({ rules, airings: list, channelSources }));
    const first = planned(airings);
    expect(planned([...airings].reverse())).toEqual(first);
    expect(
      planned([airings[2], airings[0], airings[4], airings[1], airings[3]].filter((a) => a !== undefined)),
    ).toEqual(first);
    const derby = first.find((job) => job.item.program_id === 'EP9');
    expect(derby).toMatchObject({ channels: ['3', '5', '10'], end: T + 3600, item: { duration: 3600 } });
  });
});
