/**
 * The guide grid's geometry and the rules its details dialog adds (pure logic, with
 * fast-check).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GuideAiring } from '../src/api/server-types';
import {
  airingAt,
  airingsIn,
  BLOCK,
  blocksFor,
  boxOf,
  clockOf,
  episodeCode,
  GUIDE_SPAN,
  isPlaceholder,
  mergeAirings,
  originFor,
  pagesFor,
  progressOf,
  type Scale,
  SLOT,
  spanWidth,
  ticksBetween,
  timeAt,
  xOf,
} from '../src/sections/guide/guide-geometry';
import { ruleFor } from '../src/sections/guide/programme-dialog';

const NOW = 1_900_000_000;
const epoch = fc.integer({ min: 1_600_000_000, max: 2_100_000_000 });
const scaleArb = fc.record({ origin: epoch.map(originFor), pxPerMinute: fc.integer({ min: 1, max: 12 }) });
const airing = (start: number, end: number, extra: Partial<GuideAiring> = {}): GuideAiring => ({
  start_time: start,
  end_time: end,
  title: 'Show',
  new: false,
  ...extra,
});

describe('time and x', () => {
  it('opens half an hour before the half hour now is in, on a half-hour boundary', () => {
    fc.assert(
      fc.property(epoch, (now) => {
        const origin = originFor(now);
        expect(origin % SLOT).toBe(0);
        expect(now - origin).toBeGreaterThanOrEqual(SLOT);
        expect(now - origin).toBeLessThan(2 * SLOT);
      }),
    );
  });

  it('maps time to x and back, half an hour to 30 minutes of pixels', () => {
    fc.assert(
      fc.property(scaleArb, fc.integer({ min: 0, max: GUIDE_SPAN }), (scale, offset) => {
        const t = scale.origin + offset;
        expect(timeAt(xOf(t, scale), scale)).toBeCloseTo(t, 6);
        expect(xOf(t + SLOT, scale) - xOf(t, scale)).toBeCloseTo(30 * scale.pxPerMinute, 6);
      }),
    );
    expect(spanWidth({ origin: 0, pxPerMinute: 5 })).toBe(14 * 24 * 60 * 5);
  });

  it('boxes a programme where it airs, clipped to the grid, never narrower than the minimum', () => {
    const scale: Scale = { origin: NOW, pxPerMinute: 5 };
    expect(boxOf(airing(NOW + 1800, NOW + 3600), scale)).toEqual({ left: 150, width: 150 });
    expect(boxOf(airing(NOW - 1800, NOW + 600), scale)).toEqual({ left: 0, width: 50 });
    expect(boxOf(airing(NOW, NOW + 30), scale, 4)).toEqual({ left: 0, width: 4 });
    fc.assert(
      fc.property(
        scaleArb,
        fc.integer({ min: -86400, max: GUIDE_SPAN }),
        fc.integer({ min: 60, max: 86400 }),
        (scale, offset, length) => {
          const box = boxOf(airing(scale.origin + offset, scale.origin + offset + length), scale);
          expect(box.left).toBeGreaterThanOrEqual(0);
          expect(box.width).toBeGreaterThanOrEqual(4);
        },
      ),
    );
  });
});

describe('changing channel in the grid', () => {
  const row = [airing(NOW, NOW + 1800), airing(NOW + 1800, NOW + 5400), airing(NOW + 7200, NOW + 9000)];
  it('lands on what airs at the time, else the next, else the last, and nothing in an empty row', () => {
    expect(airingAt(row, NOW + 2000)).toBe(row[1]);
    expect(airingAt(row, NOW + 1800)).toBe(row[1]);
    expect(airingAt(row, NOW + 6000)).toBe(row[2]);
    expect(airingAt(row, NOW - 100)).toBe(row[0]);
    expect(airingAt(row, NOW + 9000)).toBe(row[2]);
    expect(airingAt([], NOW)).toBeUndefined();
  });
  it('always gives an airing of a non-empty row, one on the air at the time when there is one', () => {
    const rows = fc.array(fc.tuple(fc.integer({ min: 0, max: 86400 }), fc.integer({ min: 1, max: 7200 })), {
      minLength: 1,
      maxLength: 20,
    });
    fc.assert(
      fc.property(rows, fc.integer({ min: -3600, max: 90000 }), (spans, offset) => {
        const airings = mergeAirings([spans.map(([start, length]) => airing(NOW + start, NOW + start + length))]);
        const time = NOW + offset;
        const found = airingAt(airings, time);
        expect(airings).toContain(found);
        const onAir = airings.some((a) => a.start_time <= time && a.end_time > time);
        if (onAir) expect(found!.start_time <= time && found!.end_time > time).toBe(true);
      }),
    );
  });
});

describe('what to fetch', () => {
  it('covers any visible span with aligned windows, inside the grid, each once', () => {
    fc.assert(
      fc.property(
        scaleArb,
        fc.integer({ min: -86400, max: GUIDE_SPAN }),
        fc.integer({ min: 0, max: 2 * 86400 }),
        (scale, offset, length) => {
          const from = scale.origin + offset;
          const to = from + length;
          const blocks = blocksFor(from, to, scale);
          expect(new Set(blocks).size).toBe(blocks.length);
          for (const block of blocks) {
            expect(block % BLOCK).toBe(0);
            expect(block).toBeLessThan(scale.origin + GUIDE_SPAN);
          }
          // Every second of the visible span inside the grid falls in a window.
          const lo = Math.max(from, scale.origin);
          const hi = Math.min(to, scale.origin + GUIDE_SPAN);
          for (const t of [lo, Math.floor((lo + hi) / 2), hi - 1])
            if (t >= lo && t < hi) expect(blocks.some((b) => b <= t && t < b + BLOCK)).toBe(true);
        },
      ),
    );
  });

  it('asks for the pages the visible rows are in', () => {
    expect(pagesFor(0, 12)).toEqual([0]);
    expect(pagesFor(45, 60)).toEqual([0, 1]);
    expect(pagesFor(5, 4)).toEqual([]);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 600 }), fc.integer({ min: 0, max: 60 }), (first, count) => {
        const pages = pagesFor(first, first + count, 50);
        for (let row = first; row <= first + count; row++) expect(pages).toContain(Math.floor(row / 50));
        expect(pages.length).toBeLessThanOrEqual(Math.ceil((count + 1) / 50) + 1);
      }),
    );
  });

  it('puts each airing of several windows in once, in time order, and only those near the view', () => {
    const a = airing(100, 200);
    const b = airing(200, 300);
    const c = airing(300, 400);
    expect(
      mergeAirings([
        [b, c],
        [a, b],
      ]).map((x) => x.start_time),
    ).toEqual([100, 200, 300]);
    expect(airingsIn([a, b, c], 200, 300)).toEqual([b]);
  });

  it('ticks every half hour', () => {
    expect(ticksBetween(NOW - 100, NOW + 3600).length).toBe(2);
    expect(ticksBetween(1800, 5400)).toEqual([1800, 3600]);
  });
});

describe('what a programme says', () => {
  it('measures progress from 0 to 1', () => {
    expect(progressOf(airing(100, 200), 150)).toBe(0.5);
    expect(progressOf(airing(100, 200), 50)).toBe(0);
    expect(progressOf(airing(100, 200), 250)).toBe(1);
  });

  it('codes seasons and episodes, and writes 24-hour clock times', () => {
    expect(episodeCode({ season_number: 1, episode_number: 2 })).toBe('S01E02');
    expect(episodeCode({ episode_number: 12 })).toBe('E12');
    expect(episodeCode({})).toBe('');
    expect(clockOf(NOW)).toMatch(/^\d\d:\d\d$/);
  });

  it('records this airing, the series by its id (else title), or new episodes only', () => {
    const show = airing(NOW, NOW + 1800, { title: 'Harbour Watch', series_id: 'SH01' });
    expect(ruleFor('program', { number: '5' }, show)).toEqual({
      type: 'program',
      channel: '5',
      start_time: NOW,
      name: 'Harbour Watch',
    });
    expect(ruleFor('series', { number: '5' }, show)).toEqual({
      type: 'series',
      series_id: 'SH01',
      title: 'Harbour Watch',
    });
    expect(ruleFor('new', { number: '5' }, airing(NOW, NOW + 60, { title: 'News' }))).toEqual({
      type: 'series',
      title: 'News',
      new_only: true,
    });
  });

  it('records a placeholder hour by its time only, never as a series of the channel’s name', () => {
    const hour = airing(NOW, NOW + 3600, { title: 'Eleven', placeholder: true });
    expect(isPlaceholder(hour)).toBe(true);
    expect(isPlaceholder(airing(NOW, NOW + 60))).toBe(false);
    expect(ruleFor('program', { number: '11' }, hour)).toEqual({
      type: 'program',
      channel: '11',
      start_time: NOW,
      name: 'Eleven',
    });
    expect(() => ruleFor('series', { number: '11' }, hour)).toThrow();
    expect(() => ruleFor('new', { number: '11' }, hour)).toThrow();
  });
});
