/**
 * Commercial auto-skip in the player view (a browser, TV mode and the app on a player's
 * screen alike), by the rules the mpv player follows too (src/player/commercial-skip.ts).
 * Auto jumps over a break the first time playback runs into it and offers "Skipped 2:30 ·
 * Undo" for a few seconds; Undo goes back to the break's start and leaves it be. Ask
 * offers "Skip ad" for a few seconds, focused for a remote. A seek into a break (the seek
 * bar, ±10 s) never skips it. The mode: on a player's screen its player's (told over the
 * bridge), else the household's (Settings → Players).
 */
import { setFocus } from '@noriginmedia/norigin-spatial-navigation';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { playersQueries } from '../../api/players.queries';
import type { CommercialSkipMode } from '../../api/server-types';
import { FocusButton } from '../../components/focusable';
import { useMode } from '../../components/mode';
import { driven } from '../../player-bridge/bridge';
import { playerSkipMode, subscribePlayerSkipMode } from '../../player-bridge/skip-mode-store';
import {
  type SkipState,
  type Span,
  breakSpans,
  onPosition,
  spanLength,
  startSkipState,
} from '../../../../src/player/commercial-skip';
import { DEFAULT_COMMERCIAL_SKIP } from '../../../../src/model/players/commercial-skip-modes';

/** How long "Skipped · Undo" and "Skip ad" stay offered. */
export const OFFER_MS = 8000;

export function useCommercialSkipMode(): CommercialSkipMode {
  const told = useSyncExternalStore(subscribePlayerSkipMode, playerSkipMode);
  const household = useQuery({ ...playersQueries.playback(), enabled: !driven || told === undefined });
  return (driven ? told : undefined) ?? household.data?.commercial_skip ?? DEFAULT_COMMERCIAL_SKIP;
}

type Offer = { kind: 'skipped' | 'ask'; span: Span };

/** Follows the video's position and acts on breaks; what it offers on screen (or nothing). */
export function CommercialSkip({
  video,
  marks,
  start,
  seekTo,
}: {
  video: React.RefObject<HTMLVideoElement | null>;
  marks: readonly number[] | undefined;
  start: number;
  seekTo: (seconds: number) => void;
}) {
  const mode = useMode();
  const skipMode = useCommercialSkipMode();
  const [offer, setOffer] = useState<Offer | undefined>(undefined);
  const state = useRef<SkipState>(startSkipState(start));
  const spans = useRef<Span[]>([]);
  spans.current = breakSpans(marks);
  const modeRef = useRef(skipMode);
  modeRef.current = skipMode;
  const seekToRef = useRef(seekTo);
  seekToRef.current = seekTo;

  useEffect(() => {
    const element = video.current;
    if (!element) return;
    let seeked = false;
    const onSeeking = () => {
      seeked = true;
    };
    const look = () => {
      const seen = onPosition(state.current, spans.current, { position: element.currentTime, seeked }, modeRef.current);
      seeked = false;
      state.current = seen.state;
      if (seen.action.kind === 'skip') {
        seekToRef.current(seen.action.span[1]);
        setOffer({ kind: 'skipped', span: seen.action.span });
      } else if (seen.action.kind === 'ask') setOffer({ kind: 'ask', span: seen.action.span });
    };
    element.addEventListener('seeking', onSeeking);
    element.addEventListener('timeupdate', look);
    return () => {
      element.removeEventListener('seeking', onSeeking);
      element.removeEventListener('timeupdate', look);
    };
  }, [video]);

  // An offer goes after its time, and an Ask offer once playback has left its break.
  useEffect(() => {
    if (!offer) return;
    const timer = setTimeout(() => setOffer(undefined), OFFER_MS);
    const element = video.current;
    const left = () => {
      const t = element?.currentTime ?? 0;
      if (offer.kind === 'ask' && (t < offer.span[0] || t >= offer.span[1])) setOffer(undefined);
    };
    element?.addEventListener('timeupdate', left);
    // On a TV a remote reaches the offer at once, and play/pause again after. With a keyboard the focus stays put:
    // Space would press the offer rather than pause.
    const remote = mode === 'tv' || driven;
    if (remote) void setFocus('commercial-offer');
    return () => {
      clearTimeout(timer);
      element?.removeEventListener('timeupdate', left);
      // Only a focus the offer held (it is gone from the page by now, leaving the focus nowhere) goes back.
      const focused = document.activeElement;
      if (remote && (!focused || focused === document.body || focused.closest('.commercial-offer')))
        void setFocus('player-toggle');
    };
  }, [offer, video, mode]);

  if (!offer) return null;
  const length = spanLength(offer.span);
  return (
    <div className="commercial-offer" role="status">
      {offer.kind === 'skipped' ? (
        <>
          <span>Skipped {length}</span>
          <FocusButton
            focusKey="commercial-offer"
            aria-label={`Undo: watch the ${length} break`}
            onClick={() => {
              seekTo(offer.span[0]);
              setOffer(undefined);
            }}
          >
            Undo
          </FocusButton>
        </>
      ) : (
        <FocusButton
          className="primary"
          focusKey="commercial-offer"
          aria-label={`Skip ad (${length})`}
          onClick={() => {
            seekTo(offer.span[1]);
            setOffer(undefined);
          }}
        >
          Skip ad
        </FocusButton>
      )}
    </div>
  );
}
