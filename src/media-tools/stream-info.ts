/**
 * What HLS needs to know of a file before it plays it: the first video and audio
 * streams' codecs, profile, level and size, and the duration. Read from the same
 * ffprobe JSON as media-probe.ts (its argument list), by a pure function.
 */
import { type ProgramRunner, lastLine, spawnRunner } from '../common/external-program.js';
import { ffprobeArgs } from './media-probe.js';

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

export interface StreamInfo {
  /** Seconds; null when ffprobe cannot tell (a stream still being written). */
  duration: number | null;
  video?: VideoStreamInfo;
  audio?: AudioStreamInfo;
}

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  profile?: string;
  level?: number;
  width?: number;
  height?: number;
  channels?: number;
  disposition?: { attached_pic?: number };
}

/** Reads ffprobe's JSON; throws when it holds neither video nor audio. */
export function readStreamInfo(json: string): StreamInfo {
  const output = JSON.parse(json) as { format?: { duration?: string }; streams?: FfprobeStream[] };
  const streams = Array.isArray(output.streams) ? output.streams : [];
  // Cover art is a video stream too (one still frame): never the picture to play.
  const video = streams.find((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1 && s.codec_name !== 'mjpeg' && s.codec_name !== 'png');
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
  return info;
}

export type StreamInfoOutcome = { ok: true; info: StreamInfo } | { ok: false; reason: string };

export async function probeStreams(path: string, ffprobe = 'ffprobe', runner: ProgramRunner = spawnRunner): Promise<StreamInfoOutcome> {
  const outcome = await runner.run(ffprobe, ffprobeArgs(path), { timeoutMs: 20_000, maxStdoutBytes: 16 * 1024 * 1024 });
  if (outcome.kind !== 'ok') return { ok: false, reason: `ffprobe could not read it: ${lastLine(outcome.stderrTail) || outcome.reason}` };
  try {
    return { ok: true, info: readStreamInfo(outcome.stdout) };
  } catch (error) {
    return { ok: false, reason: `ffprobe could not read it: ${(error as Error).message}` };
  }
}
