/**
 * The audio of an MPEG-TS stream, from the first bytes of its payloads (picked by
 * media-read.child.js), as ffprobe names it: the first frame header's codec and channels.
 * Pure, table-tested (test/unit/elementary-stream.parser.test.ts). Written here for the
 * reasons elementary-stream.parser.ts gives; the syntax is ISO/IEC 13818-7 (ADTS), ATSC
 * A/52 (AC-3, E-AC-3 annex E) and ISO/IEC 11172-3 (MPEG audio).
 */
import { Bits } from './bit-reader.js';

export interface AudioHeader {
  /** ffprobe's codec name. */
  codec: string;
  channels: number;
  /** An E-AC-3 frame followed by a dependent substream (more than 5.1 channels: ffprobe counts them together). */
  dependent?: boolean;
  /** The sampling rate the header gives (AAC: of the core, half the output with SBR). */
  sampleRate?: number;
}

const AAC_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];
const AC3_CHANNELS = [2, 1, 2, 3, 3, 4, 4, 5];

function readAdts(bytes: Uint8Array, at: number): AudioHeader | undefined {
  const b2 = bytes[at + 2] as number;
  const configuration = ((b2 & 0x01) << 2) | ((bytes[at + 3] as number) >> 6);
  const sampleRate = AAC_RATES[(b2 >> 2) & 0x0f];
  // Channel configuration 0 is a program config element in the raw data: not read here.
  if (configuration === 0 || !sampleRate) return undefined;
  return { codec: 'aac', channels: configuration === 7 ? 8 : configuration, sampleRate };
}

function readAc3(bytes: Uint8Array, at: number): AudioHeader | undefined {
  const bsid = (bytes[at + 5] as number) >> 3;
  if (bsid <= 10) {
    const bits = new Bits(bytes.subarray(at + 6, at + 8));
    const acmod = bits.bits(3);
    if (acmod & 1 && acmod !== 1) bits.skip(2); // cmixlev
    if (acmod & 4) bits.skip(2); // surmixlev
    if (acmod === 2) bits.skip(2); // dsurmod
    return { codec: 'ac3', channels: (AC3_CHANNELS[acmod] as number) + bits.bit() };
  }
  if (bsid > 16) return undefined;
  const b4 = bytes[at + 4] as number;
  const header: AudioHeader = { codec: 'eac3', channels: (AC3_CHANNELS[(b4 >> 1) & 7] as number) + (b4 & 1) };
  const next = at + ((((bytes[at + 2] as number) & 0x07) << 8) | (bytes[at + 3] as number)) * 2 + 2;
  if (bytes[next] === 0x0b && bytes[next + 1] === 0x77 && (bytes[next + 2] as number) >> 6 === 1)
    header.dependent = true;
  return header;
}

function readMpegAudio(bytes: Uint8Array, at: number): AudioHeader | undefined {
  const layer = ((bytes[at + 1] as number) >> 1) & 3;
  // Layer I (mp1) is left to ffprobe; 0 is reserved.
  if (layer !== 1 && layer !== 2) return undefined;
  return { codec: layer === 2 ? 'mp2' : 'mp3', channels: (bytes[at + 3] as number) >> 6 === 3 ? 1 : 2 };
}

export type AudioFamily = 'aac' | 'ac3' | 'mpeg';

/** The first frame header of an audio stream of the family in the given bytes (a frame may start anywhere in them). */
export function readAudioHeader(family: AudioFamily, bytes: Uint8Array): AudioHeader | undefined {
  for (let at = 0; at + 8 <= bytes.length; at++) {
    const [b0, b1] = [bytes[at] as number, bytes[at + 1] as number];
    if (family === 'ac3' && b0 === 0x0b && b1 === 0x77) return readAc3(bytes, at);
    if (family === 'aac' && b0 === 0xff && (b1 & 0xf6) === 0xf0) return readAdts(bytes, at);
    if (family === 'mpeg' && b0 === 0xff && (b1 & 0xe0) === 0xe0 && (b1 & 0x18) !== 0x08)
      return readMpegAudio(bytes, at);
  }
  return undefined;
}
