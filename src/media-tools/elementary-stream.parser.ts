/**
 * The first bytes of an MPEG-TS video stream's payloads (picked by media-read.child.js)
 * read as ffprobe would name them: the sequence header (size, frame rate, transfer
 * characteristics) and CEA-608/708 caption data (ATSC A/53 `GA94` cc_data); the audio's
 * frame headers are audio-frame.parser.ts. Pure functions, table-tested.
 *
 * Written here because no kept library reads these in Node: mux.js reads H.264 SPS sizes
 * only (no timing, no HEVC or MPEG-2), the browser players' parsers (mpegts.js, hls.js)
 * are not public API, and MediaInfo (mediainfo.js) cannot be given a few kilobytes of a
 * stream nor told to read less of a TS (see mpeg-ts.parser.ts). The syntax is ITU-T H.264
 * 7.3.2.1 and E.1, H.265 7.3.2.2 and E.2, ISO/IEC 13818-2 6.2.2, ISO/IEC 13818-7 (ADTS),
 * ATSC A/52 (AC-3, E-AC-3 annex E), ISO/IEC 11172-3 (MPEG audio), ATSC A/53 part 4 and
 * CEA-708 (cc_data). Every reader answers undefined on bytes it does not understand.
 */
import { Bits } from './bit-reader.js';

/**
 * The NAL units (header included) of an Annex B byte stream: what follows each 00 00 01, less the zeros before the
 * next.
 */
export function nalUnits(bytes: Uint8Array): Uint8Array[] {
  const starts: number[] = [];
  for (let i = 0; i + 2 < bytes.length; i++) {
    if (bytes[i] === 0 && bytes[i + 1] === 0 && bytes[i + 2] === 1) {
      starts.push(i + 3);
      i += 2;
    }
  }
  return starts.map((start, n) => {
    let end = n + 1 < starts.length ? (starts[n + 1] as number) - 3 : bytes.length;
    while (end > start && bytes[end - 1] === 0) end--;
    return bytes.subarray(start, end);
  });
}

/** The RBSP of a NAL unit: each 00 00 03 loses its 03. */
export function rbspOf(nal: Uint8Array): Uint8Array {
  const out = new Uint8Array(nal.length);
  let length = 0;
  for (let i = 0, zeros = 0; i < nal.length; i++) {
    const byte = nal[i] as number;
    if (zeros >= 2 && byte === 3) {
      zeros = 0;
      continue;
    }
    zeros = byte === 0 ? zeros + 1 : 0;
    out[length++] = byte;
  }
  return out.subarray(0, length);
}

export interface VideoHeader {
  width: number;
  height: number;
  /** Frames per second the header declares, when it does. */
  frameRate?: number;
  /** ITU-T H.273 transfer characteristics (16 PQ, 18 HLG), when the header gives them. */
  transfer?: number;
  /** MPEG-1 video: an MPEG-2 sequence header without its sequence extension. */
  mpeg1?: boolean;
  /** Pictures are fields (HEVC field_seq_flag): the timing is then the field rate. */
  fields?: boolean;
}

interface Vui {
  transfer?: number;
  frameRate?: number;
}

/**
 * The colour description and the timing of a VUI (H.264 E.1.1 up to timing_info; H.265 E.2.1 up to vui_timing_info).
 */
function readVui(bits: Bits, hevc: boolean): Vui & { fields?: boolean } {
  const vui: Vui & { fields?: boolean } = {};
  if (bits.bit() && bits.bits(8) === 255) bits.skip(32); // aspect_ratio_info: Extended_SAR
  if (bits.bit()) bits.skip(1); // overscan_info
  if (bits.bit()) {
    bits.skip(4); // video_format, video_full_range_flag
    if (bits.bit()) {
      bits.skip(8); // colour_primaries
      vui.transfer = bits.bits(8);
      bits.skip(8); // matrix_coefficients
    }
  }
  if (bits.bit()) {
    bits.ue(); // chroma_sample_loc_type_top_field
    bits.ue(); // chroma_sample_loc_type_bottom_field
  }
  if (hevc) {
    bits.skip(1); // neutral_chroma_indication_flag
    vui.fields = bits.bit() === 1; // field_seq_flag
    bits.skip(1); // frame_field_info_present_flag
    if (bits.bit()) for (let i = 0; i < 4; i++) bits.ue(); // default_display_window
  }
  if (bits.bit()) {
    const unitsInTick = bits.bits(32);
    const timeScale = bits.bits(32);
    // H.264 counts a tick per field (two per frame); H.265 one per picture.
    if (unitsInTick > 0 && timeScale > 0) vui.frameRate = timeScale / unitsInTick / (hevc ? 1 : 2);
  }
  return vui;
}

function skipScalingList(bits: Bits, size: number): void {
  for (let j = 0, last = 8, next = 8; j < size; j++) {
    if (next !== 0) next = (last + bits.se() + 256) % 256;
    last = next === 0 ? last : next;
  }
}

const HIGH_PROFILES = new Set([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]);

/** An H.264 sequence parameter set (the NAL unit, header byte included). */
export function readH264Sps(nal: Uint8Array): VideoHeader | undefined {
  try {
    const bits = new Bits(rbspOf(nal.subarray(1)));
    const profile = bits.bits(8);
    bits.skip(16); // constraint flags, level_idc
    bits.ue(); // seq_parameter_set_id
    let chroma = 1;
    let separateColourPlane = 0;
    if (HIGH_PROFILES.has(profile)) {
      chroma = bits.ue();
      if (chroma === 3) separateColourPlane = bits.bit();
      bits.ue(); // bit_depth_luma_minus8
      bits.ue(); // bit_depth_chroma_minus8
      bits.skip(1); // qpprime_y_zero_transform_bypass_flag
      if (bits.bit())
        for (let i = 0; i < (chroma === 3 ? 12 : 8); i++) if (bits.bit()) skipScalingList(bits, i < 6 ? 16 : 64);
    }
    bits.ue(); // log2_max_frame_num_minus4
    const pocType = bits.ue();
    if (pocType === 0) bits.ue();
    else if (pocType === 1) {
      bits.skip(1); // delta_pic_order_always_zero_flag
      bits.se(); // offset_for_non_ref_pic
      bits.se(); // offset_for_top_to_bottom_field
      for (let cycle = bits.ue(); cycle > 0; cycle--) bits.se();
    }
    bits.ue(); // max_num_ref_frames
    bits.skip(1); // gaps_in_frame_num_value_allowed_flag
    const widthInMbs = bits.ue() + 1;
    const heightInMapUnits = bits.ue() + 1;
    const frameMbsOnly = bits.bit();
    if (!frameMbsOnly) bits.skip(1);
    bits.skip(1); // direct_8x8_inference_flag
    const crop = bits.bit() ? [bits.ue(), bits.ue(), bits.ue(), bits.ue()] : [0, 0, 0, 0];
    const arrayType = separateColourPlane ? 0 : chroma;
    const cropX = arrayType === 0 ? 1 : arrayType === 3 ? 1 : 2;
    const cropY = (arrayType === 0 || arrayType !== 1 ? 1 : 2) * (2 - frameMbsOnly);
    const header: VideoHeader = {
      width: widthInMbs * 16 - cropX * ((crop[0] as number) + (crop[1] as number)),
      height: (2 - frameMbsOnly) * heightInMapUnits * 16 - cropY * ((crop[2] as number) + (crop[3] as number)),
    };
    if (bits.bit()) Object.assign(header, readVui(bits, false));
    return header.width > 0 && header.height > 0 ? header : undefined;
  } catch {
    return undefined;
  }
}

/** profile_tier_level(1, maxSubLayersMinus1) of H.265 7.3.3: skipped. */
function skipProfileTierLevel(bits: Bits, maxSubLayersMinus1: number): void {
  bits.skip(96);
  const present: [number, number][] = [];
  for (let i = 0; i < maxSubLayersMinus1; i++) present.push([bits.bit(), bits.bit()]);
  if (maxSubLayersMinus1 > 0) bits.skip(2 * (8 - maxSubLayersMinus1));
  for (const [profile, level] of present) bits.skip(profile * 88 + level * 8);
}

/** st_ref_pic_set(index) of H.265 7.3.7, in an SPS; returns its NumDeltaPocs. */
function skipShortTermRefPicSet(bits: Bits, index: number, deltaPocs: number[]): number {
  if (index > 0 && bits.bit()) {
    bits.skip(1); // delta_rps_sign
    bits.ue(); // abs_delta_rps_minus1
    let count = 0;
    for (let j = 0; j <= (deltaPocs[index - 1] as number); j++) if (bits.bit() || bits.bit()) count++;
    return count;
  }
  const negative = bits.ue();
  const positive = bits.ue();
  for (let i = 0; i < negative + positive; i++) {
    bits.ue(); // delta_poc_s0/s1_minus1
    bits.skip(1); // used_by_curr_pic_s0/s1_flag
  }
  return negative + positive;
}

/** An H.265 sequence parameter set (the NAL unit, its two header bytes included). */
export function readHevcSps(nal: Uint8Array): VideoHeader | undefined {
  try {
    const bits = new Bits(rbspOf(nal.subarray(2)));
    bits.skip(4); // sps_video_parameter_set_id
    const maxSubLayersMinus1 = bits.bits(3);
    bits.skip(1);
    skipProfileTierLevel(bits, maxSubLayersMinus1);
    bits.ue(); // sps_seq_parameter_set_id
    const chroma = bits.ue();
    if (chroma === 3) bits.skip(1); // separate_colour_plane_flag
    let width = bits.ue();
    let height = bits.ue();
    if (bits.bit()) {
      const [subWidth, subHeight] = chroma === 1 ? [2, 2] : chroma === 2 ? [2, 1] : [1, 1];
      width -= subWidth * (bits.ue() + bits.ue());
      height -= subHeight * (bits.ue() + bits.ue());
    }
    bits.ue(); // bit_depth_luma_minus8
    bits.ue(); // bit_depth_chroma_minus8
    const pocLsbBits = bits.ue() + 4;
    // sps_max_dec_pic_buffering_minus1, sps_max_num_reorder_pics, sps_max_latency_increase_plus1 per sub-layer.
    for (let i = bits.bit() ? 0 : maxSubLayersMinus1; i <= maxSubLayersMinus1; i++)
      for (let field = 0; field < 3; field++) bits.ue();
    for (let i = 0; i < 6; i++) bits.ue(); // coding and transform block sizes, transform hierarchy depths
    if (bits.bit() && bits.bit()) {
      for (let size = 0; size < 4; size++) {
        for (let matrix = 0; matrix < 6; matrix += size === 3 ? 3 : 1) {
          if (!bits.bit()) bits.ue();
          else {
            if (size > 1) bits.se();
            for (let i = Math.min(64, 1 << (4 + (size << 1))); i > 0; i--) bits.se();
          }
        }
      }
    }
    bits.skip(2); // amp_enabled_flag, sample_adaptive_offset_enabled_flag
    if (bits.bit()) {
      bits.skip(8); // pcm sample bit depths
      bits.ue(); // log2_min_pcm_luma_coding_block_size_minus3
      bits.ue(); // log2_diff_max_min_pcm_luma_coding_block_size
      bits.skip(1); // pcm_loop_filter_disabled_flag
    }
    const deltaPocs: number[] = [];
    for (let i = 0, sets = bits.ue(); i < sets; i++) deltaPocs.push(skipShortTermRefPicSet(bits, i, deltaPocs));
    if (bits.bit()) for (let i = bits.ue(); i > 0; i--) bits.skip(pocLsbBits + 1);
    bits.skip(2); // sps_temporal_mvp_enabled_flag, strong_intra_smoothing_enabled_flag
    const header: VideoHeader = { width, height };
    if (bits.bit()) {
      const { fields, ...vui } = readVui(bits, true);
      Object.assign(header, vui, fields ? { fields } : {});
    }
    return width > 0 && height > 0 ? header : undefined;
  } catch {
    return undefined;
  }
}

const MPEG2_FRAME_RATES = [0, 24000 / 1001, 24, 25, 30000 / 1001, 30, 50, 60000 / 1001, 60];

/** An MPEG-1/2 video sequence header (from its 00 00 01 B3), with the sequence extension that follows it in MPEG-2. */
export function readMpegVideoSequence(bytes: Uint8Array): VideoHeader | undefined {
  const at = findStartCode(bytes, 0xb3, 0);
  if (at < 0 || at + 12 > bytes.length) return undefined;
  let width = ((bytes[at + 4] as number) << 4) | ((bytes[at + 5] as number) >> 4);
  let height = (((bytes[at + 5] as number) & 0x0f) << 8) | (bytes[at + 6] as number);
  let frameRate = MPEG2_FRAME_RATES[(bytes[at + 7] as number) & 0x0f];
  if (!frameRate || width === 0 || height === 0) return undefined;
  // The extension comes after the header's quantiser matrices, before any other start code.
  const next = findStartCode(bytes, undefined, at + 12);
  if (next < 0 || bytes[next + 3] !== 0xb5 || (bytes[next + 4] as number) >> 4 !== 1)
    return { width, height, frameRate, mpeg1: true };
  const extension = bytes.subarray(next + 4, next + 10);
  if (extension.length < 6) return undefined;
  width |= ((((extension[1] as number) & 0x01) << 1) | ((extension[2] as number) >> 7)) << 12;
  height |= (((extension[2] as number) >> 5) & 0x03) << 12;
  frameRate *= ((((extension[5] as number) >> 5) & 0x03) + 1) / (((extension[5] as number) & 0x1f) + 1);
  return { width, height, frameRate };
}

/** Where the next 00 00 01 (followed by `code`, when given) starts, or -1. */
function findStartCode(bytes: Uint8Array, code: number | undefined, from: number): number {
  for (let i = from; i + 3 < bytes.length; i++) {
    if (bytes[i] === 0 && bytes[i + 1] === 0 && bytes[i + 2] === 1 && (code === undefined || bytes[i + 3] === code))
      return i;
  }
  return -1;
}

export type VideoCodec = 'h264' | 'hevc' | 'mpeg2video';

/** The sequence header of a video stream in the given bytes (the first SPS for H.264 and H.265). */
export function readVideoHeader(codec: VideoCodec, bytes: Uint8Array): VideoHeader | undefined {
  if (codec === 'mpeg2video') return readMpegVideoSequence(bytes);
  const sps = nalUnits(bytes).find((nal) =>
    codec === 'h264' ? ((nal[0] ?? 0) & 0x1f) === 7 : (nal[0] ?? 0) >> 1 === 33,
  );
  return sps && (codec === 'h264' ? readH264Sps(sps) : readHevcSps(sps));
}

/** ATSC A/53 cc_data (after 'GA94' and type 3): true when it carries a valid CEA-608 or CEA-708 byte pair. */
function ccDataHasCaptions(data: Uint8Array): boolean {
  const flags = data[0] ?? 0;
  if (!(flags & 0x40)) return false; // process_cc_data_flag
  for (let i = 0; i < (flags & 0x1f); i++) if (((data[2 + i * 3] ?? 0) & 0x04) !== 0) return true; // cc_valid
  return false;
}

const GA94 = [0x47, 0x41, 0x39, 0x34, 0x03];
const startsWith = (bytes: Uint8Array, at: number, prefix: readonly number[]) =>
  prefix.every((byte, i) => bytes[at + i] === byte);

/** A registered user data SEI payload (ITU-T T.35) carrying A/53 captions: United States, ATSC, 'GA94'. */
function seiHasCaptions(rbsp: Uint8Array, headerBytes: number): boolean {
  for (let at = headerBytes; at < rbsp.length && rbsp[at] !== 0x80; ) {
    let type = 0;
    let size = 0;
    for (; rbsp[at] === 0xff; at++) type += 255;
    type += rbsp[at++] ?? 0;
    for (; rbsp[at] === 0xff; at++) size += 255;
    size += rbsp[at++] ?? 0;
    const payload = rbsp.subarray(at, at + size);
    if (type === 4 && startsWith(payload, 0, [0xb5, 0x00, 0x31, ...GA94]) && ccDataHasCaptions(payload.subarray(8)))
      return true;
    at += size;
  }
  return false;
}

/** The video carries CEA-608/708 captions (A/53 cc_data with a valid pair) in these bytes. */
export function hasCaptions(codec: VideoCodec, bytes: Uint8Array): boolean {
  if (codec === 'mpeg2video') {
    // MPEG-2: user_data (00 00 01 B2) 'GA94' 03 cc_data.
    for (let at = findStartCode(bytes, 0xb2, 0); at >= 0; at = findStartCode(bytes, 0xb2, at + 4)) {
      if (startsWith(bytes, at + 4, GA94) && ccDataHasCaptions(bytes.subarray(at + 9))) return true;
    }
    return false;
  }
  return nalUnits(bytes).some((nal) => {
    if (codec === 'h264') return ((nal[0] ?? 0) & 0x1f) === 6 && seiHasCaptions(rbspOf(nal), 1);
    return (nal[0] ?? 0) >> 1 === 39 && seiHasCaptions(rbspOf(nal), 2);
  });
}
