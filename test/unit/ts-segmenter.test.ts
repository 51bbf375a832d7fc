/**
 * TsSegmenter over a real ffmpeg-made MPEG-TS (H.264 with a keyframe each second, AAC):
 * segments that start with the tables and a keyframe, last about their target, lose no
 * byte, do not depend on how the stream was chunked, play on their own (ffprobe), and
 * mark where the timestamps jump back (a looping source).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserPlayable,
  type CutSegment,
  longestOpenSeconds,
  resyncAt,
  PACKET,
  ptsSeconds,
  QUICK_START,
  TsSegmenter,
} from '../../src/dvr/live/ts-segmenter.js';
import { tempDir } from '../support/temp-library.js';
import { makeTsClip } from '../support/ts-stream-server.js';

let work: string;
let clip: Buffer;

beforeAll(async () => {
  work = tempDir('antenna-segmenter-');
  const made = await makeTsClip(join(work, 'clip.ts'), { seconds: 10 });
  clip = readFileSync(made.path);
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Feeds `bytes` in pieces cut at `cuts`, the clock at the stream's pace; every segment, the last ended too. */
function segmentsOf(bytes: Buffer, cuts: number[] = [], targetSeconds = 2): CutSegment[] {
  let clock = 1_000_000;
  const segmenter = new TsSegmenter({ targetSeconds, now: () => clock });
  const points = [...new Set([0, ...cuts.filter((c) => c > 0 && c < bytes.length), bytes.length])].sort(
    (a, b) => a - b,
  );
  const out: CutSegment[] = [];
  for (let i = 1; i < points.length; i++) {
    out.push(...segmenter.push(bytes.subarray(points[i - 1], points[i])));
    clock += 100;
  }
  const last = segmenter.end();
  if (last) out.push(last);
  return out;
}

const pidAt = (segment: Buffer, packet: number) =>
  ((segment[packet * PACKET + 1]! & 0x1f) << 8) | segment[packet * PACKET + 2]!;
const joined = (segment: CutSegment) => Buffer.concat(segment.chunks);

describe('TsSegmenter', () => {
  it('cuts at keyframes about every two seconds, the tables first, no byte lost', () => {
    const segments = segmentsOf(clip, [1000, 70_000, 333_333]);
    // Three of one GOP (a second) for a quick start, then about two seconds each: 3 + 7 / 2.
    expect(segments.length).toBeGreaterThanOrEqual(6);
    expect(segments.length).toBeLessThanOrEqual(8);
    for (const segment of segments) {
      const bytes = joined(segment);
      expect(bytes.length).toBe(segment.bytes);
      expect(bytes.length % PACKET).toBe(0);
      expect(pidAt(bytes, 0)).toBe(0);
      // The third packet is the keyframe's: its adaptation field says so.
      expect(bytes[2 * PACKET + 5]! & 0x40).toBe(0x40);
    }
    for (const segment of segments.slice(0, QUICK_START)) expect(segment.duration).toBeCloseTo(1, 1);
    for (const segment of segments.slice(QUICK_START, -1)) expect(segment.duration).toBeCloseTo(2, 1);
    // Without the tables each begins with, the segments are the clip from its first keyframe on, byte for byte
    // (before it: the tables and the first audio, nothing a player could start at).
    const stored = Buffer.concat(segments.map((s) => joined(s).subarray(2 * PACKET)));
    expect(clip.length - stored.length).toBeLessThan(64 * PACKET);
    expect(stored.equals(clip.subarray(clip.length - stored.length))).toBe(true);
    expect(segments.some((s) => s.discontinuity)).toBe(false);
  });

  it('cuts a stream whose keyframes stop all the same, so a segment never grows without end', () => {
    // One keyframe at the start, then none for 30 s (a broken encoder): segments are cut at the cap, no byte lost.
    const path = join(work, 'one-keyframe.ts');
    execFileSync('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=25:duration=30'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '100000', '-sc_threshold', '0', '-f', 'mpegts', path],
    ]);
    const bytes = readFileSync(path);
    const segments = segmentsOf(
      bytes,
      Array.from({ length: 200 }, (_, i) => i * 4700),
    );
    const cap = longestOpenSeconds(2);
    expect(segments.length).toBeGreaterThanOrEqual(3);
    for (const segment of segments) expect(segment.duration).toBeLessThanOrEqual(cap + 0.5);
    const stored = segments.reduce((sum, segment) => sum + segment.bytes - 2 * PACKET, 0);
    expect(bytes.length - stored).toBeLessThan(64 * PACKET);
  });

  it('gives the same segments however the stream was chunked', () => {
    const reference = segmentsOf(clip).map((s) => [joined(s).toString('base64'), s.duration.toFixed(3)]);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: clip.length - 1 }), { maxLength: 40 }), (cuts) => {
        const segments = segmentsOf(clip, cuts).slice(0, -1);
        expect(segments.map((s) => [joined(s).toString('base64'), s.duration.toFixed(3)])).toEqual(
          reference.slice(0, -1),
        );
      }),
      { numRuns: 25 },
    );
  });

  it('makes segments that play on their own', () => {
    // One of two seconds, after the quick start's.
    const second = segmentsOf(clip)[QUICK_START + 1];
    const file = join(work, 'second.ts');
    writeFileSync(file, joined(second!));
    const probed = JSON.parse(
      execFileSync('ffprobe', ['-v', 'error', '-show_streams', '-count_frames', '-of', 'json', file], {
        encoding: 'utf8',
      }),
    ) as { streams: { codec_type: string; nb_read_frames: string }[] };
    const video = probed.streams.find((s) => s.codec_type === 'video');
    expect(Number(video?.nb_read_frames)).toBeGreaterThanOrEqual(48);
    expect(probed.streams.some((s) => s.codec_type === 'audio')).toBe(true);
  });

  it('marks the segment after the timestamps jump back (a source that loops) and takes its length from the clock', () => {
    const segments = segmentsOf(Buffer.concat([clip, clip]), [clip.length]);
    const marked = segments.filter((s) => s.discontinuity);
    expect(marked).toHaveLength(1);
    expect(segments.length).toBeGreaterThanOrEqual(9);
  });

  it('times the segment an upstream ended to its last bytes, not to when the drop was noticed', () => {
    let clock = 0;
    const segmenter = new TsSegmenter({ targetSeconds: 2, now: () => clock });
    // The first 600 KB in six pieces 100 ms apart, then 15 s of silence before the hub declares the drop.
    for (let i = 0; i < 6; i++) {
      segmenter.push(clip.subarray(i * 100_000, (i + 1) * 100_000));
      clock += 100;
    }
    const under = segmenter.current();
    expect(under).toBeDefined();
    clock += 15_000;
    const last = segmenter.end();
    expect(last?.receivedAt).toBe(under?.receivedAt);
    // Its bytes came at most 500 ms after it began (the pieces' clock): never the 15 s of silence.
    expect(last?.duration).toBeGreaterThanOrEqual(0.1);
    expect(last?.duration).toBeLessThanOrEqual(0.5);
  });

  it('skips what is not MPEG-TS and finds the packets again', () => {
    const noisy = Buffer.concat([Buffer.from('garbage before the stream'), clip.subarray(0, 400 * PACKET)]);
    const segments = segmentsOf(noisy, [7, 5000]);
    expect(segments.length).toBeGreaterThan(0);
    for (const s of segments) expect(pidAt(joined(s), 0)).toBe(0);
  });

  it('reads what the channel carries from its PMT, and says whether a browser plays it as it is', () => {
    const segmenter = new TsSegmenter({ targetSeconds: 2, now: () => 0 });
    segmenter.push(clip.subarray(0, 100 * PACKET));
    expect(segmenter.streamTypes).toEqual([0x1b, 0x0f]);
    expect(browserPlayable([0x1b, 0x0f])).toBe(true);
    expect(browserPlayable([0x0f])).toBe(true);
    // Broadcast's usual: MPEG-2 video, AC-3 audio.
    expect(browserPlayable([0x02, 0x81])).toBe(false);
    expect(browserPlayable([0x1b, 0x81])).toBe(false);
    expect(browserPlayable([0x24, 0x0f])).toBe(false);
    expect(browserPlayable([])).toBe(false);
  });

  it('unwinds the 33-bit wrap of timestamps', () => {
    expect(ptsSeconds(2 ** 33 - 90_000, 90_000)).toBeCloseTo(2, 6);
    expect(ptsSeconds(90_000, 2 ** 33 - 90_000)).toBeCloseTo(-2, 6);
    expect(ptsSeconds(0, 180_000)).toBe(2);
  });
});

describe('resyncing after lost sync', () => {
  it('takes a 0x47 that another follows a packet later, not a lone one in a payload', () => {
    const bytes = Buffer.alloc(4 * PACKET, 0x11);
    bytes[5] = 0x47; // a payload byte
    bytes[40] = 0x47; // where packets start again
    bytes[40 + PACKET] = 0x47;
    expect(resyncAt(bytes, 1)).toBe(40);
    // Near the end nothing can be checked: taken, and checked with the next bytes.
    const tail = Buffer.alloc(PACKET + 10, 0x11);
    tail[PACKET + 2] = 0x47;
    expect(resyncAt(tail, 1)).toBe(PACKET + 2);
    expect(resyncAt(Buffer.alloc(500, 0x11), 0)).toBe(500);
  });

  it('loses no packet of a stream with garbage before and inside it', () => {
    const garbage = Buffer.from([0x47, 0x00, 0x47, 0x12, 0x47, 0x47, 0x99]);
    const at = 60 * PACKET;
    const dirty = Buffer.concat([garbage, clip.subarray(0, at), garbage, clip.subarray(at)]);
    const all = (segments: CutSegment[]) => Buffer.concat(segments.map(joined));
    expect(all(segmentsOf(dirty, [3000, 90_000])).equals(all(segmentsOf(clip)))).toBe(true);
  });
});
