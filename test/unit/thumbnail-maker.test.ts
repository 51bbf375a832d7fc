import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ffmpegThumbnailArgs, thumbnailOffset } from '../../src/media-tools/thumbnail-maker.js';
import { MEDIA_DEMUXERS } from '../../src/media-tools/library-input.js';

describe('thumbnailOffset', () => {
  it('takes the frame a tenth of the way in, at most five minutes in, and the start when the length is unknown', () => {
    expect(thumbnailOffset(1800)).toBe(180);
    expect(thumbnailOffset(7200)).toBe(300);
    expect(thumbnailOffset(1)).toBe(0.1);
    expect(thumbnailOffset(null)).toBe(0);
    expect(thumbnailOffset(Number.NaN)).toBe(0);
    expect(thumbnailOffset(-5)).toBe(0);
  });

  it('stays within the file for any length', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 1e7, noNaN: true }), (duration) => {
        const offset = thumbnailOffset(duration);
        expect(offset).toBeGreaterThanOrEqual(0);
        expect(offset).toBeLessThan(duration);
      }),
    );
  });
});

describe('ffmpegThumbnailArgs', () => {
  it("seeks, takes one scaled frame of the file's own media and names both files as files", () => {
    expect(ffmpegThumbnailArgs('/data/thumbnails/x.jpg', 100, '/media/-a.mkv')).toEqual([
      '-hide_banner',
      '-loglevel',
      'error',
      '-nostdin',
      '-y',
      '-protocol_whitelist',
      'file',
      '-format_whitelist',
      MEDIA_DEMUXERS.join(','),
      '-ss',
      '10',
      '-i',
      'file:/media/-a.mkv',
      '-frames:v',
      '1',
      '-vf',
      'scale=480:-2',
      '-q:v',
      '4',
      'file:/data/thumbnails/x.jpg',
    ]);
  });
});

describe('sample media arguments', () => {
  it('make a test-pattern clip with a tone in the container asked for, and a still image', async () => {
    const { sampleClipArgs, sampleImageArgs } = await import('../../src/sample/sample-media.js');
    const args = sampleClipArgs(
      { source: 'testsrc2', seconds: 4, frequency: 440 },
      '/data/sample-media/x.mkv',
      'matroska',
    );
    expect(args).toContain('testsrc2=size=640x360:rate=25:duration=4');
    expect(args).toContain('sine=frequency=440:duration=4');
    expect(args.slice(-3)).toEqual(['-f', 'matroska', 'file:/data/sample-media/x.mkv']);
    expect(sampleImageArgs('testsrc=size=400x600', '/d/p.jpg').slice(-5)).toEqual([
      '-frames:v',
      '1',
      '-f',
      'image2',
      'file:/d/p.jpg',
    ]);
  });
});
