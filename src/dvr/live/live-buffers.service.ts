/**
 * The live buffers: one per tuned channel, shared by every viewer of it, fed by the one
 * upstream connection the stream hub shares with recordings (the buffer joins as a
 * viewer, so a recording that needs the tuner still wins). A buffer is opened by the
 * first request for it, kept while it is asked for, and closed (its folder removed)
 * `lingerMs` after its last viewer left (not heard from for `viewerGoneMs`), so coming
 * back soon finds it. When the upstream
 * drops, the buffer marks the gap and joins again, backing off, while it lives. The
 * server's disk budget is held across all buffers: the oldest segment of all goes first.
 *
 * Who watches: each playlist request names its client (address and user agent: one TV box
 * plays one channel at a time), and a client that asks for another channel has left the
 * one before. A buffer nobody watches only lingers: when tuning a channel finds no free
 * tuner, lingering buffers are closed, the longest unasked first, until it fits (and the
 * hub closes viewers' connections for a recording that needs one, as before).
 *
 * Pre-tuning (a setting): the channels either side of a watched one are buffered too while
 * tuners are free, so channel up and down find a buffer. A pre-tuned buffer is watched by
 * nobody: it never takes a tuner from anything, and is the first to give one up.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ConflictError, NotFoundError, UnavailableError } from '../../common/errors.js';
import type { BufferTap, TapConsumer } from '../recording/recorder.js';
import { type StreamConsumer, StreamUnavailableError, type Subscription } from '../recording/stream-hub.js';
import type { PlaylistOptions } from './buffer-playlist.js';
import { ChannelBuffer, type SegmentSource } from './channel-buffer.js';
import { browserPlayable } from './ts-segmenter.js';

export interface LiveBufferSettings {
  /** Seconds a buffer holds at most (default 4 hours). */
  depthSeconds: number;
  /** Bytes all buffers hold together at most. */
  budgetBytes: number;
  /** A buffer is kept this long after its last viewer left (a viewer not heard from for `viewerGoneMs`). */
  lingerMs: number;
  /**
   * A viewer not heard from for this long has left: players ask for the playlist every segment or so, and a
   * segment's request lasts while the segment under way arrives.
   */
  viewerGoneMs: number;
  /** Seconds a segment lasts, about. */
  targetSeconds: number;
  /** Buffer the channels either side of a watched one while tuners are free. */
  pretune: boolean;
}

export const LIVE_BUFFER_DEFAULTS: LiveBufferSettings = {
  depthSeconds: 4 * 3600,
  budgetBytes: 16 * 1024 ** 3,
  lingerMs: 10 * 60_000,
  viewerGoneMs: 10_000,
  targetSeconds: 2,
  pretune: false,
};

const byNumber = new Intl.Collator('en', { numeric: true }).compare;

/** The channels either side of `number` in channel order (the ends wrap, as channel up and down do). */
export function neighboursOf(numbers: readonly string[], number: string): string[] {
  const sorted = [...new Set(numbers)].sort(byNumber);
  const at = sorted.indexOf(number);
  if (at < 0 || sorted.length < 2) return [];
  const next = sorted[(at + 1) % sorted.length] as string;
  const previous = sorted[(at - 1 + sorted.length) % sorted.length] as string;
  return [...new Set([next, previous])];
}

/** The first playlist waits this long for a segment (tuning, the first keyframe, one segment). */
const FIRST_SEGMENT_WAIT_MS = 15_000;
/** A session's probe waits this long for the channel's first whole segment before it takes what has come. */
const SAMPLE_WAIT_MS = 1500;
/** A client not heard from for this long no longer watches (players ask for the playlist every few seconds). */
const WATCHER_GONE_MS = 30_000;
/** Waits before joining again after the upstream dropped: 1 s, 2 s, 5 s, then every 10 s. */
const REJOIN_DELAYS_MS = [1000, 2000, 5000, 10_000];

interface Tuned {
  number: string;
  buffer: ChannelBuffer;
  subscription: Subscription | undefined;
  lastAsked: number;
  /** Playlist requests waiting for its first segment: it is not closed under them. */
  waiting: number;
  /** Clients watching it, and when each last asked for its playlist. */
  watchers: Map<string, number>;
  rejoins: number;
  rejoinTimer: NodeJS.Timeout | undefined;
  closed: boolean;
}

export class LiveBuffers {
  private readonly tuned = new Map<string, Tuned>();
  private readonly opening = new Map<string, Promise<Tuned>>();
  /** Where each channel's sequence numbers go on when it is tuned again (never reused while the server runs). */
  private readonly nextSeqOf = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;
  private opened = 0;
  private stopped = false;

  constructor(
    private readonly parts: {
      dir: string;
      watch: (number: string, consumer: StreamConsumer) => Promise<Subscription>;
      /** The channel numbers there are (for pre-tuning the neighbours of a watched one). */
      channelNumbers: () => string[];
      settings: LiveBufferSettings;
      now: () => number;
      logger?: Logger | undefined;
    },
  ) {
    // Leftovers of a run that ended without closing them.
    rmSync(parts.dir, { recursive: true, force: true });
    // At least a second apart; a linger of 0 closes a buffer at the first sweep after its last viewer left.
    const quiet = parts.settings.lingerMs + parts.settings.viewerGoneMs;
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.min(30_000, quiet))).unref();
  }

  /**
   * The buffer's playlist (tuning the channel first, and waiting for its first segment). `browser`: a 409
   * needs_transcode when a browser cannot play what the channel carries as it is (it then plays the transcoding
   * renditions of hls/master.m3u8). `from` (epoch ms): the playlist begins with the segment under way then. `options`:
   * segments' names, a delta update.
   */
  async playlist(
    number: string,
    browser = false,
    client = '',
    from?: number,
    options: PlaylistOptions = {},
  ): Promise<string> {
    // The device leaves the channel it watched before the new one is tuned: that tuner may be the one it needs.
    this.leaveOthers(client, number);
    const tuned = await this.open(number);
    this.watching(tuned, client);
    if (this.parts.settings.pretune) this.pretuneAround(number);
    tuned.waiting++;
    try {
      if (!(await tuned.buffer.playable(FIRST_SEGMENT_WAIT_MS)))
        throw new NotFoundError('live buffer', `${number} (no video came from the channel in time)`);
    } finally {
      tuned.waiting--;
    }
    if (browser && !browserPlayable(tuned.buffer.streamTypes)) {
      const types = tuned.buffer.streamTypes.map((type) => `0x${type.toString(16).padStart(2, '0')}`).join(', ');
      throw new ConflictError(
        'needs_transcode',
        `Channel ${number} carries streams a browser cannot play as they are (stream types ${types}): play /devices/ANY/channels/${number}/hls/master.m3u8, which transcodes them.`,
      );
    }
    return tuned.buffer.playlist(from, options);
  }

  /**
   * Tunes channel `number` for `client` (an HLS session's start) and resolves with its first bytes, to probe what it
   * carries: its first segment, or after SAMPLE_WAIT_MS what it has.
   */
  async sample(number: string, client: string): Promise<Buffer> {
    await this.playlist(number, false, client);
    const tuned = this.tuned.get(number);
    if (!tuned) throw new NotFoundError('live buffer', number);
    tuned.waiting++;
    try {
      return await tuned.buffer.sample(SAMPLE_WAIT_MS);
    } finally {
      tuned.waiting--;
    }
  }

  /** `client` no longer watches `number` (it said so: its HLS session ended); the linger begins when nobody does. */
  leave(number: string, client: string): void {
    this.tuned.get(number)?.watchers.delete(client);
  }

  /** Where one of a channel's buffered segments is sent from; 404 when the channel is not buffered or it is gone. */
  segment(number: string, seq: number): SegmentSource {
    const tuned = this.tuned.get(number);
    if (!tuned) throw new NotFoundError('live buffer', number);
    tuned.lastAsked = this.parts.now();
    return tuned.buffer.segment(seq);
  }

  /** Epoch ms of the oldest moment channel `number`'s buffer holds; undefined when it is not buffered. */
  heldSince(number: string): number | undefined {
    return this.tuned.get(number)?.buffer.segments[0]?.receivedAt;
  }

  /**
   * Reads channel `number` from `fromMs` on out of its buffer (a recording from the programme's start); undefined when
   * the channel has no buffer holding anything. The buffer stays open while it is read.
   */
  tap(number: string, fromMs: number, consumer: TapConsumer): BufferTap | undefined {
    const tuned = this.tuned.get(number);
    if (!tuned || tuned.buffer.segments.length === 0) return undefined;
    return tuned.buffer.tap(fromMs, consumer);
  }

  /** What is buffered now, for /status and the tests. */
  describe(): { channel: string; segments: number; bytes: number; seconds: number; failure?: string }[] {
    return [...this.tuned.values()].map(({ number, buffer }) => ({
      channel: number,
      segments: buffer.segments.length,
      bytes: buffer.bytes,
      seconds: buffer.segments.reduce((sum, s) => sum + s.duration, 0),
      ...(buffer.failure ? { failure: buffer.failure } : {}),
    }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweeper);
    await Promise.allSettled([...this.opening.values()]);
    await Promise.all([...this.tuned.values()].map((tuned) => this.close(tuned)));
  }

  /** Buffers the neighbours of `number` that are not, with tuners that are free (never making room for them). */
  private pretuneAround(number: string): void {
    for (const neighbour of neighboursOf(this.parts.channelNumbers(), number)) {
      if (this.tuned.has(neighbour) || this.opening.has(neighbour)) continue;
      const opening = this.tune(neighbour, false).finally(() => this.opening.delete(neighbour));
      this.opening.set(neighbour, opening);
      opening.catch((error: unknown) =>
        this.parts.logger?.debug({ channel: neighbour, err: error }, 'not pre-tuned (no free tuner, or the source)'),
      );
    }
  }

  /** `client` watches `tuned` now, and no other channel. */
  private watching(tuned: Tuned, client: string): void {
    this.leaveOthers(client, tuned.number);
    tuned.watchers.set(client, this.parts.now());
  }

  private leaveOthers(client: string, number: string): void {
    for (const other of this.tuned.values()) if (other.number !== number) other.watchers.delete(client);
  }

  private async open(number: string): Promise<Tuned> {
    for (let waited = false; ; waited = true) {
      const known = this.tuned.get(number);
      if (known) {
        known.lastAsked = this.parts.now();
        return known;
      }
      const pending = this.opening.get(number);
      if (!pending) break;
      // Once: a pre-tune that found no free tuner lets a viewer try again, making room where it would not; after
      // that, another request's open is this one's answer.
      if (waited) return await pending;
      try {
        return await pending;
      } catch (error) {
        if (!(error instanceof UnavailableError)) throw error;
      }
    }
    const opening = this.tune(number).finally(() => this.opening.delete(number));
    this.opening.set(number, opening);
    return await opening;
  }

  /** `makeRoom`: close lingering buffers when no tuner is free (a pre-tune never does). */
  private async tune(number: string, makeRoom = true): Promise<Tuned> {
    if (this.stopped) throw new NotFoundError('live buffer', number);
    const { settings } = this.parts;
    const buffer = new ChannelBuffer({
      // A folder of its own (a buffer reopened while the last one's folder is being removed does not share it).
      dir: join(this.parts.dir, `${encodeURIComponent(number)}~${++this.opened}`),
      depthSeconds: settings.depthSeconds,
      targetSeconds: settings.targetSeconds,
      now: this.parts.now,
      logger: this.parts.logger,
      stored: () => this.holdBudget(),
      firstSeq: this.nextSeqOf.get(number) ?? 0,
    });
    const tuned: Tuned = {
      number,
      buffer,
      subscription: undefined,
      lastAsked: this.parts.now(),
      watchers: new Map(),
      waiting: 0,
      rejoins: 0,
      rejoinTimer: undefined,
      closed: false,
    };
    try {
      await (makeRoom ? this.joinMakingRoom(tuned) : this.join(tuned));
    } catch (error) {
      await buffer.close();
      // The hub's refusal, in the interface's words: a 503 that says why (no tuner, the source down).
      if (error instanceof StreamUnavailableError)
        throw new UnavailableError(503, error.reason === 'no_tuner' ? 'no_tuner' : 'stream_unavailable', error.message);
      throw error;
    }
    this.tuned.set(number, tuned);
    return tuned;
  }

  /** Joins; without a free tuner, closes lingering buffers (nobody watches them), longest unasked first; again. */
  private async joinMakingRoom(tuned: Tuned): Promise<void> {
    for (;;) {
      try {
        await this.join(tuned);
        return;
      } catch (error) {
        const lingering = [...this.tuned.values()]
          // A buffer a recording reads from frees no tuner (the recording holds the connection).
          .filter((other) => other.watchers.size === 0 && other.buffer.tapped === 0)
          .sort((a, b) => a.lastAsked - b.lastAsked)[0];
        if (!(error instanceof StreamUnavailableError && error.reason === 'no_tuner') || !lingering) throw error;
        this.parts.logger?.info(
          { channel: tuned.number, closed: lingering.number },
          'no free tuner for a live buffer: closing one nobody watches',
        );
        await this.close(lingering);
      }
    }
  }

  /** Joins the channel through the hub; a drop marks the gap and joins again while the buffer lives. */
  private async join(tuned: Tuned): Promise<void> {
    const subscription = await this.parts.watch(tuned.number, {
      kind: 'viewer',
      data: (chunk) => {
        tuned.rejoins = 0;
        tuned.buffer.write(chunk);
      },
      ended: (error) => {
        tuned.subscription = undefined;
        tuned.buffer.gap();
        if (tuned.closed || this.stopped) return;
        this.parts.logger?.warn(
          { channel: tuned.number, reason: error },
          'the live buffer lost its channel; joining again',
        );
        this.rejoinLater(tuned);
      },
    });
    // Closed while it joined (a rejoin, or a tune given up): the tuner goes back at once.
    if (tuned.closed || this.stopped) {
      subscription.leave();
      return;
    }
    tuned.subscription = subscription;
  }

  private rejoinLater(tuned: Tuned): void {
    const delay = REJOIN_DELAYS_MS[Math.min(tuned.rejoins++, REJOIN_DELAYS_MS.length - 1)] as number;
    tuned.rejoinTimer = setTimeout(() => {
      if (tuned.closed || this.stopped) return;
      this.join(tuned).catch(() => this.rejoinLater(tuned));
    }, delay);
    tuned.rejoinTimer.unref();
  }

  /** Closes the buffers nobody asked for within the linger time. */
  private sweep(): void {
    const now = this.parts.now();
    for (const tuned of this.tuned.values()) {
      for (const [client, at] of tuned.watchers) if (now - at >= WATCHER_GONE_MS) tuned.watchers.delete(client);
      // A recording reading it keeps it, as a viewer's requests do, and so does a player reading the segment under way.
      if (tuned.buffer.tapped > 0 || tuned.buffer.streaming > 0) tuned.lastAsked = now;
      // Its last viewer left `viewerGoneMs` after asking last (a linger of 0 must not close it between two requests).
      const { lingerMs, viewerGoneMs } = this.parts.settings;
      if (now - tuned.lastAsked >= viewerGoneMs + lingerMs && tuned.waiting === 0)
        this.close(tuned).catch((error: unknown) =>
          this.parts.logger?.warn({ err: error }, 'closing a live buffer failed'),
        );
    }
  }

  private async close(tuned: Tuned): Promise<void> {
    if (tuned.closed) return;
    tuned.closed = true;
    this.tuned.delete(tuned.number);
    clearTimeout(tuned.rejoinTimer);
    tuned.subscription?.leave();
    this.nextSeqOf.set(tuned.number, tuned.buffer.nextSequence + 1);
    await tuned.buffer.close();
  }

  /** Over the disk budget: the oldest segment of all buffers goes, until it fits. */
  private holdBudget(): void {
    const buffers = [...this.tuned.values()].map((tuned) => tuned.buffer);
    let total = buffers.reduce((sum, buffer) => sum + buffer.bytes, 0);
    while (total > this.parts.settings.budgetBytes) {
      const oldest = buffers
        .filter((buffer) => buffer.segments.length > 1)
        .sort((a, b) => (a.segments[0]?.receivedAt ?? 0) - (b.segments[0]?.receivedAt ?? 0))[0];
      const bytes = oldest?.segments[0]?.bytes ?? 0;
      if (!oldest?.dropOldest()) return;
      total -= bytes;
    }
  }
}
