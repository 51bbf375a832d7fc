/**
 * A scan's rate and time left (src/importer/progress-rate.ts) and the CLI's progress line (src/cli/scan.command.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RateMeter, secondsLeft } from '../../src/importer/progress-rate.js';
import { formatSecondsLeft, progressBar, progressLine } from '../../src/cli/scan.command.js';

describe('RateMeter', () => {
  it('measures over the last seconds, not the whole run', () => {
    const meter = new RateMeter();
    meter.sample(0, 0);
    expect(meter.perSecond()).toBeUndefined(); // one sample
    meter.sample(50, 500);
    expect(meter.perSecond()).toBeUndefined(); // half a second: too short to say
    meter.sample(100, 1000);
    expect(meter.perSecond()).toBe(100);
    // A slow spell: ten files a second for 20 s; the early fast second has left the window.
    for (let at = 2000, count = 110; at <= 21_000; at += 1000, count += 10) meter.sample(count, at);
    expect(meter.perSecond()).toBeCloseTo(10, 5);
  });

  it('forgets a sample older than its window (an idle spell), so a new run is not measured against it', () => {
    const meter = new RateMeter();
    meter.sample(100, 0);
    meter.sample(100, 3_600_000);
    expect(meter.perSecond()).toBeUndefined();
    meter.sample(600, 3_601_000);
    expect(meter.perSecond()).toBe(500);
  });

  it('starts afresh when the counter goes back (a new run)', () => {
    const meter = new RateMeter();
    meter.sample(500, 0);
    meter.sample(1000, 1000);
    meter.sample(3, 2000);
    expect(meter.perSecond()).toBeUndefined();
  });

  it('never gives a negative or infinite rate (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 30 }), (samples) => {
        const meter = new RateMeter();
        for (const [count, at] of samples) meter.sample(count, at);
        const rate = meter.perSecond();
        if (rate !== undefined) expect(Number.isFinite(rate) && rate >= 0).toBe(true);
      }),
    );
  });
});

describe('secondsLeft', () => {
  it('divides what is left by the rate, and says nothing when stalled', () => {
    expect(secondsLeft(1000, 300)).toBe(4);
    expect(secondsLeft(0, undefined)).toBe(0);
    expect(secondsLeft(10, 0)).toBeUndefined();
    expect(secondsLeft(10, undefined)).toBeUndefined();
  });
});

describe('the CLI progress line', () => {
  it('draws a bar with the counts, the rate and the time left', () => {
    expect(progressBar(1, 4, 8)).toBe('[##......]');
    expect(progressBar(5, 0, 4)).toBe('[....]');
    expect(progressBar(9, 3, 4)).toBe('[####]');
    expect(
      progressLine({
        phase: 'probing',
        filesSeen: 20_000,
        probed: 5_000,
        toProbe: 15_000,
        thumbnails: 0,
        toThumbnail: 20_000,
        perSecond: 1812.3,
        secondsLeft: 9,
      }),
    ).toBe('probing    [######..................] 5,000/20,000 · 1,812 files/s · about 9 s left');
    expect(
      progressLine({ phase: 'thumbnails', filesSeen: 9, probed: 9, toProbe: 0, thumbnails: 3, toThumbnail: 6 }),
    ).toBe('thumbnails [########................] 3/9');
    expect(
      progressLine({
        phase: 'walking',
        filesSeen: 12_345,
        probed: 0,
        toProbe: 0,
        thumbnails: 0,
        toThumbnail: 0,
        perSecond: 4000,
      }),
    ).toBe('walking the roots: 12,345 media files found · 4,000 files/s');
    expect([formatSecondsLeft(59), formatSecondsLeft(185), formatSecondsLeft(3720)]).toEqual([
      '59 s',
      '3 min 05 s',
      '1 h 02 min',
    ]);
  });
});
