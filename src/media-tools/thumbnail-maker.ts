/**
 * Thumbnails: one frame per imported item, taken by ffmpeg after probing and stored
 * under the data directory (never beside the media). The argument list is a pure
 * function; `makeThumbnail` runs ffmpeg through common/external-program.ts and never throws.
 */
import { type ProgramRunner, lastLine, spawnRunner } from '../common/external-program.js';
import { INPUT_PATH, mediaInputLimits } from './library-input.js';
import type { OpenedInput } from './media-probe.js';

const THUMBNAIL_TIMEOUT_MS = 60_000;
export const THUMBNAIL_WIDTH = 480;

/**
 * A tenth of the way in (past cold opens and black leaders), at most five minutes; the start when the length is
 * unknown.
 */
export function thumbnailOffset(duration: number | null): number {
  if (duration === null || !Number.isFinite(duration) || duration <= 0) return 0;
  return Math.min(300, Math.round(duration * 100) / 1000);
}

export function ffmpegThumbnailArgs(output: string, duration: number | null, input: string = INPUT_PATH): string[] {
  return [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    '-y',
    ...mediaInputLimits(),
    // Seeking before -i is fast (keyframe) and fine for a still.
    '-ss',
    String(thumbnailOffset(duration)),
    '-i',
    `file:${input}`,
    '-frames:v',
    '1',
    '-vf',
    `scale=${THUMBNAIL_WIDTH}:-2`,
    '-q:v',
    '4',
    `file:${output}`,
  ];
}

export async function makeThumbnail(
  input: OpenedInput,
  output: string,
  duration: number | null,
  ffmpeg = 'ffmpeg',
  signal?: AbortSignal,
  runner: ProgramRunner = spawnRunner,
): Promise<{ ok: true } | { ok: false; reason: string; transient: boolean }> {
  const outcome = await runner.run(ffmpeg, ffmpegThumbnailArgs(output, duration), {
    timeoutMs: THUMBNAIL_TIMEOUT_MS,
    signal,
    inputFd: input.fd,
  });
  if (outcome.kind === 'ok') return { ok: true };
  // Not run, timed out or stopped: try again at the next scan (see media-probe.ts).
  return {
    ok: false,
    reason: `ffmpeg could not take a thumbnail: ${lastLine(outcome.stderrTail) || outcome.reason}`,
    transient: outcome.kind === 'transient',
  };
}
