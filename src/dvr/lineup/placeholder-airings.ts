/**
 * Placeholder programmes for a channel no guide describes (issue 21): the channel's name
 * in blocks of an hour, on the hour, so it can still be browsed in the guide, exported to
 * other players and recorded by time (a single-programme rule on a block records that
 * hour). Made when read, never stored: they cost nothing for channels that get a guide.
 * They are not programmes: series and keyword rules never see them, "record now" keeps
 * its own length, and they carry no programme id.
 */
import type { Airing } from './airing.js';

/** A placeholder block's length (seconds). */
export const PLACEHOLDER_SECONDS = 3600;

/** A placeholder airing: an Airing that says it is one. */
export type PlaceholderAiring = Airing & { placeholder: true };

/** The blocks that overlap [from, to) (epoch seconds) on channel `number`, named `name`. */
export function placeholderAirings(number: string, name: string, from: number, to: number): PlaceholderAiring[] {
  const airings: PlaceholderAiring[] = [];
  for (
    let start = Math.floor(from / PLACEHOLDER_SECONDS) * PLACEHOLDER_SECONDS;
    start < to;
    start += PLACEHOLDER_SECONDS
  ) {
    airings.push({ channels: [number], start, stop: start + PLACEHOLDER_SECONDS, title: name, placeholder: true });
  }
  return airings;
}

export const isPlaceholder = (airing: Airing): boolean => (airing as Partial<PlaceholderAiring>).placeholder === true;
