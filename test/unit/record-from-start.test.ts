/** Where "record what I am watching" begins: the programme's start with its padding, as far as the buffer holds it. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RECORD_FROM_START_PADDING, recordingStartFrom } from '../../src/dvr/live/record-from-start.js';

describe('recordingStartFrom', () => {
  const now = 1_800_000_000;
  it('begins a minute before the programme when the buffer holds that', () => {
    expect(recordingStartFrom(now, now - 1200, (now - 3600) * 1000)).toBe(now - 1200 - RECORD_FROM_START_PADDING);
  });
  it('begins where the buffer begins when it holds only part of the programme or its padding', () => {
    expect(recordingStartFrom(now, now - 1200, (now - 600) * 1000 + 300)).toBe(now - 600);
    expect(recordingStartFrom(now, now - 1200, (now - 1230) * 1000)).toBe(now - 1230);
  });
  it('begins now without a buffer or a guide', () => {
    expect(recordingStartFrom(now, now - 1200, undefined)).toBe(now);
    expect(recordingStartFrom(now, undefined, (now - 600) * 1000)).toBe(now);
  });
  it('never begins after now or before what the buffer holds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 86_400 }), fc.integer({ min: 0, max: 86_400_000 }), (ago, heldAgoMs) => {
        const held = now * 1000 - heldAgoMs;
        const start = recordingStartFrom(now, now - ago, held);
        expect(start).toBeLessThanOrEqual(now);
        expect(start * 1000).toBeGreaterThan(Math.min(held, now * 1000) - 1000);
        expect(start).toBeGreaterThanOrEqual(now - ago - RECORD_FROM_START_PADDING);
      }),
    );
  });
});
