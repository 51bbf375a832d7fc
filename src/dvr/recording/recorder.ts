/**
 * One recording: copies a channel's bytes to a file, unchanged, from its start until
 * its end time. A dropped or refused stream is retried with backoff until the end;
 * every byte written is checked as MPEG-TS, so gaps and damage are known, not guessed.
 * A write error (a full disk) stops the recording and keeps what was written.
 */
import { createWriteStream, statSync, type WriteStream } from 'node:fs';
import type { Logger } from 'pino';
import type { StreamConsumer, StreamHub, StreamTarget, Subscription } from './stream-hub.js';
import { TsIntegrity } from './ts-packets.js';

export interface RecordingPlan {
  path: string;
  /** Epoch milliseconds. */
  startAt: number;
  endAt: number;
  targets: readonly StreamTarget[];
  /** Appending to what an earlier run of Antenna wrote before it stopped. */
  resume: boolean;
}

export interface RecordingOutcome {
  bytes: number;
  /** When the first byte of this run was written (epoch ms). */
  firstByteAt?: number;
  /** Recording went on until its end time (it was not stopped). */
  reachedEnd: boolean;
  stoppedBy?: 'user' | 'shutdown';
  /** The stream was gone, and could not be had back, for the last stretch before the end. */
  lostForGood: boolean;
  damaged: boolean;
  gaps: number;
  continuityErrors: number;
  diskError?: string;
  /** The last thing that went wrong with the stream, if anything did. */
  streamError?: string;
  channel?: string;
  sourceId?: string;
}

/** Who reads a channel from a live buffer (the live wing's taps); each delivery is awaited before the next. */
export interface TapConsumer {
  data(chunk: Buffer): void | Promise<void>;
  /** The upstream dropped: what follows does not follow on. */
  gap(): void;
  /** The buffer closed: nothing more comes. */
  ended(reason: string): void;
}

/** A live buffer read from the past on. */
export interface BufferTap {
  /** Epoch ms of the first byte it delivers (its first segment's arrival). */
  readonly startsAt: number;
  /** Stops reading: `drain` first delivers what arrived until now. */
  close(drain: boolean): Promise<void>;
}

/** Reads channel `number` from `fromMs` on out of its live buffer, if it holds that moment's channel. */
export type Backlog = (number: string, fromMs: number, consumer: TapConsumer) => BufferTap | undefined;

export interface RecorderDeps {
  hub: StreamHub;
  logger?: Logger;
  now?: () => number;
  /** Called once, when the first bytes of this run reach the file; `firstByteAt` is when they were received. */
  onFirstBytes?: (target: StreamTarget, firstByteAt: number) => void;
  /**
   * A live buffer of the channel: a recording that starts late (record what you are watching from its start)
   * begins with what the buffer held since its start time.
   */
  backlog?: Backlog;
}

/** Longest wait between reconnection attempts. */
const MAX_BACKOFF_MS = 30_000;
/** Bytes the file may fall behind the stream before new data is dropped (and counted as a gap). */
const MAX_WRITE_BACKLOG = 64 * 1024 * 1024;
/** A stream gone for longer than this before the end was lost, not just briefly interrupted. */
const LOST_FOR_GOOD_MS = 30_000;
/**
 * A recording starting this late reads its beginning from a live buffer of the channel, when there is one (record
 * from the programme's start); one on time takes the stream as it comes.
 */
const BACKLOG_AFTER_MS = 1000;
/** Bytes the file may fall behind a buffer being copied before the copy waits for the disk. */
const BACKLOG_HIGH_WATER = 8 * 1024 * 1024;

export function backoffMs(attempt: number): number {
  return Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(attempt, 10));
}

export class Recorder {
  readonly done: Promise<RecordingOutcome>;
  private readonly integrity = new TsIntegrity();
  private readonly stopController = new AbortController();
  private stoppedBy: 'user' | 'shutdown' | undefined;
  private file!: WriteStream;
  private diskError: string | undefined;
  private streamError: string | undefined;
  private firstByteAt: number | undefined;
  private lastByteAt: number | undefined;
  private dropping = false;
  private firstBytesReported = false;
  private target: StreamTarget | undefined;
  /** Reading from a live buffer (the stream's bytes from the hub are then not written). */
  private tap: BufferTap | undefined;

  constructor(
    private readonly plan: RecordingPlan,
    private readonly deps: RecorderDeps,
  ) {
    if (plan.resume) this.integrity.markGap();
    this.done = this.run();
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** Epoch ms of the moment the file begins with (its first bytes' arrival, or where a live buffer held the start). */
  get fileBeginsAt(): number | undefined {
    return this.firstByteAt;
  }

  /** Records on to a later end, epoch ms (the guide extended the programme); an earlier one changes nothing. */
  extendTo(endAt: number): void {
    // The timer and the retry loop read plan.endAt afresh each time they wake.
    if (endAt > this.plan.endAt) this.plan.endAt = endAt;
  }

  /** Stops early: by the user (the recording is cancelled) or for shutdown (it resumes at the next start). */
  stop(by: 'user' | 'shutdown'): void {
    if (this.stoppedBy) return;
    this.stoppedBy = by;
    this.stopController.abort();
  }

  private async run(): Promise<RecordingOutcome> {
    this.file = createWriteStream(this.plan.path, { flags: this.plan.resume ? 'a' : 'w' });
    this.file.on('error', (error: NodeJS.ErrnoException) => {
      this.diskError =
        error.code === 'ENOSPC'
          ? 'the disk is full: the recording stopped early and keeps what was written'
          : `could not write the recording: ${error.message}`;
      this.stopController.abort();
    });
    this.openBacklog();
    let attempt = 0;
    let connectedAtEnd = false;
    while (!this.stopController.signal.aborted && this.now() < this.plan.endAt) {
      const result = await this.receiveOnce();
      connectedAtEnd = result === 'end';
      if (result === 'end' || this.stopController.signal.aborted) break;
      if (result === 'flowed') {
        // One outage is one gap, however many attempts it takes to end it.
        attempt = 0;
        this.integrity.markGap();
      }
      await sleep(Math.min(backoffMs(attempt++), this.plan.endAt - this.now()), this.stopController.signal);
    }
    const reachedEnd = this.stoppedBy === undefined && this.diskError === undefined && this.now() >= this.plan.endAt;
    // At its end, what the buffer received until then is written; stopped, nothing more is.
    await this.tap?.close(reachedEnd);
    await this.closeFile();
    const bytes = fileSize(this.plan.path);
    const lostForGood =
      reachedEnd && !connectedAtEnd && bytes > 0 && this.plan.endAt - (this.lastByteAt ?? 0) > LOST_FOR_GOOD_MS;
    const outcome: RecordingOutcome = {
      bytes,
      reachedEnd,
      lostForGood,
      damaged: this.integrity.damaged || this.diskError !== undefined,
      gaps: this.integrity.gaps,
      continuityErrors: this.integrity.continuityErrors,
    };
    if (this.firstByteAt !== undefined) outcome.firstByteAt = this.firstByteAt;
    if (this.stoppedBy) outcome.stoppedBy = this.stoppedBy;
    if (this.diskError) outcome.diskError = this.diskError;
    if (this.streamError) outcome.streamError = this.streamError;
    if (this.target) [outcome.channel, outcome.sourceId] = [this.target.number, this.target.sourceId];
    return outcome;
  }

  /**
   * One connection: 'end' when it lasted to the end time, 'flowed' when video came and then stopped, 'failed' when none
   * came.
   */
  private async receiveOnce(): Promise<'end' | 'flowed' | 'failed'> {
    let flowed = false;
    let subscription: Subscription | undefined;
    let finish!: (how: 'end' | 'dropped') => void;
    const over = new Promise<'end' | 'dropped'>((resolve) => (finish = resolve));
    const consumer: StreamConsumer = {
      kind: 'recording',
      data: (chunk) => {
        flowed = true;
        if (!this.tap) this.write(chunk);
      },
      ended: (error) => {
        this.streamError = error;
        finish('dropped');
      },
    };
    try {
      subscription = await this.deps.hub.join(this.plan.targets, consumer);
    } catch (error) {
      this.streamError = (error as Error).message;
      this.deps.logger?.warn(
        { path: this.plan.path, err: this.streamError },
        "recording: no stream, will retry; if it keeps failing, the error says why: check the channel's source",
      );
      return 'failed';
    }
    this.target = subscription.target;
    // The first chunk can reach write() before join() returns, while the target is unknown.
    this.reportFirstBytes();
    // A timer may fire a moment before the clock reaches its time: re-arm until the end has really come.
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      const left = this.plan.endAt - this.now();
      if (left <= 0) finish('end');
      else timer = setTimeout(arm, left);
    };
    arm();
    const onStop = () => finish('dropped');
    this.stopController.signal.addEventListener('abort', onStop, { once: true });
    if (this.stopController.signal.aborted) finish('dropped');
    const how = await over;
    clearTimeout(timer);
    this.stopController.signal.removeEventListener('abort', onStop);
    subscription.leave();
    if (how === 'end') return 'end';
    return flowed ? 'flowed' : 'failed';
  }

  /** Starting late with a live buffer of the channel: its bytes from the start time on are what is written. */
  private openBacklog(): void {
    const number = this.plan.targets[0]?.number;
    if (!this.deps.backlog || this.plan.resume || number === undefined) return;
    if (this.now() - this.plan.startAt < BACKLOG_AFTER_MS) return;
    const tap = this.deps.backlog(number, this.plan.startAt, {
      data: (chunk) => this.writeFromBuffer(chunk),
      gap: () => this.integrity.markGap(),
      ended: (reason) => {
        // The buffer closed under the recording: the hub's bytes, which it still receives, are written from now.
        this.tap = undefined;
        this.integrity.markGap();
        this.deps.logger?.warn({ path: this.plan.path, reason }, 'recording: the live buffer it read from closed');
      },
    });
    if (!tap) return;
    this.tap = tap;
    this.firstByteAt = tap.startsAt;
    this.deps.logger?.info(
      { path: this.plan.path, from: new Date(tap.startsAt).toISOString() },
      'recording from the live buffer: the file begins where the buffer held the start',
    );
  }

  /** A chunk of the buffer's copy: written, and when the disk is behind, the copy waits for it. */
  private async writeFromBuffer(chunk: Buffer): Promise<void> {
    this.write(chunk);
    if (this.file.writableLength < BACKLOG_HIGH_WATER || this.file.destroyed) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.file.off('drain', done).off('close', done);
        resolve();
      };
      this.file.on('drain', done).on('close', done);
    });
  }

  private write(chunk: Buffer): void {
    if (this.diskError !== undefined || this.file.destroyed) return;
    if (this.file.writableLength > MAX_WRITE_BACKLOG) {
      // The disk cannot keep up: dropping is honest (a gap), buffering without end is not.
      if (!this.dropping) this.integrity.markGap();
      this.dropping = true;
      return;
    }
    this.dropping = false;
    const now = this.now();
    if (this.firstByteAt === undefined) {
      this.firstByteAt = now;
      this.reportFirstBytes();
    }
    this.lastByteAt = now;
    this.integrity.push(chunk);
    this.file.write(chunk);
  }

  /** Calls onFirstBytes once, when both the first bytes and the stream they came from are known. */
  private reportFirstBytes(): void {
    if (this.firstBytesReported || this.firstByteAt === undefined || !this.target) return;
    this.firstBytesReported = true;
    this.deps.onFirstBytes?.(this.target, this.firstByteAt);
  }

  private closeFile(): Promise<void> {
    return new Promise((resolve) => {
      if (this.file.destroyed || this.diskError !== undefined) {
        this.file.destroy();
        resolve();
        return;
      }
      this.file.end(() => resolve());
      this.file.once('error', () => resolve());
    });
  }
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The flags and job result a recording earns. `resumed`: Antenna restarted during it. */
export function judgeRecording(
  outcome: RecordingOutcome,
  startAt: number,
  options: { resumed?: boolean; wasDelayed?: boolean; graceMs?: number } = {},
): { delayed: boolean; cancelled: boolean; corrupted: boolean; completed: boolean; failed: boolean; error?: string } {
  const grace = options.graceMs ?? 5000;
  const failed = outcome.bytes === 0;
  const delayed =
    (options.wasDelayed ?? false) ||
    (!options.resumed && outcome.firstByteAt !== undefined && outcome.firstByteAt > startAt + grace);
  const cancelled = outcome.stoppedBy === 'user' || outcome.lostForGood || outcome.diskError !== undefined;
  const corrupted = !failed && (outcome.damaged || outcome.lostForGood || options.resumed === true);
  const completed = !failed && outcome.reachedEnd && !cancelled;
  if (options.resumed && !failed && outcome.firstByteAt === undefined && outcome.stoppedBy === undefined) {
    // Antenna came back only after the end: what the earlier run wrote is all there is.
    const error =
      'Antenna stopped during the recording and was not running again before its end; what it wrote is kept';
    return { delayed, cancelled: true, corrupted: true, completed: false, failed, error };
  }
  const error = failed
    ? `nothing was recorded: ${outcome.diskError ?? outcome.streamError ?? 'the stream sent no video'}`
    : (outcome.diskError ??
      (outcome.stoppedBy === 'user'
        ? 'stopped by the user'
        : outcome.lostForGood
          ? `the stream was lost before the end: ${outcome.streamError ?? 'no video'}`
          : options.resumed
            ? 'Antenna restarted during the recording; the time it was down is missing'
            : outcome.damaged
              ? `the stream had ${outcome.gaps} interruption(s) and ${outcome.continuityErrors} continuity error(s)`
              : undefined));
  return { delayed, cancelled, corrupted, completed, failed, ...(error ? { error } : {}) };
}
