/**
 * Video sequence headers, audio frame headers and A/53 captions as ffprobe names them
 * (src/media-tools/elementary-stream.parser.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readAudioHeader } from '../../src/media-tools/audio-frame.parser.js';
import {
  type VideoCodec,
  hasCaptions,
  nalUnits,
  rbspOf,
  readH264Sps,
  readHevcSps,
  readMpegVideoSequence,
  readVideoHeader,
} from '../../src/media-tools/elementary-stream.parser.js';

const hex = (text: string) => Buffer.from(text.replace(/\s/g, ''), 'hex');
/** Annex B: a start code before each NAL unit. */
const annexB = (...nals: string[]) => Buffer.concat(nals.flatMap((nal) => [hex('00000001'), hex(nal)]));

// Taken from files ffmpeg 5.1 made (libx264, libx265, mpeg2video, mpeg1video), with what ffprobe says of them.
const SPS = {
  baseline320: '6742c00dda0507ec0440000003004000000c83c50aa8',
  interlaced1080: '67f40028919d00f0089f97011000003e90000ea601f162ea',
  scalingMatrices1080: '67f40028919b280f0044fc4e0220000003002000000641e30632c0',
  hevcVps: '40010c01ffff02200000030090000003000003003c95940900',
  hevcHdr10: '42010102200000030090000003000003003ca00a080f136595952930bc05a8488048200000030020000003032100',
};

describe('video sequence headers', () => {
  it.each([
    [
      'H.264 baseline, 320x240 at 25 (x264 ultrafast)',
      'h264',
      annexB('09f0', SPS.baseline320, '68ce0fc8'),
      { width: 320, height: 240, frameRate: 25 },
    ],
    [
      'H.264 interlaced 1080 (coded 1088, cropped; a tick per field)',
      'h264',
      annexB(SPS.interlaced1080),
      { width: 1920, height: 1080, frameRate: 30000 / 1001 },
    ],
    [
      'H.264 high profile with scaling matrices (x264 cqm=jvt)',
      'h264',
      annexB(SPS.scalingMatrices1080),
      { width: 1920, height: 1080, frameRate: 25 },
    ],
    [
      'H.265 10-bit HDR10: transfer 16 (PQ) from the VUI',
      'hevc',
      annexB('46015000', SPS.hevcVps, SPS.hevcHdr10),
      { width: 320, height: 240, frameRate: 25, transfer: 16 },
    ],
    [
      'MPEG-2 720p50 sequence header and extension',
      'mpeg2video',
      hex('000001b35002d033ffffe228 000001b5146a00010000 000001b800'),
      { width: 1280, height: 720, frameRate: 25 },
    ],
    [
      'MPEG-2 1080i 29.97',
      'mpeg2video',
      hex('000001b378043834ffffe458 000001b5144200010000'),
      { width: 1920, height: 1080, frameRate: 30000 / 1001 },
    ],
    [
      'MPEG-1: no sequence extension',
      'mpeg2video',
      hex('000001b31400f013ffffe018 000001b800080040'),
      { width: 320, height: 240, frameRate: 25, mpeg1: true },
    ],
  ] as const)('%s', (_name, codec, bytes, expected) => {
    const header = readVideoHeader(codec as VideoCodec, bytes);
    expect(header).toMatchObject({ ...expected, frameRate: expect.closeTo(expected.frameRate, 6) });
  });

  it('applies MPEG-2 size extensions and frame rate extension n/d', () => {
    // horizontal_size_extension 1 (+4096), vertical_size_extension 1 (+4096).
    expect(readMpegVideoSequence(hex('000001b35002d033ffffe228 000001b5146aa0010000'))).toMatchObject({
      width: 1280 + 4096,
      height: 720 + 4096,
      frameRate: 25,
    });
    // frame_rate_extension_n 1, _d 0: 25 × 2/1; n 2, d 1: 25 × 3/2.
    expect(readMpegVideoSequence(hex('000001b35002d033ffffe228 000001b5146a00010020'))?.frameRate).toBe(50);
    expect(readMpegVideoSequence(hex('000001b35002d033ffffe228 000001b5146a00010041'))?.frameRate).toBe(37.5);
  });

  it('answers undefined for what it cannot read: no header, a cut SPS, a forbidden frame rate code', () => {
    expect(readVideoHeader('h264', annexB('09f0', '68ce0fc8'))).toBeUndefined();
    expect(readH264Sps(hex(SPS.baseline320).subarray(0, 5))).toBeUndefined();
    expect(readHevcSps(hex(SPS.hevcHdr10).subarray(0, 20))).toBeUndefined();
    expect(readMpegVideoSequence(hex('000001b35002d030ffffe228'))).toBeUndefined();
    expect(readMpegVideoSequence(hex('000001b3500'))).toBeUndefined();
  });

  it('never throws on any bytes', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.constantFrom<VideoCodec>('h264', 'hevc', 'mpeg2video'),
        (bytes, codec) => {
          readVideoHeader(codec, Buffer.concat([hex('00000167'), bytes]));
          readVideoHeader(codec, Buffer.concat([hex('0000014201'), bytes]));
          readVideoHeader(codec, Buffer.concat([hex('000001b3'), bytes]));
          hasCaptions(codec, Buffer.concat([hex('00000106'), bytes]));
        },
      ),
    );
  });
});

describe('NAL units', () => {
  it('splits an Annex B stream at its start codes and takes out emulation prevention bytes', () => {
    expect(
      nalUnits(hex('00000001 0910 000001 6742 0000 0001 68')).map((nal) => Buffer.from(nal).toString('hex')),
    ).toEqual(['0910', '6742', '68']);
    expect(Buffer.from(rbspOf(hex('6700000301000003'))).toString('hex')).toBe('670000010000');
  });
});

describe('A/53 captions in the video', () => {
  // One CEA-608 pair on field 1 (cc_valid), a null pair on field 2, as test/support/cea608-clip.ts writes them.
  const h264Sei = '060411b50031474139340342fffc942cfd8080ff80';
  it.each([
    ['H.264 SEI (T.35, GA94, cc_data)', 'h264', annexB('0910', h264Sei), true],
    ['H.265 prefix SEI', 'hevc', annexB('4e01' + h264Sei.slice(2)), true],
    ['MPEG-2 user data', 'mpeg2video', hex('000001b2 4741393403 42ff fc942c fd8080 ff'), true],
    ['pairs none of which is valid', 'h264', annexB('0910', '060411b50031474139340342fff8942cf88080ff80'), false],
    ['cc_data not to be processed', 'h264', annexB('060411b50031474139340302fffc942cfd8080ff80'), false],
    ['another registered user data (AFD)', 'h264', annexB('060409b500314454473141f880'), false],
    ['no SEI', 'h264', annexB('0910', SPS.baseline320), false],
  ] as const)('%s: %s', (_name, codec, bytes, expected) => {
    expect(hasCaptions(codec, bytes)).toBe(expected);
  });
});

describe('audio frame headers', () => {
  it.each([
    ['ADTS AAC mono 44.1 kHz', 'aac', 'fff15040213ffcde02', { codec: 'aac', channels: 1, sampleRate: 44100 }],
    [
      'ADTS AAC 22.05 kHz (maybe the core of HE-AAC: the caller decides)',
      'aac',
      'fff15c403f1ffcde02',
      { codec: 'aac', channels: 1, sampleRate: 22050 },
    ],
    ['ADTS AAC stereo 48 kHz', 'aac', 'fff14c80117ffcde02', { codec: 'aac', channels: 2, sampleRate: 48000 }],
    ['ADTS AAC 5.1 (channel configuration 6)', 'aac', 'fff14d80117ffcde02', { codec: 'aac', channels: 6 }],
    ['AC-3 5.1 (acmod 7, LFE)', 'ac3', '0b770dce5e40ebf8403e', { codec: 'ac3', channels: 6 }],
    ['AC-3 mono', 'ac3', '0b771ef84c402f842be1', { codec: 'ac3', channels: 1 }],
    ['E-AC-3 mono (bsid 16)', 'ac3', '0b7700cf7287c0002106', { codec: 'eac3', channels: 1 }],
    ['MPEG-1 Layer II mono', 'mpeg', 'fffde0c4eccc', { codec: 'mp2', channels: 1 }],
    ['MPEG-1 Layer III mono', 'mpeg', 'fffb50c4000a', { codec: 'mp3', channels: 1 }],
    ['MPEG-1 Layer III stereo, after some bytes', 'mpeg', '0102fffb9004000a2c43', { codec: 'mp3', channels: 2 }],
  ] as const)('%s', (_name, family, bytes, expected) => {
    expect(readAudioHeader(family, hex(bytes + '0000000000000000'))).toMatchObject(expected);
  });

  it('flags an E-AC-3 frame followed by a dependent substream (7.1: ffprobe counts both)', () => {
    // Frame size (frmsiz + 1) × 2 = 8 bytes, then a frame whose strmtyp is 1.
    expect(readAudioHeader('ac3', hex('0b77000387800000 0b774003 0000000000000000'))).toMatchObject({
      codec: 'eac3',
      channels: 4,
      dependent: true,
    });
    expect(readAudioHeader('ac3', hex('0b77000387800000 0b770003 0000000000000000'))?.dependent).toBeUndefined();
  });

  it('answers undefined for what it does not read: a PCE in ADTS, MPEG Layer I, no sync word', () => {
    expect(readAudioHeader('aac', hex('fff1500001 3ffcde02 00000000'))).toBeUndefined();
    expect(readAudioHeader('mpeg', hex('fffe90c4 0000000000000000'))).toBeUndefined();
    expect(readAudioHeader('ac3', hex('00112233445566778899aabbccddeeff'))).toBeUndefined();
  });
});
