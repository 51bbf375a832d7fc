/** MediaInfo's tracks read as ffprobe's reading would say them (src/media-tools/media-info.ts). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type MediaInfoTrack, readMediaInfo } from '../../src/media-tools/media-info.js';

const general = (extra: MediaInfoTrack = {}): MediaInfoTrack => ({ '@type': 'General', Format: 'Matroska', Duration: 1320.5, ...extra });

describe('readMediaInfo', () => {
  it('reads duration and tags, with cover art not taken for the video', () => {
    expect(
      readMediaInfo([
        general(),
        { '@type': 'Video', Format: 'JPEG', Height: 3000 },
        { '@type': 'Video', Format: 'HEVC', Height: 2160 },
        { '@type': 'Audio', Format: 'E-AC-3', Channels: '6' },
        { '@type': 'Audio', Format: 'AC-3', Channels: 2 },
        { '@type': 'Text', Format: 'EIA-608' },
      ]),
    ).toEqual({ duration: 1320.5, tags: ['4K', 'CC', 'Dolby Digital Plus', '5.1'], chapters: [] });
    expect(readMediaInfo([general({ Duration: undefined }), { '@type': 'Video', Format: 'AVC', Height: 720, Duration: '12.3456' }])).toEqual({ duration: 12.346, tags: ['HD'], chapters: [] });
  });

  it('leaves to ffprobe what it cannot vouch for: truncated, MPEG-TS, chapters, no streams, no duration', () => {
    const video = { '@type': 'Video', Format: 'AVC', Height: 480 };
    expect(readMediaInfo([general({ extra: { IsTruncated: 'Yes' } }), video])).toBeUndefined();
    expect(readMediaInfo([general({ Format: 'MPEG-TS' }), video])).toBeUndefined();
    expect(readMediaInfo([general(), video, { '@type': 'Menu' }])).toBeUndefined();
    expect(readMediaInfo([general()])).toBeUndefined();
    expect(readMediaInfo([general({ Duration: 'n/a' }), { ...video }])).toBeUndefined();
    expect(readMediaInfo([video])).toBeUndefined();
  });

  it('never throws, and any duration it gives is a number of seconds (property)', () => {
    const track = fc.dictionary(fc.constantFrom('@type', 'Format', 'Duration', 'Height', 'Channels', 'extra'), fc.oneof(fc.string(), fc.double(), fc.constantFrom('General', 'Video', 'Audio', 'Text', 'Menu', 'AC-3', 'E-AC-3'), fc.anything()));
    fc.assert(
      fc.property(fc.array(track, { maxLength: 6 }), (tracks) => {
        const result = readMediaInfo(tracks as MediaInfoTrack[]);
        if (result) expect(Number.isFinite(result.duration) && (result.duration as number) >= 0).toBe(true);
      }),
    );
  });
});
