/**
 * What the player service needs from whatever shows the video: mpv (headless boxes) or
 * the Antenna app in a kiosk Chromium (a TV). A backend plays one thing at a time,
 * mirrors its state without I/O (`state()`, for status reads), and reads it back from
 * the real player on demand (`readBack()`, after each command). This seam is the only
 * place the two differ: the service, the routes and the state rules do not know which runs.
 */
import type { EventEmitter } from 'node:events';
import type { Section } from './sections.js';
import type { MediaRef } from './tv-page-protocol.js';
import type { CommercialSkipMode } from '../model/players/commercial-skip-modes.js';

export type { MediaRef };

/** The media could not be opened (a 404 stream, an unreadable file). */
export class MediaLoadError extends Error {
  override readonly name = 'MediaLoadError';
}

export interface MediaState {
  /** The backend's player runs and takes commands (false while mpv restarts). */
  available: boolean;
  /** Something is loaded (playing or paused); false when idle. */
  loaded: boolean;
  paused: boolean;
  muted: boolean;
  /** Seconds into what is loaded. */
  position?: number;
  /** Seconds, when the player knows it (not for live streams). */
  duration?: number;
  /** The small always-on-top window instead of fullscreen. */
  pip: boolean;
  /** Live TV where the backend knows it: the moment (epoch ms) of the frame at `position` (the app's hls.js). */
  clock?: number;
}

export const IDLE_STATE: MediaState = { available: false, loaded: false, paused: false, muted: false, pip: false };

export interface LoadOptions {
  /** What `url` is in the library's terms (the app plays that by its own route). */
  media: MediaRef;
  /** Seconds to start at (resume). */
  start?: number;
  /** The title the player shows for it. */
  title?: string;
  /** Give up waiting for the media to open after this long and answer 'loading' (it goes on). */
  waitMs: number;
  /** The caller's name for this load, given back in `ended`, so an end that arrives late is known for whose it is. */
  tag: number;
  /** A live playlist to play from its first segment, not near its end (the URL says where it begins: `?from=`). */
  fromFirstSegment?: boolean;
}

/**
 * Why playback ended without a command: the end of the media, an error opening or
 * reading it, or the person at the device stopped it (Back on the remote).
 */
export interface Ended {
  reason: 'eof' | 'error' | 'stopped';
  error?: string;
  /** Seconds reached before the end, when known. */
  position?: number;
  /** The `tag` of the load that ended. */
  tag: number | undefined;
}

/** Something the person at the device started playing there (not by a command). */
export interface Played {
  media: MediaRef;
  /** The backend's own tag for it, negative so it is never one of the caller's; `ended` gives it back. */
  tag: number;
}

export interface BackendEvents {
  /** What was loaded ended by itself (not by a command). */
  ended: [ended: Ended];
  /** The person at the device started playing something there. */
  played: [played: Played];
  /** The backend's player went away (it is being restarted); `position` is the last one it reported. */
  down: [reason: string, position: number | undefined];
}

export interface PlayerBackend extends EventEmitter<BackendEvents> {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  state(): MediaState;
  readBack(): Promise<MediaState>;
  /** Resolves once playing, or when `waitMs` has passed (the load goes on); rejects when the media cannot be opened. */
  load(url: string, options: LoadOptions): Promise<void>;
  unload(): Promise<void>;
  setPaused(paused: boolean): Promise<void>;
  setMuted(muted: boolean): Promise<void>;
  /** Absolute position in seconds; the caller has clamped it. */
  seekTo(seconds: number): Promise<void>;
  /**
   * Live TV played from a URL the player chose (mpv): the service picks where it starts (`fromFirstSegment`) and
   * reloads to reach what the backend does not hold. Without it (the app), the backend plays the channel's whole
   * buffer itself and reports its clock.
   */
  readonly liveByUrl?: boolean;
  /** Seeks to `seconds` when the backend holds it (a live stream's cache), and says whether it did. */
  seekWithinHeld?(seconds: number): Promise<boolean>;
  /** The backend skips commercials itself (the app on a TV, in its player view); told the mode by setCommercialSkip. */
  readonly skipsCommercials?: boolean;
  setCommercialSkip?(mode: CommercialSkipMode): void;
  /** Shows or hides captions; selects the first caption track when none is. */
  toggleCaptions(): Promise<void>;
  setPip(on: boolean): Promise<void>;
  showMessage(title: string, message: string, durationMs: number): Promise<void>;
  navigate(section: Section): Promise<void>;
}
