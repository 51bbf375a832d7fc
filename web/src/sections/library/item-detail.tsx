/**
 * One episode, movie or video: what it is, where playback stands, and what can be done
 * with it: play or resume, mark watched or unwatched, favorite, and for a recording
 * the DVR made, delete it (after asking).
 */
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { setFocus } from '@noriginmedia/norigin-spatial-navigation';
import { useEffect, useState } from 'react';
import { libraryQueries } from '../../api/library.queries';
import { useItemChanges } from '../../api/library.mutations';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorNotice, Loading } from '../../components/error-notice';
import { FocusButton, FocusGroup, FocusLink } from '../../components/focusable';
import { PlayOnButton } from '../../components/play-on';
import { useMode } from '../../components/mode';
import {
  commercialDetectionText,
  formatClock,
  formatDate,
  formatDuration,
  itemSubtitle,
  itemTitle,
  kindOf,
  progressShare,
} from '../../lib/item-view';
import { mediaRows } from '../../lib/media-view';
import { resumePoint } from '../../../../src/player/player-state';
import { useRecordingNow } from './library-lists';

export function ItemDetailPage({ id }: { id: string }) {
  const mode = useMode();
  const navigate = useNavigate();
  const item = useQuery(libraryQueries.file(id));
  const changes = useItemChanges(id);
  const recordingNow = useRecordingNow();
  const [confirming, setConfirming] = useState(false);
  const loaded = item.isSuccess;
  // A remote lands on Play (or Resume), the thing one most likely wants here.
  useEffect(() => {
    if (loaded) void setFocus(`item-actions-${id}`);
  }, [loaded, id]);
  if (item.isPending) return <Loading what="the item" />;
  if (item.isError) return <ErrorNotice error={item.error} retry={() => void item.refetch()} />;
  const data = item.data;
  const isRecording = data.JobID !== '';
  const resume = resumePoint(data.playback_time, data.duration || undefined);
  const failure = changes.watched.error ?? changes.favorite.error ?? changes.remove.error;
  const summary = ('full_summary' in data ? data.full_summary : undefined) ?? data.summary;
  const commercialNote = commercialDetectionText(
    data.file.commercial_detection,
    'commercials' in data ? data.commercials : undefined,
  );
  return (
    <article className="item-detail" aria-labelledby="item-title">
      <div className="detail-header">
        {(data.image_url ?? data.thumbnail_url) && (
          <img
            className={kindOf(data) === 'movie' ? 'detail-poster' : 'detail-thumb'}
            src={data.thumbnail_url ?? data.image_url}
            alt=""
          />
        )}
        <div>
          <h2 id="item-title">{itemTitle(data)}</h2>
          <p className="subtitle">{itemSubtitle(data)}</p>
          <p className="facts">
            {[
              formatDuration(data.duration),
              'original_air_date' in data ? formatDate(data.original_air_date) : '',
              isRecording ? 'Recording' : '',
              recordingNow.has(id) ? 'Recording now' : '',
              data.watched ? 'Watched' : '',
            ]
              .filter(Boolean)
              .join(' · ')}
          </p>
          {progressShare(data) > 0 && progressShare(data) < 1 && (
            <p className="facts">Stopped at {formatClock(data.playback_time)}</p>
          )}
          {commercialNote && <p className="facts commercial-state">{commercialNote}</p>}
          {summary && <p className="summary">{summary}</p>}
          {mediaRows(data.file.media).length > 0 && (
            <dl className="media-facts" aria-label="What the file holds">
              {mediaRows(data.file.media).map(([label, text]) => (
                <div key={label}>
                  <dt>{label}</dt>
                  <dd>{text}</dd>
                </div>
              ))}
            </dl>
          )}
          <FocusGroup className="actions" focusKey={`item-actions-${id}`}>
            {resume !== undefined && (
              <FocusLink
                to="/{-$mode}/watch/$id"
                params={{ mode, id }}
                search={{ start: resume }}
                className="button primary"
              >
                Resume from {formatClock(resume)}
              </FocusLink>
            )}
            <FocusLink
              to="/{-$mode}/watch/$id"
              params={{ mode, id }}
              search={{ start: 0 }}
              className={resume === undefined ? 'button primary' : 'button'}
            >
              {resume === undefined ? 'Play' : 'Play from the start'}
            </FocusLink>
            <FocusButton onClick={() => changes.watched.mutate(!data.watched)} disabled={changes.watched.isPending}>
              {data.watched ? 'Mark unwatched' : 'Mark watched'}
            </FocusButton>
            <FocusButton
              onClick={() => changes.favorite.mutate(!data.favorited)}
              aria-pressed={Boolean(data.favorited)}
              disabled={changes.favorite.isPending}
            >
              {data.favorited ? 'Unfavorite' : 'Favorite'}
            </FocusButton>
            <PlayOnButton what={{ item_id: id }} label={itemTitle(data)} />
            {isRecording && (
              <FocusButton className="danger" onClick={() => setConfirming(true)}>
                Delete recording
              </FocusButton>
            )}
          </FocusGroup>
          {failure && <ErrorNotice error={failure} />}
        </div>
      </div>
      {confirming && (
        <ConfirmDialog
          title="Delete this recording?"
          body={`“${itemTitle(data)}${itemSubtitle(data) ? ` – ${itemSubtitle(data)}` : ''}” and its file will be deleted. This cannot be undone.`}
          confirm="Delete"
          busy={changes.remove.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={() =>
            changes.remove.mutate(undefined, {
              onSuccess: () => void navigate({ to: '/{-$mode}/library/recordings', params: { mode } }),
              onSettled: () => setConfirming(false),
            })
          }
        />
      )}
    </article>
  );
}
