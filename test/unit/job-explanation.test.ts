/** A job's fate in one sentence (src/dvr/planning/job-explanation.ts), for each state a job can be in. */
import { describe, expect, it } from 'vitest';
import { type ExplainedJob, explainJob, localTime } from '../../src/dvr/planning/job-explanation.js';

const T = 1_900_000_000;
const job = (over: Partial<ExplainedJob>): ExplainedJob => ({
  id: `${T}-3`,
  name: 'Cup Final',
  state: 'scheduled',
  start_time: T,
  end_time: T + 5400,
  channel: '4',
  skipped: 0,
  failed: 0,
  error: null,
  ...over,
});

describe('explainJob', () => {
  const span = `from ${localTime(T)} to ${localTime(T + 5400)}`;
  it('says when and where a job records, records or recorded', () => {
    expect(explainJob(job({}), 'HDHomeRun 1234')).toEqual({
      id: `${T}-3`,
      outcome: 'will_record',
      why: `“Cup Final” will record on channel 4 (HDHomeRun 1234) ${span}.`,
    });
    expect(explainJob(job({ state: 'recording' })).why).toBe(
      `“Cup Final” is recording on channel 4 until ${localTime(T + 5400)}.`,
    );
    expect(explainJob(job({ state: 'finished' })).why).toBe(`“Cup Final” was recorded on channel 4 ${span}.`);
    expect(
      explainJob(job({ state: 'finished', error: 'the stream had 2 interruption(s) and 0 continuity error(s)' })).why,
    ).toBe(
      `“Cup Final” was recorded on channel 4 ${span}; the stream had 2 interruption(s) and 0 continuity error(s).`,
    );
  });

  it('says why a job will not record, or did not', () => {
    expect(explainJob(job({ skipped: 1, error: 'skipped by the user', channel: null }))).toMatchObject({
      outcome: 'skipped',
      why: '“Cup Final” will not be recorded: you skipped it.',
    });
    expect(
      explainJob(job({ skipped: 1, error: 'no free tuner on HDHomeRun 1234: already recording The News, Quiz Night' }))
        .why,
    ).toBe(
      '“Cup Final” will not be recorded: no free tuner on HDHomeRun 1234: already recording The News, Quiz Night.',
    );
    expect(explainJob(job({ state: 'finished', failed: 1, error: 'Antenna was not running at the time' }))).toEqual({
      id: `${T}-3`,
      outcome: 'failed',
      why: '“Cup Final” was not recorded: Antenna was not running at the time.',
    });
    expect(explainJob(job({ state: 'finished', failed: 1 })).why).toBe(
      '“Cup Final” was not recorded: nothing was written.',
    );
    expect(explainJob(job({ skipped: true })).why).toBe(
      '“Cup Final” will not be recorded: the planner could not place it.',
    );
  });
});
