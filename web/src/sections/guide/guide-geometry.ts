/**
 * The guide grid's geometry, pure: where a time is on the x axis, which windows of
 * time and pages of channels the visible part needs, and how programmes become boxes.
 * Times are epoch seconds; x is pixels from the grid's origin (its first half hour).
 */
import type { GuideAiring } from '../../api/server-types';
import { episodeCode as itemEpisodeCode } from '../../lib/item-view';

/** Half an hour: the ruler's ticks and the origin's rounding. */
export const SLOT = 1800;
/** The server is asked for this much time at once (aligned to multiples of it). */
export const BLOCK = 6 * 3600;
/** Channels per request. */
export const PAGE_SIZE = 50;
/** How far the grid reaches: a fortnight from its origin. */
export const GUIDE_SPAN = 14 * 86400;

export interface Scale {
  /** Epoch seconds at x = 0. */
  origin: number;
  /** Pixels per minute. */
  pxPerMinute: number;
}

/** The grid opens half an hour before the half hour now is in, so what is on now is on screen whole. */
export function originFor(now: number): number {
  return Math.floor(now / SLOT) * SLOT - SLOT;
}

export const xOf = (time: number, scale: Scale): number => ((time - scale.origin) / 60) * scale.pxPerMinute;

export const timeAt = (x: number, scale: Scale): number => scale.origin + (x / scale.pxPerMinute) * 60;

/** The grid's full width in pixels. */
export const spanWidth = (scale: Scale): number => xOf(scale.origin + GUIDE_SPAN, scale);

/**
 * A programme's box, clipped to the grid (one that began before the origin starts at 0); never narrower than
 * `minWidth`.
 */
export function boxOf(
  airing: Pick<GuideAiring, 'start_time' | 'end_time'>,
  scale: Scale,
  minWidth = 4,
): { left: number; width: number } {
  const left = Math.max(0, xOf(airing.start_time, scale));
  const right = Math.min(spanWidth(scale), xOf(airing.end_time, scale));
  return { left, width: Math.max(minWidth, right - left) };
}

/** The starts of the BLOCK-aligned windows that cover [from, to), within the grid's span. */
export function blocksFor(from: number, to: number, scale: Scale): number[] {
  const first = Math.floor(Math.max(from, scale.origin) / BLOCK) * BLOCK;
  const last = Math.min(to, scale.origin + GUIDE_SPAN);
  const blocks: number[] = [];
  for (let start = first; start < last; start += BLOCK) blocks.push(start);
  return blocks;
}

/** The pages of PAGE_SIZE channels rows first..last (inclusive) fall in. */
export function pagesFor(first: number, last: number, pageSize = PAGE_SIZE): number[] {
  if (last < first || last < 0) return [];
  const pages: number[] = [];
  for (let page = Math.floor(Math.max(0, first) / pageSize); page <= Math.floor(last / pageSize); page++)
    pages.push(page);
  return pages;
}

/** The half-hour ticks in [from, to). */
export function ticksBetween(from: number, to: number): number[] {
  const ticks: number[] = [];
  for (let t = Math.ceil(from / SLOT) * SLOT; t < to; t += SLOT) ticks.push(t);
  return ticks;
}

/**
 * Airings of one channel gathered from several windows: each once (a programme across two windows comes in both), in
 * time order.
 */
export function mergeAirings(lists: readonly (readonly GuideAiring[])[]): GuideAiring[] {
  const byStart = new Map<number, GuideAiring>();
  for (const list of lists)
    for (const airing of list) if (!byStart.has(airing.start_time)) byStart.set(airing.start_time, airing);
  return [...byStart.values()].sort((a, b) => a.start_time - b.start_time);
}

/** The airings whose boxes meet [from, to): the only ones put in the page. */
export const airingsIn = (airings: readonly GuideAiring[], from: number, to: number): GuideAiring[] =>
  airings.filter((a) => a.start_time < to && a.end_time > from);

/**
 * The airing a remote's Up or Down lands on in another channel's row: the one on the
 * air at `time`, else the first after it, else the last before it; undefined for a row
 * without airings. Guides on TVs keep the time, not the pixel column, when changing channel.
 */
export function airingAt<A extends Pick<GuideAiring, 'start_time' | 'end_time'>>(
  airings: readonly A[],
  time: number,
): A | undefined {
  return (
    airings.find((a) => a.start_time <= time && a.end_time > time) ??
    airings.find((a) => a.start_time > time) ??
    airings.at(-1)
  );
}

/** How far into an airing `now` is, 0 to 1. */
export function progressOf(airing: Pick<GuideAiring, 'start_time' | 'end_time'>, now: number): number {
  const length = airing.end_time - airing.start_time;
  if (length <= 0) return 0;
  return Math.min(1, Math.max(0, (now - airing.start_time) / length));
}

/**
 * An hour block the server made up for a channel no guide describes: its channel's name,
 * not a programme. Shown as such, and recordable only by its time (a `program` rule).
 */
export const isPlaceholder = (airing: Pick<GuideAiring, 'placeholder'>): boolean => airing.placeholder === true;

/** `S01E02`, `S01`, `E02` or '' (item-view's rule, for a guide airing). */
export function episodeCode(airing: Pick<GuideAiring, 'season_number' | 'episode_number'>): string {
  return itemEpisodeCode(airing.season_number, airing.episode_number);
}

/** A clock time, 24-hour (`09:30`), in the browser's time zone. */
export function clockOf(epoch: number): string {
  const date = new Date(epoch * 1000);
  return `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
}

/** `Today`, `Tomorrow`, or a short weekday and date, for the day `epoch` is in. */
export function dayOf(epoch: number, now: number): string {
  const day = (t: number) => new Date(t * 1000).toDateString();
  if (day(epoch) === day(now)) return 'Today';
  if (day(epoch) === day(now + 86400)) return 'Tomorrow';
  return new Date(epoch * 1000).toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
}
