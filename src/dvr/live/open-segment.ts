/**
 * The segment under way, sent while it is received. A player tuning a channel starts at
 * the segment's first keyframe instead of waiting for its end (a GOP or more later), and a
 * player at the live edge reads each segment as it arrives instead of a segment late.
 *
 * The buffer lists the open segment last in its playlist (buffer-playlist.ts). A request
 * for it gets what the segment holds so far at once, then each run of packets as it comes,
 * and ends where the segmenter cuts it (the next segment begins there), where the
 * upstream drops, or when the buffer closes. This is LL-HLS's blocking preload hint without
 * anything new for clients: an HLS client sees a segment that arrives at the stream's pace
 * (ffmpeg, hence mpv and VLC, plays its bytes as they come; hls.js appends it whole).
 */
import { PassThrough, type Readable } from 'node:stream';

interface Reader {
  /** The open segment's chunks: the segmenter's own array, which grows until the segment is cut. */
  chunks: readonly Buffer[];
  sent: number;
  out: PassThrough;
}

export class OpenSegmentReaders {
  private readonly readers = new Set<Reader>();

  /** A reader of the open segment whose chunks are `chunks`, from its first byte. */
  read(chunks: readonly Buffer[]): Readable {
    const out = new PassThrough();
    const reader: Reader = { chunks, sent: 0, out };
    this.readers.add(reader);
    // A player that hangs up (or changes channel) is forgotten at once.
    out.once('close', () => this.readers.delete(reader));
    this.feed(reader);
    return out;
  }

  get count(): number {
    return this.readers.size;
  }

  /**
   * After the channel's latest bytes went through the segmenter: each reader gets what it lacks, and a reader whose
   * segment is no longer the one under way (`current`: cut, or ended by a drop) has it all and is ended.
   */
  update(current: readonly Buffer[] | undefined): void {
    for (const reader of this.readers) {
      this.feed(reader);
      if (reader.chunks !== current) this.finish(reader);
    }
  }

  /** The buffer closed: every reader ends with what it has (the player reloads its playlist and finds the end). */
  endAll(): void {
    for (const reader of this.readers) this.finish(reader);
  }

  private feed(reader: Reader): void {
    // Kept in memory by the segmenter anyway: a slow reader buffers at most one segment.
    while (reader.sent < reader.chunks.length) reader.out.write(reader.chunks[reader.sent++]);
  }

  private finish(reader: Reader): void {
    this.readers.delete(reader);
    reader.out.end();
  }
}
