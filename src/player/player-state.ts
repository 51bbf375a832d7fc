/**
 * The player's own state and the pure rules over it: what is current (an item from
 * the library or a channel), the previous channel, the status answer built from this
 * state and what the backend reports, channel walking, seek and chapter-mark targets,
 * and when a position counts as watched. Playing/paused/stopped, mute, captions and
 * picture-in-picture are read from the backend (mpv), never assumed.
 */
import type { MediaState } from './player-backend.js';

export interface TunedChannel {
  number: string;
  name: string;
  image_url?: string;
}

export interface NowPlaying {
  title?: string;
  episode_title?: string;
  season_number?: number;
  episode_number?: number;
  summary?: string;
  image_url?: string;
  duration?: number;
  type?: 'movie' | 'episode' | 'video' | 'live';
}

export interface PlayingItem {
  kind: 'item';
  id: string;
  nowPlaying: NowPlaying;
  /** Chapter marks for skip_forward/backward: commercial boundaries, else the file's chapters (seconds, ascending). */
  marks: number[];
  /** The load that started it (see LoadOptions.tag). */
  tag: number;
  /** Watched has been reported for this playing: no more positions (they would set a resume point again). */
  watchedReported: boolean;
}

export interface PlayingChannel {
  kind: 'channel';
  channel: TunedChannel;
  nowPlaying: NowPlaying;
  tag: number;
  /** When the guide's programme ends (epoch seconds): now_playing is looked up again then. */
  programmeEnds?: number;
  /** When it began (epoch seconds): start over goes there. */
  programmeStarts?: number;
  /**
   * Played from a URL the player chose (mpv): the moment asked for (`from`, epoch ms) and the start of the segment the
   * playlist begins with (`origin`), once the server said.
   */
  live?: { from: number; origin?: number };
}

export type Current = PlayingItem | PlayingChannel;

export interface PlayerState {
  current?: Current;
  /** The channel before the current one, for previous_channel. */
  previousChannel?: TunedChannel;
}

export interface PlayerStatus {
  status: 'playing' | 'paused' | 'stopped';
  muted: boolean;
  channel?: TunedChannel;
  now_playing?: NowPlaying;
  playback_time?: number;
}

/** The status answer: state of the media from the backend, what it is from the player's state. */
export function statusBody(state: PlayerState, media: MediaState): PlayerStatus {
  const status = !media.loaded ? 'stopped' : media.paused ? 'paused' : 'playing';
  const body: PlayerStatus = { status, muted: media.muted };
  if (!media.loaded) return body;
  const current = state.current;
  if (current?.kind === 'channel') body.channel = current.channel;
  if (current) {
    const duration = current.nowPlaying.duration ?? (current.kind === 'item' ? media.duration : undefined);
    body.now_playing = { ...current.nowPlaying, ...(duration !== undefined ? { duration } : {}) };
  }
  body.playback_time = roundSeconds(media.position ?? 0);
  return body;
}

export const roundSeconds = (seconds: number) => Math.round(seconds * 1000) / 1000;

/**
 * The state after tuning `channel`: the channel left (if it was another one) becomes
 * the previous channel; otherwise (coming from an item, or tuning the same channel
 * again) the previous one is kept, unless it is the channel now tuned.
 */
export function afterTuning(state: PlayerState, current: PlayingChannel): PlayerState {
  const left = state.current?.kind === 'channel' ? state.current.channel : undefined;
  const previous = left && left.number !== current.channel.number ? left : state.previousChannel;
  return { current, ...(previous && previous.number !== current.channel.number ? { previousChannel: previous } : {}) };
}

/** The state after leaving what was current (stop, an item, the end): a channel left is the previous one. */
export function afterLeaving(state: PlayerState): PlayerState {
  const left = state.current?.kind === 'channel' ? state.current.channel : state.previousChannel;
  return left ? { previousChannel: left } : {};
}

/**
 * Channel numbers in viewing order: major then minor number ("2.1" < "2.10" < "10");
 * anything that is not a number sorts after every number, by its text.
 */
export function compareChannelNumbers(a: string, b: string): number {
  const [aMajor, aMinor] = numberParts(a);
  const [bMajor, bMinor] = numberParts(b);
  return aMajor - bMajor || aMinor - bMinor || (a < b ? -1 : a > b ? 1 : 0);
}

function numberParts(number: string): [major: number, minor: number] {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(number);
  return match
    ? [Number(match[1]), match[2] === undefined ? -1 : Number(match[2])]
    : [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
}

/**
 * The channel after (`up`) or before (`down`) `from` in number order, wrapping at the
 * ends. From no channel, up starts at the first and down at the last; a number that
 * is no longer listed is placed where it would be.
 */
export function neighbourChannel<T extends { number: string }>(
  channels: readonly T[],
  from: string | undefined,
  direction: 'up' | 'down',
): T | undefined {
  if (channels.length === 0) return undefined;
  const sorted = [...channels].sort((a, b) => compareChannelNumbers(a.number, b.number));
  if (from === undefined) return direction === 'up' ? sorted[0] : sorted[sorted.length - 1];
  if (direction === 'up') return sorted.find((c) => compareChannelNumbers(c.number, from) > 0) ?? sorted[0];
  return [...sorted].reverse().find((c) => compareChannelNumbers(c.number, from) < 0) ?? sorted[sorted.length - 1];
}

/** Where a relative seek lands: never before the start, never past the end when the end is known. */
export function seekTarget(position: number, delta: number, duration: number | undefined): number {
  const target = Math.max(0, position + delta);
  return duration !== undefined && duration > 0 ? Math.min(target, duration) : target;
}

/**
 * Chapter marks from commercials (start, end, start, end, ...) or chapter starts: ascending, each once, inside the
 * item.
 */
export function chapterMarks(commercials: readonly number[] | undefined, chapterStarts: readonly number[]): number[] {
  const source = commercials && commercials.length > 0 ? commercials : chapterStarts;
  return [...new Set(source.filter((t) => Number.isFinite(t) && t > 0))].sort((a, b) => a - b);
}

/** A mark closer than this behind the position is the one just passed: skip_backward goes to the one before. */
const BACK_TOLERANCE = 3;
/** A mark closer than this ahead is where playback already is. */
const AHEAD_TOLERANCE = 0.5;

/** The next mark after `position`, or the end (or undefined when the end is unknown). */
export function nextMark(marks: readonly number[], position: number, duration: number | undefined): number | undefined {
  return marks.find((mark) => mark > position + AHEAD_TOLERANCE) ?? duration;
}

/** The mark before `position` (one just passed does not count), or the start. */
export function previousMark(marks: readonly number[], position: number): number {
  return [...marks].reverse().find((mark) => mark <= position - BACK_TOLERANCE) ?? 0;
}

/** The share of an item that, once reached, counts as watched. */
export const WATCHED_SHARE = 0.95;

/** What to tell the server about a position: watched in the last 5 % (or at the end), else where to resume. */
export function progressReport(
  position: number | undefined,
  duration: number | undefined,
  atEnd: boolean,
): { watched: true } | { watched: false; seconds: number } | undefined {
  if (atEnd) return { watched: true };
  if (position === undefined || !Number.isFinite(position) || position < 0) return undefined;
  if (duration !== undefined && duration > 0 && position >= duration * WATCHED_SHARE) return { watched: true };
  return { watched: false, seconds: roundSeconds(position) };
}

/** Where an item starts: its resume point, unless that is already in the watched share (then from the start). */
export function resumePoint(playbackTime: number | undefined, duration: number | undefined): number | undefined {
  if (playbackTime === undefined || !Number.isFinite(playbackTime) || playbackTime <= 0) return undefined;
  if (duration !== undefined && duration > 0 && playbackTime >= duration * WATCHED_SHARE) return undefined;
  return playbackTime;
}

/** Whether a buffer held since `heldFrom` (epoch ms) reaches a programme's start (epoch seconds; 5 s of slack). */
export function bufferReaches(programmeStarts: number, heldFrom: number): boolean {
  return heldFrom <= (programmeStarts + 5) * 1000;
}

/**
 * Start over from the channel's recording under way: when the live buffer begins after the programme's start
 * (`programmeStarts`, epoch seconds; `heldFrom`, epoch ms) and the recording's file begins before it, or within a
 * minute after (a late start), and before the buffer does. The item and the second to play it from; undefined: the
 * buffer it is, from as far back as it holds.
 */
export function recordingStartOver(
  programmeStarts: number,
  heldFrom: number,
  file: { id: string; beginsAt: number } | undefined,
): { id: string; start: number } | undefined {
  if (!file || bufferReaches(programmeStarts, heldFrom)) return undefined;
  if (file.beginsAt > programmeStarts + 60 || file.beginsAt * 1000 >= heldFrom) return undefined;
  return { id: file.id, start: Math.max(0, programmeStarts - file.beginsAt) };
}
