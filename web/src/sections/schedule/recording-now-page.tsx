/**
 * Recording now: the jobs the DVR is recording (from /status, with their details from
 * the jobs list), how far along each is, and Stop (after asking), which keeps what was
 * recorded.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useJobChanges } from '../../api/dvr.mutations';
import { libraryQueries } from '../../api/library.queries';
import type { Job } from '../../api/server-types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorNotice, Loading } from '../../components/error-notice';
import { FocusButton } from '../../components/focusable';
import { episodeCode, formatDuration } from '../../lib/item-view';
import { timeRange } from './job-days';
import { jobsQuery } from './upcoming-page';

/** The jobs /status says record now, in the jobs list's shape (a job not listed yet is left out until it is). */
export function recordingJobs(jobs: readonly Job[], recordingIds: readonly string[]): Job[] {
  const ids = new Set(recordingIds);
  return jobs
    .filter((job) => job.id !== undefined && ids.has(job.id))
    .sort((a, b) => (a.start_time ?? 0) - (b.start_time ?? 0));
}

/** How far a recording is, 0–1. */
export function recordedShare(job: Pick<Job, 'start_time' | 'end_time'>, nowSeconds: number): number {
  const { start_time: start, end_time: end } = job;
  if (start === undefined || end === undefined || end <= start) return 0;
  return Math.min(1, Math.max(0, (nowSeconds - start) / (end - start)));
}

export function RecordingNowPage() {
  const status = useQuery({ ...libraryQueries.status(), refetchInterval: 5_000 });
  const jobs = useQuery(jobsQuery());
  const changes = useJobChanges();
  const [stopping, setStopping] = useState<Job | null>(null);
  if (status.isPending || jobs.isPending) return <Loading what="what is recording" />;
  if (status.isError) return <ErrorNotice error={status.error} retry={() => void status.refetch()} />;
  if (jobs.isError) return <ErrorNotice error={jobs.error} retry={() => void jobs.refetch()} />;
  const now = Math.floor(Date.now() / 1000);
  const recording = recordingJobs(jobs.data, status.data.dvr?.recording ?? []);
  return (
    <div className="recording-now">
      <h2>Recording now</h2>
      {changes.stop.error && <ErrorNotice error={changes.stop.error} />}
      {recording.length === 0 && <p className="empty">Nothing is recording now. Upcoming lists what will.</p>}
      <ul className="job-list">
        {recording.map((job) => {
          const share = recordedShare(job, now);
          const episode = [episodeCode(job.item?.season_number, job.item?.episode_number), job.item?.episode_title]
            .filter(Boolean)
            .join(' · ');
          return (
            <li key={job.id} className="job job-recording">
              <span className="job-time">{timeRange(job.start_time, job.end_time)}</span>
              <div className="job-what">
                <span className="job-name">{job.name ?? 'Recording'}</span>
                {episode && <span className="job-episode">{episode}</span>}
                <span className="job-channel">{job.channel ? `Channel ${job.channel}` : ''}</span>
                <div
                  className="bar"
                  role="progressbar"
                  aria-label={`${job.name ?? 'Recording'}: recorded so far`}
                  aria-valuemin={0}
                  aria-valuemax={100}
                  aria-valuenow={Math.round(share * 100)}
                >
                  <span style={{ width: `${share * 100}%` }} />
                </div>
                <span className="job-reason">
                  {formatDuration((job.end_time ?? now) - now)
                    ? `${formatDuration((job.end_time ?? now) - now)} to go`
                    : 'Ending'}
                </span>
              </div>
              <span className="state state-recording">Recording</span>
              {job.channel && (
                <FocusButton
                  className="danger"
                  onClick={() => setStopping(job)}
                  aria-label={`Stop recording ${job.name ?? ''} on channel ${job.channel}`}
                >
                  Stop
                </FocusButton>
              )}
            </li>
          );
        })}
      </ul>
      {stopping?.channel && (
        <ConfirmDialog
          title="Stop this recording?"
          body={`“${stopping.name ?? 'The recording'}” on channel ${stopping.channel} stops now; what was recorded so far stays in the library.`}
          confirm="Stop recording"
          busy={changes.stop.isPending}
          onCancel={() => setStopping(null)}
          onConfirm={() => changes.stop.mutate(stopping.channel!, { onSuccess: () => setStopping(null) })}
        />
      )}
    </div>
  );
}
