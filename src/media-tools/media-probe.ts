/**
 * ffprobe: what a media file holds (and ffmpeg: how long a damaged one plays, below). The argument list and the reading
 * of ffprobe's
 * JSON are pure functions (unit-tested); `probeFile` runs ffprobe through
 * common/external-program.ts and never throws: a file ffprobe cannot read is a result too.
 */
import { type ProgramRunner, lastLine, spawnRunner } from '../common/external-program.js';
import { INPUT_PATH, REFERENCE_FILE_REASON, mediaInputLimits, refusedAsReference } from './library-input.js';
import {
  type HdrFormat,
  type MediaDetails,
  type VideoDetails,
  languageOf,
  positiveNumber,
  roundTo,
  tagsOf,
} from './media-details.js';

export interface Chapter {
  start: number;
  end: number;
  title?: string;
}

export interface ProbeResult {
  /** Seconds, rounded to milliseconds. */
  duration: number | null;
  /** Interface A tags: SD/HD/4K, CC, Dolby Digital (Plus), 5.1. */
  tags: string[];
  chapters: Chapter[];
  /** Container, streams, languages (absent from results stored before they were kept). */
  details?: MediaDetails;
  /** Set when the file plays but is damaged (its data ends before its declared length): why, in words for the user. */
  damaged?: string;
}

/**
 * `transient`: ffprobe did not get to judge the file (not installed, out of file
 * handles, timed out, stopped): try again at the next scan rather than call it corrupted.
 */
export type ProbeOutcome = { ok: true; result: ProbeResult } | { ok: false; reason: string; transient: boolean };

const PROBE_TIMEOUT_MS = 60_000;
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/** ffprobe's arguments for `input` (INPUT_PATH for a library file: see library-input.ts). */
export function ffprobeArgs(input: string = INPUT_PATH): string[] {
  // `file:` keeps a name that starts with a dash or names a protocol ("http:…") a plain file.
  return [
    '-v',
    'error',
    ...mediaInputLimits(),
    '-print_format',
    'json',
    '-show_format',
    '-show_streams',
    '-show_chapters',
    `file:${input}`,
  ];
}

/** A file opened for a program: it reads it as its fd 3 (library-input.ts). */
export interface OpenedInput {
  fd: number;
}

/** Why ffprobe refused a file, in words for the user. */
export function refusalReason(stderrTail: string, fallback: string): string {
  return refusedAsReference(stderrTail)
    ? REFERENCE_FILE_REASON
    : `ffprobe could not read it: ${lastLine(stderrTail) || fallback}`;
}

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  channels?: number;
  closed_captions?: number;
  duration?: string;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  color_transfer?: string;
  side_data_list?: { side_data_type?: string }[];
  disposition?: { attached_pic?: number; forced?: number };
  tags?: { language?: string };
}

interface FfprobeOutput {
  format?: { duration?: string; format_name?: string; tags?: { major_brand?: string } };
  streams?: FfprobeStream[];
  chapters?: { start_time?: string; end_time?: string; tags?: { title?: string } }[];
}

function seconds(text: string | undefined): number | null {
  const value = Number(text);
  return text !== undefined && Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) / 1000 : null;
}

/** "30000/1001" or "25/1" as a number of frames per second. */
function frameRate(text: string | undefined): number | undefined {
  const [numerator, denominator] = (text ?? '').split('/').map(Number);
  return numerator && denominator ? positiveNumber(numerator / denominator) : undefined;
}

function containerOf(format: FfprobeOutput['format']): string {
  const names = (format?.format_name ?? '').split(',');
  if (names.includes('mp4') || names.includes('mov')) return format?.tags?.major_brand?.trim() === 'qt' ? 'mov' : 'mp4';
  if (names.includes('matroska')) return 'matroska';
  return names[0] || 'unknown';
}

function hdrOf(stream: FfprobeStream): HdrFormat | undefined {
  if ((stream.side_data_list ?? []).some((side) => side.side_data_type === 'DOVI configuration record'))
    return 'Dolby Vision';
  return stream.color_transfer === 'smpte2084' ? 'HDR10' : stream.color_transfer === 'arib-std-b67' ? 'HLG' : undefined;
}

/** The streams as MediaDetails (codec names and languages are ffprobe's own). */
function detailsOf(output: FfprobeOutput, streams: FfprobeStream[], video: FfprobeStream | undefined): MediaDetails {
  const details: MediaDetails = {
    container: containerOf(output.format),
    audio: [],
    subtitles: [],
    closedCaptions: false,
  };
  if (video) {
    const picture: VideoDetails = {
      codec: video.codec_name ?? 'unknown',
      width: positiveNumber(video.width) ?? 0,
      height: positiveNumber(video.height) ?? 0,
    };
    const rate = frameRate(video.avg_frame_rate) ?? frameRate(video.r_frame_rate);
    if (rate !== undefined) picture.frameRate = roundTo(rate, 3);
    const hdr = hdrOf(video);
    if (hdr) picture.hdr = hdr;
    details.video = picture;
  }
  details.closedCaptions = streams.some(
    (s) => (s.codec_type === 'video' && s.closed_captions === 1) || s.codec_name === 'eia_608',
  );
  for (const stream of streams) {
    const language = languageOf(stream.tags?.language);
    if (stream.codec_type === 'audio')
      details.audio.push({
        codec: stream.codec_name ?? 'unknown',
        ...(positiveNumber(stream.channels) ? { channels: stream.channels } : {}),
        ...(language ? { language } : {}),
      });
    else if (stream.codec_type === 'subtitle' && stream.codec_name !== 'eia_608') {
      details.subtitles.push({
        codec: stream.codec_name ?? 'unknown',
        forced: stream.disposition?.forced === 1,
        ...(language ? { language } : {}),
      });
    }
  }
  return details;
}

/** Reads ffprobe's JSON; throws when the text is not ffprobe output for a media file. */
export function readProbeOutput(json: string): ProbeResult {
  const output = JSON.parse(json) as FfprobeOutput;
  const streams = Array.isArray(output.streams) ? output.streams : [];
  const video = streams.find(
    (s) =>
      s.codec_type === 'video' &&
      s.disposition?.attached_pic !== 1 &&
      s.codec_name !== 'mjpeg' &&
      s.codec_name !== 'png',
  );
  const audio = streams.filter((s) => s.codec_type === 'audio');
  if (!video && audio.length === 0) throw new Error('no audio or video stream');
  const details = detailsOf(output, streams, video);
  const chapters = (Array.isArray(output.chapters) ? output.chapters : []).flatMap((c): Chapter[] => {
    const start = seconds(c.start_time);
    const end = seconds(c.end_time);
    if (start === null || end === null || end < start) return [];
    return [{ start, end, ...(c.tags?.title ? { title: c.tags.title } : {}) }];
  });
  const duration = seconds(output.format?.duration) ?? seconds(video?.duration) ?? seconds(audio[0]?.duration);
  return { duration, tags: tagsOf(details), chapters, details };
}

export async function probeFile(
  input: OpenedInput,
  ffprobe = 'ffprobe',
  signal?: AbortSignal,
  runner: ProgramRunner = spawnRunner,
): Promise<ProbeOutcome> {
  const outcome = await runner.run(ffprobe, ffprobeArgs(), {
    timeoutMs: PROBE_TIMEOUT_MS,
    maxStdoutBytes: MAX_OUTPUT_BYTES,
    signal,
    inputFd: input.fd,
  });
  const detail = lastLine(outcome.stderrTail);
  // Refused (an exit status): ffprobe read the file and it is not media. Anything else
  // (not started, timed out, stopped) is tried again at the next scan.
  if (outcome.kind === 'failed')
    return { ok: false, reason: refusalReason(outcome.stderrTail, outcome.reason), transient: false };
  if (outcome.kind === 'transient')
    return {
      ok: false,
      reason: `ffprobe did not finish (${detail || outcome.reason}); retried at the next scan`,
      transient: true,
    };
  try {
    return { ok: true, result: readProbeOutput(outcome.stdout) };
  } catch (parseError) {
    return { ok: false, reason: `ffprobe could not read it: ${(parseError as Error).message}`, transient: false };
  }
}

/*
 * How long a damaged file really plays: a copy cut short keeps the duration its
 * container declared (a Matroska Info or MP4 moov written before the data), which is
 * what ffprobe reports, so a 60 KB head of a 20 s film reads as 20 s. ffmpeg copies
 * every packet that is there to nowhere (`-c copy -f null`, no decoding: disk speed)
 * and reports, in its -progress lines, the time of the last one. Run only for files the
 * readers found cut short (media-header.ts). The argument list and the reading of the
 * progress are pure functions (unit-tested).
 */
/** A whole film read at a slow disk's speed; the file is damaged anyway, and this runs once per change of it. */
const MEASURE_TIMEOUT_MS = 10 * 60_000;

export function playableLengthArgs(input: string = INPUT_PATH): string[] {
  return [
    '-hide_banner',
    '-nostdin',
    '-nostats',
    '-loglevel',
    'error',
    ...mediaInputLimits(),
    '-i',
    `file:${input}`,
    '-map',
    '0:v?',
    '-map',
    '0:a?',
    '-c',
    'copy',
    '-f',
    'null',
    '-progress',
    'pipe:1',
    '-',
  ];
}

/**
 * The seconds of the last `out_time_us` (or `out_time_ms`, which ffmpeg also gives in microseconds) in ffmpeg's
 * progress lines; undefined when none.
 */
export function readPlayedSeconds(progress: string): number | undefined {
  let last: number | undefined;
  for (const line of progress.split('\n')) {
    const match = /^out_time_(?:us|ms)=(\d+)\s*$/.exec(line.trim());
    if (match) last = Number(match[1]) / 1_000_000;
  }
  return last === undefined || !Number.isFinite(last) ? undefined : Math.round(last * 1000) / 1000;
}

export type PlayableLength = { ok: true; seconds: number } | { ok: false; reason: string; transient: boolean };

export async function measurePlayableLength(
  input: OpenedInput,
  ffmpeg = 'ffmpeg',
  signal?: AbortSignal,
  runner: ProgramRunner = spawnRunner,
): Promise<PlayableLength> {
  const outcome = await runner.run(ffmpeg, playableLengthArgs(), {
    timeoutMs: MEASURE_TIMEOUT_MS,
    signal,
    inputFd: input.fd,
  });
  const seconds = readPlayedSeconds(outcome.stdout);
  // A damaged file may make ffmpeg end with an error after the last whole packet: what it copied until then counts.
  if (seconds !== undefined && (outcome.kind === 'ok' || outcome.kind === 'failed')) return { ok: true, seconds };
  // Timed out or not started: worth another try at the next scan, not a verdict on the file.
  return {
    ok: false,
    reason: `ffmpeg could not read it through: ${lastLine(outcome.stderrTail) || (outcome.kind === 'ok' ? 'it reported no progress' : outcome.reason)}`,
    transient: outcome.kind === 'transient',
  };
}
