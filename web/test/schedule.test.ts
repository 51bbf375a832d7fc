/** The DVR section's pure parts: the pass form and rule bodies both ways, the jobs by day and their reasons. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ruleTypeInfos } from '../../src/dvr/planning/rules/rule-types.js';
import type { Job, RuleBody, RuleTypeInfo } from '../src/api/server-types';
import {
  finishedJobs,
  isConflict,
  jobReason,
  ruleIdOfJob,
  stateLabel,
  upcomingByDay,
} from '../src/sections/schedule/job-days';
import { recordedShare, recordingJobs } from '../src/sections/schedule/recording-now-page';
import {
  bodyOf,
  bodyOfStored,
  describeRule,
  emptyForm,
  fieldOfParameter,
  formOf,
  formOfSearch,
  fromLocalInput,
  passSearch,
  ruleOptionPhrases,
  toLocalInput,
  typeField,
} from '../src/sections/schedule/rule-form';

/** The server's own table of rule types, as GET /dvr/rule-types answers it. */
const TYPES = ruleTypeInfos();
const info = (type: string): RuleTypeInfo => TYPES.find((t) => t.type === type)!;
/** A blank form of `type` with these values of its own fields. */
const formWith = (type: string, fields: Record<string, string | boolean>) => {
  const empty = emptyForm(info(type));
  return { ...empty, fields: { ...empty.fields, ...fields } };
};

// What the server's schemas accept (src/model/dvr/rule.schemas.ts), in the shape the form writes back:
// options left at nothing are absent, flags present only when true, text without surrounding spaces.
const text = (max: number) =>
  fc.string({ minLength: 1, maxLength: max }).filter((s) => s.trim() === s && s.length > 0 && !/\s{2}/.test(s));
const channel = fc
  .tuple(fc.integer({ min: 1, max: 99999 }), fc.option(fc.integer({ min: 1, max: 99999 }), { nil: undefined }))
  .map(([a, b]) => (b === undefined ? String(a) : `${a}.${b}`));
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const options = fc.record(
  {
    name: maybe(text(200)),
    channels: maybe(fc.array(channel, { minLength: 1, maxLength: 5 })),
    new_only: maybe(fc.constant(true as const)),
    padding_before: maybe(fc.integer({ min: 0, max: 3600 })),
    padding_after: maybe(fc.integer({ min: 0, max: 3 * 3600 })),
    keep: maybe(fc.integer({ min: 0, max: 10_000 })),
    priority: maybe(fc.integer({ min: -1000, max: 1000 })),
    paused: maybe(fc.constant(true as const)),
  },
  { requiredKeys: [] },
);
const start = fc.integer({ min: 0, max: 4_000_000_000 });
const rule: fc.Arbitrary<RuleBody> = fc.oneof(
  fc
    .tuple(options, maybe(text(300)), maybe(text(100)))
    .filter(([, title, id]) => title !== undefined || id !== undefined)
    .map(([o, title, series_id]) => ({ type: 'series' as const, title, series_id, ...o })),
  fc
    .tuple(
      options,
      fc.string({ minLength: 2, maxLength: 200 }).filter((s) => s.trim() === s && s.length >= 2),
    )
    .map(([o, keyword]) => ({ type: 'keyword' as const, keyword, ...o })),
  fc
    .tuple(options, channel, start, fc.integer({ min: 60, max: 86400 }), maybe(fc.constant(true as const)))
    .map(([o, ch, s, duration, weekly]) => ({
      type: 'slot' as const,
      channel: ch,
      start_time: s,
      duration,
      weekly,
      ...o,
    })),
  fc
    .tuple(options, channel, start)
    .map(([o, ch, s]) => ({ type: 'program' as const, channel: ch, start_time: s, ...o })),
);
const defined = (body: object) => Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
/** Local wall-clock times repeat once a year (the hour clocks go back): the same shown time is the same rule. */
const sameShownTime = (body: RuleBody) =>
  'start_time' in body ? { ...body, start_time: toLocalInput(body.start_time) } : body;

describe('the pass form', () => {
  it('gives back the rule it was opened with, saved unchanged', () => {
    fc.assert(
      fc.property(rule, (body) => {
        const result = bodyOf(formOf(body, info(body.type)), info(body.type));
        expect(result.errors).toBeUndefined();
        expect(sameShownTime(result.body!)).toEqual(sameShownTime(defined(body) as RuleBody));
      }),
      { numRuns: 500 },
    );
  });

  it('opens a stored rule without its id, and puts a PUT body back without it', () => {
    const stored = { id: '7', type: 'keyword' as const, keyword: 'volcano', priority: 2 };
    expect(bodyOfStored(stored)).toEqual({ type: 'keyword', keyword: 'volcano', priority: 2 });
    expect(bodyOf(formOf(stored, info('keyword')), info('keyword')).body).toEqual({
      type: 'keyword',
      keyword: 'volcano',
      priority: 2,
    });
  });

  it('turns minutes into seconds and leaves out what was left empty', () => {
    const form = {
      ...formWith('series', { title: ' Harbour Watch ' }),
      priority: '5',
      keep: '3',
      paddingAfterMinutes: '2',
      paddingBeforeMinutes: '0.5',
      channels: '5, 7.1  9',
    };
    expect(bodyOf(form, info('series')).body).toEqual({
      type: 'series',
      title: 'Harbour Watch',
      priority: 5,
      keep: 3,
      padding_after: 120,
      padding_before: 30,
      channels: ['5', '7.1', '9'],
    });
    expect(
      bodyOf(
        formWith('slot', { channel: '4', start_time: '2030-01-02T20:00', duration: '30', weekly: true }),
        info('slot'),
      ).body,
    ).toEqual({
      type: 'slot',
      channel: '4',
      start_time: fromLocalInput('2030-01-02T20:00'),
      duration: 1800,
      weekly: true,
    });
  });

  it('says what to fix, field by field, in words', () => {
    expect(bodyOf(emptyForm(info('series')), info('series')).errors).toEqual({
      [typeField('title')]: expect.stringMatching(/series title/),
    });
    expect(bodyOf(formWith('keyword', { keyword: 'a' }), info('keyword')).errors).toEqual({
      [typeField('keyword')]: expect.stringMatching(/at least 2 characters/),
    });
    expect(bodyOf(emptyForm(info('program')), info('program')).errors).toEqual({
      [typeField('channel')]: expect.stringMatching(/channel number/),
      [typeField('start_time')]: expect.stringMatching(/date and time/),
    });
    const wrong = bodyOf(
      {
        ...formWith('series', { title: 'x' }),
        keep: 'three',
        priority: '1.5',
        paddingBeforeMinutes: '90',
        paddingAfterMinutes: '-1',
      },
      info('series'),
    ).errors!;
    expect(Object.keys(wrong).sort()).toEqual(['keep', 'paddingAfterMinutes', 'paddingBeforeMinutes', 'priority']);
    expect(wrong.paddingBeforeMinutes).toMatch(/0 to 60/);
    expect(
      bodyOf(formWith('slot', { channel: '4', start_time: '2030-01-02T20:00', duration: '0.5' }), info('slot')).errors,
    ).toEqual({ [typeField('duration')]: expect.stringMatching(/1 to 1440/) });
    // A slot's length is required: left empty, it is asked for.
    expect(bodyOf(formWith('slot', { channel: '4', start_time: '2030-01-02T20:00' }), info('slot')).errors).toEqual({
      [typeField('duration')]: expect.stringMatching(/minutes/),
    });
  });

  it('never throws, whatever is typed, and any body it gives has the fields of its type', () => {
    const anyForm = fc.record({
      type: fc.constantFrom(...TYPES.map((t) => t.type)),
      fields: fc.record({
        title: fc.string(),
        series_id: fc.string(),
        keyword: fc.string(),
        channel: fc.string(),
        start_time: fc.oneof(fc.string(), fc.constant('2031-05-06T07:08')),
        duration: fc.string(),
        weekly: fc.boolean(),
      }),
      name: fc.string(),
      channels: fc.string(),
      newOnly: fc.boolean(),
      paddingBeforeMinutes: fc.oneof(fc.string(), fc.integer().map(String)),
      paddingAfterMinutes: fc.string(),
      keep: fc.oneof(fc.string(), fc.integer().map(String)),
      priority: fc.string(),
      paused: fc.boolean(),
    });
    fc.assert(
      fc.property(anyForm, (form) => {
        const result = bodyOf(form, info(form.type));
        if (result.body) {
          expect(result.body.type).toBe(form.type);
          for (const value of Object.values(result.body))
            expect(value === '' || value === false || value === undefined || Number.isNaN(value)).toBe(false);
        } else expect(Object.keys(result.errors).length).toBeGreaterThan(0);
      }),
    );
  });

  it('reads local times both ways and refuses what is not a date', () => {
    fc.assert(
      fc.property(start, (seconds) => {
        expect(toLocalInput(fromLocalInput(toLocalInput(seconds))!)).toBe(toLocalInput(seconds));
      }),
    );
    expect(fromLocalInput('2030-02-31T10:00')).toBeUndefined();
    expect(fromLocalInput('tomorrow')).toBeUndefined();
    expect(fromLocalInput('2030-02-03T10:00:30')).toBe(fromLocalInput('2030-02-03T10:00')! + 30);
  });

  it('marks the field a server error names', () => {
    expect(fieldOfParameter('padding_after', info('slot'))).toBe('paddingAfterMinutes');
    expect(fieldOfParameter('channels.2', info('slot'))).toBe('channels');
    expect(fieldOfParameter('start_time', info('slot'))).toBe(typeField('start_time'));
    expect(fieldOfParameter('start_time', info('series'))).toBeUndefined();
    expect(fieldOfParameter('type', info('slot'))).toBeUndefined();
    expect(fieldOfParameter(undefined, info('slot'))).toBeUndefined();
  });

  it('takes only sound values from a link to a new pass', () => {
    expect(passSearch({ type: 'series', title: 'Harbour Watch', channel: 5, start: 1_900_000_000 })).toEqual({
      type: 'series',
      title: 'Harbour Watch',
      channel: '5',
      start: 1_900_000_000,
    });
    expect(passSearch({ type: 'toString', title: '  ', channel: '5; drop', start: -1 })).toEqual({});
    expect(passSearch({ title: 1984 })).toEqual({ title: '1984' });
    expect(passSearch({ start: { toString: 0 }, title: { valueOf: 1 } })).toEqual({});
    expect(formOfSearch({ type: 'keyword', title: 'volcano' }, TYPES)).toMatchObject({
      type: 'keyword',
      fields: { keyword: 'volcano' },
    });
    expect(formOfSearch({ type: 'program', channel: '5', start: 1_900_000_000 }, TYPES)).toMatchObject({
      type: 'program',
      fields: { channel: '5', start_time: toLocalInput(1_900_000_000) },
    });
    // A type this server does not list: the first it does.
    expect(formOfSearch({ type: 'weather', title: 'x' }, TYPES)).toMatchObject({
      type: 'series',
      fields: { title: 'x' },
    });
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.anything()), fc.anything(), fc.anything(), (search, start, channel) => {
        expect(() => formOfSearch(passSearch({ ...search, start, channel }), TYPES)).not.toThrow();
      }),
    );
  });

  it('describes a pass and its options in a few words', () => {
    const at = (s: number) => `@${s}`;
    expect(describeRule({ type: 'series', title: 'Harbour Watch' }, info('series'), at)).toBe('Series “Harbour Watch”');
    expect(describeRule({ type: 'series', series_id: 'SH01' }, info('series'), at)).toBe('Series id SH01');
    expect(
      describeRule({ type: 'slot', channel: '4', start_time: 10, duration: 3600, weekly: true }, info('slot'), at),
    ).toBe('Channel 4, @10 for 60 min, weekly');
    expect(describeRule({ type: 'slot', channel: '4', start_time: 10, duration: 3600 }, info('slot'), at)).toBe(
      'Channel 4, @10 for 60 min',
    );
    expect(describeRule({ type: 'program', channel: '4', start_time: 10 }, info('program'), at)).toBe(
      'Channel 4 at @10',
    );
    expect(describeRule({ type: 'program', channel: '4', start_time: 10, title: 'Film' }, info('program'), at)).toBe(
      '“Film”, channel 4 at @10',
    );
    // Without the server's table (not loaded, or a type it no longer lists), still something readable.
    expect(describeRule({ type: 'keyword', keyword: 'volcano' }, undefined, at)).toBe('keyword pass');
    expect(
      ruleOptionPhrases({
        type: 'keyword',
        keyword: 'volcano',
        priority: 5,
        keep: 3,
        padding_after: 120,
        new_only: true,
      }),
    ).toEqual(['priority 5', 'keep newest 3', '2 min late', 'new episodes only']);
  });
});

const NOW = Math.floor(new Date(2030, 4, 6, 12, 0).getTime() / 1000);
const job = (fields: Partial<Job>): Job => ({
  id: `${fields.start_time ?? NOW}-1`,
  name: 'Harbour Watch',
  start_time: NOW,
  end_time: NOW + 1800,
  channel: '5',
  ...fields,
});

describe('the jobs by day', () => {
  it('groups jobs that have not ended by local day, in start order, today and tomorrow named', () => {
    const jobs = [
      job({ start_time: NOW + 86400 + 60, end_time: NOW + 86400 + 1800 }),
      job({ start_time: NOW + 3600, end_time: NOW + 5400 }),
      job({ start_time: NOW - 600, end_time: NOW + 1200 }),
      job({ start_time: NOW - 7200, end_time: NOW - 5400 }),
      job({ start_time: NOW + 3 * 86400, end_time: NOW + 3 * 86400 + 60 }),
    ];
    const days = upcomingByDay(jobs, NOW);
    expect(days.map((day) => day.label).slice(0, 2)).toEqual(['Today', 'Tomorrow']);
    expect(days[0]!.jobs.map((j) => j.start_time)).toEqual([NOW - 600, NOW + 3600]);
    expect(days).toHaveLength(3);
    expect(finishedJobs(jobs, NOW).map((j) => j.start_time)).toEqual([NOW - 7200]);
  });

  it('puts every job in exactly one of the lists, each day in order', () => {
    const jobs = fc.array(
      fc
        .record({
          start: fc.integer({ min: -5 * 86400, max: 14 * 86400 }),
          length: fc.integer({ min: 60, max: 4 * 3600 }),
          failed: fc.boolean(),
          id: fc.nat(),
        })
        .map(({ start: s, length, failed, id }) =>
          job({
            id: `${NOW + s}-${id}`,
            start_time: NOW + s,
            end_time: NOW + s + length,
            ...(failed ? { failed: true, error: 'boom' } : {}),
          }),
        ),
    );
    fc.assert(
      fc.property(jobs, (list) => {
        const days = upcomingByDay(list, NOW);
        const listed = days.flatMap((day) => day.jobs).length + finishedJobs(list, NOW).length;
        expect(listed).toBe(list.length);
        for (const day of days)
          for (let i = 1; i < day.jobs.length; i++)
            expect(day.jobs[i]!.start_time! >= day.jobs[i - 1]!.start_time!).toBe(true);
        expect(new Set(days.map((day) => day.key)).size).toBe(days.length);
      }),
    );
  });

  it('says why a job will not record, or did not', () => {
    expect(jobReason(job({ skipped: true, error: 'skipped by the user' }))).toBe('Skipped: you cancelled it.');
    const conflict = job({ skipped: true, error: 'no free tuner on M3U list: already recording Night News' });
    expect(isConflict(conflict)).toBe(true);
    expect(jobReason(conflict)).toBe(
      'Conflict: No free tuner on M3U list: already recording Night News. Give this pass a higher priority to record it instead.',
    );
    expect(jobReason(job({ skipped: true, error: 'no source carries channel 12' }))).toMatch(
      /^Skipped: No source carries channel 12\. Add a source/,
    );
    expect(jobReason(job({ failed: true, error: 'Antenna was not running at the time' }))).toBe(
      'Failed: Antenna was not running at the time.',
    );
    expect(jobReason(job({ failed: true }))).toMatch(/server log/);
    expect(jobReason(job({}))).toBe('');
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), fc.option(fc.string(), { nil: undefined }), (skipped, failed, error) => {
        const reason = jobReason(job({ skipped, failed, error }));
        expect(reason === '').toBe(!skipped && !failed);
      }),
    );
  });

  it('labels a job by its state, recording ones from /status', () => {
    expect(stateLabel(job({ start_time: NOW + 60, end_time: NOW + 120 }), NOW, new Set()).label).toBe('Scheduled');
    expect(stateLabel(job({ id: 'x' }), NOW, new Set(['x'])).label).toBe('Recording now');
    expect(stateLabel(job({ skipped: true, error: 'no free tuner on a' }), NOW, new Set()).state).toBe('conflict');
    // Stopped before its end: over, though its time is not.
    const stopped = job({ start_time: NOW - 60, end_time: NOW + 600, item: { cancelled: true } });
    expect(stateLabel(stopped, NOW, new Set()).label).toBe('Stopped');
    expect(upcomingByDay([stopped], NOW)).toEqual([]);
    expect(finishedJobs([stopped], NOW)).toEqual([stopped]);
    expect(ruleIdOfJob('1900000000-42')).toBe('42');
    expect(ruleIdOfJob('nonsense')).toBeUndefined();
  });

  it('lists what records now and how far along it is', () => {
    const jobs = [job({ id: 'b', start_time: NOW - 60 }), job({ id: 'a', start_time: NOW - 600 }), job({ id: 'c' })];
    expect(recordingJobs(jobs, ['a', 'b', 'gone']).map((j) => j.id)).toEqual(['a', 'b']);
    expect(recordedShare({ start_time: NOW - 900, end_time: NOW + 900 }, NOW)).toBe(0.5);
    expect(recordedShare({ start_time: NOW, end_time: NOW }, NOW)).toBe(0);
    expect(recordedShare({ start_time: NOW - 10, end_time: NOW - 5 }, NOW)).toBe(1);
  });
});
