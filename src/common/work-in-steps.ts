/**
 * Long synchronous work written as a generator that yields between steps, so one piece
 * of code serves both who wants the result at once and who lets the event loop run
 * between steps (a full re-plan after a guide refresh: requests must not wait behind
 * a tenth of a second of it). A generator rather than an async function: run at once,
 * it costs nothing, and the caller decides what happens between steps.
 */
import { performance } from 'node:perf_hooks';

/** The work's steps: each `yield` is a point where it may pause; the generator returns the result. */
export type Steps<T> = Generator<void, T, void>;

/** Runs `steps` to the end without pausing. */
export function finishNow<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * Runs `steps`, awaiting `between()` at every pause (and before returning): undefined as
 * soon as it says no (what the work was for changed, or the process is stopping).
 */
export async function finishInTurns<T>(steps: Steps<T>, between: () => Promise<boolean>): Promise<T | undefined> {
  for (;;) {
    const step = steps.next();
    if (!(await between())) return undefined;
    if (step.done) return step.value;
  }
}

/** How many units of work pass between looks at the clock (a look costs more than a unit of most loops). */
const CLOCK_EVERY = 64;

/**
 * A clock for a loop inside a generator: `due(i)` says whether the loop has worked
 * `stepMs` since the last step and should yield now (it then starts the next step's time).
 * `stepMs` Infinity: never.
 */
export function stepClock(stepMs: number): { due(unit: number): boolean } {
  let began = performance.now();
  return {
    due(unit) {
      if (stepMs === Number.POSITIVE_INFINITY || unit % CLOCK_EVERY !== 0 || performance.now() - began <= stepMs)
        return false;
      began = performance.now();
      return true;
    },
  };
}
