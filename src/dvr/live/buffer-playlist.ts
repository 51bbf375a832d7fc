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

/**
 * `dropped`: how many discontinuities were in segments already removed from the front
 * (EXT-X-DISCONTINUITY-SEQUENCE, so a player keeps its timelines apart as the window slides).
 * `longest`: the longest segment the buffer ever listed, in seconds: EXT-X-TARGETDURATION
 * must not change while a player follows the playlist (RFC 8216 6.2.1), even when that
 * segment has left the window or a `from` playlist begins after it.
 */
export function bufferPlaylist(segments: readonly PlaylistSegment[], dropped: number, longest = 0): string {
  // A loop, not Math.max(...spread): a 48-hour buffer is more segments than a call takes arguments.
  let target = Math.max(1, Math.ceil(longest));
  for (const segment of segments) target = Math.max(target, Math.ceil(segment.duration));
  const lines = [
    '#EXTM3U',
    '#EXT-X-VERSION:3',
    `#EXT-X-TARGETDURATION:${target}`,
    `#EXT-X-MEDIA-SEQUENCE:${segments[0]?.seq ?? 0}`,
    `#EXT-X-DISCONTINUITY-SEQUENCE:${dropped}`,
  ];
  for (const segment of segments) {
    if (segment.discontinuity) lines.push('#EXT-X-DISCONTINUITY');
    lines.push(
      `#EXT-X-PROGRAM-DATE-TIME:${new Date(segment.receivedAt).toISOString()}`,
      `#EXTINF:${segment.duration.toFixed(3)},`,
      bufferSegmentName(segment.seq),
    );
  }
  return `${lines.join('\n')}\n`;
}
