/** MediaInfo's tracks read as ffprobe's reading would say them (src/media-tools/media-info.parser.ts). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type MediaInfoTrack, readMediaInfo, seesCaptions } from '../../src/media-tools/media-info.parser.js';

const general = (extra: MediaInfoTrack = {}): MediaInfoTrack => ({
  '@type': 'General',
  Format: 'Matroska',
  Duration: 1320.5,
  ...extra,
});

describe('readMediaInfo', () => {
  it('reads duration and streams in the names ffprobe gives, with cover art not taken for the video', () => {
    expect(
      readMediaInfo([
        general(),
        { '@type': 'Video', Format: 'JPEG', Height: 3000 },
        {
          '@type': 'Video',
          Format: 'HEVC',
          Width: 3840,
          Height: 2160,
          FrameRate: '23.976',
          HDR_Format: 'SMPTE ST 2086',
        },
        { '@type': 'Audio', Format: 'E-AC-3', Channels: '6', Language: 'en' },
        { '@type': 'Audio', Format: 'AC-3', Channels: 2, Language: 'und' },
        { '@type': 'Text', Format: 'EIA-608' },
        { '@type': 'Text', Format: 'UTF-8', Language: 'fr', Forced: 'Yes' },
      ]),
    ).toEqual({
      duration: 1320.5,
      chapters: [],
      details: {
        container: 'matroska',
        video: { codec: 'hevc', width: 3840, height: 2160, frameRate: 23.976, hdr: 'HDR10' },
        audio: [
          { codec: 'eac3', channels: 6, language: 'en' },
          { codec: 'ac3', channels: 2 },
        ],
        subtitles: [{ codec: 'subrip', language: 'fr', forced: true }],
        closedCaptions: true,
      },
    });
    expect(
      readMediaInfo([
        general({ Duration: undefined }),
        { '@type': 'Video', Format: 'AVC', Height: 720, Duration: '12.3456' },
      ])?.duration,
    ).toBe(12.346);
  });

  it('names containers, MPEG audio layers and HDR as ffprobe does', () => {
    const read = (generalFields: MediaInfoTrack, track: MediaInfoTrack) =>
      readMediaInfo([general(generalFields), track])?.details;
    expect(
      read({ Format: 'MPEG-4', Format_Profile: 'QuickTime' }, { '@type': 'Audio', Format: 'AAC' })?.container,
    ).toBe('mov');
    expect(read({ Format: 'AVI' }, { '@type': 'Audio', Format: 'MPEG Audio', CodecID: '55' })).toMatchObject({
      container: 'avi',
      audio: [{ codec: 'mp3' }],
    });
    expect(read({}, { '@type': 'Audio', Format: 'MPEG Audio', Format_Profile: 'Layer 2' })?.audio).toEqual([
      { codec: 'mp2' },
    ]);
    expect(
      read({ Format: 'MPEG-PS' }, { '@type': 'Video', Format: 'MPEG Video', Format_Version: 'Version 1' }),
    ).toMatchObject({ container: 'mpeg', video: { codec: 'mpeg1video' } });
    expect(
      read({ Format: 'Flash Video' }, { '@type': 'Video', Format: 'MPEG Video', Format_Version: 'Version 2' }),
    ).toMatchObject({ container: 'flv', video: { codec: 'mpeg2video' } });
    expect(read({}, { '@type': 'Video', Format: 'HEVC', HDR_Format: 'Dolby Vision, Version 1.0' })?.video?.hdr).toBe(
      'Dolby Vision',
    );
    expect(read({}, { '@type': 'Video', Format: 'HEVC', transfer_characteristics: 'HLG' })?.video?.hdr).toBe('HLG');
  });

  it('leaves to ffprobe what it cannot vouch for: truncated, MPEG-TS, chapters, no streams, no duration', () => {
    const video = { '@type': 'Video', Format: 'AVC', Height: 480 };
    expect(readMediaInfo([general({ extra: { IsTruncated: 'Yes' } }), video])).toBeUndefined();
    expect(readMediaInfo([general({ Format: 'MPEG-TS' }), video])).toBeUndefined();
    expect(readMediaInfo([general(), video, { '@type': 'Menu' }])).toBeUndefined();
    expect(readMediaInfo([general()])).toBeUndefined();
    expect(readMediaInfo([general({ Duration: 'n/a' }), { ...video }])).toBeUndefined();
    expect(readMediaInfo([video])).toBeUndefined();
    expect(readMediaInfo([general(), { '@type': 'Video', Format: 'MS Video' }])).toBeUndefined();
    expect(readMediaInfo([general(), video, { '@type': 'Audio', Format: 'PCM' }])).toBeUndefined();
  });

  it('tells when it saw captions in the video (lent to ffprobe for MPEG-TS)', () => {
    expect(
      seesCaptions([
        general({ Format: 'MPEG-TS' }),
        { '@type': 'Video', Format: 'MPEG Video' },
        { '@type': 'Text', Format: 'EIA-708' },
      ]),
    ).toBe(true);
    expect(seesCaptions([general({ Format: 'MPEG-TS' }), { '@type': 'Text', Format: 'UTF-8' }])).toBe(false);
  });

  it('never throws, and any duration it gives is a number of seconds (property)', () => {
    const track = fc.dictionary(
      fc.constantFrom('@type', 'Format', 'Duration', 'Height', 'Channels', 'extra'),
      fc.oneof(
        fc.string(),
        fc.double(),
        fc.constantFrom('General', 'Video', 'Audio', 'Text', 'Menu', 'AC-3', 'E-AC-3'),
        fc.anything(),
      ),
    );
    fc.assert(
      fc.property(fc.array(track, { maxLength: 6 }), (tracks) => {
        const result = readMediaInfo(tracks as MediaInfoTrack[]);
        if (result) expect(Number.isFinite(result.duration) && (result.duration as number) >= 0).toBe(true);
      }),
    );
  });
});
