/**
 * How long a recording plays, from the timestamps of one of its streams in the order they
 * were sent: the sum of its continuous runs. A resumed recording (Antenna restarted during
 * it) is two connections' bytes one after the other, and the second connection's clock
 * starts anew (an IPTV relay, a looped source) or where the broadcast is now (the time
 * Antenna was down is not in the file). Last minus first timestamp, which is how ffprobe and
 * the head-and-tail reader (media-tools/mpeg-ts.parser.ts) take a TS's duration, is then
 * short or long by the jump. Pure, and fed one timestamp at a time (recording-duration.ts
 * walks the file), so a recording of any length is measured in constant memory.
 */

/** MPEG-TS timestamps (PTS, DTS) count at 90 kHz. */
export const CLOCK_HZ = 90_000;
/** They are 33 bits wide and wrap every 26.5 hours. */
const WRAP = 2 ** 33;
/**
 * A step back this long stays in the run: video sent without DTS puts a B-frame's PTS after later ones (reordering
 * spans frames, not a second).
 */
const MAX_BACK_TICKS = CLOCK_HZ;
/**
 * A step ahead longer than this starts a new run: no audio or video unit of a broadcast
 * waits so long for the next, so it is a clock that jumped (a new connection), not time
 * that plays.
 */
const MAX_AHEAD_TICKS = 5 * CLOCK_HZ;
/**
 * The last unit of a run plays as long as the latest step up to this (one frame or one audio PES); a longer step was a
 * pause, not a unit.
 */
const MAX_UNIT_TICKS = CLOCK_HZ;

export interface PlayedTime {
  /** Played time, 90 kHz ticks. */
  ticks: number;
  /** Continuous runs of timestamps: 1 when nothing reset or jumped, 0 without timestamps. */
  runs: number;
}

/** b − a in ticks with the 33-bit clock's wrap unwound: in [−2^32, 2^32). */
export function ticksBetween(a: number, b: number): number {
  const d = (((b - a) % WRAP) + WRAP) % WRAP;
  return d >= WRAP / 2 ? d - WRAP : d;
}

export class TimestampRuns {
  private last: number | undefined;
  /** Where the open run stands, and its earliest and latest timestamp, as ticks from its first. */
  private at = 0;
  private low = 0;
  private high = 0;
  /**
   * How long the last unit plays: the latest step forward of a unit's length (kept across runs, for a run of one unit).
   */
  private unit = 0;
  private closedTicks = 0;
  private runCount = 0;

  add(timestamp: number): void {
    if (this.last === undefined) return this.open(timestamp);
    const step = ticksBetween(this.last, timestamp);
    if (step < -MAX_BACK_TICKS || step > MAX_AHEAD_TICKS) {
      this.close();
      return this.open(timestamp);
    }
    this.last = timestamp;
    this.at += step;
    if (step > 0 && step <= MAX_UNIT_TICKS) this.unit = step;
    if (this.at < this.low) this.low = this.at;
    if (this.at > this.high) this.high = this.at;
  }

  /** A break the reader knows of (the stream moved to another PID): what follows is a run of its own. */
  cut(): void {
    if (this.last === undefined) return;
    this.close();
    this.last = undefined;
  }

  get played(): PlayedTime {
    return { ticks: this.closedTicks + (this.last === undefined ? 0 : this.openTicks()), runs: this.runCount };
  }

  private open(timestamp: number): void {
    this.last = timestamp;
    this.at = this.low = this.high = 0;
    this.runCount++;
  }

  private close(): void {
    this.closedTicks += this.openTicks();
  }

  private openTicks(): number {
    return this.high - this.low + this.unit;
  }
}

/** The played time of timestamps in the order sent (TimestampRuns over a list: the tests' and small callers' form). */
export function playedTime(timestamps: Iterable<number>): PlayedTime {
  const runs = new TimestampRuns();
  for (const timestamp of timestamps) runs.add(timestamp);
  return runs.played;
}
