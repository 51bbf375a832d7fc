/**
 * The Guide section (`/guide`): the grid of channels × time, opening at now, with
 * buttons to jump through the fortnight, and a programme's details (and recording it)
 * in a dialog. What was just scheduled is announced above the grid.
 */
import { setFocus } from '@noriginmedia/norigin-spatial-navigation';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { FocusButton } from '../../components/focusable';
import { GUIDE_SPAN, originFor } from './guide-geometry';
import { cellKey, GuideGrid, type GuideGridHandle, type OpenedProgramme } from './guide-grid';
import { ProgrammeDialog } from './programme-dialog';
import './guide.css';

/** Epoch seconds now, ticking every 30 s (the now line and what is "on now" follow it). */
export function useNow(everyMs = 30_000): number {
  const [now, setNow] = useState(() => Math.floor(Date.now() / 1000));
  useEffect(() => {
    const timer = setInterval(() => setNow(Math.floor(Date.now() / 1000)), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

export function GuidePage() {
  const now = useNow();
  // The origin stays where the page opened, so the grid does not jump under the user as time passes.
  const origin = useMemo(() => originFor(Math.floor(Date.now() / 1000)), []);
  const grid = useRef<GuideGridHandle>(null);
  const [opened, setOpened] = useState<OpenedProgramme | null>(null);
  const [message, setMessage] = useState('');
  const jump = (seconds: number) =>
    grid.current?.scrollToTime(
      Math.min(origin + GUIDE_SPAN - 3 * 3600, Math.max(origin, grid.current.leftTime() + seconds)),
    );
  const close = useCallback(() => {
    const last = opened;
    setOpened(null);
    if (last) void setFocus(cellKey(last.row.channel.number, last.airing.start_time));
  }, [opened]);
  return (
    <section className="guide" aria-labelledby="guide-title">
      <div className="guide-toolbar">
        <h1 id="guide-title">Guide</h1>
        <div className="actions">
          <FocusButton onClick={() => grid.current?.scrollToTime(origin)}>Now</FocusButton>
          <FocusButton onClick={() => jump(-3 * 3600)}>‹ 3 hours</FocusButton>
          <FocusButton onClick={() => jump(3 * 3600)}>3 hours ›</FocusButton>
          <FocusButton onClick={() => jump(86400)}>Next day ›</FocusButton>
        </div>
        <p className="guide-message" role="status" aria-live="polite">
          {message}
        </p>
      </div>
      <GuideGrid ref={grid} origin={origin} now={now} onOpen={setOpened} />
      {opened && (
        <ProgrammeDialog
          channel={opened.row.channel}
          airing={opened.airing}
          now={now}
          onClose={close}
          onRecorded={(text) => {
            setMessage(text);
            close();
          }}
        />
      )}
    </section>
  );
}
