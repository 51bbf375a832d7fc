/** An MPEG-TS's tables and timestamps read as ffprobe would say them (src/media-tools/mpeg-ts.parser.ts). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type MpegTsStream,
  type MpegTsSummary,
  cadenceOf,
  crc32Mpeg,
  kindOf,
  readMpegTsHeader,
  readPmt,
  tsSeesCaptions,
} from '../../src/media-tools/mpeg-ts.parser.js';

const hex = (text: string) => Buffer.from(text.replace(/\s/g, ''), 'hex');
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** A long-form PSI section with its CRC; `current` false makes it the next version's. */
function section(table: number, body: number[], current = true): string {
  const length = 5 + body.length + 4;
  const bytes = Buffer.from([
    table,
    0xb0 | (length >> 8),
    length & 0xff,
    0x00,
    0x01,
    current ? 0xc1 : 0xc0,
    0,
    0,
    ...body,
    0,
    0,
    0,
    0,
  ]);
  bytes.writeUInt32BE(crc32Mpeg(bytes.subarray(0, -4)), bytes.length - 4);
  return bytes.toString('base64');
}

const pat = (...pmtPids: number[]) =>
  section(
    0x00,
    pmtPids.flatMap((pid, n) => [0, n + 1, 0xe0 | (pid >> 8), pid & 0xff]),
  );

interface Entry {
  type: number;
  pid: number;
  descriptors?: number[];
}

function pmt(entries: Entry[], programInfo: number[] = []): string {
  const body = [0xe1, 0x00, 0xf0, programInfo.length, ...programInfo];
  for (const { type, pid, descriptors = [] } of entries)
    body.push(type, 0xe0 | (pid >> 8), pid & 0xff, 0xf0, descriptors.length, ...descriptors);
  return section(0x02, body);
}

const language = (...codes: string[]) => [
  0x0a,
  codes.length * 4,
  ...codes.flatMap((code) => [...Buffer.from(code, 'latin1'), 0]),
];

// Headers from files ffmpeg made (see elementary-stream.parser.test.ts).
const H264_320_25 = hex('00000001 0910 00000001 6742c00dda0507ec0440000003004000000c83c50aa8 00000001 68ce0fc8');
const CAPTION_SEI = hex('00000001 060411b50031474139340342fffc942cfd8080ff80');
const ADTS_MONO = hex('fff15040213ffcde02 0000000000000000');
const ADTS_22K = hex('fff15c403f1ffcde02 0000000000000000');
const AC3_51 = hex('0b770dce5e40ebf8403e 0000000000000000');
const EAC3_MONO = hex('0b7700cf7287c0002106 0000000000000000');

const S = 126_000; // 1.4 s, where ffmpeg starts
/** `count` timestamps `step` ticks apart from `from`. */
const ticks = (from: number, step: number, count: number) => Array.from({ length: count }, (_, n) => from + n * step);

function video(from = S, seconds = 4, prefix: Uint8Array = H264_320_25): MpegTsStream {
  const frames = seconds * 25;
  const last = ticks(from + (frames - 30) * 3600, 3600, 30);
  return {
    pts: ticks(from, 3600, 30),
    lastPts: last,
    lastBytes: last.map(() => 5000),
    prefixes: [base64(prefix)],
    sequence: base64(prefix),
  };
}

/** AAC as ffmpeg muxes it: about eight frames (8 × 1024 samples at 44.1 kHz) a PES. */
function audio(prefix: Uint8Array = ADTS_MONO, from = S, end = S + 4 * 90_000): MpegTsStream {
  const step = Math.round((8 * 1024 * 90_000) / 44_100);
  const last = ticks(end - 10 * step, step, 10);
  return { pts: ticks(from, step, 10), lastPts: last, lastBytes: last.map(() => 800), prefixes: [base64(prefix)] };
}

function summary(
  entries: Entry[],
  streams: Record<number, MpegTsStream>,
  extra: Partial<MpegTsSummary> = {},
): MpegTsSummary {
  return { size: 1_000_000, bytesRead: 500_000, sections: { 0: pat(0x100), 256: pmt(entries) }, streams, ...extra };
}

const H264 = { type: 0x1b, pid: 0x101 };
const AAC = { type: 0x0f, pid: 0x102 };

describe('readMpegTsHeader', () => {
  it('reads the streams, codecs, channels and languages, and the duration from the first to the last timestamp', () => {
    const reading = readMpegTsHeader(
      summary(
        [H264, { ...AAC, descriptors: language('eng') }, { type: 0x81, pid: 0x103, descriptors: language('FRA') }],
        { 0x101: video(), 0x102: audio(), 0x103: audio(AC3_51) },
      ),
    );
    expect(reading).toEqual({
      duration: 4,
      chapters: [],
      details: {
        container: 'mpegts',
        video: { codec: 'h264', width: 320, height: 240, frameRate: 25 },
        audio: [
          { codec: 'aac', channels: 1, language: 'eng' },
          { codec: 'ac3', channels: 6, language: 'fra' },
        ],
        subtitles: [],
        closedCaptions: false,
      },
    });
  });

  it('starts at the earliest picture shown, not the first sent (B-frames), and ends at the latest plus a frame', () => {
    const decodeOrder = [S + 7200, S, S + 3600, S + 18000, S + 10800, S + 14400, ...ticks(S + 21600, 3600, 20)];
    const stream = {
      ...video(),
      pts: decodeOrder,
      lastPts: [S + 360_000 - 3600, S + 360_000 - 10800, S + 360_000 - 7200],
    };
    expect(readMpegTsHeader(summary([H264], { 0x101: stream }))?.duration).toBe(4);
  });

  it("counts the last audio PES's samples by its bytes, where the audio runs past the video (a recording cut short)", () => {
    // Ten PES of 800 bytes 16,718 ticks apart; the last has 400 bytes: it plays half as long.
    const sound = audio(ADTS_MONO, S, S + 4 * 90_000 + 50_000);
    sound.lastBytes = [...sound.lastBytes.slice(0, -1), 400];
    const seconds = ((sound.lastPts.at(-1) as number) + 16_718 / 2 - S) / 90_000;
    expect(readMpegTsHeader(summary([H264, AAC], { 0x101: video(), 0x102: sound }))?.duration).toBeCloseTo(seconds, 2);
  });

  it("unwinds the 33-bit clock's wrap (every 26.5 hours) between the head and the tail", () => {
    const start = 2 ** 33 - 90_000;
    const stream = video(start);
    stream.lastPts = stream.lastPts.map((pts) => pts % 2 ** 33);
    expect(readMpegTsHeader(summary([H264], { 0x101: stream }))?.duration).toBe(4);
  });

  it('names AC-3 carried as E-AC-3 (and private data with an AC-3 descriptor) as ffprobe does: by the frame', () => {
    const read = (entry: Entry, prefix: Uint8Array) =>
      readMpegTsHeader(summary([H264, entry], { 0x101: video(), 0x102: audio(prefix) }))?.details.audio;
    expect(read({ type: 0x81, pid: 0x102 }, EAC3_MONO)).toEqual([{ codec: 'eac3', channels: 1 }]);
    expect(read({ type: 0x87, pid: 0x102 }, EAC3_MONO)).toEqual([{ codec: 'eac3', channels: 1 }]);
    expect(read({ type: 0x06, pid: 0x102, descriptors: [0x6a, 1, 0] }, AC3_51)).toEqual([
      { codec: 'ac3', channels: 6 },
    ]);
    expect(read({ type: 0x06, pid: 0x102, descriptors: [0x05, 4, ...Buffer.from('EAC3')] }, EAC3_MONO)).toEqual([
      { codec: 'eac3', channels: 1 },
    ]);
  });

  it("takes the frame rate from the timestamps when the header gives none, and the header's when there are too few", () => {
    // A baseline SPS without VUI, written bit by bit: 320x240 (20 × 15 macroblocks), progressive, no cropping.
    const ue = (value: number) => '0'.repeat((value + 1).toString(2).length - 1) + (value + 1).toString(2);
    const rbsp = `${ue(0)}${ue(0)}${ue(2)}${ue(1)}0${ue(19)}${ue(14)}11001`.padEnd(48, '0');
    const noTiming = Buffer.concat([
      hex('00000001 6742c00d'),
      Buffer.from((rbsp.match(/.{8}/g) ?? []).map((byte) => parseInt(byte, 2))),
    ]);
    expect(
      readMpegTsHeader(summary([H264], { 0x101: { ...video(S, 4, noTiming), pts: ticks(S, 3003, 30) } }))?.details.video
        ?.frameRate,
    ).toBe(29.97);
    expect(
      readMpegTsHeader(summary([H264], { 0x101: { ...video(), pts: ticks(S, 1800, 5) } }))?.details.video?.frameRate,
    ).toBe(25);
  });

  it('passes by data streams ffprobe lists as data (SCTE-35, ID3), and reads a TS without audio or without video', () => {
    expect(
      readMpegTsHeader(summary([H264, { type: 0x86, pid: 0x1f0 }, { type: 0x15, pid: 0x1f1 }], { 0x101: video() }))
        ?.details,
    ).toMatchObject({ video: { codec: 'h264' }, audio: [] });
    expect(readMpegTsHeader(summary([AAC], { 0x102: audio() }))).toMatchObject({
      duration: 4,
      details: { audio: [{ codec: 'aac' }] },
    });
  });

  it('drops languages ffprobe drops: two codes in one descriptor (ffmpeg joins them with a comma), "und"', () => {
    const languages = (descriptors: number[]) =>
      readMpegTsHeader(summary([H264, { ...AAC, descriptors }], { 0x101: video(), 0x102: audio() }))?.details.audio[0]
        ?.language;
    expect(languages(language('eng', 'spa'))).toBeUndefined();
    expect(languages(language('und'))).toBeUndefined();
    expect(languages([0x0a, 4, 0, 0, 0, 0])).toBeUndefined();
  });

  it('sees CEA-608 captions in the video, also in a TS it leaves to ffprobe', () => {
    const captioned = video(S, 4, Buffer.concat([H264_320_25, CAPTION_SEI]));
    expect(readMpegTsHeader(summary([H264], { 0x101: captioned }))?.details.closedCaptions).toBe(true);
    const unread = summary(
      [H264, { type: 0x06, pid: 0x1f0, descriptors: [0x59, 8, ...Buffer.from('eng'), 0x10, 0, 1, 0, 1] }],
      { 0x101: captioned },
    );
    expect(readMpegTsHeader(unread)).toBeUndefined();
    expect(tsSeesCaptions(unread)).toBe(true);
    expect(tsSeesCaptions(summary([H264], { 0x101: video() }))).toBe(false);
  });

  const badCrc = (() => {
    const bytes = Buffer.from(pmt([H264]), 'base64');
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 1, bytes.length - 1);
    return bytes.toString('base64');
  })();
  it.each<[string, () => MpegTsSummary]>([
    [
      'two programs in the PAT',
      () => ({
        ...summary([H264], { 0x101: video() }),
        sections: { 0: pat(0x100, 0x200), 256: pmt([H264]), 512: pmt([H264]) },
      }),
    ],
    ['no PMT read', () => ({ ...summary([H264], { 0x101: video() }), sections: { 0: pat(0x100) } })],
    [
      'a damaged PMT (CRC)',
      () => ({ ...summary([H264], { 0x101: video() }), sections: { 0: pat(0x100), 256: badCrc } }),
    ],
    [
      'a PMT for the next version only',
      () => ({
        ...summary([H264], { 0x101: video() }),
        sections: { 0: pat(0x100), 256: section(0x02, [0xe1, 0, 0xf0, 0, 0x1b, 0xe1, 0x01, 0xf0, 0], false) },
      }),
    ],
    [
      'DVB subtitles',
      () =>
        summary([H264, { type: 0x06, pid: 0x1f0, descriptors: [0x59, 8, ...Buffer.from('eng'), 0x10, 0, 1, 0, 1] }], {
          0x101: video(),
          0x1f0: audio(),
        }),
    ],
    [
      'private data without a descriptor (ffprobe probes it)',
      () => summary([H264, { type: 0x06, pid: 0x1f0 }], { 0x101: video(), 0x1f0: audio() }),
    ],
    ['LATM AAC', () => summary([H264, { type: 0x11, pid: 0x102 }], { 0x101: video(), 0x102: audio() })],
    ['MPEG-4 Part 2 video', () => summary([{ type: 0x10, pid: 0x101 }], { 0x101: video() })],
    ['a Dolby Vision descriptor', () => summary([{ ...H264, descriptors: [0xb0, 0] }], { 0x101: video() })],
    [
      'an audio stream listed but without payload (not sent, scrambled)',
      () => summary([H264, AAC], { 0x101: video() }),
    ],
    [
      'no sequence header in the video (a recording that starts mid-GOP and has no other)',
      () => summary([H264], { 0x101: { ...video(), prefixes: [base64(hex('000000010910'))], sequence: undefined } }),
    ],
    [
      'AAC below 32 kHz (maybe HE-AAC v2: one channel to the header, two to ffprobe)',
      () => summary([H264, AAC], { 0x101: video(), 0x102: audio(ADTS_22K) }),
    ],
    [
      'AC-3 frames under the E-AC-3 stream type',
      () => summary([H264, { type: 0x87, pid: 0x102 }], { 0x101: video(), 0x102: audio(AC3_51) }),
    ],
    [
      'E-AC-3 with a dependent substream (7.1)',
      () =>
        summary([H264, { type: 0x87, pid: 0x102 }], {
          0x101: video(),
          0x102: audio(hex('0b77000387800000 0b774003 0000000000000000')),
        }),
    ],
    [
      'a frame rate the timestamps disagree with (fields sent as pictures)',
      () => summary([H264], { 0x101: { ...video(), pts: ticks(S, 1800, 30) } }),
    ],
    [
      'timestamps too irregular for a frame rate (soft telecine: 3003 and 4504 ticks)',
      () =>
        summary([H264], {
          0x101: {
            ...video(),
            pts: [0, 3003, 7507, 10510, 15014, 18017, 22521, 25524, 30028, 33031].map((t) => S + t),
          },
        }),
    ],
    [
      'no timestamp of the video in the tail',
      () => summary([H264, AAC], { 0x101: { ...video(), lastPts: [], lastBytes: [] }, 0x102: audio() }),
    ],
    [
      'timestamps that jump back in the head (a source that looped or restarted)',
      () => summary([H264], { 0x101: { ...video(), pts: [...ticks(S, 3600, 20), ...ticks(S - 90_000, 3600, 10)] } }),
    ],
    [
      'timestamps that jump ahead in the tail',
      () => summary([H264], { 0x101: { ...video(), lastPts: [S, S + 3600, S + 20 * 90_000], lastBytes: [1, 1, 1] } }),
    ],
    [
      'a duration over 24 hours',
      () => summary([H264], { 0x101: { ...video(), lastPts: [S + 25 * 3600 * 90_000], lastBytes: [5000] } }),
    ],
  ])('leaves to ffprobe: %s', (_name, make) => {
    expect(readMpegTsHeader(make())).toBeUndefined();
  });
});

describe('the parts', () => {
  it('computes CRC-32/MPEG-2', () => {
    expect(crc32Mpeg(Buffer.from('123456789'))).toBe(0x0376e6e7);
  });

  it("reads a PMT's program registration, stream types and descriptors", () => {
    const program = readPmt(
      Buffer.from(
        pmt(
          [{ type: 0x24, pid: 0x101, descriptors: [0x05, 4, ...Buffer.from('HEVC')] }, AAC],
          [0x05, 4, ...Buffer.from('HDMV')],
        ),
        'base64',
      ),
    );
    expect(program.registration).toBe('HDMV');
    expect(program.streams.map(({ type, pid }) => [type, pid])).toEqual([
      [0x24, 0x101],
      [0x0f, 0x102],
    ]);
    expect(kindOf({ type: 0x86, pid: 1, descriptors: new Map() }, 'HDMV')).toBe('unknown');
    expect(kindOf({ type: 0x86, pid: 1, descriptors: new Map() }, undefined)).toBe('data');
  });

  it('finds the cadence of timestamps in any order, 59.94 Hz alternating 1501 and 1502 ticks, and none when irregular', () => {
    expect(cadenceOf([7200, 0, 3600, 14400, 10800])).toBe(3600);
    expect(cadenceOf([0, 1501, 3003, 4504, 6006, 7507, 9009])).toBeCloseTo(1501.5, 1);
    expect(cadenceOf([0, 3003, 7508, 10511, 15016, 18019, 22524])).toBeUndefined();
    expect(cadenceOf([100])).toBeUndefined();
  });
});

describe('a garbled MPEG-TS summary', () => {
  const bytes = fc.uint8Array({ maxLength: 400 }).map(base64);
  const stream: fc.Arbitrary<MpegTsStream> = fc.record(
    {
      pts: fc.array(fc.nat({ max: 2 ** 33 - 1 }), { maxLength: 20 }),
      lastPts: fc.array(fc.nat({ max: 2 ** 33 - 1 }), { maxLength: 20 }),
      lastBytes: fc.array(fc.nat({ max: 1_000_000 }), { maxLength: 20 }),
      prefixes: fc.array(bytes, { maxLength: 4 }),
      sequence: bytes,
    },
    { requiredKeys: ['pts', 'lastPts', 'lastBytes', 'prefixes'] },
  );
  // Tables that parse (so the streams are looked at), or garbage in their place.
  const sections = fc.oneof(
    fc.constant({
      '0': pat(0x100),
      '256': pmt([
        { type: 0x1b, pid: 0x101 },
        { type: 0x0f, pid: 0x102, descriptors: language('eng') },
      ]),
    }),
    fc.dictionary(fc.constantFrom('0', '256', '4096'), bytes),
  );
  const summary: fc.Arbitrary<MpegTsSummary> = fc.record({
    size: fc.nat(),
    bytesRead: fc.nat(),
    sections,
    streams: fc.dictionary(fc.constantFrom('257', '258', '259'), stream),
  });

  it('is read without throwing: a reading with a finite, non-negative duration, or left to ffprobe', () => {
    fc.assert(
      fc.property(summary, (garbled) => {
        const reading = readMpegTsHeader(garbled);
        if (reading) expect(Number.isFinite(reading.duration) && reading.duration >= 0).toBe(true);
        expect(typeof tsSeesCaptions(garbled)).toBe('boolean');
      }),
      { numRuns: 2000 },
    );
  });
});
