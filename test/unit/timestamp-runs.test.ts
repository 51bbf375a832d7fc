/**
 * The played time of a stream's timestamps (src/dvr/recording/timestamp-runs.ts): the sum of its
 * continuous runs, across resets, jumps and the 33-bit clock's wrap. Tables for the cases
 * a resumed recording makes, properties for any timestamps.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLOCK_HZ, playedTime, ticksBetween, TimestampRuns } from '../../src/dvr/recording/timestamp-runs.js';

const WRAP = 2 ** 33;
/** One frame at 25 fps, in ticks. */
const FRAME = 3600;

/** `count` frames from `first` (wrapped into the clock's 33 bits). */
const frames = (first: number, count: number, step = FRAME) =>
  Array.from({ length: count }, (_, i) => (first + i * step) % WRAP);
const seconds = (ticks: number) => ticks / CLOCK_HZ;

describe('played time of timestamps', () => {
  it('is last minus first plus one frame for one continuous run', () => {
    expect(playedTime(frames(126_000, 15 * 25))).toEqual({ ticks: 15 * CLOCK_HZ, runs: 1 });
  });

  it('adds the runs of a resumed recording whose second connection started its clock lower', () => {
    // 15 s from 1.4 s, then 12 s from 1.4 s again: last minus first would say 12 s.
    const played = playedTime([...frames(126_000, 15 * 25), ...frames(126_000, 12 * 25)]);
    expect(played).toEqual({ ticks: 27 * CLOCK_HZ, runs: 2 });
  });

  it('adds the runs when the second connection starts much higher (the time it was down is not in the file)', () => {
    const played = playedTime([...frames(126_000, 15 * 25), ...frames(1000 * CLOCK_HZ, 12 * 25)]);
    expect(played).toEqual({ ticks: 27 * CLOCK_HZ, runs: 2 });
  });

  it('keeps a run across the 33-bit wrap', () => {
    expect(playedTime(frames(WRAP - 10 * FRAME, 50))).toEqual({ ticks: 50 * FRAME, runs: 1 });
  });

  it('keeps a run through B-frames sent before pictures shown earlier, and through a short gap', () => {
    // Display order 0 3 1 2 6 4 5 (PTS only, as some sources send it), then 2 s of nothing: one run of 11 frames and
    // the gap.
    const sent = [0, 3, 1, 2, 6, 4, 5].map((n) => n * FRAME);
    const played = playedTime([...sent, 6 * FRAME + 2 * CLOCK_HZ, 7 * FRAME + 2 * CLOCK_HZ]);
    expect(played.runs).toBe(1);
    expect(played.ticks).toBe(7 * FRAME + 2 * CLOCK_HZ + FRAME);
  });

  it('counts a step back of more than a second, or ahead of more than five, as a new run', () => {
    expect(playedTime([0, FRAME, FRAME - CLOCK_HZ - 1]).runs).toBe(2);
    expect(playedTime([0, FRAME, FRAME - CLOCK_HZ]).runs).toBe(1);
    expect(playedTime([0, FRAME, FRAME + 5 * CLOCK_HZ + 1]).runs).toBe(2);
    expect(playedTime([0, FRAME, FRAME + 5 * CLOCK_HZ]).runs).toBe(1);
  });

  it('gives a lone timestamp after a reset the length of the units before it', () => {
    expect(playedTime([...frames(0, 25), 500 * CLOCK_HZ])).toEqual({ ticks: 26 * FRAME, runs: 2 });
  });

  it('is nothing without timestamps, and one unknown unit for a single one', () => {
    expect(playedTime([])).toEqual({ ticks: 0, runs: 0 });
    expect(playedTime([42])).toEqual({ ticks: 0, runs: 1 });
  });

  it('starts a run of its own after a cut (the stream moved to another PID)', () => {
    const runs = new TimestampRuns();
    for (const t of frames(0, 25)) runs.add(t);
    runs.cut();
    runs.cut(); // twice is once
    for (const t of frames(25 * FRAME, 25)) runs.add(t);
    expect(runs.played).toEqual({ ticks: 50 * FRAME, runs: 2 });
  });

  it('measures the steps between two timestamps across the wrap, both ways', () => {
    expect(ticksBetween(WRAP - 100, 200)).toBe(300);
    expect(ticksBetween(200, WRAP - 100)).toBe(-300);
    expect(ticksBetween(5, 5)).toBe(0);
  });
});

/** A continuous run: a start anywhere on the clock and steps forward of up to a second. */
const run = fc
  .record({
    start: fc.integer({ min: 0, max: WRAP - 1 }),
    steps: fc.array(fc.integer({ min: 1, max: CLOCK_HZ }), { minLength: 1, maxLength: 60 }),
  })
  .map(({ start, steps }) => {
    const timestamps = [start];
    for (const step of steps) timestamps.push(((timestamps.at(-1) as number) + step) % WRAP);
    return { timestamps, span: steps.reduce((sum, step) => sum + step, 0) + (steps.at(-1) as number) };
  });

describe('played time, for any timestamps', () => {
  it('is the span plus the last step for a run that only goes forward, wherever it is on the clock', () => {
    fc.assert(
      fc.property(run, ({ timestamps, span }) => {
        expect(playedTime(timestamps)).toEqual({ ticks: span, runs: 1 });
      }),
    );
  });

  it('is the sum of the runs of pieces joined where the clock reset or jumped (a resumed recording)', () => {
    const jump = fc.oneof(
      fc.integer({ min: -(2 ** 32) + 1, max: -CLOCK_HZ - 1 }),
      fc.integer({ min: 5 * CLOCK_HZ + 1, max: 2 ** 32 - 1 }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(run, jump), { minLength: 1, maxLength: 5 }), (pieces) => {
        // Each piece after the first starts `jump` from where the one before ended: a discontinuity whatever its own
        // start.
        const timestamps: number[] = [];
        for (const [{ timestamps: piece }, step] of pieces) {
          const shift = timestamps.length === 0 ? 0 : (timestamps.at(-1) as number) + step - (piece[0] as number);
          timestamps.push(...piece.map((t) => (((t + shift) % WRAP) + WRAP) % WRAP));
        }
        expect(playedTime(timestamps)).toEqual({
          ticks: pieces.reduce((sum, [{ span }]) => sum + span, 0),
          runs: pieces.length,
        });
      }),
    );
  });

  it('does not change when every timestamp moves by the same amount on the clock', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: WRAP - 1 }), { maxLength: 80 }),
        fc.integer({ min: 0, max: WRAP - 1 }),
        (timestamps, offset) => {
          expect(playedTime(timestamps.map((t) => (t + offset) % WRAP))).toEqual(playedTime(timestamps));
        },
      ),
    );
  });

  it('is never negative, has no more runs than timestamps, and grows at most five seconds a timestamp', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 * CLOCK_HZ }), { maxLength: 80 }), (timestamps) => {
        const { ticks, runs } = playedTime(timestamps);
        expect(ticks).toBeGreaterThanOrEqual(0);
        expect(runs).toBeLessThanOrEqual(timestamps.length);
        expect(runs === 0).toBe(timestamps.length === 0);
        expect(seconds(ticks)).toBeLessThanOrEqual(seconds((timestamps.length + 1) * 5 * CLOCK_HZ));
      }),
    );
  });
});
