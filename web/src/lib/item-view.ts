/**
 * How the app names and describes library items: pure functions over the server's
 * payloads, shared by every list, card and the player view (and unit-tested).
 */
import { breakSpans } from '../../../src/player/commercial-skip';
import type { CommercialDetection, Episode, Job, PlayableItem, Video } from '../api/server-types';

export type ItemKind = 'episode' | 'movie' | 'video';

export function kindOf(item: PlayableItem): ItemKind {
  if ('show_id' in item && item.show_id !== undefined) return 'episode';
  if ('video_group_id' in item && item.video_group_id !== undefined) return 'video';
  return 'movie';
}

/** `S02E05`, `S02`, `E05`, or '' when neither number is known. */
export function episodeCode(season: number | undefined, episode: number | undefined): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${season !== undefined ? `S${two(season)}` : ''}${episode !== undefined ? `E${two(episode)}` : ''}`;
}

/** The line a card leads with: the show or movie (or video group) name. */
export function itemTitle(item: PlayableItem): string {
  return item.title ?? (item as Video).video_title ?? 'Untitled';
}

/** The line under it: an episode's code and title, a video's own title, a movie's year. */
export function itemSubtitle(item: PlayableItem): string {
  switch (kindOf(item)) {
    case 'episode': {
      const episode = item as Episode;
      const code = episodeCode(episode.season_number, episode.episode_number);
      const name = episode.episode_title ?? episode.event_title ?? '';
      return [code, name].filter(Boolean).join(' · ') || formatDate(episode.original_air_date) || '';
    }
    case 'video':
      return (item as Video).video_title ?? '';
    default:
      return 'release_year' in item && item.release_year ? String(item.release_year) : '';
  }
}

/** How far into an item its resume point is, 0–1 (0 when unknown or not started). */
export function progressShare(item: Pick<PlayableItem, 'playback_time' | 'duration' | 'watched'>): number {
  if (item.watched) return 1;
  if (!item.duration || item.duration <= 0 || !item.playback_time) return 0;
  return Math.min(1, Math.max(0, item.playback_time / item.duration));
}

/** `1 h 05 min`, `42 min`, `50 s`; '' for an unknown length. */
export function formatDuration(seconds: number | undefined): string {
  if (!seconds || !Number.isFinite(seconds) || seconds <= 0) return '';
  const total = Math.round(seconds);
  if (total < 60) return `${total} s`;
  const hours = Math.floor(total / 3600);
  const minutes = Math.round((total % 3600) / 60);
  return hours > 0 ? `${hours} h ${String(minutes).padStart(2, '0')} min` : `${minutes} min`;
}

/** A player clock: `1:02:03` or `2:03`. */
export function formatClock(seconds: number): string {
  const total = Math.max(0, Math.floor(Number.isFinite(seconds) ? seconds : 0));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

/** A YYYY-MM-DD date as the browser's locale writes it; '' when absent or malformed. */
export function formatDate(date: string | undefined): string {
  if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return '';
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

/** Epoch seconds as a local day and time (`Tue 14:30`). */
export function formatAiring(epochSeconds: number, now: Date = new Date()): string {
  const at = new Date(epochSeconds * 1000);
  const time = at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  const sameDay = at.toDateString() === now.toDateString();
  return sameDay
    ? `Today ${time}`
    : `${at.toLocaleDateString(undefined, { weekday: 'short', month: 'short', day: 'numeric' })} ${time}`;
}

export type JobState = 'recording' | 'scheduled' | 'skipped' | 'failed' | 'done';

export function jobState(job: Job, nowSeconds: number): JobState {
  if (job.failed) return 'failed';
  if (job.skipped) return 'skipped';
  if (
    job.start_time !== undefined &&
    job.end_time !== undefined &&
    job.start_time <= nowSeconds &&
    nowSeconds < job.end_time
  )
    return 'recording';
  if (job.end_time !== undefined && job.end_time <= nowSeconds) return 'done';
  return 'scheduled';
}

/** Commercial marks `[start, end, start, end, ...]` as pairs (the players' own rule: commercial-skip.ts). */
export function commercialSpans(marks: readonly number[] | undefined): Array<[number, number]> {
  return breakSpans(marks).map(([start, end]) => [start, end]);
}

/** Where "skip commercial" goes from `position`: the end of the break it is in, else undefined. */
export function skipTarget(marks: readonly number[] | undefined, position: number): number | undefined {
  return commercialSpans(marks).find(([start, end]) => position >= start - 1 && position < end)?.[1];
}

/**
 * Where finding a recording's commercials stands, in a line for its page; undefined for an import (never looked at).
 * A failure says why and that the recording plays regardless.
 */
export function commercialDetectionText(
  detection: CommercialDetection | undefined,
  marks: readonly number[] | undefined,
): string | undefined {
  if (!detection) return undefined;
  const found = commercialSpans(marks);
  const total = found.reduce((sum, [start, end]) => sum + (end - start), 0);
  const breaks = `${found.length} commercial ${found.length === 1 ? 'break' : 'breaks'} (${formatClock(total)})`;
  const why = detection.error ? `: ${detection.error}` : '';
  switch (detection.state) {
    case 'done':
      return found.length > 0 ? breaks : 'No commercial breaks found';
    case 'live':
      return found.length > 0
        ? `${breaks} so far; more are found as it records`
        : 'Commercials are found as it records';
    case 'pending':
    case 'final':
      return 'Finding commercial breaks…';
    case 'live_failed':
      return `Commercials could not be found while it records${why}. They are looked for again when it ends.`;
    case 'failed':
      return `Commercial detection failed${why}. The recording plays normally, without marks.`;
    case 'off':
      return 'Commercials are not looked for: comskip is not installed (or is turned off).';
  }
}
