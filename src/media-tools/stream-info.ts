/**
 * What HLS needs to know of a file before it plays it: the first video and audio
 * streams' codecs, profile, level and size, the duration, and the text subtitle
 * streams (offered as WebVTT renditions). Read from the same ffprobe JSON as
 * media-probe.ts (its argument list), by a pure function.
 */
import { type ProgramRunner, lastLine, spawnRunner } from '../common/external-program.js';
import { type OpenedInput, ffprobeArgs, refusalReason } from './media-probe.js';

export interface VideoStreamInfo {
  codec: string;
  /** ffprobe's profile name ("High", "Main 10"), when it gives one. */
  profile?: string;
  /** ffprobe's level number (H.264: 41 for 4.1; HEVC: 30 × the level). */
  level?: number;
  width: number;
  height: number;
}

export interface AudioStreamInfo {
  codec: string;
  profile?: string;
  channels?: number;
}

/** A subtitle stream made of text, which ffmpeg can turn into WebVTT. */
export interface SubtitleStreamInfo {
  /** Its place among all the file's subtitle streams (bitmap ones too): ffmpeg's `-map 0:s:<index>`. */
  index: number;
  /** ffprobe's codec name: subrip, ass, webvtt, mov_text... */
  codec: string;
  /** The language tag as the container gives it (usually ISO 639-2: "eng"); absent when unknown ("und"). */
  language?: string;
  title?: string;
  default: boolean;
  forced: boolean;
}

export interface StreamInfo {
  /** Seconds; null when ffprobe cannot tell (a stream still being written). */
  duration: number | null;
  video?: VideoStreamInfo;
  audio?: AudioStreamInfo;
  /** The text subtitle streams, in file order; absent when there are none. */
  subtitles?: SubtitleStreamInfo[];
}

/**
 * Subtitle codecs that are text. Bitmap ones (hdmv_pgs_subtitle, dvd_subtitle,
 * dvb_subtitle) are pictures: WebVTT cannot carry them without OCR.
 */
export const TEXT_SUBTITLE_CODECS: ReadonlySet<string> = new Set(['subrip', 'srt', 'ass', 'ssa', 'webvtt', 'mov_text']);

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  profile?: string;
  level?: number;
  width?: number;
  height?: number;
  channels?: number;
  disposition?: { attached_pic?: number; default?: number; forced?: number };
  tags?: Record<string, unknown>;
}

/** A language tag such as "eng", "fr" or "pt-BR"; "und" (undetermined) and anything else are dropped. */
const LANGUAGE_TAG = /^[a-z]{2,3}(-[a-z0-9]{1,8})*$/i;

function tagText(tags: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = tags?.[name] ?? tags?.[name.toUpperCase()];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** The text subtitle streams, each with its index among all subtitle streams (which `-map 0:s:N` counts). */
export function readSubtitleStreams(streams: readonly FfprobeStream[]): SubtitleStreamInfo[] {
  const subtitles: SubtitleStreamInfo[] = [];
  streams
    .filter((stream) => stream.codec_type === 'subtitle')
    .forEach((stream, index) => {
      if (!stream.codec_name || !TEXT_SUBTITLE_CODECS.has(stream.codec_name)) return;
      const subtitle: SubtitleStreamInfo = {
        index,
        codec: stream.codec_name,
        default: stream.disposition?.default === 1,
        forced: stream.disposition?.forced === 1,
      };
      const language = tagText(stream.tags, 'language');
      if (language && LANGUAGE_TAG.test(language) && language.toLowerCase() !== 'und') subtitle.language = language;
      const title = tagText(stream.tags, 'title');
      if (title) subtitle.title = title;
      subtitles.push(subtitle);
    });
  return subtitles;
}

/** Reads ffprobe's JSON; throws when it holds neither video nor audio. */
export function readStreamInfo(json: string): StreamInfo {
  const output = JSON.parse(json) as { format?: { duration?: string }; streams?: FfprobeStream[] };
  const streams = Array.isArray(output.streams) ? output.streams : [];
  // Cover art is a video stream too (one still frame): never the picture to play.
  const video = streams.find(
    (s) =>
      s.codec_type === 'video' &&
      s.disposition?.attached_pic !== 1 &&
      s.codec_name !== 'mjpeg' &&
      s.codec_name !== 'png',
  );
  const audio = streams.find((s) => s.codec_type === 'audio');
  if (!video && !audio) throw new Error('no audio or video stream');
  const duration = Number(output.format?.duration);
  const info: StreamInfo = { duration: Number.isFinite(duration) && duration > 0 ? duration : null };
  if (video?.codec_name) {
    info.video = { codec: video.codec_name, width: video.width ?? 0, height: video.height ?? 0 };
    if (video.profile) info.video.profile = video.profile;
    if (typeof video.level === 'number' && video.level > 0) info.video.level = video.level;
  }
  if (audio?.codec_name) {
    info.audio = { codec: audio.codec_name };
    if (audio.profile) info.audio.profile = audio.profile;
    if (typeof audio.channels === 'number') info.audio.channels = audio.channels;
  }
  const subtitles = readSubtitleStreams(streams);
  if (subtitles.length > 0) info.subtitles = subtitles;
  return info;
}

export type StreamInfoOutcome = { ok: true; info: StreamInfo } | { ok: false; reason: string };

export async function probeStreams(
  input: OpenedInput,
  ffprobe = 'ffprobe',
  runner: ProgramRunner = spawnRunner,
): Promise<StreamInfoOutcome> {
  const outcome = await runner.run(ffprobe, ffprobeArgs(), {
    timeoutMs: 20_000,
    maxStdoutBytes: 16 * 1024 * 1024,
    inputFd: input.fd,
  });
  if (outcome.kind === 'failed') return { ok: false, reason: refusalReason(outcome.stderrTail, outcome.reason) };
  if (outcome.kind !== 'ok')
    return { ok: false, reason: `ffprobe could not read it: ${lastLine(outcome.stderrTail) || outcome.reason}` };
  try {
    return { ok: true, info: readStreamInfo(outcome.stdout) };
  } catch (error) {
    return { ok: false, reason: `ffprobe could not read it: ${(error as Error).message}` };
  }
}
