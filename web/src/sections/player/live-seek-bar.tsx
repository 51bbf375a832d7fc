/**
 * Live TV's seek bar: the channel's buffer from its oldest second to live, the picture's
 * place in it, and how far behind live that is (or "Live").
 */
import { formatClock } from '../../lib/item-view';
import type { LiveWindow } from './live-window';

export function LiveSeekBar({
  span,
  time,
  behind,
  seekTo,
}: {
  span: LiveWindow;
  time: number;
  behind: number;
  seekTo: (seconds: number) => void;
}) {
  return (
    <div className="seek">
      <span className="clock">{formatClock(Math.max(0, time - span.start))}</span>
      <div className="seek-track">
        <input
          type="range"
          aria-label="Position in the live buffer"
          min={Math.floor(span.start)}
          max={Math.floor(span.end)}
          step={1}
          value={Math.floor(time)}
          onChange={(event) => seekTo(Number(event.target.value))}
        />
      </div>
      <span className="clock live-state" aria-live="polite">
        {behind > 0 ? `−${formatClock(behind)} behind live` : 'Live'}
      </span>
    </div>
  );
}
