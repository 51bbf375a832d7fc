/**
 * "Record" while watching a channel: records what is on from its start when the channel's
 * live buffer holds it (the server decides where it begins), and "Stop recording" while
 * something records the channel. A refusal (no tuner, the source down) shows as the
 * server's message.
 */
import { useQuery } from '@tanstack/react-query';
import { useJobChanges } from '../../api/dvr.mutations';
import { dvrQueries } from '../../api/dvr.queries';
import { ErrorNotice } from '../../components/error-notice';
import { FocusButton } from '../../components/focusable';

export function RecordToggle({ channel }: { channel: string }) {
  const recording = useQuery(dvrQueries.recordingOn(channel));
  const { record, stop } = useJobChanges();
  const busy = record.isPending || stop.isPending;
  const on = recording.data !== null && recording.data !== undefined;
  const failed = record.error ?? stop.error;
  return (
    <>
      <FocusButton
        onClick={() => (on ? stop.mutate(channel) : record.mutate(channel))}
        aria-pressed={on}
        aria-label={on ? 'Stop recording' : 'Record'}
        disabled={busy || recording.isPending}
        className={on ? 'recording' : undefined}
      >
        {on ? '● Stop recording' : '● Record'}
      </FocusButton>
      {failed && <ErrorNotice error={failed} />}
    </>
  );
}
