/** The buffer playlist's times as the player reads them, and where a seek by seconds goes in wall-clock time. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bufferPlaylist } from '../../src/dvr/live/buffer-playlist.js';
import { bufferSpanOf, liveSeekTarget } from '../../src/player/live-position.js';
import { recordingStartOver } from '../../src/player/player-state.js';

describe('bufferSpanOf', () => {
  it('reads each segment’s start and the live edge from what the server writes', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ duration: fc.double({ min: 0.1, max: 12, noNaN: true }), gap: fc.nat(3000), cut: fc.boolean() }),
          { minLength: 1, maxLength: 40 },
        ),
        fc.integer({ min: 1_600_000_000_000, max: 2_000_000_000_000 }),
        (parts, origin) => {
          let at = origin;
          const segments = parts.map((part, seq) => {
            const segment = { seq, duration: part.duration, receivedAt: at, discontinuity: part.cut };
            at += Math.round(part.duration * 1000) + part.gap;
            return segment;
          });
          const span = bufferSpanOf(bufferPlaylist(segments, 0));
          expect(span?.starts).toEqual(segments.map((segment) => segment.receivedAt));
          const last = segments.at(-1)!;
          expect(span?.liveEdge).toBeCloseTo(last.receivedAt + Number(last.duration.toFixed(3)) * 1000, 0);
        },
      ),
    );
  });

  it('gives nothing for a playlist without times, and never throws on any text', () => {
    expect(bufferSpanOf('#EXTM3U\n#EXTINF:2.000,\nbuffer/0.ts\n')).toBeUndefined();
    expect(bufferSpanOf('#EXT-X-PROGRAM-DATE-TIME:not a date\n#EXTINF:2,\nx.ts')).toBeUndefined();
    fc.assert(fc.property(fc.string(), (text) => void bufferSpanOf(text)));
  });
});

describe('liveSeekTarget', () => {
  const now = 1_800_000_000_000;
  it('is the moment that many seconds from the one on screen', () => {
    expect(liveSeekTarget(now - 30_000, -60, now, 6000)).toBe(now - 90_000);
    expect(liveSeekTarget(now - 30_000, 10, now, 6000)).toBe(now - 20_000);
  });
  it('is live at or past the live edge', () => {
    expect(liveSeekTarget(now - 30_000, 24, now, 6000)).toBe('live');
    expect(liveSeekTarget(now - 10_000, 3600, now, 6000)).toBe('live');
  });
});

describe('recordingStartOver', () => {
  const start = 1_800_000_000;
  const file = (beginsAt: number) => ({ id: 'rec-9', beginsAt });
  it('plays the recording from the programme’s start when only it reaches back that far', () => {
    // The buffer begins 20 minutes in; the recording began with the padding, a minute early.
    expect(recordingStartOver(start, (start + 1200) * 1000, file(start - 60))).toEqual({ id: 'rec-9', start: 60 });
    // A recording that began a little late still beats the buffer: from its first second.
    expect(recordingStartOver(start, (start + 1200) * 1000, file(start + 30))).toEqual({ id: 'rec-9', start: 0 });
  });

  it('leaves it to the buffer when that holds the start, or the recording begins later than it or the buffer', () => {
    expect(recordingStartOver(start, (start - 30) * 1000, file(start - 60))).toBeUndefined();
    expect(recordingStartOver(start, (start + 1200) * 1000, file(start + 600))).toBeUndefined();
    expect(recordingStartOver(start, (start + 20) * 1000, file(start + 40))).toBeUndefined();
    expect(recordingStartOver(start, (start + 1200) * 1000, undefined)).toBeUndefined();
  });
});
