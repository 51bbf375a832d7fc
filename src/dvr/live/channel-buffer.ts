/**
 * One tuned channel's live buffer on disk: the stream as received, cut into segments a
 * player can start at (ts-segmenter.ts), each a file in the buffer's own folder, listed in
 * order with when it arrived. The oldest go as it grows past its depth (seconds) or when
 * the server's disk budget asks (LiveBuffers). Writes are queued in order and never block
 * the stream. A write that fails (a full disk, a folder gone) is reported once, and the
 * buffer falls back to a short window kept in memory (the newest SHORT_WINDOW segments,
 * as live TV was before the buffer): live TV goes on, without its rewind.
 */
import { mkdirSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { NotFoundError } from '../../common/errors.js';
import type { TapConsumer } from '../recording/recorder.js';
import { bufferPlaylist, type PlaylistOptions, type PlaylistSegment } from './buffer-playlist.js';
import { ChannelTap, type TapItem, type TapSource } from './buffer-tap.js';
import { OpenSegmentReaders } from './open-segment.js';
import { type CutSegment, TsSegmenter } from './ts-segmenter.js';

export interface BufferedSegment extends PlaylistSegment {
  bytes: number;
  /** Its file; absent for a segment kept in memory after the disk failed. */
  file?: string;
  data?: Buffer;
}

/** What a segment is sent from: its file, its bytes in memory, or (the one under way) its bytes as they come. */
export type SegmentSource = { file: string } | { data: Buffer } | { stream: Readable };

/** Segments kept in memory once the disk failed: about 12 s, the live window there was before. */
export const SHORT_WINDOW = 6;

export interface ChannelBufferOptions {
  /** Its own folder (made now, removed at close). */
  dir: string;
  /** Seconds held at most. */
  depthSeconds: number;
  /** Seconds a segment lasts, about (each starts at a keyframe). */
  targetSeconds: number;
  /** Epoch milliseconds. */
  now: () => number;
  logger?: Logger | undefined;
  /** Told after each segment is stored (the server's disk budget is checked across buffers). */
  stored?: () => void;
  /**
   * Its first segment's sequence number: a channel tuned again goes on from where its last buffer ended, so a player
   * (or an HLS session's transcodes) never takes a new segment for an old one of the same number.
   */
  firstSeq?: number;
}

/** A held (or queued) segment as a tap reads it. */
function segmentItem(segment: BufferedSegment, data?: Buffer): TapItem {
  const common = { tables: true, discontinuity: segment.discontinuity };
  if (data) return { kind: 'data', data, ...common };
  return segment.file !== undefined
    ? { kind: 'file', file: segment.file, ...common }
    : { kind: 'data', data: segment.data as Buffer, ...common };
}

export class ChannelBuffer {
  private readonly held: BufferedSegment[] = [];
  private readonly segmenter: TsSegmenter;
  private nextSeq: number;
  private droppedDiscontinuities = 0;
  private writing: Promise<void> = Promise.resolve();
  private heldBytes = 0;
  private heldSeconds = 0;
  /** Seconds of the longest segment cut so far: the playlist's target duration never shrinks. */
  private longest = 0;
  private closed = false;
  private readonly waiting = new Set<() => void>();
  /** Segments cut and on their way to disk, not yet held: a tap starts with them too. */
  private readonly queued: { entry: BufferedSegment; data: Buffer }[] = [];
  private readonly taps = new Set<ChannelTap>();
  private readonly openReaders = new OpenSegmentReaders();
  /** Why it stopped writing to disk (a full disk, a folder gone), once it has: it keeps a short window in memory. */
  failure: string | undefined;

  constructor(private readonly options: ChannelBufferOptions) {
    try {
      mkdirSync(options.dir, { recursive: true });
    } catch (error) {
      // No folder (a full disk, the data folder read-only): live TV goes on in memory, as after a failed write.
      this.fail(error);
    }
    this.segmenter = new TsSegmenter({ targetSeconds: options.targetSeconds, now: options.now });
    this.nextSeq = options.firstSeq ?? 0;
  }

  /** The sequence number its next segment takes. */
  get nextSequence(): number {
    return this.nextSeq;
  }

  get segments(): readonly BufferedSegment[] {
    return this.held;
  }

  /** The channel's PMT stream types (what it carries), once seen. */
  get streamTypes(): readonly number[] {
    return this.segmenter.streamTypes;
  }

  get bytes(): number {
    return this.heldBytes;
  }

  /** Readers of it from the past on (recordings from a programme's start). */
  get tapped(): number {
    return this.taps.size;
  }

  /** Players reading the segment under way (their request lasts while it arrives). */
  get streaming(): number {
    return this.openReaders.count;
  }

  /** The channel's next bytes. */
  write(chunk: Buffer): void {
    if (this.closed) return;
    for (const segment of this.segmenter.push(chunk)) this.store(segment);
    for (const tap of this.taps) tap.push(chunk);
    const current = this.segmenter.current();
    this.openReaders.update(current?.chunks);
    // A first playlist waits for something to play: the first keyframe is enough (its segment is sent as it comes).
    if (current && this.waiting.size > 0) for (const wake of this.waiting) wake();
  }

  /** The upstream dropped: what was under way is kept, and the next segment is marked as a discontinuity. */
  gap(): void {
    if (this.closed) return;
    const last = this.segmenter.end();
    if (last) this.store(last);
    this.openReaders.update(undefined);
    for (const tap of this.taps) tap.gap();
  }

  /**
   * Reads the channel from `fromMs` (epoch ms) on: from the segment under way then (or the oldest held, when the
   * buffer begins later), then everything as it comes, until closed.
   */
  tap(fromMs: number, consumer: TapConsumer): ChannelTap {
    const first = this.held[this.indexAt(fromMs)] ?? this.queued[0]?.entry;
    const startsAt = first?.receivedAt ?? this.options.now();
    const tap = new ChannelTap(first?.seq ?? this.nextSeq, startsAt, this.tapSource, consumer, (gone) =>
      this.taps.delete(gone),
    );
    this.taps.add(tap);
    return tap;
  }

  /** What taps read: segments by sequence while behind, then the segment under way and live chunks. */
  private readonly tapSource: TapSource = {
    segmentAt: (seq) => {
      const oldest = this.held[0]?.seq ?? this.queued[0]?.entry.seq;
      const wanted = oldest !== undefined && seq < oldest ? oldest : seq;
      const held = this.held[wanted - (this.held[0]?.seq ?? 0)];
      const found =
        held?.seq === wanted
          ? segmentItem(held)
          : ((queued) => (queued ? segmentItem(queued.entry, queued.data) : undefined))(
              this.queued.find(({ entry }) => entry.seq === wanted),
            );
      return found ? { seq: wanted, item: found, skipped: wanted !== seq } : undefined;
    },
    join: (tap) => {
      this.taps.add(tap);
      const open = this.segmenter.unfinished();
      const data = Buffer.concat([...open.tables, ...open.rest]);
      if (data.length === 0) return open.discontinuity ? { kind: 'gap' } : undefined;
      return { kind: 'data', data, tables: open.tables.length > 0, discontinuity: open.discontinuity };
    },
  };

  /**
   * The media playlist of everything held; from `fromMs` (epoch ms) on, it begins with the segment under way then (the
   * oldest when it is earlier, the newest when later): a player that starts at its first segment plays from there.
   * `options`: segments' names, a delta update (buffer-playlist.ts).
   */
  playlist(fromMs?: number, options: PlaylistOptions = {}): string {
    // The segments on their way to disk and the one under way too: each is sent from memory, the last as it comes.
    const open = this.openEntry();
    const listed: PlaylistSegment[] =
      this.queued.length === 0 && !open
        ? this.held
        : [...this.held, ...this.queued.map(({ entry }) => entry), ...(open ? [open] : [])];
    if (fromMs === undefined) return bufferPlaylist(listed, this.droppedDiscontinuities, this.longest, options);
    const from = indexAt(listed, fromMs);
    let dropped = this.droppedDiscontinuities;
    for (let i = 0; i < from; i++) if (listed[i]?.discontinuity) dropped++;
    // A playlist from a moment is a player's first: nothing to skip.
    return bufferPlaylist(listed.slice(from), dropped, this.longest, { ...options, skip: false });
  }

  /** The index of the held segment under way at `ms` (0 when it is before them all). */
  private indexAt(ms: number): number {
    return indexAt(this.held, ms);
  }

  /**
   * The segment under way as the playlist lists it, once it began at a keyframe: its duration is a guess (the last
   * segment's) until it is cut, and it then keeps its sequence number.
   */
  private openEntry(): PlaylistSegment | undefined {
    const current = this.segmenter.current();
    if (!current || this.closed) return undefined;
    const last = this.queued.at(-1)?.entry ?? this.held.at(-1);
    return {
      seq: this.nextSeq,
      duration: Math.min(last?.duration ?? this.options.targetSeconds, this.options.targetSeconds),
      receivedAt: current.receivedAt,
      discontinuity: current.discontinuity,
    };
  }

  /** Resolves once there is something to play (a segment held, or one begun at a keyframe) or the wait ends. */
  async playable(timeoutMs: number): Promise<boolean> {
    const ready = () => this.held.length > 0 || this.openEntry() !== undefined;
    if (ready()) return true;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.waiting.add(done);
    });
    return ready();
  }

  /**
   * The channel's bytes to probe what it carries: its newest whole segment (tables, a keyframe, a GOP), or what
   * the segment under way holds after `waitMs` (a slow channel's first GOP is long).
   */
  async sample(waitMs: number): Promise<Buffer> {
    const deadline = this.options.now() + waitMs;
    while (this.held.length === 0 && this.queued.length === 0 && !this.closed && this.options.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 25));
    // The newest whole segment: the oldest may be hours old (another format then), and the next to go.
    const queued = this.queued.at(-1);
    if (queued) return queued.data;
    const held = this.held.at(-1);
    if (held?.data) return held.data;
    if (held?.file !== undefined) return await readFile(held.file).catch(() => Buffer.alloc(0));
    return Buffer.concat([...(this.segmenter.current()?.chunks ?? [])]);
  }

  /** Where segment `seq` is sent from; 404 once it left the buffer, or before it came. */
  segment(seq: number): SegmentSource {
    const first = this.held[0]?.seq ?? 0;
    const segment = this.held[seq - first];
    if (segment?.seq === seq)
      return segment.file !== undefined ? { file: segment.file } : { data: segment.data as Buffer };
    const queued = this.queued.find(({ entry }) => entry.seq === seq);
    if (queued) return { data: queued.data };
    const current = this.segmenter.current();
    if (seq === this.nextSeq && current && !this.closed) return { stream: this.openReaders.read(current.chunks) };
    throw new NotFoundError('buffer segment', String(seq));
  }

  /** Resolves once every segment cut so far is held (written, or kept in memory). */
  async settled(): Promise<void> {
    await this.writing;
  }

  /** Removes the oldest segment (the depth or the disk budget asks); false when one or none is left. */
  dropOldest(): boolean {
    if (this.held.length <= 1) return false;
    const oldest = this.held.shift() as BufferedSegment;
    this.heldBytes -= oldest.bytes;
    this.heldSeconds -= oldest.duration;
    // EXT-X-DISCONTINUITY-SEQUENCE counts the tags that left the playlist with their segments (RFC 8216 6.2.1).
    if (oldest.discontinuity) this.droppedDiscontinuities++;
    // A reader may still be sending it: unlinking leaves its open descriptor readable.
    if (oldest.file !== undefined) unlink(oldest.file).catch(() => undefined);
    return true;
  }

  /** Stops writing and removes its folder once the writes under way are done. */
  async close(): Promise<void> {
    this.closed = true;
    for (const wake of this.waiting) wake();
    for (const tap of [...this.taps]) tap.end('the live buffer closed');
    this.openReaders.endAll();
    await this.writing;
    // Off the event loop: a 4-hour buffer is thousands of files.
    await rm(this.options.dir, { recursive: true, force: true }).catch(() => undefined);
  }

  private store(segment: CutSegment): void {
    const seq = this.nextSeq++;
    this.longest = Math.max(this.longest, segment.duration);
    const entry: BufferedSegment = {
      seq,
      bytes: segment.bytes,
      duration: segment.duration,
      receivedAt: segment.receivedAt,
      discontinuity: segment.discontinuity,
    };
    const data = Buffer.concat(segment.chunks, segment.bytes);
    const queued = { entry, data };
    this.queued.push(queued);
    this.writing = this.writing.then(async () => {
      if (this.closed) return;
      if (this.failure === undefined) {
        const file = join(this.options.dir, `${seq}.ts`);
        try {
          await writeFile(file, data);
          entry.file = file;
        } catch (error) {
          this.fail(error);
        }
      }
      if (entry.file === undefined) entry.data = data;
      this.queued.splice(this.queued.indexOf(queued), 1);
      this.hold(entry);
    });
  }

  /** Writing to disk failed: said once, and the buffer keeps a short window in memory from now. */
  private fail(error: unknown): void {
    this.failure = `the live buffer could not be written (${(error as Error).message})`;
    this.options.logger?.warn(
      { dir: this.options.dir, err: error },
      `${this.failure}: live TV goes on with a short window, without rewinding; free space in the data folder`,
    );
  }

  private hold(entry: BufferedSegment): void {
    this.held.push(entry);
    this.heldBytes += entry.bytes;
    this.heldSeconds += entry.duration;
    const tooDeep = () => this.heldSeconds - (this.held[0]?.duration ?? 0) >= this.options.depthSeconds;
    const window = () => this.failure !== undefined && this.held.length > SHORT_WINDOW;
    while ((tooDeep() || window()) && this.dropOldest());
    for (const wake of this.waiting) wake();
    this.options.stored?.();
  }
}

/** The index of the segment under way at `ms` in `segments` (oldest first; 0 when `ms` is before them all). */
function indexAt(segments: readonly PlaylistSegment[], ms: number): number {
  // Binary search: a 4-hour buffer of 2-second segments is 7,200 of them, asked for at every seek.
  let [low, high] = [0, segments.length - 1];
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if ((segments[middle] as PlaylistSegment).receivedAt <= ms) low = middle;
    else high = middle - 1;
  }
  return Math.max(0, low);
}
