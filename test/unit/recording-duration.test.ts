/**
 * The walk over a recording's packets (src/dvr/recording/recording-duration.ts) on TS bytes made
 * here, packet by packet: which stream's timestamps it follows, which packets it
 * believes, how it finds the packets again after a cut, that any split into reads gives
 * the same answer, and which duration a recording keeps. Real ffmpeg-made recordings are
 * test/service/recording-duration.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  PesTimestampWalk,
  type ReadNext,
  recordingDuration,
  walkTimestamps,
} from '../../src/dvr/recording/recording-duration.js';
import { TS_PACKET_SIZE } from '../../src/dvr/recording/ts-packets.js';

const CLOCK = 90_000;
const FRAME = 3600;
const VIDEO = 0x100;
const AUDIO = 0x101;

interface Unit {
  pid: number;
  /** PES stream id: 0xe0 video, 0xc0 audio, 0xbd private stream 1. */
  id: number;
  pts: number;
  dts?: number;
  error?: boolean;
  scrambled?: boolean;
}

/** A PTS or DTS field: the 4-bit prefix, then the 33 bits with their marker bits. */
function timestampField(prefix: number, t: number): number[] {
  const high = Math.floor(t / 2 ** 30) & 7;
  const low = t % 2 ** 30;
  return [
    (prefix << 4) | (high << 1) | 1,
    (low >>> 22) & 0xff,
    (((low >>> 15) & 0x7f) << 1) | 1,
    (low >>> 7) & 0xff,
    ((low & 0x7f) << 1) | 1,
  ];
}

/**
 * The packet that starts the unit's PES (with an adaptation field of `stuffing` bytes), and one that carries on its
 * payload.
 */
function packetsOf(unit: Unit, stuffing = 0): Buffer[] {
  const header = [
    0x47,
    (unit.error ? 0x80 : 0) | 0x40 | (unit.pid >> 8),
    unit.pid & 0xff,
    (unit.scrambled ? 0x80 : 0) | (stuffing > 0 ? 0x30 : 0x10),
  ];
  const adaptation =
    stuffing > 0 ? [stuffing - 1, ...(stuffing > 1 ? [0, ...Array<number>(stuffing - 2).fill(0xff)] : [])] : [];
  const fields =
    unit.dts === undefined
      ? timestampField(2, unit.pts)
      : [...timestampField(3, unit.pts), ...timestampField(1, unit.dts)];
  const pes = [0, 0, 1, unit.id, 0, 0, 0x80, unit.dts === undefined ? 0x80 : 0xc0, fields.length, ...fields];
  const start = Buffer.alloc(TS_PACKET_SIZE, 0xff);
  Buffer.from([...header, ...adaptation, ...pes]).copy(start);
  const more = Buffer.alloc(TS_PACKET_SIZE, 0x47); // payload bytes that look like sync bytes, to tempt a resync
  Buffer.from([0x47, unit.pid >> 8, unit.pid & 0xff, 0x11]).copy(more);
  return [start, more];
}

const tsOf = (units: readonly Unit[]) => Buffer.concat(units.flatMap((unit) => packetsOf(unit)));
/** `count` video frames at 25 fps from `first`, PTS only. */
const video = (first: number, count: number, pid = VIDEO): Unit[] =>
  Array.from({ length: count }, (_, i) => ({ pid, id: 0xe0, pts: first + i * FRAME }));

function walk(bytes: Buffer) {
  const walker = new PesTimestampWalk();
  walker.scan(bytes, bytes.length);
  return walker.result;
}

/** A reader giving the bytes in reads of the sizes listed, round and round. */
function readsOf(bytes: Buffer, sizes: readonly number[]): ReadNext {
  let [position, n] = [0, 0];
  return (into, offset, length) => {
    const size = Math.min(length, sizes[n++ % sizes.length] as number, bytes.length - position);
    bytes.copy(into, offset, position, position + size);
    position += size;
    return Promise.resolve(size);
  };
}

describe('the walk over a recording’s packets', () => {
  it('follows the first video stream, by its decoding timestamps when it has them', () => {
    // B-frames: presentation order 0 3 1 2 ..., decoding order monotonic, 2 s of frames.
    const order = [0, 3, 1, 2, 6, 4, 5, 9, 7, 8];
    const frames: Unit[] = Array.from({ length: 50 }, (_, i) => ({
      pid: VIDEO,
      id: 0xe0,
      dts: 126_000 + i * FRAME,
      pts: 126_000 + FRAME + (Math.floor(i / 10) * 10 + (order[i % 10] as number)) * FRAME,
    }));
    const audio: Unit[] = Array.from({ length: 10 }, (_, i) => ({ pid: AUDIO, id: 0xc0, pts: 900_000 + i * 9000 }));
    expect(walk(tsOf([...audio.slice(0, 5), ...frames, ...audio.slice(5)]))).toEqual({
      stream: 'video',
      seconds: 2,
      runs: 1,
    });
  });

  it('reads the clock’s top bit and stuffed adaptation fields', () => {
    const bytes = Buffer.concat(
      video(2 ** 33 - 10 * FRAME, 25).flatMap((unit, i) => packetsOf(unit, i % 3 === 0 ? 40 : i % 3 === 1 ? 1 : 0)),
    );
    expect(walk(bytes)).toEqual({ stream: 'video', seconds: 1, runs: 1 });
  });

  it('follows the first audio stream when there is no video, never private stream 1 (subtitles come and go)', () => {
    const audio: Unit[] = Array.from({ length: 30 }, (_, i) => ({ pid: AUDIO, id: 0xc0, pts: 1000 + i * 2880 }));
    const subtitles: Unit[] = [0, 20, 40].map((s) => ({ pid: 0x102, id: 0xbd, pts: s * CLOCK }));
    expect(walk(tsOf([subtitles[0]!, ...audio, subtitles[1]!, subtitles[2]!]))).toEqual({
      stream: 'audio',
      seconds: 0.96,
      runs: 1,
    });
    expect(walk(tsOf(subtitles))).toBeUndefined();
  });

  it('does not believe a packet flagged in error or scrambled', () => {
    const units = video(0, 25);
    units.splice(
      10,
      0,
      { pid: VIDEO, id: 0xe0, pts: 5000 * CLOCK, error: true },
      { pid: VIDEO, id: 0xe0, pts: 7000 * CLOCK, scrambled: true },
    );
    expect(walk(tsOf(units))).toEqual({ stream: 'video', seconds: 1, runs: 1 });
  });

  it('adds the runs of a resumed recording, across the packet cut where the first run stopped', () => {
    const first = tsOf(video(126_000, 15 * 25));
    const second = tsOf(video(126_000, 12 * 25));
    for (const cut of [0, 1, 4, 100, 187]) {
      const bytes = Buffer.concat([first, first.subarray(0, cut), second]);
      expect(walk(bytes), `cut after ${cut} bytes`).toEqual({ stream: 'video', seconds: 27, runs: 2 });
    }
    // ... and across a start in the middle of a packet.
    expect(walk(Buffer.concat([second.subarray(50), first]))).toEqual({ stream: 'video', seconds: 27 - 0.04, runs: 2 });
  });

  it('follows the video to another PID when the source changed its PIDs, and stays on its PID when another program goes on beside it', () => {
    expect(walk(tsOf([...video(126_000, 100), ...video(900_000_000, 100, 0x200)]))).toEqual({
      stream: 'video',
      seconds: 8,
      runs: 2,
    });
    const two = video(126_000, 100).flatMap((unit, i) => [
      unit,
      { ...unit, pid: 0x200, pts: 900_000_000 + i * 2 * FRAME },
    ]);
    expect(walk(tsOf(two))).toEqual({ stream: 'video', seconds: 4, runs: 1 });
  });

  it('gives the same answer however the file is split into reads', async () => {
    const first = tsOf(video(126_000, 60));
    const bytes = Buffer.concat([
      first,
      first.subarray(0, 77),
      tsOf(video(126_000, 40)),
      Buffer.from([0x47, 0x47, 0x47]),
      tsOf(video(5000, 60, 0x200)),
    ]);
    const whole = walk(bytes);
    expect(whole).toEqual({ stream: 'video', seconds: 6.4, runs: 3 });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 3000 }), { minLength: 1, maxLength: 20 }), async (sizes) => {
        expect(await walkTimestamps(readsOf(bytes, sizes))).toEqual(whole);
      }),
      { numRuns: 60 },
    );
  });

  it('stops when aborted, and has nothing to say of bytes that are not a TS', async () => {
    const aborted = AbortSignal.abort();
    expect(await walkTimestamps(readsOf(tsOf(video(0, 25)), [4096]), aborted)).toBeUndefined();
    expect(await walkTimestamps(readsOf(Buffer.alloc(100_000, 0x47), [4096]))).toBeUndefined();
    expect(await walkTimestamps(readsOf(Buffer.from('not a transport stream'.repeat(1000)), [4096]))).toBeUndefined();
  });
});

describe('the duration a recording keeps', () => {
  it('is the probe’s when the timestamps ran on, the walk’s when they reset or jumped or the probe had none', () => {
    expect(recordingDuration(15.023, { stream: 'video', seconds: 15, runs: 1 })).toBe(15.023);
    expect(recordingDuration(12.025, { stream: 'video', seconds: 27, runs: 2 })).toBe(27);
    expect(recordingDuration(1012.002, { stream: 'audio', seconds: 27.01, runs: 2 })).toBe(27.01);
    expect(recordingDuration(null, { stream: 'video', seconds: 9, runs: 1 })).toBe(9);
    expect(recordingDuration(12.5, undefined)).toBe(12.5);
    expect(recordingDuration(null, undefined)).toBeNull();
    expect(recordingDuration(3, { stream: 'video', seconds: 0, runs: 2 })).toBe(3);
  });
});
