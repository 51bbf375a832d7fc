/**
 * A programme's details, and what can be recorded from them: this airing (a `program`
 * rule), the whole series (a `series` rule by the guide's series id, else by title),
 * or its new episodes only (the same with `new_only`). A programme a job records
 * says so and can be skipped. The server's refusal is shown as it words it.
 * A placeholder hour (a channel no guide describes) is no programme: it offers only
 * "Record this hour", since a series rule on its title (the channel's name) would
 * never match it and could match a real programme of that name elsewhere.
 */
import { FocusContext, setFocus, useFocusable } from '@noriginmedia/norigin-spatial-navigation';
import { useEffect, useId } from 'react';
import { useAddRule, useSkipJob } from '../../api/guide.queries';
import type { GuideAiring, GuideChannel, RuleBody } from '../../api/server-types';
import { ErrorNotice } from '../../components/error-notice';
import { FocusButton } from '../../components/focusable';
import { clockOf, dayOf, episodeCode, isPlaceholder } from './guide-geometry';

export type RecordChoice = 'program' | 'series' | 'new';

/** The rule each choice adds. */
export function ruleFor(choice: RecordChoice, channel: Pick<GuideChannel, 'number'>, airing: GuideAiring): RuleBody {
  // The dialog never offers it; a guard so no other caller makes a series of a channel's name.
  if (choice !== 'program' && isPlaceholder(airing))
    throw new Error('A placeholder hour is recorded by its time only.');
  if (choice === 'program')
    return { type: 'program', channel: channel.number, start_time: airing.start_time, name: airing.title };
  const series = airing.series_id ? { series_id: airing.series_id, title: airing.title } : { title: airing.title };
  return { type: 'series', ...series, ...(choice === 'new' ? { new_only: true } : {}) };
}

const DONE: Record<RecordChoice, string> = {
  program: 'will be recorded.',
  series: 'will be recorded: every episode.',
  new: 'will be recorded: new episodes only.',
};

export function ProgrammeDialog({
  channel,
  airing,
  now,
  onClose,
  onRecorded,
}: {
  channel: Pick<GuideChannel, 'number' | 'name'>;
  airing: GuideAiring;
  now: number;
  onClose: () => void;
  onRecorded: (message: string) => void;
}) {
  const id = useId();
  const addRule = useAddRule();
  const skip = useSkipJob();
  const { ref, focusKey } = useFocusable<object, HTMLDivElement>({
    isFocusBoundary: true,
    focusKey: `programme-${id}`,
  });
  useEffect(() => {
    void setFocus(focusKey);
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' || event.key === 'Backspace' || event.key === 'GoBack') {
        event.stopPropagation();
        onClose();
      }
    };
    window.addEventListener('keydown', onKey, { capture: true });
    return () => window.removeEventListener('keydown', onKey, { capture: true });
  }, [focusKey, onClose]);
  const placeholder = isPlaceholder(airing);
  const hours = `${clockOf(airing.start_time)}–${clockOf(airing.end_time)}`;
  // A placeholder's title is only its channel's name: the hour says which one was chosen.
  const what = placeholder ? `${airing.title} ${hours}` : airing.title;
  const record = (choice: RecordChoice) =>
    addRule.mutate(ruleFor(choice, channel, airing), { onSuccess: () => onRecorded(`“${what}” ${DONE[choice]}`) });
  const code = placeholder ? '' : episodeCode(airing);
  const ended = airing.end_time <= now;
  const busy = addRule.isPending || skip.isPending;
  return (
    <FocusContext.Provider value={focusKey}>
      <div className="dialog-backdrop" onClick={(event) => event.target === event.currentTarget && onClose()}>
        <div
          ref={ref}
          className="dialog programme-dialog"
          role="dialog"
          aria-modal="true"
          aria-labelledby={`${id}-title`}
        >
          <h2 id={`${id}-title`}>{airing.title}</h2>
          {placeholder ? (
            <p className="subtitle programme-placeholder">No guide data</p>
          ) : (
            (code || airing.episode_title) && (
              <p className="subtitle">{[code, airing.episode_title].filter(Boolean).join(' · ')}</p>
            )
          )}
          <p className="facts">
            {[
              `${dayOf(airing.start_time, now)} ${hours}`,
              `Channel ${channel.number} ${channel.name}`,
              !placeholder && airing.new ? 'New' : '',
            ]
              .filter(Boolean)
              .join(' · ')}
          </p>
          {airing.job_id && (
            <p className="programme-job">{airing.recording ? '● Recording now' : '● Will be recorded'}</p>
          )}
          {placeholder ? (
            <p className="summary">
              No guide describes this channel, so it is shown an hour at a time. Recording an hour records whatever the
              channel shows then.
            </p>
          ) : (
            airing.summary && <p className="summary">{airing.summary}</p>
          )}
          <div className="actions">
            {!ended && !airing.job_id && (
              <FocusButton className="primary" onClick={() => record('program')} disabled={busy}>
                {placeholder ? 'Record this hour' : 'Record this'}
              </FocusButton>
            )}
            {!placeholder && (
              <>
                <FocusButton
                  className={airing.job_id || ended ? 'primary' : undefined}
                  onClick={() => record('series')}
                  disabled={busy}
                >
                  Record series
                </FocusButton>
                <FocusButton onClick={() => record('new')} disabled={busy}>
                  Record new episodes
                </FocusButton>
              </>
            )}
            {airing.job_id && (
              <FocusButton
                onClick={() =>
                  skip.mutate(airing.job_id!, { onSuccess: () => onRecorded(`“${what}” will not be recorded.`) })
                }
                disabled={busy}
              >
                {airing.recording ? 'Stop recording' : "Don't record"}
              </FocusButton>
            )}
            <FocusButton onClick={onClose}>Close</FocusButton>
          </div>
          {addRule.error && <ErrorNotice error={addRule.error} />}
          {skip.error && <ErrorNotice error={skip.error} />}
        </div>
      </div>
    </FocusContext.Provider>
  );
}
