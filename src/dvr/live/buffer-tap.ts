/**
 * A reader of one channel's live buffer from a moment in the past on: the segments the
 * buffer holds from there (read from their files, in order), then the channel's bytes as
 * they come. It goes at the reader's pace: each delivery is awaited before the next, so a
 * recording copying an hour from disk does not pile the hour up in memory, while what
 * arrives live meanwhile waits in order. What a recording from the programme's start reads.
 *
 * Each segment of the buffer begins with a copy of the channel's PAT and PMT (so a player
 * can start at it). A reader of the whole stream wants it as received: the copies are left
 * out after the first segment it reads, and kept where the stream starts anew (a gap).
 */
import { readFile } from 'node:fs/promises';
import type { BufferTap, TapConsumer } from '../recording/recorder.js';
import { PACKET } from './ts-segmenter.js';

/** What the tap delivers next: a segment's file or bytes (`tables`: begins with the table copies), a gap, raw bytes. */
export type TapItem =
  | { kind: 'file'; file: string; tables: boolean; discontinuity: boolean }
  | { kind: 'data'; data: Buffer; tables: boolean; discontinuity: boolean }
  | { kind: 'gap' };

const TABLES = 2 * PACKET;

export class ChannelTap implements BufferTap {
  private readonly queue: TapItem[];
  private first = true;
  private pumping: Promise<void> | undefined;
  private stopped = false;
  /** Live bytes come no more: the pump ends when the queue is empty. */
  private finishing = false;

  constructor(
    items: TapItem[],
    readonly startsAt: number,
    private readonly consumer: TapConsumer,
    private readonly left: (tap: ChannelTap) => void,
  ) {
    this.queue = items;
    this.pump();
  }

  /** The channel's next bytes, as received. */
  push(chunk: Buffer): void {
    if (this.stopped || this.finishing) return;
    this.queue.push({ kind: 'data', data: chunk, tables: false, discontinuity: false });
    this.pump();
  }

  /** The upstream dropped: what comes next does not follow on. */
  gap(): void {
    if (this.stopped || this.finishing) return;
    this.queue.push({ kind: 'gap' });
    this.pump();
  }

  /** The buffer closed: nothing more comes (what is queued is dropped). */
  end(reason: string): void {
    if (this.stopped) return;
    this.stop();
    this.consumer.ended(reason);
  }

  /** Stops reading: `drain` delivers what arrived until now first (a recording that reached its end). */
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
    for (let item = this.queue.shift(); item && !this.stopped; item = this.queue.shift()) {
      if (item.kind === 'gap') {
        this.consumer.gap();
        continue;
      }
      let bytes: Buffer;
      try {
        bytes = item.kind === 'file' ? await readFile(item.file) : item.data;
      } catch {
        // The buffer let the segment go (its depth, the disk budget) before it was read: a gap, and on.
        this.consumer.gap();
        continue;
      }
      // The table copies only where a reader starts (its first segment) or the stream starts anew.
      const copies = item.tables && !this.first && !item.discontinuity;
      this.first = false;
      if (this.stopped) return;
      await this.consumer.data(copies ? bytes.subarray(Math.min(TABLES, bytes.length)) : bytes);
    }
  }
}
