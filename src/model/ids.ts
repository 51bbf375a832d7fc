/**
 * How Antenna names what it makes: ids derived from what they describe, so the same
 * show, folder or source gets the same id at every scan and refresh. Pure: no I/O.
 */
import { createHash } from 'node:crypto';

/** A short stable digest of `text`: the first `length` hex digits of its SHA-1. */
export function digest(text: string, length = 16): string {
  return createHash('sha1').update(text).digest('hex').slice(0, length);
}

/** The imported show an episode (or a recorded airing of the series) belongs to. */
export function showIdFor(parsed: { show: string; year?: number }): string {
  return `imp-show-${digest(`${parsed.show.toLowerCase()}|${parsed.year ?? ''}`)}`;
}

/** The video group of a folder under a videos root. */
export function videoGroupIdFor(folder: string): string {
  return `videos-${digest(folder)}`;
}

/** A movie collection made from an NFO set name. */
export function nfoSetCollectionIdFor(name: string): string {
  return `imp-set-${digest(name.toLowerCase())}`;
}

/**
 * What the id of a playable item (episode, movie, video) looks like: imports are
 * `imp-<16 hex digits>`, recordings `rec-<job id>` (`rec-<start>-<n>`), Antenna 0.1's
 * sample `sample-...`. Letters, digits, `-`, `_` and `.`, starting with a letter or
 * digit, so never a path segment such as `.` or `..`, which an HTTP client would
 * resolve into another route of the server; at most 128 characters.
 */
export const ITEM_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$';
