/**
 * A real MPEG-TS clip whose H.264 video carries CEA-608 closed captions (CC1), the way
 * US broadcasts carry them: ATSC A/53 caption data in an SEI NAL unit of every picture.
 * Tests of anything that must keep or show broadcast captions (remux, HLS, the players)
 * need such a source, and ffmpeg 5.1 cannot encode captions from text.
 *
 * So ffmpeg makes the picture (test pattern, H.264 without B-frames, so decode order is
 * display order and one picture is one caption slot) and the tone, this module writes an
 * SEI with one CEA-608 byte pair into each picture of the raw H.264 stream, and ffmpeg
 * muxes the result into MPEG-TS at a constant mux rate (as makeTsClip does, so the clip
 * can be looped and paced in real time by bytes).
 *
 * The caption is roll-up (RU2), one line, sent again every REPEAT_SECONDS: a player that
 * joins a looped live stream mid-way sees captions within a couple of seconds. Each
 * repetition starts by erasing the screen, so a player turns every repetition into one
 * complete cue (players emit a cue when the screen changes) and lines do not stack.
 *
 * The pure parts (parity, byte pairs, SEI payload, emulation prevention, NAL units) are
 * exported for unit tests.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Pictures per second: CEA-608 field 1 carries one byte pair per frame at (about) 30 frames a second. */
export const FRAME_RATE = 30;
const REPEAT_SECONDS = 2;
/** A CEA-608 row holds 32 characters. */
const MAX_COLUMNS = 32;

export type BytePair = readonly [number, number];

/** Sets bit 7 of a 7-bit value so the byte has an odd number of 1 bits, as CEA-608 requires of every byte. */
export function oddParity(value: number): number {
  const seven = value & 0x7f;
  let ones = 0;
  for (let bit = seven; bit !== 0; bit >>= 1) ones += bit & 1;
  return ones % 2 === 1 ? seven : seven | 0x80;
}

const pair = (a: number, b: number): BytePair => [oddParity(a), oddParity(b)];

/** Nothing to send this frame (0x00 0x00 with parity: 0x80 0x80). */
export const NULL_PAIR: BytePair = pair(0, 0);

/** CC1 (data channel 1 of field 1) control codes. */
export const CC1 = {
  /** Roll-up captions, two rows. */
  RU2: pair(0x14, 0x25),
  /** Carriage return: roll the rows up, start a new line on the base row. */
  CR: pair(0x14, 0x2d),
  /** Erase displayed memory: clear the screen. */
  EDM: pair(0x14, 0x2c),
  /** Preamble address code: row 15 (the bottom), white, column 0. */
  PAC_ROW15: pair(0x14, 0x60),
} as const;

/** Characters of the CEA-608 basic set that are not the ASCII character of the same code. */
const SPECIAL: Readonly<Record<string, number>> = {
  á: 0x2a,
  é: 0x5c,
  í: 0x5e,
  ó: 0x5f,
  ú: 0x60,
  ç: 0x7b,
  '÷': 0x7c,
  Ñ: 0x7d,
  ñ: 0x7e,
};
const NOT_ASCII = new Set(['*', '\\', '^', '_', '`', '{', '|', '}', '~']);

function basicCode(char: string): number {
  const special = SPECIAL[char];
  if (special !== undefined) return special;
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x20 || code > 0x7e || NOT_ASCII.has(char))
    throw new Error(`CEA-608 basic characters cannot show ${JSON.stringify(char)}`);
  return code;
}

/** The text as byte pairs of basic characters, two to a pair, the last padded with 0x00 (a null character). */
export function textPairs(text: string): BytePair[] {
  if (text.length === 0 || text.length > MAX_COLUMNS)
    throw new Error(`caption text must be 1 to ${MAX_COLUMNS} characters, got ${text.length}`);
  const codes = [...text].map(basicCode);
  const pairs: BytePair[] = [];
  for (let i = 0; i < codes.length; i += 2) pairs.push(pair(codes[i] ?? 0, codes[i + 1] ?? 0));
  return pairs;
}

/**
 * One repetition of the caption, a byte pair per frame, padded with null pairs to
 * `frames`: erase, roll-up, carriage return, row 15, the text. Control codes are sent
 * twice, as is customary (a decoder drops the repeat; a lost pair does not lose the command).
 */
export function captionCycle(text: string, frames: number): BytePair[] {
  const controls = [CC1.EDM, CC1.RU2, CC1.CR, CC1.PAC_ROW15].flatMap((code) => [code, code]);
  const pairs = [...controls, ...textPairs(text)];
  if (pairs.length > frames)
    throw new Error(`the caption needs ${pairs.length} frames, more than the ${frames} of a repetition`);
  return [...pairs, ...Array.from({ length: frames - pairs.length }, () => NULL_PAIR)];
}

/**
 * The user_data_registered_itu_t_t35 SEI payload (ATSC A/53) for one picture: its field 1
 * pair (cc_type 0) and an empty field 2 pair (cc_type 1), both cc_valid.
 */
export function ccDataPayload(field1: BytePair): Uint8Array {
  const ccData = [
    [0xfc, ...field1],
    [0xfd, ...NULL_PAIR],
  ];
  return Uint8Array.from([
    0xb5, // itu_t_t35_country_code: United States
    0x00,
    0x31, // itu_t_t35_provider_code: ATSC
    0x47,
    0x41,
    0x39,
    0x34, // user_identifier 'GA94'
    0x03, // user_data_type_code: cc_data
    0x40 | ccData.length, // process_cc_data_flag, cc_count
    0xff, // em_data (reserved)
    ...ccData.flat(),
    0xff, // marker_bits
  ]);
}

/**
 * Inserts emulation prevention bytes: 00 00 followed by 00..03 becomes 00 00 03 xx, so no start code appears inside a
 * NAL unit.
 */
export function addEmulationPrevention(rbsp: Uint8Array): Uint8Array {
  const out: number[] = [];
  let zeros = 0;
  for (const byte of rbsp) {
    if (zeros >= 2 && byte <= 0x03) {
      out.push(0x03);
      zeros = 0;
    }
    out.push(byte);
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  // A NAL unit may not end in 0x00 (it would read as part of the next start code).
  if (out.at(-1) === 0) out.push(0x03);
  return Uint8Array.from(out);
}

const NAL_SEI = 6;
const SEI_USER_DATA_REGISTERED = 4;

/** An SEI NAL unit (no start code) holding one message. */
export function seiNalUnit(payload: Uint8Array, payloadType = SEI_USER_DATA_REGISTERED): Uint8Array {
  // payloadType and payloadSize are coded as runs of 0xff plus a last byte.
  const coded = (value: number) => [...Array.from({ length: Math.floor(value / 255) }, () => 0xff), value % 255];
  const rbsp = Uint8Array.from([
    ...coded(payloadType),
    ...coded(payload.length),
    ...payload,
    0x80 /* rbsp_trailing_bits */,
  ]);
  return Uint8Array.from([NAL_SEI /* nal_ref_idc 0 */, ...addEmulationPrevention(rbsp)]);
}

/** The NAL units of an Annex B byte stream, without start codes (or the zero bytes before them). */
export function splitAnnexB(stream: Uint8Array): Uint8Array[] {
  const starts: number[] = [];
  for (let i = 0; i + 2 < stream.length; i += 1) {
    if (stream[i] === 0 && stream[i + 1] === 0 && stream[i + 2] === 1) {
      starts.push(i + 3);
      i += 2;
    }
  }
  return starts.map((start, n) => {
    let end = (starts[n + 1] ?? stream.length + 3) - 3;
    while (end > start && stream[end - 1] === 0) end -= 1;
    return stream.subarray(start, end);
  });
}

/** An Annex B byte stream of the NAL units, each after a 4-byte start code. */
export function joinAnnexB(units: readonly Uint8Array[]): Uint8Array {
  return Buffer.concat(units.flatMap((unit) => [Uint8Array.from([0, 0, 0, 1]), unit]));
}

/**
 * Whether the NAL unit is the first slice of a picture: a coded slice (type 1 or 5) whose
 * first_mb_in_slice is 0, i.e. whose slice header starts with the ue(v) code '1'.
 */
export function isFirstSlice(unit: Uint8Array): boolean {
  const type = (unit[0] ?? 0) & 0x1f;
  return (type === 1 || type === 5) && ((unit[1] ?? 0) & 0x80) !== 0;
}

/** The NAL units with `seiFor(n)` before the first slice of picture n (after its AUD, SPS, PPS and other SEI). */
export function insertBeforePictures(
  units: readonly Uint8Array[],
  seiFor: (picture: number) => Uint8Array,
): Uint8Array[] {
  let picture = 0;
  return units.flatMap((unit) => (isFirstSlice(unit) ? [seiFor(picture++), unit] : [unit]));
}

/**
 * An Annex B H.264 stream (no B-frames) with the caption's byte pairs in an SEI of each picture, the cycle repeating.
 */
export function addCaptions(
  stream: Uint8Array,
  text: string,
  framesPerCycle = FRAME_RATE * REPEAT_SECONDS,
): Uint8Array {
  const cycle = captionCycle(text, framesPerCycle).map((field1) => seiNalUnit(ccDataPayload(field1)));
  return joinAnnexB(
    insertBeforePictures(
      splitAnnexB(stream),
      (picture) => cycle[picture % cycle.length] ?? seiNalUnit(ccDataPayload(NULL_PAIR)),
    ),
  );
}

export interface CaptionedClip {
  path: string;
  bytes: number;
  /** Playing time of the file's bytes at its mux rate: bytes * 8 / (muxrateKbps * 1000). */
  seconds: number;
  text: string;
}

export interface CaptionedClipOptions {
  /** Clip length, default 6 (three repetitions of the caption). */
  seconds?: number;
  /** Video size, default '320x240'. */
  size?: string;
  /** The caption, up to 32 characters of the CEA-608 basic set. */
  text: string;
  /** Constant mux rate in kbit/s (ffmpeg -muxrate), default 2000. */
  muxrateKbps?: number;
}

const FFMPEG = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y'];

/** Test pattern as raw H.264 (Annex B) and a tone as ADTS AAC, in two files. */
async function encodeSources(
  work: string,
  seconds: number,
  size: string,
  videoKbps: number,
): Promise<{ video: string; audio: string }> {
  const video = join(work, 'video.h264');
  const audio = join(work, 'audio.aac');
  await run('ffmpeg', [
    ...FFMPEG,
    '-f',
    'lavfi',
    '-i',
    `testsrc2=size=${size}:rate=${FRAME_RATE}:duration=${seconds}`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:sample_rate=48000:duration=${seconds}`,
    // No B-frames: a picture's caption pair then goes out in display order. A fixed one-second GOP, so HLS can cut
    // anywhere on a second.
    '-map',
    '0:v',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    '-bf',
    '0',
    '-x264-params',
    `keyint=${FRAME_RATE}:min-keyint=${FRAME_RATE}:scenecut=0:aud=1`,
    '-b:v',
    `${videoKbps}k`,
    '-maxrate',
    `${videoKbps}k`,
    '-bufsize',
    `${videoKbps}k`,
    '-bsf:v',
    'h264_mp4toannexb',
    '-f',
    'h264',
    `file:${video}`,
    '-map',
    '1:a',
    '-c:a',
    'aac',
    '-b:a',
    '64k',
    '-ac',
    '2',
    '-f',
    'adts',
    `file:${audio}`,
  ]);
  return { video, audio };
}

/**
 * The captioned video and the audio in MPEG-TS at a constant mux rate; the raw H.264 demuxer is told the frame rate, as
 * it has no timestamps.
 */
async function muxTs(video: string, audio: string, path: string, muxrateKbps: number): Promise<void> {
  await run('ffmpeg', [
    ...FFMPEG,
    '-fflags',
    '+genpts',
    '-f',
    'h264',
    '-framerate',
    String(FRAME_RATE),
    '-i',
    `file:${video}`,
    '-i',
    `file:${audio}`,
    '-map',
    '0:v',
    '-map',
    '1:a',
    '-c',
    'copy',
    '-f',
    'mpegts',
    '-muxrate',
    `${muxrateKbps}k`,
    `file:${path}`,
  ]);
}

/**
 * An MPEG-TS clip (seconds long, size WxH, constant mux rate muxrateKbps default 2000) whose video carries CEA-608 CC1
 * captions showing `text`, repeated every couple of seconds.
 */
export async function makeCaptionedTsClip(path: string, options: CaptionedClipOptions): Promise<CaptionedClip> {
  const { seconds = 6, size = '320x240', text, muxrateKbps = 2000 } = options;
  textPairs(text); // fail before running ffmpeg when the text cannot be captioned
  // Leave room under the mux rate for audio and TS/PES overhead; the muxer pads the rest with null packets.
  const videoKbps = Math.max(50, Math.floor((muxrateKbps - 96) * 0.6));
  await mkdir(dirname(path), { recursive: true });
  const work = await mkdtemp(join(tmpdir(), 'antenna-cea608-'));
  try {
    const { video, audio } = await encodeSources(work, seconds, size, videoKbps);
    const captioned = join(work, 'captioned.h264');
    await writeFile(captioned, addCaptions(await readFile(video), text));
    await muxTs(captioned, audio, path, muxrateKbps);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const { size: bytes } = await stat(path);
  return { path, bytes, seconds: (bytes * 8) / (muxrateKbps * 1000), text };
}
