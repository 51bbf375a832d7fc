/**
 * Upcoming: every job the DVR has planned, by day, with what it records, on which
 * channel, and, for one that will not record (a conflict, a skip), why in words. A
 * planned job can be skipped (after asking); jobs that ended in the last days follow,
 * so a failed recording's reason is there too.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useJobChanges } from '../../api/dvr.mutations';
import { libraryQueries } from '../../api/library.queries';
import type { Job } from '../../api/server-types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorNotice, Loading } from '../../components/error-notice';
import { FocusButton, FocusLink } from '../../components/focusable';
import { useMode } from '../../components/mode';
import { episodeCode, formatAiring } from '../../lib/item-view';
import { finishedJobs, jobReason, stateLabel, timeRange, upcomingByDay } from './job-days';

/** The jobs, refreshed as time passes (a job starts, a recording ends). */
export const jobsQuery = () => ({ ...libraryQueries.jobs(), refetchInterval: 15_000 });

/** Ids of the jobs recording now, from /status. */
export function useRecordingJobs(): ReadonlySet<string> {
  const status = useQuery(libraryQueries.status());
  return new Set(status.data?.dvr?.recording ?? []);
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

export function UpcomingPage() {
  const mode = useMode();
  const jobs = useQuery(jobsQuery());
  const recording = useRecordingJobs();
  const changes = useJobChanges();
  const [cancelling, setCancelling] = useState<Job | null>(null);
  if (jobs.isPending) return <Loading what="the schedule" />;
  if (jobs.isError) return <ErrorNotice error={jobs.error} retry={() => void jobs.refetch()} />;
  const now = nowSeconds();
  const days = upcomingByDay(jobs.data, now);
  const finished = finishedJobs(jobs.data, now);
  return (
    <div className="upcoming">
      <div className="section-head">
        <h2>Upcoming recordings</h2>
        <FocusLink to="/{-$mode}/schedule/passes/new" params={{ mode }} className="button primary">
          New pass
        </FocusLink>
      </div>
      {changes.cancel.error && <ErrorNotice error={changes.cancel.error} />}
      {days.length === 0 && (
        <p className="empty">
          Nothing is planned. Add a pass to record a series, a keyword, a time slot or one airing; its recordings are
          planned from the guide at once.
        </p>
      )}
      {days.map((day) => (
        <section key={day.key} className="job-day" aria-labelledby={`day-${day.key}`}>
          <h3 id={`day-${day.key}`}>{day.label}</h3>
          <ul className="job-list">
            {day.jobs.map((job) => (
              <JobRow key={job.id} job={job} now={now} recording={recording} onCancel={() => setCancelling(job)} />
            ))}
          </ul>
        </section>
      ))}
      {finished.length > 0 && (
        <section className="job-day" aria-labelledby="day-finished">
          <h3 id="day-finished">Finished in the last days</h3>
          <ul className="job-list">
            {finished.map((job) => (
              <JobRow key={job.id} job={job} now={now} recording={recording} showDay />
            ))}
          </ul>
        </section>
      )}
      {cancelling && (
        <ConfirmDialog
          title={recording.has(cancelling.id ?? '') ? 'Stop this recording?' : 'Skip this recording?'}
          body={
            recording.has(cancelling.id ?? '')
              ? `“${cancelling.name ?? 'This job'}” stops recording now; what it recorded so far is kept.`
              : `“${cancelling.name ?? 'This job'}” at ${formatAiring(cancelling.start_time ?? 0)} will not be recorded. Its pass stays, and records the other airings.`
          }
          confirm={recording.has(cancelling.id ?? '') ? 'Stop recording' : 'Skip it'}
          busy={changes.cancel.isPending}
          onCancel={() => setCancelling(null)}
          onConfirm={() => changes.cancel.mutate(cancelling.id ?? '', { onSuccess: () => setCancelling(null) })}
        />
      )}
    </div>
  );
}

function JobRow({
  job,
  now,
  recording,
  onCancel,
  showDay,
}: {
  job: Job;
  now: number;
  recording: ReadonlySet<string>;
  onCancel?: () => void;
  showDay?: boolean;
}) {
  const { state, label } = stateLabel(job, now, recording);
  const reason = jobReason(job);
  const item = job.item;
  const episode = [episodeCode(item?.season_number, item?.episode_number), item?.episode_title]
    .filter(Boolean)
    .join(' · ');
  const cancellable = onCancel && (state === 'scheduled' || state === 'recording');
  return (
    <li className={`job job-${state}`}>
      <span className="job-time">
        {showDay ? formatAiring(job.start_time ?? 0) : timeRange(job.start_time, job.end_time)}
      </span>
      <div className="job-what">
        <span className="job-name">{job.name ?? item?.title ?? 'Recording'}</span>
        {episode && <span className="job-episode">{episode}</span>}
        <span className="job-channel">
          {job.channel ? `Channel ${job.channel}` : job.channels?.length ? `Channels ${job.channels.join(', ')}` : ''}
        </span>
        {reason && <span className="job-reason">{reason}</span>}
      </div>
      <span className={`state state-${state}`}>{label}</span>
      {cancellable && (
        <FocusButton
          onClick={onCancel}
          aria-label={`${state === 'recording' ? 'Stop' : 'Skip'} ${job.name ?? 'recording'} at ${timeRange(job.start_time, job.end_time)}`}
        >
          {state === 'recording' ? 'Stop' : 'Skip'}
        </FocusButton>
      )}
    </li>
  );
}
