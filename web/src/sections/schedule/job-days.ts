/**
 * The DVR's jobs as the schedule shows them: grouped by local day, each with its state
 * and, when it will not record or did not, the reason in words. Pure (the clock and
 * the zone come in), so the grouping and the wording are unit-tested.
 */
import type { Job } from '../../api/server-types';
import { type JobState, jobState } from '../../lib/item-view';

export interface DayGroup {
  /** `YYYY-MM-DD` of the local day (a stable key). */
  key: string;
  /** `Today`, `Tomorrow`, or the date as the browser's locale writes it. */
  label: string;
  jobs: Job[];
}

const dayKey = (at: Date) =>
  `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, '0')}-${String(at.getDate()).padStart(2, '0')}`;

function dayLabel(at: Date, now: Date): string {
  const tomorrow = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
  if (dayKey(at) === dayKey(now)) return 'Today';
  if (dayKey(at) === dayKey(tomorrow)) return 'Tomorrow';
  return at.toLocaleDateString(undefined, { weekday: 'long', month: 'long', day: 'numeric' });
}

/**
 * A job that is over: its time passed, it failed, or its recording was stopped or finished early (the item's flags say
 * so).
 */
export function hasEnded(job: Job, nowSeconds: number): boolean {
  return (job.end_time ?? 0) <= nowSeconds || Boolean(job.failed || job.item?.cancelled || job.item?.completed);
}

/** Jobs that have not ended (recording now, planned, skipped), by start time, grouped by the local day they start. */
export function upcomingByDay(jobs: readonly Job[], nowSeconds: number): DayGroup[] {
  const now = new Date(nowSeconds * 1000);
  const upcoming = jobs.filter((job) => !hasEnded(job, nowSeconds)).sort(byStart);
  const groups: DayGroup[] = [];
  for (const job of upcoming) {
    const at = new Date((job.start_time ?? 0) * 1000);
    const key = dayKey(at);
    const last = groups[groups.length - 1];
    if (last?.key === key) last.jobs.push(job);
    else groups.push({ key, label: dayLabel(at, now), jobs: [job] });
  }
  return groups;
}

/** Jobs that ended (finished, failed, or skipped), newest first: the last 7 days the server keeps. */
export function finishedJobs(jobs: readonly Job[], nowSeconds: number): Job[] {
  return jobs.filter((job) => hasEnded(job, nowSeconds)).sort((a, b) => byStart(b, a));
}

function byStart(a: Job, b: Job): number {
  return (
    (a.start_time ?? 0) - (b.start_time ?? 0) ||
    (a.channel ?? '').localeCompare(b.channel ?? '') ||
    (a.id ?? '').localeCompare(b.id ?? '')
  );
}

/** A job skipped because every stream of its source was taken: a conflict the user may settle by priority. */
export function isConflict(job: Job): boolean {
  return Boolean(job.skipped) && /^no free tuner/i.test(job.error ?? '');
}

const sentence = (text: string) => {
  const trimmed = text.trim();
  if (!trimmed) return '';
  const capital = trimmed[0]!.toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
};

/** Why a job will not record, or did not, in words; '' for a job that records (or did) as planned. */
export function jobReason(job: Job): string {
  const error = job.error ?? '';
  if (job.failed) return error ? `Failed: ${sentence(error)}` : 'Failed; the server log says why.';
  if (!job.skipped) return '';
  if (/^skipped by the user/i.test(error)) return 'Skipped: you cancelled it.';
  if (isConflict(job)) return `Conflict: ${sentence(error)} Give this pass a higher priority to record it instead.`;
  if (/^no source carries/i.test(error))
    return `Skipped: ${sentence(error)} Add a source with this channel under Settings.`;
  return error ? `Skipped: ${sentence(error)}` : 'Skipped.';
}

/** The word a job's state shows as. */
export function stateLabel(
  job: Job,
  nowSeconds: number,
  recordingIds: ReadonlySet<string>,
): { state: JobState | 'conflict'; label: string } {
  if (job.id !== undefined && recordingIds.has(job.id)) return { state: 'recording', label: 'Recording now' };
  if (isConflict(job)) return { state: 'conflict', label: 'Conflict' };
  if (!job.failed && job.item?.cancelled) return { state: 'done', label: 'Stopped' };
  if (!job.failed && job.item?.completed) return { state: 'done', label: 'Recorded' };
  const state = jobState(job, nowSeconds);
  const LABELS: Record<JobState, string> = {
    recording: 'Recording now',
    scheduled: 'Scheduled',
    skipped: 'Skipped',
    failed: 'Failed',
    done: 'Recorded',
  };
  return { state, label: LABELS[state] };
}

/** The rule a job belongs to: its id is `<start>-<rule id>`. */
export function ruleIdOfJob(jobId: string | undefined): string | undefined {
  return /^\d+-(\d+)$/.exec(jobId ?? '')?.[1];
}

/** `20:00–20:30` in the browser's locale. */
export function timeRange(start: number | undefined, end: number | undefined): string {
  const time = (seconds: number) =>
    new Date(seconds * 1000).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  if (start === undefined) return '';
  return end === undefined ? time(start) : `${time(start)}–${time(end)}`;
}
