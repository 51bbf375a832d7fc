/**
 * The segment under way, listed and sent as it comes (what makes a tune start at the first
 * keyframe), over a real ffmpeg-made MPEG-TS fed in odd-sized chunks: the playlist lists it
 * last once it began at a keyframe, a reader gets its bytes so far and then the rest as they
 * arrive, and the stream ends exactly where the segment is cut (the same bytes as its file);
 * a drop or a closed buffer ends it; segments on their way to disk are listed and sent too.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelBuffer, type SegmentSource } from '../../src/dvr/live/channel-buffer.js';
import { tempDir } from '../support/temp-library.js';
import { makeTsClip } from '../support/ts-stream-server.js';

let work: string;
let clip: Buffer;
let buffers = 0;

beforeAll(async () => {
  work = tempDir('antenna-open-segment-');
  clip = readFileSync((await makeTsClip(join(work, 'clip.ts'), { seconds: 6 })).path);
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
  let fed = 0;
  /** Feeds the clip up to byte `to`, in chunks of an odd size. */
  const feedTo = (to: number) => {
    for (; fed < to; ) {
      const end = Math.min(fed + 4099, to);
      clock.ms += ((end - fed) * 8) / 2000;
      buffer.write(clip.subarray(fed, end));
      fed = end;
    }
  };
  return { buffer, feedTo };
}

const names = (playlist: string) => playlist.split('\n').filter((line) => line.startsWith('buffer/'));
const seqOf = (name: string) => Number.parseInt(name.slice('buffer/'.length), 10);

/** Collects a stream's bytes; `ended` resolves with them all once it ends. */
function collect(source: SegmentSource) {
  expect(source).toHaveProperty('stream');
  const stream = (source as { stream: Readable }).stream;
  const got: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => got.push(chunk));
  const ended = new Promise<Buffer>((resolve) => stream.once('end', () => resolve(Buffer.concat(got))));
  return { got, ended };
}

const bytesOf = (source: SegmentSource) =>
  'file' in source ? readFileSync(source.file) : 'data' in source ? source.data : Buffer.alloc(0);

describe('the segment under way', () => {
  it('is listed last once it began at a keyframe, and is sent as it comes until it is cut', async () => {
    const { buffer, feedTo } = bufferOf();
    feedTo(2 * 188);
    // Nothing to start at yet: no keyframe came.
    expect(names(buffer.playlist())).toEqual([]);
    expect(() => buffer.segment(0)).toThrow(/no buffer segment/i);
    expect(await buffer.playable(10)).toBe(false);

    // A little past the first keyframe: the first segment is under way, listed with its time.
    let at = 2 * 188;
    while (names(buffer.playlist()).length === 0) feedTo((at += 1880));
    expect(await buffer.playable(10)).toBe(true);
    const playlist = buffer.playlist();
    expect(names(playlist)).toEqual(['buffer/0.ts']);
    expect(playlist).toMatch(/#EXT-X-PROGRAM-DATE-TIME:\S+\n#EXTINF:1\.000,\nbuffer\/0\.ts/);
    const early = collect(buffer.segment(0));
    await new Promise((resolve) => setImmediate(resolve));
    // What it holds so far, at once: its tables and the keyframe's first packets.
    expect(Buffer.concat(early.got).length).toBeGreaterThanOrEqual(3 * 188);
    expect(early.got[0]![0]).toBe(0x47);

    // Fed on until the segment is cut: a reader that came later gets it from its first byte too.
    feedTo(at + 20_000);
    const late = collect(buffer.segment(0));
    let fedTo = at + 20_000;
    while (names(buffer.playlist()).length < 2) feedTo((fedTo += 4000));
    const [whole, lateWhole] = await Promise.all([early.ended, late.ended]);
    await buffer.settled();
    const stored = bytesOf(buffer.segment(0));
    expect(whole.length).toBe(stored.length);
    expect(whole.equals(stored)).toBe(true);
    expect(lateWhole.equals(stored)).toBe(true);
    // The next one is under way, listed last with the next number; a `from` after everything held begins there.
    const next = names(buffer.playlist()).at(-1)!;
    expect(seqOf(next)).toBe(1);
    expect(names(buffer.playlist(Date.now() * 2))).toEqual([next]);
    await buffer.close();
  });

  it('lists segments on their way to disk and sends them from memory', async () => {
    const { buffer, feedTo } = bufferOf();
    // Written in one go: every segment cut is queued for the disk, none held yet.
    feedTo(Math.floor(clip.length / 2));
    expect(buffer.segments).toHaveLength(0);
    const listed = names(buffer.playlist());
    expect(listed.length).toBeGreaterThanOrEqual(3);
    expect(listed.map(seqOf)).toEqual(listed.map((_, i) => i));
    const queued = buffer.segment(1);
    expect(queued).toHaveProperty('data');
    await buffer.settled();
    expect(bytesOf(buffer.segment(1)).equals(bytesOf(queued))).toBe(true);
    await buffer.close();
  });

  it('ends its readers with what came when the source drops or the buffer closes', async () => {
    const { buffer, feedTo } = bufferOf();
    feedTo(Math.floor(clip.length / 3));
    const open = seqOf(names(buffer.playlist()).at(-1)!);
    const dropped = collect(buffer.segment(open));
    buffer.gap();
    const partial = await dropped.ended;
    expect(partial.length % 188).toBe(0);
    expect(partial.length).toBeGreaterThan(0);
    // The drop ended the segment where it was: it is stored as it was sent.
    await buffer.settled();
    expect(bytesOf(buffer.segment(open)).equals(partial)).toBe(true);

    feedTo(Math.floor(clip.length / 2));
    const again = seqOf(names(buffer.playlist()).at(-1)!);
    expect(again).toBeGreaterThan(open);
    const closing = collect(buffer.segment(again));
    await buffer.close();
    expect((await closing.ended).length).toBeGreaterThan(0);
    expect(() => buffer.segment(again + 1)).toThrow(/no buffer segment/i);
  });
});
