/** Live TV's window: the span reachable, how far behind live, clamping, and where start over goes. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  behindLive,
  clampToWindow,
  LIVE_SLACK_SECONDS,
  liveWindowOf,
  programmeAt,
  programmeSpans,
  startOverFromRecording,
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

describe('the programmes a live buffer holds, on its seek bar', () => {
  // The window is positions 100..700 (ten minutes); position 400 shows 20:05:00 UTC.
  const window = { start: 100, end: 700 };
  const playingAt = Date.UTC(2026, 11, 6, 20, 5, 0);
  const at = (h: number, m: number) => Date.UTC(2026, 11, 6, h, m, 0) / 1000;
  const airings = [
    { title: 'Late', start_time: at(20, 30), end_time: at(21, 0) },
    { title: 'Evening News', start_time: at(20, 0), end_time: at(20, 30) },
    { title: 'Quiz', start_time: at(19, 30), end_time: at(20, 0) },
    { title: 'Long gone', start_time: at(18, 0), end_time: at(19, 0) },
  ];

  it('places each programme in the window, clipped to it, in order; those outside are left out', () => {
    const spans = programmeSpans(window, 400, playingAt, airings);
    // 20:00 is position 100, the window's start: Quiz ends there, and is not drawn.
    expect(spans.map((s) => s.title)).toEqual(['Evening News']);
    const news = spans[0]!;
    expect(news.left).toBeCloseTo(0, 5);
    expect(news.width).toBeCloseTo(100, 5);
  });

  it('splits the window where a programme changes', () => {
    // Position 400 shows 20:02: the window reaches back to 19:57 and on to 20:07.
    const spans = programmeSpans(window, 400, Date.UTC(2026, 11, 6, 20, 2, 0), airings);
    expect(spans.map((s) => s.title)).toEqual(['Quiz', 'Evening News']);
    expect(spans[0]!.left).toBeCloseTo(0, 5);
    expect(spans[0]!.width).toBeCloseTo(30, 5);
    expect(spans[1]!.left).toBeCloseTo(30, 5);
    expect(spans[1]!.width).toBeCloseTo(70, 5);
    expect(programmeAt(spans, window, 200)?.title).toBe('Quiz');
    expect(programmeAt(spans, window, 400)?.title).toBe('Evening News');
  });

  it('draws nothing while the picture’s time is not known', () => {
    expect(programmeSpans(window, 400, undefined, airings)).toEqual([]);
    expect(programmeSpans(undefined, 400, playingAt, airings)).toEqual([]);
    expect(programmeAt([], window, 400)).toBeUndefined();
  });
});

describe('start over from the recording under way', () => {
  const start = 1_800_000_000;
  it('plays the recording from the programme’s start when the file begins before it (its padding)', () => {
    expect(startOverFromRecording(start, { file_id: 'rec-1', file_begins_at: start - 60 })).toEqual({
      fileId: 'rec-1',
      start: 60,
    });
    // A recording that began a little late (its tune) starts at its first second.
    expect(startOverFromRecording(start, { file_id: 'rec-1', file_begins_at: start + 20 })).toEqual({
      fileId: 'rec-1',
      start: 0,
    });
  });

  it('offers nothing for a recording begun well into the programme, none at all, or no guide', () => {
    expect(startOverFromRecording(start, { file_id: 'rec-1', file_begins_at: start + 600 })).toBeUndefined();
    expect(startOverFromRecording(start, null)).toBeUndefined();
    expect(startOverFromRecording(start, { file_begins_at: start })).toBeUndefined();
    expect(startOverFromRecording(undefined, { file_id: 'rec-1', file_begins_at: start })).toBeUndefined();
  });
});
