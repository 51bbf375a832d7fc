/**
 * The app as a player's screen. When `antenna player --backend browser` shows the app,
 * it adds a binding (`window.antennaPlayerEvent`) before the app loads: the app is then
 * "driven". It offers the player its control surface (`window.antennaTv`: navigate, play,
 * pause, seek, mute, captions, picture-in-picture, a notification) and tells it what
 * happens on screen, whoever made it happen (a command, or the person with the remote),
 * so interface B and the room see one state. Progress reports are then the player's.
 * The protocol is src/player/tv-page-protocol.ts.
 */
import {
  CONTROL_GLOBAL,
  EVENT_BINDING,
  type MediaRef,
  type PlayOptions,
  SECTION_PATHS,
  type TvControl,
  type TvPageEvent,
  type TvPageState,
  type TvResult,
  sectionOfPath,
  watchPath,
} from '../../../src/player/tv-page-protocol';
import { type Notice, hideNotice, showNotice, currentNotice } from './notice-store';
import { setPlayerSkipMode } from './skip-mode-store';
import { isCommercialSkipMode } from '../../../src/model/players/commercial-skip-modes';

type AppRouter = typeof import('../routes').router;

const binding = (window as unknown as Record<string, unknown>)[EVENT_BINDING];
/** A player process shows this app and listens to it. */
export const driven = typeof binding === 'function';

function emit(event: TvPageEvent): void {
  if (!driven) return;
  const sent = (binding as (event: TvPageEvent) => unknown)(event);
  // The player may be restarting: nothing to do about an event it missed.
  if (sent instanceof Promise) sent.catch(() => undefined);
}

/** What the player view registers while it shows something. */
export interface PlaySession {
  readonly playId: number;
  readonly media: MediaRef;
  readonly video: HTMLVideoElement;
  /** Shows or hides captions; undefined when there is no caption or subtitle track. */
  toggleCaptions(): boolean | undefined;
  captionsShown(): boolean;
  /** Live TV: the moment (epoch ms) on screen, when hls.js knows it. */
  clock?(): number | undefined;
  /** Asked to play, not yet playing (the video reports paused until the stream starts). */
  starting: boolean;
  error: string | null;
}

const OK: TvResult = { ok: true };
/** A seek's answer waits this long for it to land at most: the player answers its client within the second. */
const SEEK_WAIT_MS = 600;
/** How long stop waits for the player view to be gone. */
const LEAVE_WAIT_MS = 1000;
/**
 * How long a Back still on its way holds the next navigation at most (a router that never resolves it must not stop the
 * player for good).
 */
const LEAVE_SETTLE_MS = 10_000;
/** Position changes (timeupdate) are told at most this often. */
const POSITION_EVERY_MS = 500;

let router: AppRouter | undefined;
let session: PlaySession | undefined;
let nextPlayId = 1;
let muted = false;
/** Where stop returns to: the last section shown before the player view. */
let lastPagePath: string = SECTION_PATHS.Library;
/** A leave whose Back the router has not resolved yet (see leavePlayer and afterLeaving). */
let leaving: Promise<void> | undefined;
const playWaiters = new Map<number, (result: TvResult & { outcome?: 'playing' | 'loading' }) => void>();
/** When each command's play reached the page (by ticket): its first frame is timed from there. */
const askedAt = new Map<number, number>();
let lastSent = '';
let lastPositionSentAt = 0;

const finite = (value: number) => (Number.isFinite(value) ? value : undefined);

function pageState(): TvPageState {
  const path = router?.state.location.pathname ?? location.pathname;
  const section = sectionOfPath(path);
  const notice = currentNotice();
  const s = session;
  const position = s ? finite(s.video.currentTime) : undefined;
  const duration = s ? finite(s.video.duration) : undefined;
  const clock = s?.clock ? finite(s.clock() ?? Number.NaN) : undefined;
  return {
    // Later states have larger numbers, across reloads too (a new page's time origin is later).
    seq: performance.timeOrigin + performance.now(),
    path,
    ...(section ? { section } : {}),
    ...(s ? { playing: { ...s.media, playId: s.playId } } : {}),
    loaded: s !== undefined && s.error === null,
    paused: s !== undefined && s.video.paused && !s.starting,
    muted: s ? s.video.muted : muted,
    ...(position !== undefined ? { position } : {}),
    ...(duration !== undefined ? { duration } : {}),
    ...(clock !== undefined ? { clock } : {}),
    captions: s?.captionsShown() ?? false,
    pip: document.pictureInPictureElement !== null,
    ...(notice ? { notice: notice.title ? `${notice.title}: ${notice.message}` : notice.message } : {}),
  };
}

/** Tells the player the state when it changed; a moving position at most twice a second. */
export function pushState(positionOnly = false): void {
  if (!driven) return;
  const now = performance.now();
  if (positionOnly && now - lastPositionSentAt < POSITION_EVERY_MS) return;
  const state = pageState();
  const text = JSON.stringify({ ...state, seq: 0 });
  if (text === lastSent) return;
  lastSent = text;
  lastPositionSentAt = now;
  emit({ type: 'state', state });
}

// 'seeking': the position is the seek's target at once, before the stream has it.
const VIDEO_EVENTS = [
  'play',
  'pause',
  'playing',
  'seeking',
  'seeked',
  'volumechange',
  'durationchange',
  'loadedmetadata',
  'enterpictureinpicture',
  'leavepictureinpicture',
];

/**
 * The player view began to show `media`: a command's play when `ticket` is the one it
 * asked with, else the person's. Returns what to call as it goes.
 */
export function beginPlay(
  media: MediaRef,
  ticket: number | undefined,
  video: HTMLVideoElement,
  captions: Pick<PlaySession, 'toggleCaptions' | 'captionsShown' | 'clock'>,
) {
  const playing: PlaySession = { playId: nextPlayId++, media, video, ...captions, starting: true, error: null };
  session = playing;
  video.muted = muted;
  let ended = false;
  // Kept as it plays: by the time the view goes, hls.js may have emptied the video (currentTime 0).
  let position: number | undefined;
  const changed = () => {
    if (video.readyState > 0) position = finite(video.currentTime);
    // A mute from elsewhere (the picture-in-picture window) is the player's mute too.
    muted = video.muted;
    pushState();
  };
  const moved = () => {
    if (video.readyState > 0) position = finite(video.currentTime);
    pushState(true);
  };
  const started = () => {
    playing.starting = false;
    if (ticket !== undefined) playWaiters.get(ticket)?.({ ok: true, outcome: 'playing' });
    pushState();
  };
  const finish = (reason: 'eof' | 'error' | 'stopped', error?: string) => {
    if (ended) return;
    ended = true;
    emit({
      type: 'ended',
      playId: playing.playId,
      reason,
      ...(error ? { error } : {}),
      ...(position !== undefined ? { position } : {}),
    });
  };
  const reachedEnd = () => finish('eof');
  for (const name of VIDEO_EVENTS) video.addEventListener(name, changed);
  video.addEventListener('timeupdate', moved);
  video.addEventListener('playing', started);
  video.addEventListener('ended', reachedEnd);
  emit({ type: 'started', playId: playing.playId, media, ...(ticket !== undefined ? { ticket } : {}) });
  const asked = (ticket !== undefined ? askedAt.get(ticket) : undefined) ?? performance.now();
  if (ticket !== undefined) askedAt.delete(ticket);
  video.requestVideoFrameCallback(() => {
    if (!ended) emit({ type: 'shown', playId: playing.playId, afterMs: performance.now() - asked });
  });
  pushState();
  return {
    playId: playing.playId,
    /** The stream failed: playback is over, with this sentence. */
    failed(message: string) {
      playing.error = message;
      if (ticket !== undefined) playWaiters.get(ticket)?.({ ok: false, code: 'media_unavailable', message });
      finish('error', message);
      pushState();
    },
    /** The player view goes (Back, another play, a section): stopped where it was. */
    end() {
      finish('stopped');
      for (const name of VIDEO_EVENTS) video.removeEventListener(name, changed);
      video.removeEventListener('timeupdate', moved);
      video.removeEventListener('playing', started);
      video.removeEventListener('ended', reachedEnd);
      if (session === playing) session = undefined;
      pushState();
    },
    changed,
  };
}

function requireSession(): PlaySession | TvResult {
  return session && session.error === null
    ? session
    : {
        ok: false,
        code: 'nothing_playing',
        message: 'Nothing is playing: start something with /api/play/recording/{id} or /api/play/channel/{number}.',
      };
}

const isResult = (value: PlaySession | TvResult): value is TvResult => 'ok' in value;

const isWatchPath = (path: string) => path.includes('/watch/');

/**
 * Leaves the player view for the page it was opened from: Back in the history (plays
 * replace each other, so one step back is the page before them), or that page's
 * address when there is no history (the app was opened at a player's address).
 * Answers within LEAVE_WAIT_MS; a Back the router takes longer over stays pending (see
 * leaving), and a second call meanwhile joins it rather than going back twice.
 */
export async function leavePlayer(): Promise<void> {
  const appRouter = router;
  if (!appRouter) return;
  if (!leaving) {
    // Landed when the router resolves any other address: usually a section, but a Back may
    // land on another player page (a Next episode before), and must not wait 10 s there.
    const from = appRouter.state.location.href;
    const left = new Promise<void>((resolve) => {
      const timer = setTimeout(done, LEAVE_SETTLE_MS);
      const unsubscribe = appRouter.subscribe('onResolved', ({ toLocation }) => toLocation.href !== from && done());
      function done() {
        clearTimeout(timer);
        unsubscribe();
        resolve();
      }
    });
    const pending = left.then(() => {
      if (leaving === pending) leaving = undefined;
    });
    leaving = pending;
    if (appRouter.history.canGoBack()) appRouter.history.back();
    else void appRouter.navigate({ href: lastPagePath, replace: true });
  }
  await Promise.race([leaving, new Promise((resolve) => setTimeout(resolve, LEAVE_WAIT_MS))]);
}

/**
 * Before a navigation of its own, a pending leave lands: Back is asynchronous, and one
 * still on its way after a play's navigation would undo it (a stop then a play on a busy
 * box: the new item's player opened and closed at once, seen in a loaded test run).
 */
async function afterLeaving(): Promise<void> {
  if (leaving) await leaving;
}

/** Two frames: what the router rendered has been painted. */
const painted = () =>
  new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));

function waitForPlay(ticket: number, waitMs: number): Promise<TvResult & { outcome?: 'playing' | 'loading' }> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => settle({ ok: true, outcome: 'loading' }), waitMs);
    const settle = (result: TvResult & { outcome?: 'playing' | 'loading' }) => {
      clearTimeout(timer);
      playWaiters.delete(ticket);
      resolve(result);
    };
    playWaiters.set(ticket, settle);
  });
}

function once(target: EventTarget, name: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      target.removeEventListener(name, done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    target.addEventListener(name, done);
  });
}

const control: TvControl = {
  state: pageState,
  async navigate(section) {
    await afterLeaving();
    // From the player the address is replaced: Back on the section must not start the play again.
    await router?.navigate({ href: SECTION_PATHS[section], replace: isWatchPath(location.pathname) });
    await painted();
    return OK;
  },
  async play(media: MediaRef, options: PlayOptions) {
    askedAt.clear();
    askedAt.set(options.ticket, performance.now());
    const outcome = waitForPlay(options.ticket, options.waitMs);
    await afterLeaving();
    // From one play to the next the address is replaced: Back leaves the player, not zaps through old plays.
    await router?.navigate({ href: watchPath(media, options), replace: isWatchPath(location.pathname) });
    return outcome;
  },
  async stop() {
    if (!session) return { ok: false, code: 'nothing_playing', message: 'Nothing is playing.' };
    await leavePlayer();
    return OK;
  },
  setPaused(paused) {
    const s = requireSession();
    if (isResult(s)) return Promise.resolve(s);
    if (paused) {
      s.starting = false;
      s.video.pause();
    } else {
      // Not waited for: a stream still opening may take seconds, and the next command must not wait on it.
      s.video.play().catch(() => undefined);
    }
    pushState();
    return Promise.resolve(OK);
  },
  setMuted(value) {
    muted = value;
    if (session) session.video.muted = value;
    pushState();
    return OK;
  },
  async seekTo(seconds) {
    const s = requireSession();
    if (isResult(s)) return s;
    const landed = once(s.video, 'seeked', SEEK_WAIT_MS);
    s.video.currentTime = seconds;
    await landed;
    pushState();
    return OK;
  },
  toggleCaptions() {
    const s = requireSession();
    if (isResult(s)) return s;
    if (s.toggleCaptions() === undefined)
      return { ok: false, code: 'no_captions', message: 'What is playing has no caption or subtitle track.' };
    pushState();
    return OK;
  },
  async setPip(on) {
    if (!on) {
      if (document.pictureInPictureElement) await document.exitPictureInPicture();
      return OK;
    }
    const s = requireSession();
    if (isResult(s)) return s;
    if (!document.pictureInPictureEnabled)
      return { ok: false, code: 'pip_unsupported', message: 'This browser has no picture-in-picture.' };
    try {
      await s.video.requestPictureInPicture();
    } catch (error) {
      return {
        ok: false,
        code: 'pip_refused',
        message: `Picture-in-picture could not start: ${(error as Error).message}`,
      };
    }
    return OK;
  },
  notify(title, message, durationMs) {
    showNotice({ title, message } satisfies Notice, durationMs, pushState);
    pushState();
    return OK;
  },
  setCommercialSkip(mode) {
    if (!isCommercialSkipMode(mode))
      return { ok: false, code: 'bad_mode', message: `No commercial skip mode '${String(mode)}': off, ask or auto.` };
    setPlayerSkipMode(mode);
    return OK;
  },
};

/** Offers the control surface and follows the router, when a player shows the app. */
export function installBridge(appRouter: AppRouter): void {
  if (!driven) return;
  router = appRouter;
  (window as unknown as Record<string, unknown>)[CONTROL_GLOBAL] = control;
  appRouter.subscribe('onResolved', ({ toLocation }) => {
    if (!toLocation.pathname.includes('/watch/')) lastPagePath = toLocation.href;
    pushState();
  });
  window.addEventListener('pagehide', () => hideNotice());
  hidePointerWhenIdle();
  pushState();
}

const POINTER_IDLE_MS = 3000;

/**
 * A TV has a remote, not a mouse: the pointer shows only while a mouse moves (and no scrollbars at all, see styles).
 */
function hidePointerWhenIdle(): void {
  const root = document.documentElement;
  root.classList.add('player-screen', 'pointer-idle');
  let timer: ReturnType<typeof setTimeout> | undefined;
  window.addEventListener('mousemove', () => {
    root.classList.remove('pointer-idle');
    clearTimeout(timer);
    timer = setTimeout(() => root.classList.add('pointer-idle'), POINTER_IDLE_MS);
  });
}
