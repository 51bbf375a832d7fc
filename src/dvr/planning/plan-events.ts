/**
 * What a written plan tells people (pure): a job newly scheduled (or no longer skipped),
 * a job skipped for a conflict (no free tuner) or another reason. A plan that changed
 * nothing tells nothing; a first plan of thousands tells the first few and how many more.
 */
import type { NewEvent } from '../../model/events/event.schemas.js';
import type { PlanChange } from '../../repositories/dvr/jobs.repository.js';

/** The scheduled jobs one plan names one by one; the rest are one event saying how many. */
export const SCHEDULED_EVENTS_MAX = 20;

const whatOf = (change: PlanChange) =>
  [change.job.name, change.job.item.episode_title].filter(Boolean).join(': ') || change.job.name;

function dataOf(change: PlanChange): NewEvent['data'] {
  const { job } = change;
  return {
    job_id: job.id,
    rule_id: job.ruleId,
    title: job.name,
    ...(job.item.episode_title ? { episode_title: job.item.episode_title } : {}),
    ...(job.channel ? { channel: job.channel } : {}),
    start_time: job.start,
    end_time: job.end,
  };
}

export function planEvents(changes: readonly PlanChange[], nowSeconds: number): NewEvent[] {
  const events: NewEvent[] = [];
  let scheduled = 0;
  for (const change of changes) {
    const { job, wasSkipped } = change;
    if (job.end <= nowSeconds) continue;
    if (!job.skipped) {
      if (wasSkipped === false) continue;
      scheduled++;
      if (scheduled <= SCHEDULED_EVENTS_MAX)
        events.push({
          kind: 'recording.scheduled',
          severity: 'info',
          message: `${whatOf(change)} will be recorded${job.channel ? ` from channel ${job.channel}` : ''}.`,
          data: dataOf(change),
        });
      continue;
    }
    if (wasSkipped === true) continue;
    const reason = job.error ?? 'skipped';
    const conflict = reason.startsWith('no free tuner');
    events.push({
      kind: conflict ? 'recording.conflict' : 'recording.skipped',
      severity: conflict ? 'warning' : 'info',
      message: `${whatOf(change)} will not be recorded: ${reason}.`,
      data: { ...dataOf(change), reason },
    });
  }
  if (scheduled > SCHEDULED_EVENTS_MAX)
    events.push({
      kind: 'recording.scheduled',
      severity: 'info',
      message: `${scheduled - SCHEDULED_EVENTS_MAX} more recordings were scheduled.`,
      data: {},
    });
  return events;
}
