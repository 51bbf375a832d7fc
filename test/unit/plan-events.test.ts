/** What a written plan tells: scheduled, conflict, skipped, once per change; a huge first plan in a few events. */
import { describe, expect, it } from 'vitest';
import { SCHEDULED_EVENTS_MAX, planEvents } from '../../src/dvr/planning/plan-events.js';
import type { PlannedJob } from '../../src/model/dvr/planned-job.js';
import type { PlanChange } from '../../src/repositories/dvr/jobs.repository.js';

const job = (id: string, fields: Partial<PlannedJob> = {}): PlannedJob => ({
  id,
  ruleId: 1,
  name: 'Harbour Lights',
  start: 2000,
  end: 3800,
  channels: ['7'],
  channel: '7',
  skipped: false,
  item: { episode_title: 'Pilot' } as PlannedJob['item'],
  ...fields,
});
const change = (planned: PlannedJob, wasSkipped?: boolean): PlanChange => ({ job: planned, wasSkipped });

describe('plan events', () => {
  it('tells a new job, and one no longer skipped, as scheduled', () => {
    const events = planEvents([change(job('a')), change(job('b'), true)], 1000);
    expect(events.map((e) => e.kind)).toEqual(['recording.scheduled', 'recording.scheduled']);
    expect(events[0]).toMatchObject({
      message: 'Harbour Lights: Pilot will be recorded from channel 7.',
      data: { job_id: 'a', rule_id: 1, channel: '7', start_time: 2000, end_time: 3800, episode_title: 'Pilot' },
    });
  });

  it('tells a job newly skipped for want of a tuner as a conflict, another reason as skipped', () => {
    const events = planEvents(
      [
        change(job('c', { skipped: true, error: 'no free tuner on Tuner: already recording News' }), false),
        change(job('d', { skipped: true, error: 'recorded already' })),
      ],
      1000,
    );
    expect(events.map((e) => [e.kind, e.severity, e.data.reason])).toEqual([
      ['recording.conflict', 'warning', 'no free tuner on Tuner: already recording News'],
      ['recording.skipped', 'info', 'recorded already'],
    ]);
  });

  it('tells nothing for a job rewritten as it was, skipped still, or already over', () => {
    expect(planEvents([change(job('e'), false)], 1000)).toEqual([]);
    expect(planEvents([change(job('f', { skipped: true, error: 'x' }), true)], 1000)).toEqual([]);
    expect(planEvents([change(job('g', { end: 900 }))], 1000)).toEqual([]);
  });

  it('tells a first plan of many jobs in a few events and how many more', () => {
    const many = Array.from({ length: SCHEDULED_EVENTS_MAX + 30 }, (_, i) => change(job(`j${i}`)));
    const events = planEvents(many, 1000);
    expect(events).toHaveLength(SCHEDULED_EVENTS_MAX + 1);
    expect(events.at(-1)?.message).toBe('30 more recordings were scheduled.');
  });
});
