/** The live buffer's HLS playlist (pure): every segment once, in order, with its time, gaps marked, no end. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bufferPlaylist } from '../../src/dvr/live/buffer-playlist.js';
import { neighboursOf } from '../../src/dvr/live/live-buffers.service.js';

const segment = fc.record({
  duration: fc.double({ min: 0.1, max: 12, noNaN: true }),
  receivedAt: fc.integer({ min: 0, max: 4_000_000_000_000 }),
  discontinuity: fc.boolean(),
});

describe('bufferPlaylist', () => {
  it('answers a delta update with the segments past the skip boundary as one EXT-X-SKIP', () => {
    const segments = Array.from({ length: 100 }, (_, i) => ({
      seq: 40 + i,
      duration: 2,
      receivedAt: Date.UTC(2026, 11, 6, 20, 0, 0) + i * 2000,
      discontinuity: i === 10,
    }));
    const whole = bufferPlaylist(segments, 1);
    const delta = bufferPlaylist(segments, 1, 0, { skip: true });
    expect(whole).toContain('#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=12.0\n');
    expect(whole).not.toContain('EXT-X-SKIP:');
    // Six segments of 2 s are the boundary: the 94 before them are skipped; the rest is as in the whole playlist.
    expect(delta).toContain('#EXT-X-VERSION:9\n');
    expect(delta).toContain('#EXT-X-SKIP:SKIPPED-SEGMENTS=94\n');
    expect(delta).toContain('#EXT-X-MEDIA-SEQUENCE:40\n#EXT-X-DISCONTINUITY-SEQUENCE:1\n');
    expect(delta.split('\n').filter((l) => l.startsWith('buffer/'))).toEqual(
      segments.slice(94).map((s) => `buffer/${s.seq}.ts`),
    );
    expect(whole.endsWith(delta.slice(delta.indexOf('#EXT-X-PROGRAM-DATE-TIME')))).toBe(true);
    // Nothing past the boundary yet: the whole playlist.
    expect(bufferPlaylist(segments.slice(0, 5), 1, 0, { skip: true })).not.toContain('EXT-X-SKIP');
  });

  it('never skips a segment within the boundary of the live edge (any segments)', () => {
    fc.assert(
      fc.property(
        fc.array(segment, { maxLength: 60 }),
        fc.double({ min: 0, max: 12, noNaN: true }),
        (list, longest) => {
          const segments = list.map((s, i) => ({ ...s, seq: 1000 + i }));
          const text = bufferPlaylist(segments, 0, longest, { skip: true });
          const boundary = Number(/CAN-SKIP-UNTIL=([\d.]+)/.exec(text)![1]);
          const target = Number(/#EXT-X-TARGETDURATION:(\d+)/.exec(text)![1]);
          expect(boundary).toBeGreaterThanOrEqual(6 * target);
          const skipped = Number(/SKIPPED-SEGMENTS=(\d+)/.exec(text)?.[1] ?? 0);
          const listed = text.split('\n').filter((l) => l.startsWith('buffer/'));
          expect(listed).toEqual(segments.slice(skipped).map((s) => `buffer/${s.seq}.ts`));
          // What is listed reaches back to the boundary, and the last skipped segment lies wholly beyond it.
          const listedSeconds = segments.slice(skipped).reduce((sum, s) => sum + s.duration, 0);
          if (skipped > 0) {
            expect(listedSeconds).toBeGreaterThanOrEqual(boundary);
            expect(listedSeconds - segments[skipped]!.duration).toBeLessThan(boundary);
          }
        },
      ),
    );
  });

  it('lists a window of segments from its first sequence number, each with its time, the gaps marked', () => {
    const text = bufferPlaylist(
      [
        { seq: 7, duration: 2.002, receivedAt: Date.UTC(2026, 11, 6, 20, 0, 0), discontinuity: false },
        { seq: 8, duration: 1.5, receivedAt: Date.UTC(2026, 11, 6, 20, 0, 2), discontinuity: true },
      ],
      3,
    );
    expect(text).toBe(
      [
        '#EXTM3U',
        '#EXT-X-VERSION:3',
        '#EXT-X-TARGETDURATION:3',
        '#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=18.0',
        '#EXT-X-MEDIA-SEQUENCE:7',
        '#EXT-X-DISCONTINUITY-SEQUENCE:3',
        '#EXT-X-PROGRAM-DATE-TIME:2026-12-06T20:00:00.000Z',
        '#EXTINF:2.002,',
        'buffer/7.ts',
        '#EXT-X-DISCONTINUITY',
        '#EXT-X-PROGRAM-DATE-TIME:2026-12-06T20:00:02.000Z',
        '#EXTINF:1.500,',
        'buffer/8.ts',
        '',
      ].join('\n'),
    );
  });

  it('never ends, lists each segment once in order, and no segment is longer than the target', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 1e9 }),
        fc.array(segment, { maxLength: 50 }),
        fc.nat({ max: 100 }),
        (first, list, dropped) => {
          const segments = list.map((s, i) => ({ ...s, seq: first + i }));
          const text = bufferPlaylist(segments, dropped);
          expect(text).not.toMatch(/ENDLIST/);
          expect(text.split('\n').filter((l) => l.startsWith('buffer/'))).toEqual(
            segments.map((s) => `buffer/${s.seq}.ts`),
          );
          const target = Number(/#EXT-X-TARGETDURATION:(\d+)/.exec(text)![1]);
          for (const s of segments) expect(Number(s.duration.toFixed(3))).toBeLessThanOrEqual(target);
          expect((text.match(/#EXT-X-DISCONTINUITY\n/g) ?? []).length).toBe(
            segments.filter((s) => s.discontinuity).length,
          );
        },
      ),
    );
  });
});

describe('bufferPlaylist target duration', () => {
  it('keeps the longest segment the buffer ever listed, after it left the window', () => {
    const segments = [{ seq: 9, duration: 1.9, receivedAt: 0, discontinuity: false }];
    expect(bufferPlaylist(segments, 0)).toContain('#EXT-X-TARGETDURATION:2\n');
    expect(bufferPlaylist(segments, 0, 4.2)).toContain('#EXT-X-TARGETDURATION:5\n');
    expect(bufferPlaylist([{ ...segments[0]!, duration: 6.1 }], 0, 4.2)).toContain('#EXT-X-TARGETDURATION:7\n');
  });
});

describe('bufferPlaylist of a long buffer', () => {
  it('lists 200,000 segments (48 hours of short ones) without running out of call arguments', () => {
    const segments = Array.from({ length: 200_000 }, (_, seq) => ({
      seq,
      duration: 0.864,
      receivedAt: seq * 864,
      discontinuity: false,
    }));
    const text = bufferPlaylist(segments, 0);
    expect(text).toContain('#EXT-X-TARGETDURATION:1\n');
    expect(text.endsWith('buffer/199999.ts\n')).toBe(true);
  });
});

describe('neighboursOf', () => {
  it('gives the channels either side in channel order, wrapping at the ends', () => {
    const numbers = ['10', '2', '4.1', '4', '7'];
    expect(neighboursOf(numbers, '4')).toEqual(['4.1', '2']);
    expect(neighboursOf(numbers, '10')).toEqual(['2', '7']);
    expect(neighboursOf(numbers, '2')).toEqual(['4', '10']);
    expect(neighboursOf(['2', '3'], '2')).toEqual(['3']);
    expect(neighboursOf(['2'], '2')).toEqual([]);
    expect(neighboursOf(numbers, '99')).toEqual([]);
  });
});
