/**
 * Where "record what I am watching" begins: at the programme's start, with a minute of
 * padding, when the channel's live buffer holds it; from as much of it as the buffer holds
 * otherwise; and from now when the channel is not buffered or no guide says what is on
 * (then "now" is all anybody knows of its start).
 */

/** Seconds before the programme's start a recording from its start begins, where the buffer holds them. */
export const RECORD_FROM_START_PADDING = 60;

/** Epoch seconds the recording starts at; `heldSinceMs`: the buffer's oldest moment (epoch ms). */
export function recordingStartFrom(
  now: number,
  programmeStart: number | undefined,
  heldSinceMs: number | undefined,
): number {
  if (programmeStart === undefined || heldSinceMs === undefined) return now;
  // The second the buffer begins in: the recorder reads from the segment under way then, its first.
  const held = Math.floor(heldSinceMs / 1000);
  return Math.min(now, Math.max(programmeStart - RECORD_FROM_START_PADDING, held));
}
