/**
 * The HLS media playlist of a channel's live buffer: every segment still held, oldest
 * first, each with its EXT-X-PROGRAM-DATE-TIME (when it was received), a discontinuity
 * where the source dropped or its timestamps jumped, and no end (it is live). A player
 * that knows HLS seeks back through the whole buffer with it, and starts near its end.
 * Pure.
 */

export interface PlaylistSegment {
  /** Its media sequence number, never reused while the buffer lives. */
  seq: number;
  /** Seconds. */
  duration: number;
  /** Epoch milliseconds. */
  receivedAt: number;
  discontinuity: boolean;
}

/** The segment's name in the playlist, relative to it. */
export const bufferSegmentName = (seq: number) => `buffer/${seq}.ts`;

/** What a playlist request may ask beyond the whole buffer. */
export interface PlaylistOptions {
  /** A segment's URI (an HLS session names them its own way). */
  name?: (seq: number) => string;
  /**
   * A Playlist Delta Update (RFC 8216bis 6.2.5.1, `_HLS_skip=YES`): the segments older than the skip boundary are left
   * out for an EXT-X-SKIP; a player that has the playlist already (hls.js asks so) reloads a few lines instead of
   * hours of segments every couple of seconds.
   */
  skip?: boolean;
}

/** The skip boundary: segments this far or further from the live edge may be skipped (six targets: the least). */
export const skipBoundarySeconds = (target: number) => 6 * target;

/**
 * `dropped`: how many discontinuities were in segments already removed from the front
 * (EXT-X-DISCONTINUITY-SEQUENCE, so a player keeps its timelines apart as the window slides).
 * `longest`: the longest segment the buffer ever listed, in seconds: EXT-X-TARGETDURATION
 * must not change while a player follows the playlist (RFC 8216 6.2.1), even when that
 * segment has left the window or a `from` playlist begins after it.
 */
export function bufferPlaylist(
  segments: readonly PlaylistSegment[],
  dropped: number,
  longest = 0,
  options: PlaylistOptions = {},
): string {
  const name = options.name ?? bufferSegmentName;
  // A loop, not Math.max(...spread): a 48-hour buffer is more segments than a call takes arguments.
  let target = Math.max(1, Math.ceil(longest));
  for (const segment of segments) target = Math.max(target, Math.ceil(segment.duration));
  const boundary = skipBoundarySeconds(target);
  const skipped = options.skip ? skippable(segments, boundary) : 0;
  const lines = [
    '#EXTM3U',
    // EXT-X-SKIP asks for version 9; the whole playlist keeps 3 for the oldest players.
    `#EXT-X-VERSION:${skipped > 0 ? 9 : 3}`,
    `#EXT-X-TARGETDURATION:${target}`,
    `#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=${boundary.toFixed(1)}`,
    `#EXT-X-MEDIA-SEQUENCE:${segments[0]?.seq ?? 0}`,
    `#EXT-X-DISCONTINUITY-SEQUENCE:${dropped}`,
  ];
  if (skipped > 0) lines.push(`#EXT-X-SKIP:SKIPPED-SEGMENTS=${skipped}`);
  for (const segment of segments.slice(skipped)) {
    if (segment.discontinuity) lines.push('#EXT-X-DISCONTINUITY');
    lines.push(
      `#EXT-X-PROGRAM-DATE-TIME:${new Date(segment.receivedAt).toISOString()}`,
      `#EXTINF:${segment.duration.toFixed(3)},`,
      name(segment.seq),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** How many segments from the front lie wholly beyond `boundary` seconds from the live edge (may be skipped). */
function skippable(segments: readonly PlaylistSegment[], boundary: number): number {
  let fromEnd = 0;
  let index = segments.length;
  // Segments within the boundary of the end stay: walk back until the boundary is passed.
  while (index > 0 && fromEnd < boundary) fromEnd += (segments[--index] as PlaylistSegment).duration;
  return index;
}
