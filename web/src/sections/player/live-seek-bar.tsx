/**
 * Live TV's seek bar: the channel's buffer from its oldest second to live, the programmes
 * it holds (a band each, titled), the picture's place in it and the programme there, and
 * how far behind live that is (or "Live").
 */
import { formatClock } from '../../lib/item-view';
import { type LiveWindow, type ProgrammeSpan, programmeAt } from './live-window';

const timeOf = (epochSeconds: number) =>
  new Date(epochSeconds * 1000).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

export function LiveSeekBar({
  span,
  time,
  behind,
  seekTo,
  programmes,
}: {
  span: LiveWindow;
  time: number;
  behind: number;
  seekTo: (seconds: number) => void;
  programmes: readonly ProgrammeSpan[];
}) {
  const onScreen = programmeAt(programmes, span, time);
  const state = behind > 0 ? `−${formatClock(behind)} behind live` : 'Live';
  return (
    <div className="seek">
      <span className="clock">{formatClock(Math.max(0, time - span.start))}</span>
      <div className="seek-track">
        {programmes.map((programme, index) => (
          <span
            key={programme.startTime}
            className={`seek-programme${index % 2 === 1 ? ' alternate' : ''}`}
            style={{ left: `${programme.left}%`, width: `${programme.width}%` }}
            title={`${programme.title} · ${timeOf(programme.startTime)}–${timeOf(programme.endTime)}`}
            data-title={programme.title}
          />
        ))}
        <input
          type="range"
          aria-label="Position in the live buffer"
          aria-valuetext={onScreen ? `${onScreen.title}, ${state}` : state}
          min={Math.floor(span.start)}
          max={Math.floor(span.end)}
          step={1}
          value={Math.floor(time)}
          onChange={(event) => seekTo(Number(event.target.value))}
        />
      </div>
      <span className="clock live-state" aria-live="polite">
        {onScreen && behind > 0 ? <span className="seek-programme-title">{onScreen.title} · </span> : null}
        {state}
      </span>
    </div>
  );
}
