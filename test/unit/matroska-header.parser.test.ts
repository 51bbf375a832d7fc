/** A Matroska head (ts-ebml's elements) as MediaDetails (src/media-tools/matroska-header.parser.ts). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type MatroskaElement,
  type MatroskaSummary,
  ebmlSizeValue,
  matroskaCodecName,
  readMatroskaHeader,
} from '../../src/media-tools/matroska-header.parser.js';

const master = (name: string, children: MatroskaElement[], at = 0): MatroskaElement[] => [
  [name, 'start', at, at],
  ...children,
  [name, 'end'],
];
const track = (type: number, codecId: string, fields: MatroskaElement[] = []): MatroskaElement[] =>
  master('TrackEntry', [['TrackType', type], ['CodecID', codecId], ...fields]);
const head = (parts: {
  info?: MatroskaElement[];
  tracks?: MatroskaElement[];
  chapters?: MatroskaElement[];
  docType?: string;
}): MatroskaElement[] => [
  ...master('EBML', [['DocType', parts.docType ?? 'matroska']]),
  ['Segment', 'start', 52, 44],
  ...master(
    'Info',
    parts.info ?? [
      ['TimestampScale', 1_000_000],
      ['Duration', 2_640_512],
    ],
  ),
  ...master(
    'Tracks',
    parts.tracks ?? [
      ...track(1, 'V_MPEG4/ISO/AVC', [
        ['DefaultDuration', 41_708_333],
        ...master('Video', [
          ['PixelWidth', 1920],
          ['PixelHeight', 1080],
        ]),
      ]),
      ...track(2, 'A_AC3', [['Language', 'ger'], ...master('Audio', [['Channels', 6]])]),
      ...track(2, 'A_AAC', master('Audio', [['Channels', 2]])),
      ...track(17, 'S_TEXT/UTF8', [
        ['Language', 'fre'],
        ['FlagForced', 1],
      ]),
    ],
  ),
  ...(parts.chapters ?? []),
];
const summary = (elements: MatroskaElement[], extra: Partial<MatroskaSummary> = {}): MatroskaSummary => ({
  size: 900_000_000,
  segmentSizeField: '0100000000100000',
  clusterAt: 4000,
  elements,
  ...extra,
});
const atom = (
  start: number,
  end: number | undefined,
  title: string,
  extra: MatroskaElement[] = [],
): MatroskaElement[] =>
  master('ChapterAtom', [
    ['ChapterUID', start + 1],
    ['ChapterTimeStart', start],
    ...(end === undefined ? [] : [['ChapterTimeEnd', end] as MatroskaElement]),
    ...extra,
    ...master('ChapterDisplay', [['ChapString', title]]),
  ]);

describe('readMatroskaHeader', () => {
  it('reads duration and streams, with English for a track that names no language (Matroska’s default)', () => {
    expect(readMatroskaHeader(summary(head({})))).toEqual({
      duration: 2640.512,
      chapters: [],
      details: {
        container: 'matroska',
        video: { codec: 'h264', width: 1920, height: 1080, frameRate: 23.976 },
        audio: [
          { codec: 'ac3', channels: 6, language: 'ger' },
          { codec: 'aac', channels: 2, language: 'eng' },
        ],
        subtitles: [{ codec: 'subrip', language: 'fre', forced: true }],
        closedCaptions: false,
      },
    });
  });

  it('reads WebM, the timestamp scale, HDR and Dolby Vision', () => {
    const hdr = (fields: MatroskaElement[]) =>
      readMatroskaHeader(
        summary(
          head({
            docType: 'webm',
            info: [
              ['TimestampScale', 1000],
              ['Duration', 5_000_000],
            ],
            tracks: track(1, 'V_VP9', [
              ...master('Video', [['PixelWidth', 3840], ['PixelHeight', 2160], ...master('Colour', fields)]),
            ]),
          }),
        ),
      );
    expect(hdr([['TransferCharacteristics', 16]])).toMatchObject({
      duration: 5,
      details: { container: 'webm', video: { codec: 'vp9', hdr: 'HDR10' } },
    });
    expect(hdr([['TransferCharacteristics', 18]])?.details.video?.hdr).toBe('HLG');
    const dolbyVision = readMatroskaHeader(
      summary(
        head({
          tracks: track(1, 'V_MPEGH/ISO/HEVC', master('BlockAdditionMapping', [['BlockAddIDType', 0x64766343]])),
        }),
      ),
    );
    expect(dolbyVision?.details.video).toEqual({ codec: 'hevc', width: 0, height: 0, hdr: 'Dolby Vision' });
  });

  it('reads chapters as ffprobe gives them: an end that is missing is the next start, or the end of the file', () => {
    const chapters = master(
      'Chapters',
      master('EditionEntry', [
        ...atom(0, 60e9, 'Opening'),
        ...atom(60e9, undefined, 'Middle'),
        ...atom(1800e9, undefined, 'End'),
      ]),
    );
    expect(readMatroskaHeader(summary(head({ chapters })))?.chapters).toEqual([
      { start: 0, end: 60, title: 'Opening' },
      { start: 60, end: 1800, title: 'Middle' },
      { start: 1800, end: 2640.512, title: 'End' },
    ]);
  });

  it('leaves to the next reader what it cannot vouch for', () => {
    expect(readMatroskaHeader(summary(head({}), { clusterAt: undefined }))).toBeUndefined();
    expect(readMatroskaHeader(summary(head({ info: [['TimestampScale', 1_000_000]] })))).toBeUndefined();
    expect(readMatroskaHeader(summary(head({}), { size: 1_000_000 }))).toBeUndefined();
    expect(readMatroskaHeader(summary(head({ tracks: track(1, 'V_MS/VFW/FOURCC') })))).toBeUndefined();
    expect(readMatroskaHeader(summary(head({ tracks: track(17, 'S_TEXT/UTF8') })))).toBeUndefined();
    const nested = master(
      'Chapters',
      master('EditionEntry', master('ChapterAtom', [['ChapterTimeStart', 0], ...atom(1e9, 2e9, 'Inner')])),
    );
    expect(readMatroskaHeader(summary(head({ chapters: nested })))).toBeUndefined();
    const hidden = master('Chapters', master('EditionEntry', atom(0, 1e9, 'Hidden', [['ChapterFlagHidden', 1]])));
    expect(readMatroskaHeader(summary(head({ chapters: hidden })))).toBeUndefined();
    const editions = master('Chapters', [
      ...master('EditionEntry', atom(0, 1e9, 'A')),
      ...master('EditionEntry', atom(0, 1e9, 'B')),
    ]);
    expect(readMatroskaHeader(summary(head({ chapters: editions })))).toBeUndefined();
    const withoutUid = master(
      'Chapters',
      master(
        'EditionEntry',
        master('ChapterAtom', [
          ['ChapterTimeStart', 0],
          ['ChapterTimeEnd', 1e9],
        ]),
      ),
    );
    expect(readMatroskaHeader(summary(head({ chapters: withoutUid })))).toBeUndefined();
    const sameStart = master('Chapters', master('EditionEntry', [...atom(5e9, 6e9, 'A'), ...atom(5e9, 7e9, 'B')]));
    expect(readMatroskaHeader(summary(head({ chapters: sameStart })))).toBeUndefined();
  });

  it('takes an unknown Segment size (a file being written) as no proof of truncation', () => {
    expect(
      readMatroskaHeader(summary(head({}), { segmentSizeField: '01ffffffffffffff', size: 10_000 }))?.duration,
    ).toBe(2640.512);
  });

  it('reads EBML size fields, all-ones as unknown', () => {
    expect(ebmlSizeValue('0100000000009ec8')).toBe(40_648);
    expect(ebmlSizeValue('01ffffffffffffff')).toBeUndefined();
    expect(ebmlSizeValue('81')).toBe(1);
    expect(ebmlSizeValue('4001')).toBe(1);
    expect(ebmlSizeValue('00')).toBeUndefined();
    expect(ebmlSizeValue('0100')).toBeUndefined();
    expect(ebmlSizeValue('xyz')).toBeUndefined();
  });

  it('maps codec ids to ffprobe’s codec names', () => {
    expect(
      [
        'A_AAC/MPEG4/LC',
        'A_EAC3',
        'A_DTS/EXPRESS',
        'A_TRUEHD',
        'A_OPUS',
        'S_TEXT/ASS',
        'S_HDMV/PGS',
        'S_VOBSUB',
        'V_AV1',
        'V_MPEG1',
        'V_MPEG2',
        'A_PCM/INT/LIT',
      ].map(matroskaCodecName),
    ).toEqual([
      'aac',
      'eac3',
      'dts',
      'truehd',
      'opus',
      'ass',
      'hdmv_pgs_subtitle',
      'dvd_subtitle',
      'av1',
      'mpeg1video',
      'mpeg2video',
      undefined,
    ]);
  });

  it('never throws on any element list, and a reading has a finite duration (property)', () => {
    const names = fc.constantFrom(
      'Segment',
      'Info',
      'Duration',
      'TimestampScale',
      'Tracks',
      'TrackEntry',
      'TrackType',
      'CodecID',
      'Video',
      'PixelHeight',
      'Chapters',
      'EditionEntry',
      'ChapterAtom',
      'ChapterTimeStart',
      'ChapterTimeEnd',
      'DocType',
    );
    const element = fc.oneof(
      fc.tuple(names, fc.constantFrom('start', 'end'), fc.anything(), fc.anything()),
      fc.tuple(names, fc.oneof(fc.double(), fc.nat(), fc.string(), fc.anything())),
    );
    fc.assert(
      fc.property(
        fc.array(element, { maxLength: 40 }),
        fc.uint8Array({ maxLength: 8 }).map((bytes) => Buffer.from(bytes).toString('hex')),
        (elements, sizeField) => {
          const reading = readMatroskaHeader({
            size: 1e9,
            segmentSizeField: sizeField,
            clusterAt: 100,
            elements: elements as MatroskaElement[],
          });
          if (reading) expect(Number.isFinite(reading.duration) && reading.duration >= 0).toBe(true);
        },
      ),
      { numRuns: 5000 },
    );
  });
});
