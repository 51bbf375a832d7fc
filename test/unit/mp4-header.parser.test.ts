/** An MP4/MOV index (mp4box.js's reading) as MediaDetails (src/media-tools/mp4-header.parser.ts). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Mp4Summary,
  type Mp4Track,
  aacChannels,
  mp4AudioChannels,
  mp4CodecName,
  readMp4Header,
} from '../../src/media-tools/mp4-header.parser.js';

const video: Mp4Track = {
  id: 1,
  handler: 'vide',
  codec: 'avc1.64001f',
  language: 'und',
  duration: 1_502_500,
  timescale: 12_800,
  samples: 2_934,
  width: 1280,
  height: 720,
};
const audio: Mp4Track = {
  id: 2,
  handler: 'soun',
  codec: 'mp4a.40.2',
  language: 'eng',
  duration: 5_174_400,
  timescale: 44_100,
  samples: 5_053,
  channels: 2,
  aacConfig: '1210',
};
const summary = (extra: Partial<Mp4Summary> = {}): Mp4Summary => ({
  size: 50_000_000,
  brands: ['isom', 'isom', 'iso2'],
  duration: 117_380,
  timescale: 1000,
  boxes: [
    { type: 'ftyp', start: 0, size: 32 },
    { type: 'mdat', start: 32, size: 49_000_000 },
    { type: 'moov', start: 49_000_032, size: 999_968 },
  ],
  chapters: false,
  tracks: [video, audio],
  ...extra,
});

describe('readMp4Header', () => {
  it('reads duration, container and streams in ffprobe’s names', () => {
    expect(readMp4Header(summary())).toEqual({
      duration: 117.38,
      chapters: [],
      details: {
        container: 'mp4',
        video: { codec: 'h264', width: 1280, height: 720, frameRate: 24.995 },
        audio: [{ codec: 'aac', channels: 2, language: 'eng' }],
        subtitles: [],
        closedCaptions: false,
      },
    });
  });

  it('tells MOV by its brand, HDR by the colour box or a Dolby Vision entry, subtitles and captions by their handlers', () => {
    const details = readMp4Header(
      summary({
        brands: ['qt  '],
        tracks: [
          { ...video, codec: 'hvc1.2.4.L153.B0', transfer: 16 },
          { id: 3, handler: 'sbtl', codec: 'tx3g', language: 'spa' },
          { id: 4, handler: 'clcp', codec: 'c608' },
        ],
      }),
    )?.details;
    expect(details).toMatchObject({
      container: 'mov',
      video: { codec: 'hevc', hdr: 'HDR10' },
      subtitles: [{ codec: 'mov_text', language: 'spa', forced: false }],
      closedCaptions: true,
    });
    expect(readMp4Header(summary({ tracks: [{ ...video, codec: 'dvh1.05.06' }] }))?.details.video?.hdr).toBe(
      'Dolby Vision',
    );
    expect(
      readMp4Header(summary({ tracks: [{ ...video, codec: 'hev1.2.4', transfer: 18 }] }))?.details.video?.hdr,
    ).toBe('HLG');
  });

  it('leaves to the next reader a file cut short, chapters, an unknown codec, no streams, no duration', () => {
    expect(readMp4Header(summary({ size: 49_500_000 }))).toBeUndefined();
    expect(readMp4Header(summary({ chapters: true }))).toBeUndefined();
    expect(readMp4Header(summary({ tracks: [{ ...video, codec: 'mjp2' }] }))).toBeUndefined();
    expect(readMp4Header(summary({ tracks: [{ ...audio, aacConfig: '1200' }] }))).toBeUndefined();
    expect(readMp4Header(summary({ tracks: [{ id: 9, handler: 'hint', codec: 'rtp ' }] }))).toBeUndefined();
    expect(readMp4Header(summary({ duration: 0, tracks: [{ ...video, duration: 0 }] }))).toBeUndefined();
  });

  it('takes the longest track when the movie header has no duration', () => {
    expect(readMp4Header(summary({ duration: 0 }))?.duration).toBe(117.383);
  });

  it('maps codec strings to ffprobe’s codec names', () => {
    expect(
      [
        'avc3.4d401e',
        'hev1.1.6',
        'av01.0.08M',
        'vp09.00.10',
        'mp4v.20.9',
        'mp4v.61',
        'mp4a.40.5',
        'mp4a.6B',
        'ac-3',
        'ec-3',
        'Opus',
        'fLaC',
        'wvtt',
        'xyz1',
      ].map(mp4CodecName),
    ).toEqual([
      'h264',
      'hevc',
      'av1',
      'vp9',
      'mpeg4',
      'mpeg2video',
      'aac',
      'mp3',
      'ac3',
      'eac3',
      'opus',
      'flac',
      'webvtt',
      undefined,
    ]);
  });

  it('counts channels from the codec’s configuration, not the sample entry', () => {
    expect(aacChannels('1210')).toBe(2);
    expect(aacChannels('1190')).toBe(2);
    expect(aacChannels('1188')).toBe(1);
    expect(mp4AudioChannels({ codec: 'mp4a.40.2', aacConfig: '1188' }, 'aac')).toBe(1);
    expect(mp4AudioChannels({ codec: 'mp4a.40.29', aacConfig: 'e988' }, 'aac')).toBeUndefined(); // HE-AAC v2: MediaInfo says
    expect(readMp4Header(summary({ tracks: [{ ...video, language: '```' }] }))?.details.video).toBeDefined();
    expect(aacChannels('11b0')).toBe(6);
    expect(aacChannels('11d8')).toBe(7);
    expect(aacChannels('13b8')).toBe(8);
    expect(aacChannels('f8')).toBeUndefined();
    expect(aacChannels('zz')).toBeUndefined();
    expect(mp4AudioChannels({ channels: 2, ac3: { acmod: 7, lfeon: 1, dependent: 0 } }, 'eac3')).toBe(6);
    expect(mp4AudioChannels({ channels: 2, ac3: { acmod: 1, lfeon: 0 } }, 'ac3')).toBe(1);
    expect(mp4AudioChannels({ channels: 2, ac3: { acmod: 7, lfeon: 1, dependent: 1 } }, 'eac3')).toBeUndefined();
    expect(mp4AudioChannels({ channels: 2, opusChannels: 8 }, 'opus')).toBe(8);
    expect(mp4AudioChannels({ channels: 1 }, 'mp3')).toBe(1);
  });

  it('never throws on any summary, and a reading has a finite duration (property)', () => {
    const track = fc.record(
      {
        handler: fc.constantFrom('vide', 'soun', 'sbtl', 'clcp', 'hint'),
        codec: fc.oneof(fc.constantFrom('avc1.64', 'mp4a.40.2', 'ec-3', 'tx3g'), fc.string()),
        duration: fc.oneof(fc.nat(), fc.double()),
        timescale: fc.oneof(fc.nat(), fc.double()),
        samples: fc.nat(),
        aacConfig: fc.uint8Array({ maxLength: 6 }).map((bytes) => Buffer.from(bytes).toString('hex')),
        ac3: fc.record({ acmod: fc.integer({ min: -1, max: 9 }) }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.array(track, { maxLength: 4 }), fc.anything(), fc.anything(), (tracks, duration, timescale) => {
        const reading = readMp4Header({
          size: 1000,
          tracks,
          duration: duration as number,
          timescale: timescale as number,
        });
        if (reading) expect(Number.isFinite(reading.duration) && reading.duration >= 0).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });
});
