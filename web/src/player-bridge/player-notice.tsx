/** The notification over everything on screen, while there is one (see notice-store). */
import { useSyncExternalStore } from 'react';
import { currentNotice, subscribeNotice } from './notice-store';

export function PlayerNotice() {
  const notice = useSyncExternalStore(subscribeNotice, currentNotice);
  if (!notice) return null;
  return (
    <div className="player-notice" role="status" aria-live="polite">
      {notice.title && <strong>{notice.title}</strong>}
      <span>{notice.message}</span>
    </div>
  );
}
