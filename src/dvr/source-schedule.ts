/**
 * What the planner has placed on each source: streams indexed by hour, and whether one
 * more fits under the source's limit (streams of one channel share a connection).
 */
import { pushTo } from '../common/multi-map.js';

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
export class SourceSchedule {
  private readonly buckets = new Map<number, Placement[]>();

  add(placement: Placement): void {
    const last = Math.floor((placement.end - 1) / BUCKET_SECONDS);
    for (let bucket = Math.floor(placement.start / BUCKET_SECONDS); bucket <= last; bucket++) pushTo(this.buckets, bucket, placement);
  }

  overlapping(start: number, end: number): Placement[] {
    const found = new Set<Placement>();
    const last = Math.floor((end - 1) / BUCKET_SECONDS);
    for (let bucket = Math.floor(start / BUCKET_SECONDS); bucket <= last; bucket++) {
      for (const p of this.buckets.get(bucket) ?? []) if (p.start < end && start < p.end) found.add(p);
    }
    return [...found];
  }
}

/**
 * True when adding a stream of `channel` over [start, end) keeps the source within its
 * limit at every moment. Streams of the same channel count once (they share a connection).
 */
export function fits(busy: readonly Pick<Placement, 'channel' | 'start' | 'end'>[], channel: string, start: number, end: number, limit: number): boolean {
  const overlapping = busy.filter((p) => p.start < end && start < p.end);
  if (overlapping.length === 0) return limit >= 1;
  // Channel usage only changes at a placement's start, so checking those instants (and our own start) suffices.
  const instants = [start, ...overlapping.map((p) => p.start).filter((t) => t > start)];
  for (const t of instants) {
    const channels = new Set([channel]);
    for (const p of overlapping) if (p.start <= t && t < p.end) channels.add(p.channel);
    if (channels.size > limit) return false;
  }
  return true;
}
