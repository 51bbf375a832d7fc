/**
 * An MP4/MOV file's index (mp4box.js's reading, picked by media-read.child.js) as
 * MediaDetails. Undefined when it cannot vouch for the file: a box that runs past the end
 * (a copy cut short), chapters (ffprobe reads them), a codec it does not know; the next
 * reader then tries.
 */
import {
  type AudioDetails,
  type HeaderReading,
  type MediaDetails,
  type SubtitleDetails,
  type VideoDetails,
  hdrOf,
  languageOf,
  positiveNumber,
  roundTo,
} from './media-details.js';

export interface Mp4Track {
  id?: number;
  type?: string;
  /** The handler type: vide, soun, sbtl, text, subt, clcp... */
  handler?: string;
  /** The RFC 6381 codec string: avc1.64001f, mp4a.40.2, ec-3... */
  codec?: string;
  language?: string;
  duration?: number;
  timescale?: number;
  samples?: number;
  width?: number;
  height?: number;
  /** The sample entry's channel count: 2 in any MP4 whatever the stream holds; the configurations below say. */
  channels?: number;
  /** An AC-3 (dac3) or E-AC-3 (dec3, its first independent substream) configuration. */
  ac3?: { acmod?: number; lfeon?: number; dependent?: number };
  /** An Opus configuration's output channel count (dOps). */
  opusChannels?: number;
  /** An AAC AudioSpecificConfig, in hex (esds). */
  aacConfig?: string;
  transfer?: number;
  dolbyVision?: boolean;
}

export interface Mp4Summary {
  size: number;
  brands?: string[];
  duration?: number;
  timescale?: number;
  boxes?: { type?: string; start?: number; size?: number }[];
  chapters?: boolean;
  tracks?: Mp4Track[];
}

const VIDEO_CODECS: Record<string, string> = {
  avc1: 'h264',
  avc3: 'h264',
  hvc1: 'hevc',
  hev1: 'hevc',
  dvh1: 'hevc',
  dvhe: 'hevc',
  dva1: 'h264',
  dvav: 'h264',
  av01: 'av1',
  vp09: 'vp9',
  vp08: 'vp8',
};
const DOLBY_VISION_ENTRIES = new Set(['dvh1', 'dvhe', 'dva1', 'dvav']);
const AUDIO_CODECS: Record<string, string> = {
  'ac-3': 'ac3',
  'ec-3': 'eac3',
  opus: 'opus',
  flac: 'flac',
  alac: 'alac',
};
const SUBTITLE_CODECS: Record<string, string> = { tx3g: 'mov_text', wvtt: 'webvtt' };

/** ffprobe's codec name for an RFC 6381 codec string, by the sample entry and, for MPEG-4 ones, the object type. */
export function mp4CodecName(codec: string): string | undefined {
  const [entry = '', objectType = ''] = codec.split('.');
  const key = entry.toLowerCase();
  if (key === 'mp4a')
    return objectType === '40'
      ? 'aac'
      : objectType === '69' || objectType === '6b' || objectType === '6B'
        ? 'mp3'
        : undefined;
  if (key === 'mp4v') return objectType === '20' ? 'mpeg4' : /^6[0-5]$/.test(objectType) ? 'mpeg2video' : undefined;
  return VIDEO_CODECS[key] ?? AUDIO_CODECS[key] ?? SUBTITLE_CODECS[key];
}

/**
 * Channels by AAC channel configuration (ISO/IEC 14496-3, 1.6.3.5); 0 means a program config element says, which is not
 * read here.
 */
const AAC_CHANNELS: Record<number, number> = { 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 8, 11: 7, 12: 8, 14: 8 };
/** Full-bandwidth channels by AC-3 audio coding mode (acmod), before the LFE. */
const AC3_CHANNELS = [2, 1, 2, 3, 3, 4, 4, 5];

/**
 * The channel configuration of an AAC AudioSpecificConfig (hex): after the object type (5 bits, or 11) and the sampling
 * frequency index (4 bits, or 28).
 */
export function aacChannels(hex: string): number | undefined {
  if (!/^([0-9a-f]{2})+$/i.test(hex)) return undefined;
  const bits = [...Buffer.from(hex, 'hex')].map((byte) => byte.toString(2).padStart(8, '0')).join('');
  let at = 5;
  if (parseInt(bits.slice(0, 5), 2) === 31) at += 6;
  const frequencyIndex = parseInt(bits.slice(at, at + 4), 2);
  at += frequencyIndex === 15 ? 28 : 4;
  const field = bits.slice(at, at + 4);
  return field.length === 4 ? AAC_CHANNELS[parseInt(field, 2)] : undefined;
}

/**
 * How many channels an MP4 audio track holds; undefined when its configuration does not say (the next reader then
 * tries).
 */
export function mp4AudioChannels(track: Mp4Track, codec: string): number | undefined {
  // HE-AAC (object type 5, or 29 for v2) may be parametric stereo, two channels made of one: MediaInfo (and ffprobe)
  // decode far enough to say.
  if (codec === 'aac') {
    const channels = aacChannels(track.aacConfig ?? '');
    return channels === 1 && /^mp4a\.40\.(5|29)$/.test(track.codec ?? '') ? undefined : channels;
  }
  if (codec === 'ac3' || codec === 'eac3') {
    const { acmod, lfeon, dependent } = track.ac3 ?? {};
    const main = AC3_CHANNELS[acmod ?? -1];
    // Dependent substreams (7.1 and up) add channels their own way: left to MediaInfo.
    return main === undefined || (dependent ?? 0) > 0 ? undefined : main + (lfeon === 1 ? 1 : 0);
  }
  if (codec === 'opus') return positiveNumber(track.opusChannels);
  return positiveNumber(track.channels);
}

function seconds(duration: unknown, timescale: unknown): number | undefined {
  const value = positiveNumber(duration);
  const scale = positiveNumber(timescale);
  return value !== undefined && scale !== undefined ? positiveNumber(value / scale) : undefined;
}

function videoOf(track: Mp4Track, codec: string): VideoDetails {
  const video: VideoDetails = {
    codec,
    width: positiveNumber(track.width) ?? 0,
    height: positiveNumber(track.height) ?? 0,
  };
  const length = seconds(track.duration, track.timescale);
  const samples = positiveNumber(track.samples);
  const rate = length !== undefined && samples !== undefined ? positiveNumber(samples / length) : undefined;
  if (rate !== undefined) video.frameRate = roundTo(rate, 3);
  const entry = (track.codec ?? '').split('.')[0] ?? '';
  const hdr = hdrOf(track.transfer, track.dolbyVision === true || DOLBY_VISION_ENTRIES.has(entry));
  if (hdr) video.hdr = hdr;
  return video;
}

/** True when a top-level box claims bytes the file does not have (a copy that stopped, a file still being written). */
export function mp4CutShort(summary: Mp4Summary): boolean {
  return (summary.boxes ?? []).some((box) => (box.start ?? 0) + (box.size ?? 0) > summary.size);
}

export function readMp4Header(summary: Mp4Summary): HeaderReading | undefined {
  if (summary.chapters || mp4CutShort(summary)) return undefined;
  const details: MediaDetails = {
    container: summary.brands?.[0]?.trim() === 'qt' ? 'mov' : 'mp4',
    audio: [],
    subtitles: [],
    closedCaptions: false,
  };
  let longest = 0;
  for (const track of summary.tracks ?? []) {
    if (track.handler === 'clcp') {
      details.closedCaptions = true;
      continue;
    }
    const kind =
      track.handler === 'vide'
        ? 'video'
        : track.handler === 'soun'
          ? 'audio'
          : ['sbtl', 'text', 'subt'].includes(track.handler ?? '')
            ? 'subtitle'
            : undefined;
    if (!kind) continue;
    const codec = mp4CodecName(track.codec ?? '');
    if (!codec) return undefined;
    longest = Math.max(longest, seconds(track.duration, track.timescale) ?? 0);
    // mp4box spells the language code 0 (old QuickTime files) as three backticks; ffprobe reads it as English.
    const language = track.language === '```' ? 'eng' : languageOf(track.language);
    if (kind === 'video') details.video ??= videoOf(track, codec);
    else if (kind === 'audio') {
      const channels = mp4AudioChannels(track, codec);
      if (channels === undefined) return undefined;
      details.audio.push({ codec, channels, ...(language ? { language } : {}) } as AudioDetails);
    } else details.subtitles.push({ codec, forced: false, ...(language ? { language } : {}) } as SubtitleDetails);
  }
  if (!details.video && details.audio.length === 0) return undefined;
  const duration = seconds(summary.duration, summary.timescale) ?? (longest > 0 ? longest : undefined);
  if (duration === undefined) return undefined;
  return { duration: roundTo(duration, 3), details, chapters: [] };
}
