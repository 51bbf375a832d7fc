/**
 * Reading a live buffer from the past on (what a recording from the programme's start
 * does), over a real ffmpeg-made MPEG-TS fed in odd-sized chunks: the reader gets the
 * channel as received from the segment under way at the moment asked for, the buffer's
 * table copies only at its start, then every byte that comes after, in order and at its
 * own pace; a gap is told, a closed buffer ends it, and a reader that stops gets no more.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelBuffer, SHORT_WINDOW } from '../../src/dvr/live/channel-buffer.js';
import { PACKET } from '../../src/dvr/live/ts-segmenter.js';
import { TsIntegrity } from '../../src/dvr/recording/ts-packets.js';
import { until } from '../support/dvr-app.js';
import { tempDir } from '../support/temp-library.js';
import { makeTsClip } from '../support/ts-stream-server.js';

let work: string;
let clip: Buffer;
let buffers = 0;

beforeAll(async () => {
  work = tempDir('antenna-buffer-tap-');
  clip = readFileSync((await makeTsClip(join(work, 'clip.ts'), { seconds: 12 })).path);
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A buffer on a clock that runs at the stream's pace (2000 kbit/s) as bytes are written. */
function bufferOf() {
  const clock = { ms: 1_000_000 };
  const buffer = new ChannelBuffer({
    dir: join(work, `buffer-${++buffers}`),
    depthSeconds: 3600,
    targetSeconds: 1,
    now: () => clock.ms,
  });
  const feed = (from: number, to: number) => {
    for (let at = from; at < to; at += 4099) {
      const end = Math.min(at + 4099, to);
      clock.ms += ((end - at) * 8) / 2000;
      buffer.write(clip.subarray(at, end));
    }
  };
  return { buffer, feed, clock };
}

/** A reader that keeps what it gets; `slowMs` makes each delivery wait (a disk behind). */
function reader(slowMs = 0) {
  const got: Buffer[] = [];
  const events: string[] = [];
  return {
    got,
    events,
    consumer: {
      data: async (chunk: Buffer) => {
        got.push(Buffer.from(chunk));
        if (slowMs > 0) await new Promise((resolve) => setTimeout(resolve, slowMs));
      },
      gap: () => events.push('gap'),
      ended: (reason: string) => events.push(`ended: ${reason}`),
    },
  };
}

describe('a live buffer read from the past on', () => {
  it('gives the channel as received from the segment under way then, its tables once, and every byte after', async () => {
    const { buffer, feed } = bufferOf();
    const half = Math.floor(clip.length / 2) + 77;
    feed(0, half);
    await buffer.settled();
    const held = buffer.segments;
    expect(held.length).toBeGreaterThan(4);
    const from = held[3]!;
    const { got, events, consumer } = reader(1);
    const tap = buffer.tap(from.receivedAt + 1, consumer);
    expect(tap.startsAt).toBe(from.receivedAt);
    feed(half, clip.length);
    await tap.close(true);
    const out = Buffer.concat(got);
    const first = readFileSync(join(work, `buffer-${buffers}`, `${from.seq}.ts`));
    // The segment's own bytes after its table copies are the stream's from where it was cut.
    const cutAt = clip.indexOf(first.subarray(2 * PACKET, 5 * PACKET));
    expect(cutAt).toBeGreaterThan(0);
    expect(out.subarray(0, 2 * PACKET).equals(first.subarray(0, 2 * PACKET))).toBe(true);
    expect(out.subarray(2 * PACKET).equals(clip.subarray(cutAt))).toBe(true);
    expect(events).toEqual([]);
    // As a recording would see it: no packet lost or repeated where the copy meets the live bytes.
    const integrity = new TsIntegrity();
    integrity.push(out);
    expect(integrity.continuityErrors).toBe(0);
    expect(buffer.tapped).toBe(0);
    await buffer.close();
  });

  it('starts at the oldest held segment when asked for a moment before the buffer began', async () => {
    const { buffer, feed } = bufferOf();
    feed(0, 400_000);
    await buffer.settled();
    const { got, consumer } = reader();
    const tap = buffer.tap(0, consumer);
    expect(tap.startsAt).toBe(buffer.segments[0]!.receivedAt);
    await tap.close(true);
    const firstFile = readFileSync(join(work, `buffer-${buffers}`, `${buffer.segments[0]!.seq}.ts`));
    expect(Buffer.concat(got).subarray(0, firstFile.length).equals(firstFile)).toBe(true);
    await buffer.close();
  });

  it('tells a gap, ends when the buffer closes, and a reader that stops gets nothing more', async () => {
    const { buffer, feed } = bufferOf();
    feed(0, 1_500_000);
    await buffer.settled();
    const stopped = reader(400);
    const stopping = buffer.tap(0, stopped.consumer);
    // Stopped once it has read something, with more held for it.
    await until(
      () => stopped.got.length,
      (count) => count > 0,
      5000,
      'a first segment read',
      20,
    );
    await stopping.close(false);
    const countAtStop = stopped.got.length;
    expect(countAtStop).toBeLessThan(buffer.segments.length - 1);
    const ending = reader();
    buffer.tap(0, ending.consumer);
    buffer.gap();
    feed(1_500_000, 1_700_000);
    expect(buffer.tapped).toBe(1);
    await buffer.close();
    expect(stopped.got.length).toBe(countAtStop);
    expect(ending.events).toContain('ended: the live buffer closed');
    expect(buffer.tapped).toBe(0);
  });

  it('tells the gap in its place among the bytes', async () => {
    const { buffer, feed } = bufferOf();
    feed(0, 300_000);
    await buffer.settled();
    const order: string[] = [];
    const tap = buffer.tap(0, {
      data: () => {
        if (order.at(-1) !== 'data') order.push('data');
      },
      gap: () => order.push('gap'),
      ended: () => order.push('ended'),
    });
    buffer.gap();
    feed(300_000, 700_000);
    await tap.close(true);
    expect(order).toEqual(['data', 'gap', 'data']);
    await buffer.close();
  });
});

describe('a live buffer whose folder cannot be made', () => {
  it('says why and keeps a short window in memory, which a reader can still read', async () => {
    const blocker = join(work, 'a-file');
    writeFileSync(blocker, 'not a folder');
    const buffer = new ChannelBuffer({
      dir: join(blocker, 'buffer'),
      depthSeconds: 3600,
      targetSeconds: 1,
      now: () => 1,
    });
    expect(buffer.failure).toMatch(/could not be written/);
    for (let at = 0; at < clip.length; at += 4099) buffer.write(clip.subarray(at, Math.min(at + 4099, clip.length)));
    await buffer.settled();
    expect(buffer.segments).toHaveLength(SHORT_WINDOW);
    expect(buffer.segments.every((segment) => segment.data !== undefined && segment.file === undefined)).toBe(true);
    const { got, consumer } = reader();
    await buffer.tap(0, consumer).close(true);
    expect(Buffer.concat(got)[0]).toBe(0x47);
    await buffer.close();
  });
});
