/**
 * Where live TV plays from, in wall-clock time. A channel's buffer playlist gives each
 * segment's EXT-X-PROGRAM-DATE-TIME; a player that starts at a playlist's first segment
 * shows that moment at position 0, so "the moment on screen" is that time plus the
 * position, and a seek by seconds is a seek to a moment (at or past live: live; before
 * the buffer, the server plays from its start). Pure.
 */

/**
 * How the player and its mpv name themselves to the server: its live buffers count one device (address and user
 * agent) as watching one channel, whichever of the two asks.
 */
export const PLAYER_USER_AGENT = 'antenna-player';

export interface BufferSpan {
  /** Epoch ms of each segment's start, oldest first. */
  starts: number[];
  /** Epoch ms the newest segment ends (the live edge). */
  liveEdge: number;
}

/** The segments' start times and the live edge of a buffer playlist; undefined when it lists none with a time. */
export function bufferSpanOf(playlist: string): BufferSpan | undefined {
  const starts: number[] = [];
  let liveEdge = 0;
  let pending: number | undefined;
  for (const line of playlist.split('\n')) {
    if (line.startsWith('#EXT-X-PROGRAM-DATE-TIME:')) {
      const at = Date.parse(line.slice('#EXT-X-PROGRAM-DATE-TIME:'.length).trim());
      pending = Number.isFinite(at) ? at : undefined;
    } else if (line.startsWith('#EXTINF:') && pending !== undefined) {
      const seconds = Number.parseFloat(line.slice('#EXTINF:'.length));
      starts.push(pending);
      liveEdge = Math.max(liveEdge, pending + (Number.isFinite(seconds) ? seconds * 1000 : 0));
      pending = undefined;
    }
  }
  return starts.length > 0 ? { starts, liveEdge } : undefined;
}

/** The moment to seek to (epoch ms), `seconds` from the moment on screen, or 'live' when that is at or past live. */
export function liveSeekTarget(clock: number, seconds: number, now: number, edgeMs: number): number | 'live' {
  const target = clock + seconds * 1000;
  return target >= now - edgeMs ? 'live' : target;
}
