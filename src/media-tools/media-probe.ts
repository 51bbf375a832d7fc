/**
 * ffprobe: what a media file holds. The argument list and the reading of ffprobe's
 * JSON are pure functions (unit-tested); `probeFile` runs ffprobe through
 * common/external-program.ts and never throws: a file ffprobe cannot read is a result too.
 */
import { type ProgramRunner, lastLine, spawnRunner } from '../common/external-program.js';

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
}

/**
 * `transient`: ffprobe did not get to judge the file (not installed, out of file
 * handles, timed out, stopped): try again at the next scan rather than call it corrupted.
 */
export type ProbeOutcome = { ok: true; result: ProbeResult } | { ok: false; reason: string; transient: boolean };

const PROBE_TIMEOUT_MS = 60_000;
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

export function ffprobeArgs(path: string): string[] {
  // `file:` keeps a name that starts with a dash or names a protocol ("http:…") a plain file.
  return ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '-show_chapters', `file:${path}`];
}

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  height?: number;
  channels?: number;
  closed_captions?: number;
  duration?: string;
}

interface FfprobeOutput {
  format?: { duration?: string };
  streams?: FfprobeStream[];
  chapters?: { start_time?: string; end_time?: string; tags?: { title?: string } }[];
}

function seconds(text: string | undefined): number | null {
  const value = Number(text);
  return text !== undefined && Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) / 1000 : null;
}

/** Reads ffprobe's JSON; throws when the text is not ffprobe output for a media file. */
export function readProbeOutput(json: string): ProbeResult {
  const output = JSON.parse(json) as FfprobeOutput;
  const streams = Array.isArray(output.streams) ? output.streams : [];
  const video = streams.find((s) => s.codec_type === 'video' && s.codec_name !== 'mjpeg' && s.codec_name !== 'png');
  if (!video && !streams.some((s) => s.codec_type === 'audio')) throw new Error('no audio or video stream');
  const tags: string[] = [];
  const height = video?.height ?? 0;
  if (video && height > 0) tags.push(height >= 1800 ? '4K' : height >= 720 ? 'HD' : 'SD');
  if (streams.some((s) => s.codec_type === 'video' && s.closed_captions === 1) || streams.some((s) => s.codec_name === 'eia_608')) {
    tags.push('CC');
  }
  const audio = streams.filter((s) => s.codec_type === 'audio');
  if (audio.some((s) => s.codec_name === 'eac3')) tags.push('Dolby Digital Plus');
  else if (audio.some((s) => s.codec_name === 'ac3')) tags.push('Dolby Digital');
  if (audio.some((s) => s.channels === 6)) tags.push('5.1');
  const chapters = (Array.isArray(output.chapters) ? output.chapters : []).flatMap((c): Chapter[] => {
    const start = seconds(c.start_time);
    const end = seconds(c.end_time);
    if (start === null || end === null || end < start) return [];
    return [{ start, end, ...(c.tags?.title ? { title: c.tags.title } : {}) }];
  });
  const duration = seconds(output.format?.duration) ?? seconds(video?.duration) ?? seconds(audio[0]?.duration);
  return { duration, tags, chapters };
}

export async function probeFile(path: string, ffprobe = 'ffprobe', signal?: AbortSignal, runner: ProgramRunner = spawnRunner): Promise<ProbeOutcome> {
  const outcome = await runner.run(ffprobe, ffprobeArgs(path), { timeoutMs: PROBE_TIMEOUT_MS, maxStdoutBytes: MAX_OUTPUT_BYTES, signal });
  const detail = lastLine(outcome.stderrTail);
  // Refused (an exit status): ffprobe read the file and it is not media. Anything else
  // (not started, timed out, stopped) is tried again at the next scan.
  if (outcome.kind === 'failed') return { ok: false, reason: `ffprobe could not read it: ${detail || outcome.reason}`, transient: false };
  if (outcome.kind === 'transient') return { ok: false, reason: `ffprobe did not finish (${detail || outcome.reason}); retried at the next scan`, transient: true };
  try {
    return { ok: true, result: readProbeOutput(outcome.stdout) };
  } catch (parseError) {
    return { ok: false, reason: `ffprobe could not read it: ${(parseError as Error).message}`, transient: false };
  }
}
