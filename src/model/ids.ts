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
