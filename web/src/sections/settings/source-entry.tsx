/**
 * One source or guide in Settings' lists: what it is (the caller's lines), how its last
 * refresh went, its own Refresh, and Remove. A refresh the server held back because it
 * would empty the source or guide or remove more than half of it shows its reason and
 * Apply anyway, which asks first and then refreshes again with `accept`. The lists do
 * not say whether a stored error is such a hold (only a refresh's answer does), so
 * Apply anyway appears once this page has seen the answer: from this Refresh, or from
 * Refresh now.
 */
import { setFocus } from '@noriginmedia/norigin-spatial-navigation';
import { type ReactNode, useEffect, useState } from 'react';
import { useEntryRefresh } from '../../api/dvr.mutations';
import type { GuideRefresh, SourceRefresh } from '../../api/server-types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorNotice } from '../../components/error-notice';
import { FocusButton } from '../../components/focusable';
import { ago, freshness, readableReason } from './settings-view';

export type RefreshAnswer = SourceRefresh | GuideRefresh;

export interface EntryProps {
  kind: 'source' | 'guide';
  id: string;
  /** As the list shows it. */
  name: string;
  /** As the server's messages name it (they begin "<prefix>: "). */
  prefix: string;
  state: { refreshed_at?: number | undefined; error?: string | undefined; needs_confirmation?: boolean | undefined };
  /** The last refresh answer this page saw for it, if any. */
  answer: RefreshAnswer | undefined;
  onAnswer: (answer: RefreshAnswer) => void;
  onRemove: () => void;
  children: ReactNode;
}

const read = (answer: RefreshAnswer) => {
  const count = 'channels' in answer ? answer.channels : 'programmes' in answer ? answer.programmes : undefined;
  const what = 'channels' in answer ? 'channel' : 'programme';
  return count === undefined ? 'Refreshed.' : `Refreshed: ${count} ${what}${count === 1 ? '' : 's'}.`;
};

export function SourceEntry({ kind, id, name, prefix, state, answer, onAnswer, onRemove, children }: EntryProps) {
  const refresh = useEntryRefresh(kind);
  const [confirming, setConfirming] = useState(false);
  const [refocus, setRefocus] = useState(false);
  const focusKey = `refresh-${kind}-${id}`;
  // The dialog took the focus; a remote carries on from this entry's Refresh, not from nowhere. Once the
  // request is over, as Refresh cannot take the focus while disabled (this runs after it is enabled again).
  useEffect(() => {
    if (!refocus || refresh.isPending) return;
    setRefocus(false);
    void setFocus(focusKey);
  }, [refocus, refresh.isPending, focusKey]);
  // Only while the list still carries the error: once a later refresh applied (this one or the server's own), it is
  // over.
  // The list says so itself for a refresh this page did not make (the server's scheduled one, or before a reload).
  const held =
    answer?.needs_confirmation && answer.error !== undefined && state.error !== undefined
      ? answer.error
      : state.needs_confirmation && state.error !== undefined
        ? state.error
        : undefined;
  const close = () => {
    setConfirming(false);
    setRefocus(true);
  };
  const run = (accept: boolean) =>
    refresh.mutate({ id, accept }, { onSuccess: onAnswer, onSettled: accept ? close : undefined });
  const applied = answer && answer.error === undefined ? read(answer) : undefined;
  return (
    <li className={`entry${state.error ? ' entry-failed' : ''}`}>
      <div className="entry-what">
        {children}
        {held === undefined ? (
          <span className={state.error ? 'entry-error' : 'entry-detail'}>{freshness(state, Date.now(), prefix)}</span>
        ) : (
          <div className="entry-held" role="status">
            <p>
              This refresh was held back: {readableReason(held, prefix)}.
              {state.refreshed_at !== undefined ? ` What was read ${ago(state.refreshed_at)} is kept.` : ''}
            </p>
            <FocusButton
              className="primary"
              onClick={() => setConfirming(true)}
              disabled={refresh.isPending}
              aria-label={`Apply anyway: the refresh of ${name}`}
            >
              Apply anyway
            </FocusButton>
          </div>
        )}
        {applied && (
          <span className="entry-detail" role="status">
            {applied}
          </span>
        )}
        {refresh.error && <ErrorNotice error={refresh.error} />}
      </div>
      <div className="entry-actions">
        <FocusButton
          focusKey={focusKey}
          onClick={() => run(false)}
          disabled={refresh.isPending}
          aria-label={`Refresh ${kind} ${name}`}
        >
          {refresh.isPending && !confirming ? 'Refreshing…' : 'Refresh'}
        </FocusButton>
        <FocusButton className="danger" onClick={onRemove} aria-label={`Remove ${kind} ${name}`}>
          Remove
        </FocusButton>
      </div>
      {confirming && held !== undefined && (
        <ConfirmDialog
          title={kind === 'source' ? 'Apply this source’s refresh?' : 'Apply this guide’s refresh?'}
          body={`“${name}”: ${readableReason(held, prefix)}. Apply anyway reads it again and applies what it reads, however much that removes: ${
            kind === 'source'
              ? 'recordings planned on channels that go are planned again without them.'
              : 'passes plan again from the programmes left.'
          }`}
          confirm={refresh.isPending ? 'Applying…' : 'Apply anyway'}
          busy={refresh.isPending}
          onCancel={close}
          onConfirm={() => run(true)}
        />
      )}
    </li>
  );
}
