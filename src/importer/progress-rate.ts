/**
 * Files per second and the time left, for a scan's progress (/status, `antenna scan`):
 * a counter sampled whenever progress is read, its rate over the last few seconds (a
 * whole-run average would hide a slow share, an instant one would jump about). Pure but
 * for the samples it keeps; times are given, so tests need no clock.
 */

const WINDOW_MS = 10_000;
/** Fewer samples than this, or a span shorter than this, and there is no rate yet. */
const MIN_SPAN_MS = 1_000;

export class RateMeter {
  private samples: { at: number; count: number }[] = [];

  /** Records the counter's value at a time (milliseconds); a counter that went back (a new run) starts afresh. */
  sample(count: number, at: number): void {
    const last = this.samples.at(-1);
    if (last && (count < last.count || at < last.at)) this.samples = [];
    if (last && last.at === at) last.count = count;
    else this.samples.push({ at, count });
    // Samples older than the window go, even the last but one: after an idle hour, the first
    // sample of a new run must not be measured against one from an hour ago.
    while (this.samples.length > 1 && (this.samples[0]?.at ?? at) < at - WINDOW_MS) this.samples.shift();
  }

  /** Units per second over the window; undefined until it spans a second. */
  perSecond(): number | undefined {
    const first = this.samples[0];
    const last = this.samples.at(-1);
    if (!first || !last || last.at - first.at < MIN_SPAN_MS) return undefined;
    return ((last.count - first.count) * 1000) / (last.at - first.at);
  }

  reset(): void {
    this.samples = [];
  }
}

/** Seconds left for `remaining` units at `perSecond`; undefined when the rate is unknown or nil (a stall). */
export function secondsLeft(remaining: number, perSecond: number | undefined): number | undefined {
  if (remaining <= 0) return 0;
  if (perSecond === undefined || !Number.isFinite(perSecond) || perSecond <= 0) return undefined;
  return Math.ceil(remaining / perSecond);
}
