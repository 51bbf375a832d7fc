/**
 * What the browser backend (this process) and the Antenna app in its kiosk Chromium say
 * to each other. The process calls the page's control surface, `window.antennaTv`, over
 * the DevTools protocol; the page tells the process what happened (a play started or
 * ended, its state changed because someone pressed a key) by calling
 * `window.antennaPlayerEvent`, a binding the process adds before the app loads. The app is
 * "driven" only when that binding is there: it then leaves progress reports to the
 * process, so both backends report through one reporter.
 *
 * Shared by the server side and the web app (types and pure functions only).
 */
import type { MediaState } from './player-backend.js';
import type { CommercialSkipMode } from '../model/players/commercial-skip-modes.js';
import { type Section, SECTIONS } from './sections.js';

/** What is played, in the library's terms (the app plays it through HLS by these). */
export type MediaRef = { kind: 'item'; id: string } | { kind: 'channel'; number: string };

export const CONTROL_GLOBAL = 'antennaTv';
export const EVENT_BINDING = 'antennaPlayerEvent';

export interface TvPageState {
  /** Counts up with every state the page makes: of two states, the later one wins, whatever order they arrive in. */
  seq: number;
  /** The app's path now, such as /tv/guide. */
  path: string;
  /** The interface-B section shown, when one is. */
  section?: Section;
  /** What the player view plays (its play number is the page's own); absent anywhere else. */
  playing?: MediaRef & { playId: number };
  /** The player view shows something that plays or is paused (not failed). */
  loaded: boolean;
  paused: boolean;
  muted: boolean;
  position?: number;
  duration?: number;
  /** Live TV: the moment (epoch ms) of the frame at `position` (hls.js's program date-time). */
  clock?: number;
  captions: boolean;
  pip: boolean;
  /** The notification on screen now, if any. */
  notice?: string;
}

export type TvPageEvent =
  | { type: 'state'; state: TvPageState }
  /** The player view began to play: `ticket` is the command's, when a command started it (absent: the user did). */
  | { type: 'started'; playId: number; media: MediaRef; ticket?: number }
  | { type: 'ended'; playId: number; reason: 'eof' | 'error' | 'stopped'; error?: string; position?: number }
  /**
   * The play's first frame is on screen, `afterMs` after it was asked for (the command reached the page, or the view
   * opened).
   */
  | { type: 'shown'; playId: number; afterMs: number };

/** What a control call answers: done, or why it did nothing (`code` as interface B's no-effect codes). */
export type TvResult = { ok: true } | { ok: false; code: string; message: string };

export interface PlayOptions {
  start?: number;
  /** The command's number for this play (the backend's load tag), given back in `started`. */
  ticket: number;
  /** Answer 'loading' if it has not started playing by then. */
  waitMs: number;
}

export interface TvControl {
  state(): TvPageState;
  /** Resolves once the section is on screen. */
  navigate(section: Section): Promise<TvResult>;
  play(media: MediaRef, options: PlayOptions): Promise<TvResult & { outcome?: 'playing' | 'loading' }>;
  /** Leaves the player view for the section shown before it. */
  stop(): Promise<TvResult>;
  setPaused(paused: boolean): Promise<TvResult>;
  setMuted(muted: boolean): TvResult;
  /** Resolves once the seek has landed (or after a short wait). */
  seekTo(seconds: number): Promise<TvResult>;
  toggleCaptions(): TvResult;
  setPip(on: boolean): Promise<TvResult>;
  notify(title: string, message: string, durationMs: number): TvResult;
  /** What the player view does at a commercial break on this player (its server says, at each heartbeat). */
  setCommercialSkip(mode: CommercialSkipMode): TvResult;
}

/** Where each section is in the app's TV mode. */
export const SECTION_PATHS: Record<Section, string> = {
  Guide: '/tv/guide',
  Library: '/tv/library/recordings',
  'Live TV': '/tv/live',
  Search: '/tv/search',
};

const SECTION_PREFIXES: ReadonlyArray<[string, Section]> = [
  ['/guide', 'Guide'],
  ['/library', 'Library'],
  ['/live', 'Live TV'],
  ['/search', 'Search'],
];

/** The section a path of the app shows (with or without the /tv prefix), if it is one of interface B's. */
export function sectionOfPath(path: string): Section | undefined {
  const rest = path.replace(/^\/tv(?=\/|$)/, '');
  for (const [prefix, section] of SECTION_PREFIXES) {
    if (rest === prefix || rest.startsWith(`${prefix}/`)) return section;
  }
  return undefined;
}

/** The app's address for playing `media` in TV mode; `ticket` makes a repeated command start it again. */
export function watchPath(
  media: MediaRef,
  options: { start?: number | undefined; ticket?: number | undefined } = {},
): string {
  const query = new URLSearchParams();
  if (media.kind === 'item' && options.start !== undefined && options.start > 0)
    query.set('start', String(Math.floor(options.start)));
  if (options.ticket !== undefined) query.set('t', String(options.ticket));
  const search = query.size > 0 ? `?${query.toString()}` : '';
  return media.kind === 'item'
    ? `/tv/watch/${encodeURIComponent(media.id)}${search}`
    : `/tv/watch/channel/${encodeURIComponent(media.number)}${search}`;
}

/** The status-relevant part of the page's state, as every backend reports it. */
export function mediaStateOf(state: TvPageState | undefined, available: boolean): MediaState {
  if (!state || !available)
    return { available, loaded: false, paused: false, muted: state?.muted ?? false, pip: false };
  const loaded = state.loaded && state.playing !== undefined;
  return {
    available,
    loaded,
    paused: loaded && state.paused,
    muted: state.muted,
    ...(loaded && state.position !== undefined ? { position: state.position } : {}),
    ...(loaded && state.duration !== undefined ? { duration: state.duration } : {}),
    ...(loaded && state.clock !== undefined ? { clock: state.clock } : {}),
    pip: state.pip,
  };
}

export const sameMedia = (a: MediaRef, b: MediaRef): boolean =>
  a.kind === 'item' ? b.kind === 'item' && a.id === b.id : b.kind === 'channel' && a.number === b.number;

export const isSection = (value: unknown): value is Section => (SECTIONS as readonly unknown[]).includes(value);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const optionalNumber = (value: unknown) => value === undefined || (typeof value === 'number' && Number.isFinite(value));

function isMediaRef(value: unknown): value is MediaRef {
  if (!isObject(value)) return false;
  return (
    (value.kind === 'item' && typeof value.id === 'string') ||
    (value.kind === 'channel' && typeof value.number === 'string')
  );
}

/** Whether the page's answer of `state()` (or a state event) has the protocol's shape. */
export function isPageState(value: unknown): value is TvPageState {
  if (!isObject(value) || typeof value.seq !== 'number') return false;
  const flags = ['loaded', 'paused', 'muted', 'captions', 'pip'].every((key) => typeof value[key] === 'boolean');
  const playing =
    value.playing === undefined ||
    (isMediaRef(value.playing) && typeof (value.playing as { playId?: unknown }).playId === 'number');
  return (
    typeof value.path === 'string' &&
    flags &&
    playing &&
    optionalNumber(value.position) &&
    optionalNumber(value.clock) &&
    optionalNumber(value.duration) &&
    (value.section === undefined || isSection(value.section))
  );
}

/** Whether a control call's answer has the protocol's shape. */
export function isTvResult(value: unknown): value is TvResult {
  if (!isObject(value)) return false;
  return (
    value.ok === true || (value.ok === false && typeof value.code === 'string' && typeof value.message === 'string')
  );
}

/**
 * Whether what the page sent is an event of this protocol. The page comes from a server
 * on the network: anything else it sends is ignored, never trusted.
 */
export function isTvPageEvent(value: unknown): value is TvPageEvent {
  if (!isObject(value) || (value.type !== 'state' && typeof value.playId !== 'number')) return false;
  switch (value.type) {
    case 'state':
      return isPageState(value.state);
    case 'started':
      return isMediaRef(value.media) && optionalNumber(value.ticket);
    case 'ended':
      return (
        ['eof', 'error', 'stopped'].includes(value.reason as string) &&
        optionalNumber(value.position) &&
        (value.error === undefined || typeof value.error === 'string')
      );
    case 'shown':
      return typeof value.afterMs === 'number' && Number.isFinite(value.afterMs);
    default:
      return false;
  }
}
