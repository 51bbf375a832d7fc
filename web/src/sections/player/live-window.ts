/**
 * Live TV's window of time, as the player shows it: what of the channel's buffer can be
 * reached (the video's seekable range), how far behind live the picture is, and where
 * "start over" goes (the programme's start, when the buffer holds it), and the programmes the
 * buffer holds, placed on the seek bar. Pure.
 */
import { recordingStartOver } from '../../../../src/player/player-state';

/** Closer than this to the live edge counts as live (a segment or two, as players hold back). */
export const LIVE_SLACK_SECONDS = 10;

export interface LiveWindow {
  start: number;
  end: number;
}

/** The reachable span from the video's seekable ranges (their first start to their last end), else undefined. */
export function liveWindowOf(ranges: ReadonlyArray<readonly [number, number]>): LiveWindow | undefined {
  const first = ranges[0];
  const last = ranges.at(-1);
  return first && last && last[1] > first[0] ? { start: first[0], end: last[1] } : undefined;
}

/** Seconds behind the live edge, 0 when within LIVE_SLACK_SECONDS of it. */
export function behindLive(window: LiveWindow | undefined, position: number): number {
  if (!window) return 0;
  const behind = window.end - position;
  return behind > LIVE_SLACK_SECONDS ? Math.round(behind) : 0;
}

/** A position clamped into the window: before its start is its start, past live is live. */
export function clampToWindow(window: LiveWindow | undefined, position: number): number {
  if (!window) return position;
  return Math.max(window.start, Math.min(position, window.end - 1));
}

/**
 * Where "start over" seeks: the position of the programme's start (`programmeStart`, epoch seconds) given the
 * picture's wall-clock time now (`playingAt`, epoch ms, from the segments' PROGRAM-DATE-TIME); undefined when the
 * buffer does not reach back that far, or the times are not known.
 */
export function startOverTarget(
  window: LiveWindow | undefined,
  position: number,
  playingAt: number | undefined,
  programmeStart: number | undefined,
): number | undefined {
  if (!window || playingAt === undefined || programmeStart === undefined) return undefined;
  const target = position - (playingAt / 1000 - programmeStart);
  return target >= window.start - 1 && target < window.end ? Math.max(window.start, target) : undefined;
}

/** A programme's part of the buffer, as the seek bar draws it: percentages of the window. */
export interface ProgrammeSpan {
  title: string;
  /** Epoch seconds, as the guide has them. */
  startTime: number;
  endTime: number;
  left: number;
  width: number;
}

/**
 * The programmes (`airings`, epoch seconds) in the window, clipped to it and placed as percentages of it, given the
 * picture's wall-clock time (`playingAt`, epoch ms) at `position`; none while the times are not known.
 */
export function programmeSpans(
  window: LiveWindow | undefined,
  position: number,
  playingAt: number | undefined,
  airings: ReadonlyArray<{ title: string; start_time: number; end_time: number }>,
): ProgrammeSpan[] {
  if (!window || playingAt === undefined || window.end <= window.start) return [];
  // Position of an epoch second: the picture's moment is `position`.
  const at = (epochSeconds: number) => position + (epochSeconds - playingAt / 1000);
  const length = window.end - window.start;
  const spans: ProgrammeSpan[] = [];
  for (const airing of airings) {
    const start = Math.max(window.start, at(airing.start_time));
    const end = Math.min(window.end, at(airing.end_time));
    if (end <= start) continue;
    spans.push({
      title: airing.title,
      startTime: airing.start_time,
      endTime: airing.end_time,
      left: ((start - window.start) / length) * 100,
      width: ((end - start) / length) * 100,
    });
  }
  return spans.sort((a, b) => a.left - b.left);
}

/** The programme on screen at `position` (what the seek bar's thumb is on). */
export function programmeAt(
  spans: readonly ProgrammeSpan[],
  window: LiveWindow | undefined,
  position: number,
): ProgrammeSpan | undefined {
  if (!window || window.end <= window.start) return undefined;
  const percent = ((position - window.start) / (window.end - window.start)) * 100;
  return spans.find((span) => percent >= span.left && percent < span.left + span.width);
}

/**
 * "Start over" from the recording of the channel under way when the buffer does not reach the programme's start
 * (`programmeStart`, epoch seconds): the recording's file and the second in it where the programme begins, by the
 * player's own rule (recordingStartOver: the file begins before it, or within a minute after).
 */
export function startOverFromRecording(
  programmeStart: number | undefined,
  recording: { file_id?: string; file_begins_at?: number } | null | undefined,
): { fileId: string; start: number } | undefined {
  if (programmeStart === undefined || !recording?.file_id || recording.file_begins_at === undefined) return undefined;
  // Called once the buffer is known not to reach back: it holds nothing the recording would have to beat.
  const from = recordingStartOver(programmeStart, Number.POSITIVE_INFINITY, {
    id: recording.file_id,
    beginsAt: recording.file_begins_at,
  });
  return from ? { fileId: from.id, start: from.start } : undefined;
}
