/**
 * Which renditions a master playlist offers: the file as it is (remux: the streams
 * copied into MPEG-TS segments) when HLS players can take its codecs, and H.264 + AAC
 * transcodes at a few sizes, never larger than the source. Pure.
 */
import type { StreamInfo, VideoStreamInfo } from '../media-tools/stream-info.js';

export interface Variant {
  /** In URLs: 'remux', or the transcode's height ('720p'). */
  name: string;
  kind: 'remux' | 'transcode';
  /** Bits per second, for BANDWIDTH. */
  bandwidth: number;
  /** Transcodes: the output height (width follows the aspect ratio). */
  height?: number;
  /** Transcodes: video bitrate, kbit/s. */
  videoKbps?: number;
  width?: number;
  /** The RFC 6381 codecs string, when known. */
  codecs?: string;
}

export interface VariantRequest {
  /** 'remux': only the remux rendition. */
  encoder?: string | undefined;
  /** Highest total bitrate offered, kbit/s. */
  bitrate?: number | undefined;
  /** Tallest picture offered, pixels. */
  maxHeight?: number | undefined;
}

/** The transcode ladder, tallest first. */
export const TRANSCODE_LADDER = [
  { height: 1080, videoKbps: 6000 },
  { height: 720, videoKbps: 3000 },
  { height: 480, videoKbps: 1200 },
  { height: 360, videoKbps: 700 },
] as const;

const AUDIO_KBPS = 128;
export const TRANSCODE_AUDIO_CODEC = 'mp4a.40.2';

const H264_PROFILES: Record<string, string> = {
  'Constrained Baseline': '42E0',
  Baseline: '4200',
  Main: '4D40',
  Extended: '5800',
  High: '6400',
  'High 10': '6E00',
  'High 4:2:2': '7A00',
  'High 4:4:4 Predictive': 'F400',
};

const hex2 = (n: number) => n.toString(16).toUpperCase().padStart(2, '0');

/** The RFC 6381 string of a video stream HLS can carry as it is; undefined for any other. */
export function videoCodecString(video: VideoStreamInfo): string | undefined {
  if (video.codec === 'h264') {
    const profile = H264_PROFILES[video.profile ?? 'High'] ?? '6400';
    return `avc1.${profile}${hex2(video.level ?? 40)}`;
  }
  if (video.codec === 'hevc') {
    const main10 = video.profile === 'Main 10';
    return `hvc1.${main10 ? '2.4' : '1.6'}.L${video.level ?? 120}.B0`;
  }
  return undefined;
}

/** The RFC 6381 string of an audio stream HLS can carry as it is; undefined for any other. */
export function audioCodecString(codec: string, profile?: string): string | undefined {
  switch (codec) {
    case 'aac':
      return profile === 'HE-AAC' || profile === 'HE-AACv2' ? 'mp4a.40.5' : 'mp4a.40.2';
    case 'mp3':
      return 'mp4a.40.34';
    case 'ac3':
      return 'ac-3';
    case 'eac3':
      return 'ec-3';
    default:
      return undefined;
  }
}

/** The remux rendition's codecs string, or undefined when a stream must be transcoded. */
export function remuxCodecs(info: StreamInfo): string | undefined {
  const parts: string[] = [];
  if (info.video) {
    const video = videoCodecString(info.video);
    if (!video) return undefined;
    parts.push(video);
  }
  if (info.audio) {
    const audio = audioCodecString(info.audio.codec, info.audio.profile);
    if (!audio) return undefined;
    parts.push(audio);
  }
  return parts.length > 0 ? parts.join(',') : undefined;
}

/** H.264 High at a level that covers the height (4.0 up to 1080p), with AAC LC. */
function transcodeCodecs(height: number): string {
  return `avc1.6400${hex2(height > 1080 ? 51 : height > 720 ? 40 : 31)},${TRANSCODE_AUDIO_CODEC}`;
}

const evenWidth = (video: VideoStreamInfo | undefined, height: number) =>
  video && video.height > 0 ? Math.max(2, Math.round((video.width * height) / video.height / 2) * 2) : undefined;

/**
 * The variants for a file or channel with these streams. `info.video` absent means
 * audio only: one AAC transcode. A remux variant's bandwidth is a guess (the file's
 * own rate is not known here): players treat it as the top rendition.
 */
export function chooseVariants(info: StreamInfo, request: VariantRequest = {}): Variant[] {
  const variants: Variant[] = [];
  const remux = remuxCodecs(info);
  if (remux) {
    const height = info.video?.height ?? 0;
    const variant: Variant = {
      name: 'remux',
      kind: 'remux',
      bandwidth: height >= 720 ? 8_000_000 : 3_000_000,
      codecs: remux,
    };
    if (info.video && info.video.height > 0)
      Object.assign(variant, { width: info.video.width, height: info.video.height });
    variants.push(variant);
  }
  if (request.encoder === 'remux') return variants;
  const cap = request.bitrate;
  if (!info.video) {
    variants.push({ name: 'audio', kind: 'transcode', bandwidth: AUDIO_KBPS * 1000, codecs: TRANSCODE_AUDIO_CODEC });
    return variants;
  }
  const sourceHeight = info.video.height > 0 ? info.video.height : 720;
  const tallest = Math.min(sourceHeight, request.maxHeight ?? Number.POSITIVE_INFINITY);
  let rungs: { height: number; videoKbps: number }[] = TRANSCODE_LADDER.filter(
    (rung) => rung.height <= tallest && (cap === undefined || rung.videoKbps + AUDIO_KBPS <= cap),
  );
  if (rungs.length === 0) {
    // A small source, or a tight cap: one rendition at the source's height (or the cap's), at what the cap allows.
    const height = Math.min(sourceHeight, request.maxHeight ?? sourceHeight, 360) & ~1;
    rungs = [{ height: Math.max(height, 144), videoKbps: Math.max(200, Math.min(700, (cap ?? 900) - AUDIO_KBPS)) }];
  }
  for (const rung of rungs) {
    const variant: Variant = {
      name: `${rung.height}p`,
      kind: 'transcode',
      height: rung.height,
      videoKbps: rung.videoKbps,
      bandwidth: (rung.videoKbps + AUDIO_KBPS) * 1000,
      codecs: transcodeCodecs(rung.height),
    };
    const width = evenWidth(info.video, rung.height);
    if (width !== undefined) variant.width = width;
    variants.push(variant);
  }
  if (request.maxHeight !== undefined || cap !== undefined) {
    return variants.filter(
      (v) =>
        v.kind === 'transcode' ||
        ((request.maxHeight === undefined || (v.height ?? 0) <= request.maxHeight) &&
          (cap === undefined || v.bandwidth <= cap * 1000)),
    );
  }
  return variants;
}
