/**
 * Scoring a commercial detection against the truth of a labelled broadcast (bench/broadcast-set.mjs):
 * spans are [start, end] seconds; pure, so unit-tested (test/unit/commercial-score.test.ts).
 */

/** Spans [start, end] clipped to [0, duration], sorted, overlapping or touching ones merged. */
export function normalizeSpans(spans, duration) {
  const clipped = spans
    .map(([start, end]) => [Math.max(0, start), Math.min(duration, end)])
    .filter(([start, end]) => end > start)
    .sort((a, b) => a[0] - b[0]);
  const merged = [];
  for (const [start, end] of clipped) {
    const last = merged[merged.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/** Both normalized: the parts of `a` inside `b`. */
function intersect(a, b) {
  const out = [];
  for (const [s1, e1] of a)
    for (const [s2, e2] of b) if (Math.min(e1, e2) > Math.max(s1, s2)) out.push([Math.max(s1, s2), Math.min(e1, e2)]);
  return out;
}

/** Both normalized: the parts of `a` outside `b`. */
function subtract(a, b) {
  return a.flatMap(([start, end]) => {
    const out = [];
    let from = start;
    for (const [s, e] of b) {
      if (e <= from || s >= end) continue;
      if (s > from) out.push([from, s]);
      from = Math.max(from, e);
    }
    if (from < end) out.push([from, end]);
    return out;
  });
}

const measure = (spans) => spans.reduce((sum, [start, end]) => sum + (end - start), 0);

/** Flat [start, end, start, end, ...] (detectCommercials' answer) as pairs. */
export function pairsOf(flat) {
  const pairs = [];
  for (let i = 0; i + 1 < flat.length; i += 2) pairs.push([flat[i], flat[i + 1]]);
  return pairs;
}

/**
 * How a detection fares against the truth. Seconds within `edgeSeconds` of a true boundary count
 * for neither side (comskip cuts somewhere in the black between programme and break). A break is
 * found when at least half its counted seconds are skipped; a false break is a detected span
 * with no counted ad second in it.
 */
export function scoreDetection(truth, detected, duration, { edgeSeconds = 1 } = {}) {
  const whole = [[0, duration]];
  const ads = normalizeSpans(truth, duration);
  const skipped = normalizeSpans(detected, duration);
  const edges = normalizeSpans(
    ads.flatMap(([start, end]) => [
      [start - edgeSeconds, start + edgeSeconds],
      [end - edgeSeconds, end + edgeSeconds],
    ]),
    duration,
  );
  const adCounted = subtract(ads, edges);
  const programmeCounted = subtract(subtract(whole, ads), edges);
  const adSeconds = measure(adCounted);
  const adSecondsSkipped = measure(intersect(adCounted, skipped));
  const programmeSeconds = measure(programmeCounted);
  const programmeSecondsSkipped = measure(intersect(programmeCounted, skipped));
  const breaksFound = ads.filter((span) => {
    const counted = subtract([span], edges);
    return measure(intersect(counted, skipped)) >= measure(counted) / 2 && measure(counted) > 0;
  }).length;
  const falseBreaks = skipped.filter((span) => measure(intersect(adCounted, [span])) === 0).length;
  return {
    adSeconds,
    adSecondsSkipped,
    adShare: adSeconds > 0 ? adSecondsSkipped / adSeconds : 1,
    programmeSeconds,
    programmeSecondsSkipped,
    programmeShare: programmeSeconds > 0 ? programmeSecondsSkipped / programmeSeconds : 0,
    breaks: ads.length,
    breaksFound,
    falseBreaks,
  };
}

/** Scores over several files summed: the shares of all ad and all programme seconds. */
export function sumScores(scores) {
  const sum = (key) => scores.reduce((total, score) => total + score[key], 0);
  const adSeconds = sum('adSeconds');
  const programmeSeconds = sum('programmeSeconds');
  return {
    adSeconds,
    adSecondsSkipped: sum('adSecondsSkipped'),
    adShare: adSeconds > 0 ? sum('adSecondsSkipped') / adSeconds : 1,
    programmeSeconds,
    programmeSecondsSkipped: sum('programmeSecondsSkipped'),
    programmeShare: programmeSeconds > 0 ? sum('programmeSecondsSkipped') / programmeSeconds : 0,
    breaks: sum('breaks'),
    breaksFound: sum('breaksFound'),
    falseBreaks: sum('falseBreaks'),
  };
}
