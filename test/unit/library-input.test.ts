import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  INPUT_PATH,
  MEDIA_DEMUXERS,
  mediaInputLimits,
  refusedAsReference,
} from '../../src/media-tools/library-input.js';
import { playableLengthArgs, readPlayedSeconds } from '../../src/media-tools/media-probe.js';
import { cutShort } from '../../src/media-tools/media-header.js';

describe('what ffmpeg may do with a library file', () => {
  it('allows only the file protocol and demuxers that follow no references', () => {
    expect(mediaInputLimits()).toEqual(['-protocol_whitelist', 'file', '-format_whitelist', MEDIA_DEMUXERS.join(',')]);
    for (const follower of [
      'hls',
      'concat',
      'sdp',
      'dash',
      'image2',
      'rtp',
      'rtsp',
      'webm_dash_manifest',
      'tee',
      'data',
      'subfile',
    ])
      expect(MEDIA_DEMUXERS).not.toContain(follower);
    expect(INPUT_PATH).toBe('/dev/fd/3');
  });

  it('recognises ffmpeg refusing a playlist or a protocol, and nothing else', () => {
    expect(refusedAsReference("[hls @ 0x55] Format not on whitelist 'matroska,mov'")).toBe(true);
    expect(refusedAsReference("Protocol 'http' not on whitelist 'file'!")).toBe(true);
    expect(refusedAsReference('Invalid data found when processing input')).toBe(false);
  });
});

describe('the length a damaged file plays', () => {
  it('copies every packet to nowhere, reading the descriptor within the limits', () => {
    const args = playableLengthArgs();
    expect(args.slice(args.indexOf('-i') - 4, args.indexOf('-i') + 2)).toEqual([
      ...mediaInputLimits(),
      '-i',
      'file:/dev/fd/3',
    ]);
    expect(args.slice(-6)).toEqual(['-c', 'copy', '-f', 'null', '-progress', 'pipe:1', '-'].slice(-6));
  });

  it.each([
    ['frame=1\nout_time_us=1000000\nprogress=continue\nout_time_us=4249000\nprogress=end\n', 4.249],
    ['out_time_ms=2500000\n', 2.5],
    ['progress=end\n', undefined],
    ['out_time_us=N/A\n', undefined],
  ])('reads %j as %s s', (text, seconds) => {
    expect(readPlayedSeconds(text)).toBe(seconds);
  });

  it('never throws, and gives the last time reported', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string(),
            fc.nat().map((n) => `out_time_us=${n}`),
          ),
        ),
        (lines) => {
          const times = lines
            .filter((line) => line.startsWith('out_time_us='))
            .map((line) => Number(line.slice(12)) / 1e6);
          const read = readPlayedSeconds(lines.join('\n'));
          if (times.length === 0) return true;
          return read === Math.round((times.at(-1) as number) * 1000) / 1000;
        },
      ),
    );
  });
});

describe('a container that claims more than the file holds', () => {
  it('is an MP4 box or a Matroska Segment running past the end, or what MediaInfo calls truncated', () => {
    expect(
      cutShort({
        mp4: {
          size: 1000,
          boxes: [
            { type: 'ftyp', start: 0, size: 32 },
            { type: 'mdat', start: 32, size: 5000 },
          ],
        },
      }),
    ).toBe(true);
    expect(
      cutShort({
        mp4: {
          size: 1000,
          boxes: [
            { type: 'ftyp', start: 0, size: 32 },
            { type: 'mdat', start: 32, size: 968 },
          ],
        },
      }),
    ).toBe(false);
    const segment = (sizeField: string) => ({
      matroska: {
        size: 61_440,
        segmentSizeField: sizeField,
        elements: [['Segment', 'start', 52, 44] as [string, ...unknown[]]],
      },
    });
    expect(cutShort(segment('01000000000f4240'))).toBe(true);
    expect(cutShort(segment('010000000000efcc'))).toBe(false);
    expect(cutShort({ tracks: [{ '@type': 'General', extra: { IsTruncated: 'Yes' } }] })).toBe(true);
    expect(cutShort({ tracks: [{ '@type': 'General' }] })).toBe(false);
    expect(cutShort({ ts: { size: 1 } as never })).toBe(false);
  });
});
