/**
 * MediaInfo's tracks (picked by media-read.child.js) as MediaDetails. MediaInfo reads
 * what mp4box and ts-ebml do not (AVI, odd MP4 and Matroska files). Undefined when it
 * cannot vouch for the file, which then goes to ffprobe:
 * - it reads the file as truncated, or finds no duration or no audio or video stream;
 * - MPEG-TS: the TS reader (mpeg-ts.parser.ts) reads those; MediaInfo sees only what it
 *   could not (BDAV's 192-byte packets, a TS whose packets it cannot find). Measured
 *   against ffprobe, MediaInfo's reading of a TS gives no AVC frame rate, no frame size
 *   for a recording that starts mid-stream and a duration 0.1 s off there, and it cannot
 *   be told to read less (it reads about half the file); ffprobe reads them. But
 *   MediaInfo looks into the first frames for CEA-608/708 captions, which Debian's
 *   ffprobe 5.1 reports only when asked to decode every frame (-count_frames):
 *   `seesCaptions` lends ffprobe's reading that, as tsSeesCaptions does for the TS reader;
 * - chapters (a Menu track, in a form not mapped here);
 * - a codec it names in a way not mapped to ffprobe's names.
 * Its languages are ISO 639-1 ("en") where the others give ISO 639-2 ("eng"): kept as given.
 */
import {
  type AudioDetails,
  type HeaderReading,
  type MediaDetails,
  type SubtitleDetails,
  type VideoDetails,
  languageOf,
  nonNegativeNumber,
  positiveNumber,
  roundTo,
} from './media-details.js';

/** A track as media-read.child.js sends it: MediaInfo's own field names. */
export type MediaInfoTrack = Record<string, unknown> & { '@type'?: string };

const VIDEO: Record<string, string> = {
  AVC: 'h264',
  HEVC: 'hevc',
  AV1: 'av1',
  VP9: 'vp9',
  VP8: 'vp8',
  'MPEG-4 Visual': 'mpeg4',
};
const AUDIO: Record<string, string> = {
  AAC: 'aac',
  'AC-3': 'ac3',
  'E-AC-3': 'eac3',
  Opus: 'opus',
  Vorbis: 'vorbis',
  FLAC: 'flac',
  DTS: 'dts',
  'MLP FBA': 'truehd',
};
const TEXT: Record<string, string> = {
  'UTF-8': 'subrip',
  ASS: 'ass',
  SSA: 'ass',
  PGS: 'hdmv_pgs_subtitle',
  VobSub: 'dvd_subtitle',
  'Timed Text': 'mov_text',
  WebVTT: 'webvtt',
  'DVB Subtitle': 'dvb_subtitle',
};
const CAPTIONS = /^EIA-(608|708)$/;

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function audioCodec(track: MediaInfoTrack): string | undefined {
  // MediaInfo's short output often leaves out the layer: Layer 3 is by far the most common (AVI's codec id 0x55), Layer
  // 2 is 0x50.
  if (track.Format === 'MPEG Audio')
    return track.Format_Profile === 'Layer 2' || track.CodecID === '50'
      ? 'mp2'
      : track.Format_Profile === 'Layer 1'
        ? undefined
        : 'mp3';
  return AUDIO[text(track.Format)];
}

/** ffprobe's container names (its format names) for MediaInfo's. */
const CONTAINERS: Record<string, string> = {
  Matroska: 'matroska',
  WebM: 'webm',
  AVI: 'avi',
  'MPEG-TS': 'mpegts',
  'MPEG-PS': 'mpeg',
  'Flash Video': 'flv',
  'Windows Media': 'asf',
  Ogg: 'ogg',
};

function containerOf(general: MediaInfoTrack): string {
  const format = text(general.Format);
  if (format === 'MPEG-4') return general.Format_Profile === 'QuickTime' ? 'mov' : 'mp4';
  return CONTAINERS[format] ?? format.toLowerCase();
}

function videoCodec(track: MediaInfoTrack): string | undefined {
  if (track.Format === 'MPEG Video') return track.Format_Version === 'Version 1' ? 'mpeg1video' : 'mpeg2video';
  return VIDEO[text(track.Format)];
}

function videoOf(track: MediaInfoTrack, codec: string): VideoDetails {
  const video: VideoDetails = {
    codec,
    width: positiveNumber(track.Width) ?? 0,
    height: positiveNumber(track.Height) ?? 0,
  };
  const frameRate = positiveNumber(track.FrameRate);
  if (frameRate !== undefined) video.frameRate = roundTo(frameRate, 3);
  const hdrFormat = text(track.HDR_Format);
  const transfer = text(track.transfer_characteristics);
  if (hdrFormat.includes('Dolby Vision')) video.hdr = 'Dolby Vision';
  else if (transfer === 'PQ' || /SMPTE ST 2086|SMPTE ST 2094/.test(hdrFormat)) video.hdr = 'HDR10';
  else if (transfer === 'HLG') video.hdr = 'HLG';
  return video;
}

/** True when MediaInfo says the file holds less than its container declares (a copy cut short). */
export function mediaInfoCutShort(tracks: readonly MediaInfoTrack[]): boolean {
  const general = tracks.find((track) => track['@type'] === 'General');
  return ((general?.extra ?? {}) as Record<string, unknown>).IsTruncated === 'Yes';
}

/** What MediaInfo found, as ffprobe's reading would say it; undefined when ffprobe should read the file instead. */
export function readMediaInfo(tracks: readonly MediaInfoTrack[]): HeaderReading | undefined {
  const general = tracks.find((track) => track['@type'] === 'General');
  if (!general) return undefined;
  const extra = (general.extra ?? {}) as Record<string, unknown>;
  if (extra.IsTruncated === 'Yes' || general.Format === 'MPEG-TS' || general.Format === 'BDAV') return undefined;
  if (tracks.some((track) => track['@type'] === 'Menu')) return undefined;
  const details: MediaDetails = { container: containerOf(general), audio: [], subtitles: [], closedCaptions: false };
  let firstVideo: MediaInfoTrack | undefined;
  for (const track of tracks) {
    const type = track['@type'];
    const language = languageOf(track.Language);
    if (type === 'Video' && track.Format !== 'JPEG' && track.Format !== 'PNG') {
      const codec = videoCodec(track);
      if (!codec) return undefined;
      if (!details.video) {
        details.video = videoOf(track, codec);
        firstVideo = track;
      }
    } else if (type === 'Audio') {
      const codec = audioCodec(track);
      if (!codec) return undefined;
      details.audio.push({
        codec,
        ...(positiveNumber(track.Channels) ? { channels: positiveNumber(track.Channels) } : {}),
        ...(language ? { language } : {}),
      } as AudioDetails);
    } else if (type === 'Text' && CAPTIONS.test(text(track.Format))) {
      details.closedCaptions = true;
    } else if (type === 'Text') {
      const codec = TEXT[text(track.Format)];
      if (!codec) return undefined;
      details.subtitles.push({
        codec,
        forced: track.Forced === 'Yes',
        ...(language ? { language } : {}),
      } as SubtitleDetails);
    }
  }
  if (!details.video && details.audio.length === 0) return undefined;
  const audioTrack = tracks.find((track) => track['@type'] === 'Audio');
  const seconds =
    nonNegativeNumber(general.Duration) ??
    nonNegativeNumber(firstVideo?.Duration) ??
    nonNegativeNumber(audioTrack?.Duration);
  if (seconds === undefined) return undefined;
  return { duration: roundTo(seconds, 3), details, chapters: [] };
}

/** MediaInfo found closed captions (CEA-608/708) in the video. */
export function seesCaptions(tracks: readonly MediaInfoTrack[]): boolean {
  return tracks.some((track) => track['@type'] === 'Text' && CAPTIONS.test(text(track.Format)));
}
