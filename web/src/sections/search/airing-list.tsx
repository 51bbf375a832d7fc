/**
 * Guide programmes a search found: when and where each airs, whether a job records it,
 * and what can be done with it: watch the channel if it is on now, or record it (a
 * `program` rule for that airing).
 */
import { useRuleChanges } from '../../api/dvr.mutations';
import type { GuideMatch } from '../../api/server-types';
import { ErrorNotice } from '../../components/error-notice';
import { FocusButton, FocusGroup, FocusLink } from '../../components/focusable';
import { useMode } from '../../components/mode';
import {
  RECORDING_LABELS,
  airingWhen,
  canRecord,
  programRuleFor,
  programmeSubtitle,
  recordingState,
} from './search-view';

export function AiringList({ programmes }: { programmes: readonly GuideMatch[] }) {
  const now = Date.now() / 1000;
  return (
    <div className="search-airings" role="list" aria-label="On TV">
      {programmes.map((match) => (
        <AiringRow key={`${match.channel}@${match.start_time}`} match={match} now={now} />
      ))}
    </div>
  );
}

function AiringRow({ match, now }: { match: GuideMatch; now: number }) {
  const mode = useMode();
  const { save } = useRuleChanges();
  const state = recordingState(match);
  const subtitle = programmeSubtitle(match);
  return (
    <div role="listitem" className={`search-airing${match.on_now ? ' search-airing-now' : ''}`}>
      <div className="search-airing-when">
        <span>{airingWhen(match.start_time, match.end_time, now)}</span>
        <span className="search-airing-channel">
          {match.channel}
          {match.channel_name ? ` · ${match.channel_name}` : ''}
        </span>
      </div>
      <div className="search-airing-title">
        <strong>{match.title}</strong>
        {subtitle && <span>{subtitle}</span>}
      </div>
      <FocusGroup className="actions search-airing-actions">
        {state !== 'none' && <span className={`badge badge-${state}`}>{RECORDING_LABELS[state]}</span>}
        {match.on_now && (
          <FocusLink
            to="/{-$mode}/watch/channel/$number"
            params={{ mode, number: match.channel }}
            className="button"
            aria-label={`Watch ${match.title} on channel ${match.channel}`}
          >
            Watch
          </FocusLink>
        )}
        {canRecord(match) && (
          <FocusButton
            className="primary"
            disabled={save.isPending}
            onClick={() => save.mutate({ body: programRuleFor(match) })}
            aria-label={`Record ${match.title}, ${airingWhen(match.start_time, match.end_time, now)}`}
          >
            {save.isPending ? 'Saving…' : 'Record'}
          </FocusButton>
        )}
      </FocusGroup>
      {save.isError && <ErrorNotice error={save.error} retry={() => save.mutate({ body: programRuleFor(match) })} />}
    </div>
  );
}
