/**
 * Commercial auto-skip: the rules every player follows (the web app, its TV mode, the app
 * on a player's screen and the mpv player), pure so each runs the same ones.
 *
 * A break is acted on once, when playback *enters* it: it began playing at or before the
 * break's start and has played on since without a seek. So a seek into a break (the seek
 * bar, a jump of the position) never skips it, nor does a resume inside one; a break
 * whose marks arrive while playback is already in it (marks made while recording) still
 * counts as entered when playback ran into it. Once acted on, a break is left alone for
 * the rest of the play: Undo goes back to its start and watches it, and a "no thanks"
 * in Ask mode is not asked again. Marks refined later (the recording ended) overlap the
 * breaks already acted on, so those stay acted on.
 *
 * Shared by the server side and the web app (types and pure functions only).
 */

import type { CommercialSkipMode } from '../model/players/commercial-skip-modes.js';

export type { CommercialSkipMode };

export type Span = readonly [start: number, end: number];

export interface SkipState {
  /** Where playback has run from without a seek. */
  playedFrom: number;
  /** The position last seen; undefined before the first. */
  last: number | undefined;
  /** The breaks acted on (skipped, asked about, undone, or entered by a seek). */
  handled: readonly Span[];
}

export type SkipAction =
  | { kind: 'none' }
  /** Auto: seek to `span[1]` and offer Undo (back to `span[0]`). */
  | { kind: 'skip'; span: Span }
  /** Ask: offer to skip to `span[1]`. */
  | { kind: 'ask'; span: Span };

export interface PositionSeen {
  position: number;
  /** The position changed by a seek (the player knows: a command, the seek bar). */
  seeked?: boolean;
}

/** Positions further apart than this between two looks are a jump (a seek the caller did not see). */
export const DEFAULT_MAX_STEP_SECONDS = 5;
/** Started up to this far into a break still counts as entering it (a play from a break at 0 s, a late first look). */
const ENTRY_SLACK_SECONDS = 1;
/** A break ending this close ahead is not worth a skip. */
const MIN_LEFT_SECONDS = 1;

export function startSkipState(startsAt: number): SkipState {
  return { playedFrom: Math.max(0, startsAt), last: undefined, handled: [] };
}

const overlaps = (a: Span, b: Span) => a[0] < b[1] && b[0] < a[1];

/** Flat commercial marks `[start, end, start, end, ...]` as spans: a dangling start and empty spans dropped. */
export function breakSpans(marks: readonly number[] | undefined): Span[] {
  const spans: Span[] = [];
  for (let i = 0; marks && i + 1 < marks.length; i += 2) {
    const start = marks[i]!;
    const end = marks[i + 1]!;
    if (Number.isFinite(start) && Number.isFinite(end) && end > start) spans.push([start, end]);
  }
  return spans.sort((a, b) => a[0] - b[0]);
}

function isJump(state: SkipState, seen: PositionSeen, maxStep: number): boolean {
  if (seen.seeked) return true;
  if (state.last === undefined) return false;
  const step = seen.position - state.last;
  return step < -ENTRY_SLACK_SECONDS || step > maxStep;
}

/**
 * One look at the position: the state after it and what to do. `maxStepSeconds`: how far playback can move between
 * two looks without a seek (the caller's polling interval, with slack).
 */
export function onPosition(
  state: SkipState,
  spans: readonly Span[],
  seen: PositionSeen,
  mode: CommercialSkipMode,
  maxStepSeconds = DEFAULT_MAX_STEP_SECONDS,
): { state: SkipState; action: SkipAction } {
  const position = seen.position;
  if (!Number.isFinite(position)) return { state, action: { kind: 'none' } };
  const jumped = isJump(state, seen, maxStepSeconds);
  const playedFrom = jumped ? position : state.playedFrom;
  let handled = state.handled;
  let action: SkipAction = { kind: 'none' };
  const inside = spans.find(([start, end]) => position >= start && position < end);
  if (inside && !handled.some((span) => overlaps(span, inside))) {
    const entered = !jumped && inside[0] >= playedFrom - ENTRY_SLACK_SECONDS;
    if (!entered) {
      handled = [...handled, inside];
    } else if (mode !== 'off' && inside[1] - position >= MIN_LEFT_SECONDS) {
      handled = [...handled, inside];
      action = { kind: mode === 'auto' ? 'skip' : 'ask', span: inside };
    }
  }
  return { state: { playedFrom, last: position, handled }, action };
}

/** "2:30": how long a skipped break was, for "Skipped 2:30 · Undo". */
export function spanLength(span: Span): string {
  const seconds = Math.max(0, Math.round(span[1] - span[0]));
  const minutes = Math.floor(seconds / 60);
  return `${minutes}:${String(seconds % 60).padStart(2, '0')}`;
}

/** Detection states in which a recording's marks may still change (GET /dvr/files/:id's file.commercial_detection). */
const UNSETTLED = new Set(['pending', 'live', 'live_failed', 'final']);

/**
 * A recording whose commercial detection has not finished: its marks may still change, so a player reads them again
 * while it plays. An import (no detection) never changes.
 */
export function marksMayChange(item: { file?: { commercial_detection?: { state: string } | undefined } }): boolean {
  const state = item.file?.commercial_detection?.state;
  return state !== undefined && UNSETTLED.has(state);
}
