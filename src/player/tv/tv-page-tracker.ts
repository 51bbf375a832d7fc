/**
 * The browser backend's book of what the app's page plays, apart from Chromium's
 * handling so its rules can be tested alone: which play in the page is the current
 * command's (it carries the command's ticket), which a superseded command's (another
 * ticket while a later command is under way), which the person's at the TV (no ticket,
 * or an old one with no command under way); the
 * latest state the page sent (the later one wins, whatever order they arrive in); and
 * the mirror the status is read from, which shows only the play the service follows.
 */
import { EventEmitter } from 'node:events';
import type { Ended, MediaState, Played } from '../player-backend.js';
import { type MediaRef, type TvPageEvent, type TvPageState, mediaStateOf, sameMedia } from '../tv-page-protocol.js';

export interface TrackerEvents {
  ended: [ended: Ended];
  played: [played: Played];
}

export class TvPageTracker extends EventEmitter<TrackerEvents> {
  private pageState: TvPageState | undefined;
  private ready = false;
  /** What the page plays for the service: a command's load (its tag) or the person's play (a tag of ours, negative). */
  private current: { media: MediaRef; tag: number; playId?: number } | undefined;
  /** Plays of superseded commands still in the page: their end is not the service's business. */
  private readonly stalePlays = new Set<number>();
  private nextOwnTag = -1;
  private mirror: MediaState = mediaStateOf(undefined, false);
  /** The last position of the play followed, kept past its end (the page's video is emptied by then). */
  lastPosition: number | undefined;

  state(): MediaState {
    return this.mirror;
  }

  /** The page's control surface answers (or no longer does). */
  setReady(ready: boolean): void {
    this.ready = ready;
    this.recompute();
  }

  /** What the current play is, for logs. */
  currentMedia(playId: number): MediaRef | undefined {
    return this.current?.playId === playId ? this.current.media : undefined;
  }

  /** A command asks the page to play `media`; its plays carry `tag` as their ticket. */
  commandStarts(media: MediaRef, tag: number): void {
    this.current = { media, tag };
    this.lastPosition = undefined;
    this.recompute();
  }

  /** The command's play did not happen (refused, or the page did not answer). */
  commandFailed(tag: number): void {
    if (this.current?.tag === tag) this.current = undefined;
    this.recompute();
  }

  /** A command stops what plays: its end in the page is not an end to report. */
  unloaded(): void {
    this.current = undefined;
    this.recompute();
  }

  /** The page went (Chromium died, a reload): everything it played is gone. Says whether something was playing. */
  reset(): boolean {
    const hadPlay = this.current !== undefined;
    this.ready = false;
    this.pageState = undefined;
    this.current = undefined;
    this.stalePlays.clear();
    this.recompute();
    return hadPlay;
  }

  /** An event from the page (already checked against the protocol). */
  event(event: TvPageEvent): void {
    if (event.type === 'state') this.takeState(event.state);
    else if (event.type === 'started') this.started(event.playId, event.media, event.ticket);
    else if (event.type === 'ended') this.ended(event);
  }

  /** The later of two states wins, whichever order an event and a read-back arrive in. */
  takeState(state: TvPageState): void {
    if (this.pageState && state.seq < this.pageState.seq) return;
    this.pageState = state;
    this.recompute();
  }

  private started(playId: number, media: MediaRef, ticket: number | undefined): void {
    const current = this.current;
    // With no command under way, a play with an old ticket (the history's Forward, a command
    // that timed out but went on) is one the person sees: it is followed as theirs.
    if (ticket !== undefined && current) {
      if (ticket === current.tag && sameMedia(current.media, media)) current.playId = playId;
      else this.stalePlays.add(playId);
      this.recompute();
      return;
    }
    const tag = this.nextOwnTag--;
    this.current = { media, tag, playId };
    this.lastPosition = undefined;
    this.recompute();
    this.emit('played', { media, tag });
  }

  private ended(event: Extract<TvPageEvent, { type: 'ended' }>): void {
    if (this.stalePlays.delete(event.playId) || this.current?.playId !== event.playId) return;
    const { tag } = this.current;
    this.current = undefined;
    this.recompute();
    const position = event.position ?? this.lastPosition;
    this.emit('ended', {
      reason: event.reason,
      tag,
      ...(event.error ? { error: event.error } : {}),
      ...(position !== undefined ? { position } : {}),
    });
  }

  /** The page may still show the play before a command's: the mirror shows only the one followed. */
  private recompute(): void {
    const state = this.pageState;
    const ours = state?.playing !== undefined && state.playing.playId === this.current?.playId;
    this.mirror = mediaStateOf(state && !ours ? { ...state, playing: undefined, loaded: false } : state, this.ready);
    if (this.mirror.position !== undefined) this.lastPosition = this.mirror.position;
  }
}
