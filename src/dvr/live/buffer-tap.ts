/**
 * A reader of one channel's live buffer from a moment in the past on: the segments the
 * buffer holds from there, one after another by sequence (read from their files), and,
 * once it has caught up with the newest, the segment under way and the channel's bytes
 * as they come. It goes at the reader's pace: each delivery is awaited before the next.
 * While it is behind, nothing waits in memory for it (what arrives meanwhile becomes
 * segments it reads later), so copying an hour from a slow disk costs no more memory than
 * copying a minute. What a recording from the programme's start reads.
 *
 * Each segment of the buffer begins with a copy of the channel's PAT and PMT (so a player
 * can start at it). A reader of the whole stream wants it as received: the copies are left
 * out after the first segment it reads, and kept where the stream starts anew (a gap,
 * which the reader is told of).
 */
import { readFile } from 'node:fs/promises';
import type { BufferTap, TapConsumer } from '../recording/recorder.js';
import { PACKET } from './ts-segmenter.js';

/** A segment to deliver: its file or its bytes; `tables`: it begins with the table copies. */
export type TapItem =
  | { kind: 'file'; file: string; tables: boolean; discontinuity: boolean }
  | { kind: 'data'; data: Buffer; tables: boolean; discontinuity: boolean };

/** What the tap reads from (its ChannelBuffer). */
export interface TapSource {
  /**
   * The segment `seq`, or the oldest held when `seq` has left the buffer (`skipped`: some were dropped before they
   * were read); undefined when `seq` is not cut yet.
   */
  segmentAt(seq: number): { seq: number; item: TapItem; skipped: boolean } | undefined;
  /**
   * The bytes of the segment under way (the tables first when there are any), or the gap before it; from now on live
   * chunks are pushed.
   */
  join(tap: ChannelTap): TapItem | { kind: 'gap' } | undefined;
}

const TABLES = 2 * PACKET;

type Queued = TapItem | { kind: 'gap' };

export class ChannelTap implements BufferTap {
  /** Live bytes and gaps, once caught up. */
  private readonly queue: Queued[] = [];
  private caughtUp = false;
  private first = true;
  private pumping: Promise<void> | undefined;
  private stopped = false;
  /** No more live bytes: the pump ends when what is queued is delivered. */
  private finishing = false;

  constructor(
    private nextSeq: number,
    readonly startsAt: number,
    private readonly source: TapSource,
    private readonly consumer: TapConsumer,
    private readonly left: (tap: ChannelTap) => void,
  ) {
    this.pump();
  }

  /** The channel's next bytes, as received (only once caught up: before, they reach the reader as segments). */
  push(chunk: Buffer): void {
    if (!this.caughtUp || this.stopped || this.finishing) return;
    this.queue.push({ kind: 'data', data: chunk, tables: false, discontinuity: false });
    this.pump();
  }

  /** The upstream dropped: what comes next does not follow on. */
  gap(): void {
    if (!this.caughtUp || this.stopped || this.finishing) return;
    this.queue.push({ kind: 'gap' });
    this.pump();
  }

  /** The buffer closed: nothing more comes (what is queued is dropped). */
  end(reason: string): void {
    if (this.stopped) return;
    this.stop();
    this.consumer.ended(reason);
  }

  /** Stops reading: `drain` first delivers what arrived until now (a recording that reached its end). */
  async close(drain: boolean): Promise<void> {
    if (drain && !this.stopped) {
      this.finishing = true;
      while (this.pumping) await this.pumping;
    }
    this.stop();
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.queue.length = 0;
    this.left(this);
  }

  private pump(): void {
    if (this.pumping || this.stopped) return;
    this.pumping = this.deliverAll()
      .catch((error: unknown) => this.end(`the reader failed: ${(error as Error).message}`))
      .finally(() => {
        this.pumping = undefined;
        // Bytes that came between the last delivery and now.
        if (this.queue.length > 0) this.pump();
      });
  }

  private async deliverAll(): Promise<void> {
    while (!this.caughtUp && !this.stopped) {
      const next = this.source.segmentAt(this.nextSeq);
      if (!next) {
        // Caught up: the segment under way, then live bytes (taken in the same moment: nothing between them).
        this.caughtUp = true;
        const rest = this.source.join(this);
        if (rest) this.queue.unshift(rest);
        break;
      }
      this.nextSeq = next.seq + 1;
      if (next.skipped) this.consumer.gap();
      await this.deliver(next.item, next.skipped);
    }
    for (let item = this.queue.shift(); item && !this.stopped; item = this.queue.shift()) {
      if (item.kind === 'gap') {
        this.consumer.gap();
        this.first = true;
        continue;
      }
      await this.deliver(item, false);
    }
  }

  private async deliver(item: TapItem, afterGap: boolean): Promise<void> {
    if (item.discontinuity && !this.first) this.consumer.gap();
    let bytes: Buffer;
    try {
      bytes = item.kind === 'file' ? await readFile(item.file) : item.data;
    } catch {
      // The buffer let the segment go (its depth, the disk budget) as it was read: a gap, and on.
      this.consumer.gap();
      this.first = true;
      return;
    }
    // The table copies only where a reader starts (its first segment) or the stream starts anew.
    const copies = item.tables && !this.first && !item.discontinuity && !afterGap;
    this.first = false;
    if (this.stopped) return;
    await this.consumer.data(copies ? bytes.subarray(Math.min(TABLES, bytes.length)) : bytes);
  }
}
