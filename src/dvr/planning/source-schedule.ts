/**
 * What the planner has placed on each source: streams indexed by hour, and whether one
 * more fits under the source's limit (streams of one channel share a connection).
 */
import { pushTo } from '../../common/multi-map.js';

export interface Placement {
  channel: string;
  sourceId: string;
  start: number;
  end: number;
  name: string;
}

/** Bucket width for finding the placements that overlap a time: most programmes are shorter. */
const BUCKET_SECONDS = 3600;

/**
 * One source's placed streams, indexed by hour, so the placements overlapping a
 * candidate are found without walking every job of a 14-day plan (tens of thousands).
 */
export class SourceSchedule<P extends Placement = Placement> {
  private readonly buckets = new Map<number, P[]>();

  add(placement: P): void {
    const last = Math.floor((placement.end - 1) / BUCKET_SECONDS);
    for (let bucket = Math.floor(placement.start / BUCKET_SECONDS); bucket <= last; bucket++)
      pushTo(this.buckets, bucket, placement);
  }

  /** Takes out a placement added before (the same object). */
  remove(placement: P): void {
    const last = Math.floor((placement.end - 1) / BUCKET_SECONDS);
    for (let bucket = Math.floor(placement.start / BUCKET_SECONDS); bucket <= last; bucket++) {
      const list = this.buckets.get(bucket);
      const at = list?.indexOf(placement) ?? -1;
      if (at >= 0) list?.splice(at, 1);
    }
  }

  /** Whether a placement overlapping [start, end) passes `test`. */
  some(start: number, end: number, test: (placement: P) => boolean): boolean {
    const last = Math.floor((end - 1) / BUCKET_SECONDS);
    for (let bucket = Math.floor(start / BUCKET_SECONDS); bucket <= last; bucket++) {
      for (const p of this.buckets.get(bucket) ?? []) if (p.start < end && start < p.end && test(p)) return true;
    }
    return false;
  }

  overlapping(start: number, end: number): P[] {
    const found: P[] = [];
    const first = Math.floor(start / BUCKET_SECONDS);
    const last = Math.floor((end - 1) / BUCKET_SECONDS);
    for (let bucket = first; bucket <= last; bucket++) {
      // A placement is in every bucket it spans: found once, in the first of them this search looks at.
      for (const p of this.buckets.get(bucket) ?? [])
        if (p.start < end && start < p.end && (bucket === first || p.start >= bucket * BUCKET_SECONDS)) found.push(p);
    }
    return found;
  }
}

/**
 * True when adding a stream of `channel` over [start, end) keeps the source within its
 * limit at every moment. Streams of the same channel count once (they share a connection).
 */
export function fits(
  busy: readonly Pick<Placement, 'channel' | 'start' | 'end'>[],
  channel: string,
  start: number,
  end: number,
  limit: number,
): boolean {
  let count = 0;
  for (const p of busy) if (p.start < end && start < p.end) count++;
  // Fewer streams than the limit, even each on its own channel: one more fits (the common case, decided without
  // allocating).
  if (count < limit) return true;
  // Channel usage only changes at a placement's start, so checking those instants (and our own start) suffices.
  // Run for every refused candidate of every plan: a small array of channels, not a set per instant.
  const channels: string[] = [];
  const fullAt = (t: number) => {
    channels.length = 0;
    channels.push(channel);
    // t lies in [start, end), so a placement carried at t overlaps the stream.
    for (const p of busy) if (p.start <= t && t < p.end && !channels.includes(p.channel)) channels.push(p.channel);
    return channels.length > limit;
  };
  if (fullAt(start)) return false;
  for (const p of busy) if (p.start > start && p.start < end && fullAt(p.start)) return false;
  return true;
}
