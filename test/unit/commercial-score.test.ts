/**
 * The scoring of commercial detection against a labelled broadcast (bench/broadcast-set.mjs):
 * worked examples, the recipe's labels, and properties over random truths and detections.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BROADCAST_NAMES,
  normalizeSpans,
  pairsOf,
  plannedBreaks,
  scoreDetection,
  sumScores,
  type Span,
} from '../support/broadcast-set.js';

describe('scoreDetection', () => {
  it('counts skipped ad and programme seconds, leaving a second either side of each boundary out', () => {
    // 100 s, one break 40-70: ads counted 41-69 (28 s), programme 0-39 and 71-100 (68 s).
    const score = scoreDetection([[40, 70]], [[45, 75]], 100);
    expect(score.adSeconds).toBeCloseTo(28);
    expect(score.adSecondsSkipped).toBeCloseTo(24);
    expect(score.adShare).toBeCloseTo(24 / 28);
    expect(score.programmeSeconds).toBeCloseTo(68);
    expect(score.programmeSecondsSkipped).toBeCloseTo(4);
    expect(score.programmeShare).toBeCloseTo(4 / 68);
    expect(score).toMatchObject({ breaks: 1, breaksFound: 1, falseBreaks: 0 });
  });

  it('gives full marks to a detection cutting anywhere in the edge blacks, and none to a miss', () => {
    const perfect = scoreDetection([[10, 40]], [[10.5, 39.6]], 60);
    expect(perfect).toMatchObject({ adShare: 1, programmeShare: 0, breaksFound: 1 });
    const missed = scoreDetection([[10, 40]], [[45, 50]], 60);
    expect(missed).toMatchObject({ adShare: 0, breaksFound: 0, falseBreaks: 1 });
    expect(missed.programmeSecondsSkipped).toBeCloseTo(5);
  });

  it('finds a break only when at least half of it is skipped', () => {
    expect(scoreDetection([[0, 42]], [[0, 20]], 100).breaksFound).toBe(0);
    expect(scoreDetection([[0, 42]], [[0, 22]], 100).breaksFound).toBe(1);
  });

  it('sums files by their seconds, not by averaging their shares', () => {
    const total = sumScores([scoreDetection([[10, 40]], [[10, 40]], 100), scoreDetection([[10, 100]], [], 200)]);
    expect(total.adSeconds).toBeCloseTo(28 + 88);
    expect(total.adShare).toBeCloseTo(28 / 116);
    expect(total).toMatchObject({ breaks: 2, breaksFound: 1, programmeSecondsSkipped: 0 });
  });

  it('reads detectCommercials flat answers as pairs and merges overlapping spans', () => {
    expect(pairsOf([1, 2, 5, 8])).toEqual([
      [1, 2],
      [5, 8],
    ]);
    expect(
      normalizeSpans(
        [
          [5, 9],
          [-3, 2],
          [8, 12],
          [20, 30],
        ],
        25,
      ),
    ).toEqual([
      [0, 2],
      [5, 12],
      [20, 25],
    ]);
  });
});

describe('the labelled set', () => {
  it('holds at least 20 breaks of 2 to 4 spots across several files, inside each file', () => {
    expect(BROADCAST_NAMES.length).toBeGreaterThanOrEqual(4);
    let breaks = 0;
    for (const name of BROADCAST_NAMES) {
      const planned = plannedBreaks(name);
      breaks += planned.breaks.length;
      let last = -1;
      for (const [start, end] of planned.breaks) {
        expect(start).toBeGreaterThan(last);
        expect(end).toBeLessThanOrEqual(planned.duration);
        // 2 spots of 15 s to 4 of 30 s, plus the leading black.
        expect(end - start).toBeGreaterThanOrEqual(30);
        expect(end - start).toBeLessThanOrEqual(121);
        last = end;
      }
    }
    expect(breaks).toBeGreaterThanOrEqual(20);
  });
});

const DURATION = 600;
const span = fc
  .tuple(fc.double({ min: -10, max: DURATION + 10, noNaN: true }), fc.double({ min: 0, max: 200, noNaN: true }))
  .map(([start, length]): Span => [start, start + length]);
const spans = fc.array(span, { maxLength: 8 });
/** Inside the file and longer than both edges: every such break has seconds that count. */
const insideSpans = fc.array(
  fc
    .tuple(fc.double({ min: 0, max: DURATION - 200, noNaN: true }), fc.double({ min: 3, max: 200, noNaN: true }))
    .map(([start, length]): Span => [start, start + length]),
  { maxLength: 8 },
);

describe('scoreDetection, properties', () => {
  it('stays within its bounds and accounts for every second once', () => {
    fc.assert(
      fc.property(spans, spans, fc.double({ min: 0, max: 3, noNaN: true }), (truth, detected, edgeSeconds) => {
        const score = scoreDetection(truth, detected, DURATION, { edgeSeconds });
        expect(score.adSecondsSkipped).toBeLessThanOrEqual(score.adSeconds + 1e-9);
        expect(score.programmeSecondsSkipped).toBeLessThanOrEqual(score.programmeSeconds + 1e-9);
        expect(score.adShare).toBeGreaterThanOrEqual(0);
        expect(score.adShare).toBeLessThanOrEqual(1 + 1e-9);
        expect(score.programmeShare).toBeGreaterThanOrEqual(0);
        expect(score.programmeShare).toBeLessThanOrEqual(1 + 1e-9);
        expect(score.adSeconds + score.programmeSeconds).toBeLessThanOrEqual(DURATION + 1e-6);
        expect(score.breaksFound).toBeLessThanOrEqual(score.breaks);
        // With no edges left out, ad and programme seconds are the whole file.
        const whole = scoreDetection(truth, detected, DURATION, { edgeSeconds: 0 });
        expect(whole.adSeconds + whole.programmeSeconds).toBeCloseTo(DURATION, 6);
      }),
    );
  });

  it('scores the truth itself as every ad second and no programme second, and everything as all programme', () => {
    fc.assert(
      fc.property(insideSpans, (truth) => {
        const score = scoreDetection(truth, truth, DURATION);
        expect(score.adShare).toBe(1);
        expect(score.programmeSecondsSkipped).toBeCloseTo(0, 9);
        expect(score.breaksFound).toBe(score.breaks);
        const everything = scoreDetection(truth, [[0, DURATION]], DURATION);
        expect(everything.programmeSecondsSkipped).toBeCloseTo(everything.programmeSeconds, 6);
        expect(scoreDetection(truth, [], DURATION)).toMatchObject({ adSecondsSkipped: 0, programmeSecondsSkipped: 0 });
      }),
    );
  });

  it('never skips fewer seconds of either kind when the detection grows', () => {
    fc.assert(
      fc.property(spans, spans, span, (truth, detected, extra) => {
        const before = scoreDetection(truth, detected, DURATION);
        const after = scoreDetection(truth, [...detected, extra], DURATION);
        expect(after.adSecondsSkipped).toBeGreaterThanOrEqual(before.adSecondsSkipped - 1e-9);
        expect(after.programmeSecondsSkipped).toBeGreaterThanOrEqual(before.programmeSecondsSkipped - 1e-9);
      }),
    );
  });
});
