/**
 * The labelled broadcasts for commercial detection and their scoring. The implementation is
 * bench/broadcast-set.mjs (plain JS, so the benchmark runs it without a build); this module
 * gives it types. allowJs is off, hence the expect-error on the import.
 */
// @ts-expect-error -- plain JS without a declaration file (allowJs is off); typed by this module
import * as impl from '../../bench/broadcast-set.mjs';

export type Span = [number, number];

export interface Broadcast {
  name: string;
  path: string;
  /** Seconds. */
  duration: number;
  /** The true breaks, [start, end] seconds, the blacks at their edges included. */
  breaks: Span[];
}

export interface Score {
  adSeconds: number;
  adSecondsSkipped: number;
  /** adSecondsSkipped / adSeconds (1 when there are no ad seconds). */
  adShare: number;
  programmeSeconds: number;
  programmeSecondsSkipped: number;
  /** programmeSecondsSkipped / programmeSeconds (0 when there are none). */
  programmeShare: number;
  breaks: number;
  /** Breaks of which at least half the counted seconds were skipped. */
  breaksFound: number;
  /** Detected spans holding no counted ad second. */
  falseBreaks: number;
}

/** The broadcasts' names, in the order makeBroadcastSet returns them. */
export const BROADCAST_NAMES: string[] = (impl.BROADCASTS as { name: string }[]).map((b) => b.name);

/** Makes (or finds, made by the same recipe) the broadcasts in `dir`; `names` picks some (default all). */
export function makeBroadcastSet(dir: string, options?: { names?: string[]; parallel?: number }): Promise<Broadcast[]> {
  return impl.makeBroadcastSet(dir, options);
}

/** A broadcast's true breaks and duration without making it. */
export function plannedBreaks(name: string): { breaks: Span[]; duration: number } {
  const broadcast = (impl.BROADCASTS as { name: string }[]).find((b) => b.name === name);
  if (!broadcast) throw new Error(`no broadcast named ${name}`);
  const { breaks, duration } = impl.planBroadcast(broadcast) as { breaks: Span[]; duration: number };
  return { breaks, duration };
}

/**
 * A detection against the truth; seconds within `edgeSeconds` (default 1) of a true boundary
 * count for neither side.
 */
export function scoreDetection(
  truth: Span[],
  detected: Span[],
  duration: number,
  options?: { edgeSeconds?: number },
): Score {
  return impl.scoreDetection(truth, detected, duration, options);
}

/** Several files' scores summed; the shares are of all their seconds. */
export function sumScores(scores: Score[]): Score {
  return impl.sumScores(scores);
}

/** Spans clipped to [0, duration], sorted, overlapping or touching ones merged. */
export function normalizeSpans(spans: Span[], duration: number): Span[] {
  return impl.normalizeSpans(spans, duration);
}

/** Flat [start, end, start, end, ...] (detectCommercials' answer) as pairs. */
export function pairsOf(flat: number[]): Span[] {
  return impl.pairsOf(flat);
}
