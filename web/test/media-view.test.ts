/** What a file holds, said for people (web/src/lib/media-view.ts). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { audioLine, languageName, mediaRows, subtitleLine, videoLine } from '../src/lib/media-view';

describe('media rows', () => {
  it('names codecs, sizes, frame rates, HDR, channels and languages', () => {
    expect(videoLine({ codec: 'hevc', width: 3840, height: 2160, frameRate: 23.976, hdr: 'HDR10' })).toBe(
      'HEVC · 3840×2160 · 23.976 fps · HDR10',
    );
    expect(videoLine({ codec: 'h264', width: 0, height: 0 })).toBe('H.264');
    expect(audioLine({ codec: 'ac3', channels: 6, language: 'ger' })).toBe('AC-3 5.1 · German');
    expect(audioLine({ codec: 'aac', channels: 2, language: 'en' })).toBe('AAC stereo · English');
    expect(audioLine({ codec: 'x-new', channels: 3 })).toBe('X-NEW 3 channels');
    expect(subtitleLine({ codec: 'subrip', language: 'fre', forced: true })).toBe('French (forced, SubRip)');
    expect(subtitleLine({ codec: 'hdmv_pgs_subtitle', forced: false })).toBe('Unknown language (PGS)');
  });

  it('gives a row per audio track, the subtitles in one, and none before a probe', () => {
    expect(
      mediaRows({
        container: 'matroska',
        video: { codec: 'h264', width: 1280, height: 720, frameRate: 25 },
        audio: [
          { codec: 'eac3', channels: 6, language: 'eng' },
          { codec: 'aac', channels: 2, language: 'spa' },
        ],
        subtitles: [{ codec: 'ass', language: 'jpn', forced: false }],
        closedCaptions: true,
      }),
    ).toEqual([
      ['File', 'Matroska'],
      ['Video', 'H.264 · 1280×720 · 25 fps · closed captions'],
      ['Audio 1', 'E-AC-3 5.1 · English'],
      ['Audio 2', 'AAC stereo · Spanish'],
      ['Subtitles', 'Japanese (ASS)'],
    ]);
    expect(mediaRows(undefined)).toEqual([]);
  });

  it('never throws on any language text (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (code) => {
        expect(typeof languageName(code)).toBe('string');
      }),
    );
    expect(languageName('')).toBeUndefined();
  });
});
