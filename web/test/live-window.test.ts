/** Live TV's window: the span reachable, how far behind live, clamping, and where start over goes. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  behindLive,
  clampToWindow,
  LIVE_SLACK_SECONDS,
  liveWindowOf,
  startOverTarget,
} from '../src/sections/player/live-window';

describe('the live window', () => {
  it('spans the seekable ranges, and says how far behind live the picture is', () => {
    const window = liveWindowOf([
      [10, 100],
      [120, 3600],
    ]);
    expect(window).toEqual({ start: 10, end: 3600 });
    expect(liveWindowOf([])).toBeUndefined();
    expect(behindLive(window, 3595)).toBe(0);
    expect(behindLive(window, 3600 - 20.4)).toBe(20);
    expect(behindLive(undefined, 5)).toBe(0);
  });

  it('clamps a seek before the buffer to its start and past live to live', () => {
    const window = { start: 100, end: 200 };
    fc.assert(
      fc.property(fc.double({ min: -1e6, max: 1e6, noNaN: true }), (position) => {
        const clamped = clampToWindow(window, position);
        expect(clamped).toBeGreaterThanOrEqual(100);
        expect(clamped).toBeLessThan(200);
      }),
    );
    expect(clampToWindow(window, 150)).toBe(150);
  });

  it('starts over at the programme’s start when the buffer holds it, and not otherwise', () => {
    const window = { start: 0, end: 1800 };
    // The picture shows 20:30:00 at position 1799; the programme began at 20:00:00, 1,800 s before.
    const at = Date.UTC(2026, 11, 6, 20, 30, 0);
    const programme = Date.UTC(2026, 11, 6, 20, 0, 0) / 1000;
    expect(startOverTarget({ start: -20, end: 1800 }, 1799, at, programme)).toBe(-1);
    // The buffer begins a second late: its start, close enough.
    expect(startOverTarget(window, 1799, at, programme)).toBe(0);
    // Ten seconds of the programme are not held: no start over.
    expect(startOverTarget(window, 1790, at, programme)).toBeUndefined();
    expect(startOverTarget(window, 1790, at, programme - 3600)).toBeUndefined();
    expect(startOverTarget(window, 1790, undefined, programme)).toBeUndefined();
    expect(LIVE_SLACK_SECONDS).toBeGreaterThan(0);
  });
});
