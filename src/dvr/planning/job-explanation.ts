/**
 * A job's fate in one sentence a user understands (`GET /dvr/jobs/:id/why`): when and
 * where it records, or why it will not (the planner's reason: the jobs that hold the
 * tuners, a channel no source carries, the user's skip), or why it failed (the
 * recorder's reason: the source's answer, a full disk, Antenna not running). Pure.
 */
import type { Static } from '@sinclair/typebox';
import type { JobWhySchema } from '../../model/dvr/dvr.schemas.js';

export type JobWhy = Static<typeof JobWhySchema>;

export interface ExplainedJob {
  id: string;
  name: string;
  state: 'scheduled' | 'recording' | 'finished';
  start_time: number;
  end_time: number;
  channel: string | null;
  skipped: number | boolean;
  failed: number | boolean;
  error: string | null;
}

/** `Wed 25 Nov, 20:00` in the server's time zone. */
export function localTime(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toLocaleString('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
  });
}

const sentence = (text: string) => {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
};

export function explainJob(job: ExplainedJob, sourceName?: string): JobWhy {
  const where = `channel ${job.channel ?? '?'}${sourceName ? ` (${sourceName})` : ''}`;
  const span = `from ${localTime(job.start_time)} to ${localTime(job.end_time)}`;
  const reason = job.error ?? '';
  if (job.state === 'recording')
    return {
      id: job.id,
      outcome: 'recording',
      why: sentence(`“${job.name}” is recording on ${where} until ${localTime(job.end_time)}`),
    };
  if (job.state === 'finished') {
    if (job.failed)
      return {
        id: job.id,
        outcome: 'failed',
        why: sentence(`“${job.name}” was not recorded: ${reason || 'nothing was written'}`),
      };
    return {
      id: job.id,
      outcome: 'recorded',
      why: sentence(`“${job.name}” was recorded on ${where} ${span}${reason ? `; ${reason}` : ''}`),
    };
  }
  if (job.skipped) {
    const because = reason === 'skipped by the user' ? 'you skipped it' : reason || 'the planner could not place it';
    return { id: job.id, outcome: 'skipped', why: sentence(`“${job.name}” will not be recorded: ${because}`) };
  }
  return { id: job.id, outcome: 'will_record', why: sentence(`“${job.name}” will record on ${where} ${span}`) };
}
