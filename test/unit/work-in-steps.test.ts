/**
 * Work in steps (common/work-in-steps.ts): the same generator run at once or with pauses gives the same result; a "no"
 * between steps stops it.
 */
import { describe, expect, it } from 'vitest';
import { finishInTurns, finishNow, type Steps, stepClock } from '../../src/common/work-in-steps.js';

function* summing(values: number[], pauses: { count: number }): Steps<number> {
  let sum = 0;
  for (const value of values) {
    sum += value;
    pauses.count++;
    yield;
  }
  return sum;
}

describe('work in steps', () => {
  it('finishes at once or in turns with the same result, asking between every step', async () => {
    expect(finishNow(summing([1, 2, 3], { count: 0 }))).toBe(6);
    let asked = 0;
    const result = await finishInTurns(summing([1, 2, 3], { count: 0 }), async () => {
      asked++;
      return true;
    });
    expect(result).toBe(6);
    expect(asked).toBe(4); // after each of the three pauses, and before returning
  });

  it('stops at the first "no" between steps, without running the rest', async () => {
    const pauses = { count: 0 };
    let asked = 0;
    expect(await finishInTurns(summing([1, 2, 3, 4], pauses), async () => ++asked < 2)).toBeUndefined();
    expect(pauses.count).toBe(2);
  });

  it('a clock with no limit is never due; one with a limit is due on a checked unit once the time passed', () => {
    const never = stepClock(Number.POSITIVE_INFINITY);
    expect([0, 64, 128].some((unit) => never.due(unit))).toBe(false);
    const soon = stepClock(0);
    const until = Date.now() + 5;
    while (Date.now() < until);
    expect(soon.due(1)).toBe(false); // not a unit the clock is looked at on
    expect(soon.due(64)).toBe(true);
  });
});
