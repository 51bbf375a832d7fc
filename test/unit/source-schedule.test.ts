/**
 * The planner's view of a source (source-schedule.ts), against plain reference answers:
 * `overlapping` finds each overlapping placement once whatever hours it spans, and `fits`
 * says yes exactly when at no second the source would carry more channels than its limit;
 * a removed placement is found no more.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fits, type Placement, SourceSchedule } from '../../src/dvr/planning/source-schedule.js';

const HOUR = 3600;

const placement = fc
  .record({
    channel: fc.constantFrom('1', '2', '3', '4', '5'),
    start: fc.integer({ min: 0, max: 8 * HOUR }),
    length: fc.integer({ min: 1, max: 3 * HOUR }),
  })
  .map(
    ({ channel, start, length }): Placement => ({
      channel,
      sourceId: 's',
      start,
      end: start + length,
      name: `${channel}@${start}`,
    }),
  );

const span = fc.record({ start: fc.integer({ min: 0, max: 9 * HOUR }), length: fc.integer({ min: 1, max: 3 * HOUR }) });

/** The most channels carried at once over [start, end), counting `channel` too: checked at every placement edge. */
function peakChannels(busy: readonly Placement[], channel: string, start: number, end: number): number {
  const instants = [start, ...busy.flatMap((p) => [p.start, p.end])].filter((t) => t >= start && t < end);
  return Math.max(
    ...instants.map(
      (t) => new Set([channel, ...busy.filter((p) => p.start <= t && t < p.end).map((p) => p.channel)]).size,
    ),
  );
}

describe('a source schedule', () => {
  it('finds every placement overlapping a span exactly once', () => {
    fc.assert(
      fc.property(fc.array(placement, { maxLength: 20 }), span, (placements, { start, length }) => {
        const schedule = new SourceSchedule();
        for (const p of placements) schedule.add(p);
        const found = schedule.overlapping(start, start + length);
        expect(new Set(found).size).toBe(found.length);
        expect(new Set(found)).toEqual(new Set(placements.filter((p) => p.start < start + length && start < p.end)));
      }),
      { numRuns: 500 },
    );
  });

  it('forgets a removed placement, and `some` answers as the overlapping ones would', () => {
    fc.assert(
      fc.property(
        fc.array(placement, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        span,
        fc.constantFrom('1', '2'),
        (placements, removals, { start, length }, channel) => {
          const schedule = new SourceSchedule();
          for (const p of placements) schedule.add(p);
          const removed = new Set(
            removals.flatMap((i) => (placements.length > 0 ? [placements[i % placements.length]!] : [])),
          );
          for (const p of removed) schedule.remove(p);
          const left = placements.filter((p) => !removed.has(p) && p.start < start + length && start < p.end);
          expect(new Set(schedule.overlapping(start, start + length))).toEqual(new Set(left));
          expect(schedule.some(start, start + length, (p) => p.channel === channel)).toBe(
            left.some((p) => p.channel === channel),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('fits a stream exactly when the source never carries more channels than its limit', () => {
    fc.assert(
      fc.property(
        fc.array(placement, { maxLength: 12 }),
        span,
        fc.constantFrom('1', '2', '6'),
        fc.integer({ min: 0, max: 4 }),
        (busy, { start, length }, channel, limit) => {
          expect(fits(busy, channel, start, start + length, limit)).toBe(
            peakChannels(busy, channel, start, start + length) <= limit,
          );
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('counts streams of one channel once (they share a connection)', () => {
    const busy: Placement[] = [
      { channel: '1', sourceId: 's', start: 0, end: HOUR, name: 'a' },
      { channel: '1', sourceId: 's', start: 0, end: HOUR, name: 'b' },
    ];
    expect(fits(busy, '1', 0, HOUR, 1)).toBe(true);
    expect(fits(busy, '2', 0, HOUR, 1)).toBe(false);
    expect(fits(busy, '2', HOUR, 2 * HOUR, 1)).toBe(true);
  });
});
