/**
 * The writes a household makes all day (a player reporting its position every few
 * seconds, watched marks, favorites) kept apart from every other change to the library.
 * Interface A's cache keys its answers on the library generation, which any row written
 * moves: without this log, a position write made the next read of a 50,000-episode list
 * render it again (about half a second). With it, such a write leaves the generation
 * where it was and is logged here; a cached list holding the item has that item's bytes
 * written again, and every other answer stays (answer-cache/response-cache.ts).
 *
 * Safe by construction: a write not made through `ItemStateLog.track` moves the
 * generation as before, so forgetting to track one costs speed, never correctness.
 */
interface LoggedWrite {
  ids: readonly string[];
  progress: boolean;
}

export class ItemStateLog {
  /** Moves at each tracked write. */
  seq = 0;
  /** Rows the tracked writes changed on the connection (its total_changes() delta), which the generation leaves out. */
  rowsChanged = 0;
  /** One per tracked write, oldest first: the last is seq's, so an entry's own seq is never stored. */
  private readonly entries: LoggedWrite[] = [];

  /** `capacity`: tracked writes remembered; an answer cached before the oldest of them is built again. */
  constructor(private readonly capacity = 4096) {}

  /**
   * Runs `write`, which changes only the state of the items `ids` (watched, resume
   * position, last watched, favorite, labels, locked, verified) and nothing else, and
   * logs it. `changes()` reads the connection's total_changes(). A write that throws
   * is not logged: whatever it did counts as any other change. `progress`: the write is a
   * player's report of where it is (resume position, last watched), not a person's mark.
   */
  track<T>(ids: readonly string[], changes: () => number, write: () => T, progress = false): T {
    const before = changes();
    const result = write();
    const changed = changes() - before;
    if (changed === 0) return result;
    this.rowsChanged += changed;
    this.seq++;
    this.entries.push({ ids, progress });
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    return result;
  }

  /** Whether every write after `seq` was a progress report (false when the log no longer reaches back that far). */
  onlyProgressSince(seq: number): boolean {
    return this.entriesSince(seq)?.every((entry) => entry.progress) ?? false;
  }

  /** The items changed after `seq`; undefined when the log no longer reaches back that far. */
  idsSince(seq: number): Set<string> | undefined {
    const entries = this.entriesSince(seq);
    return entries && new Set(entries.flatMap((entry) => entry.ids));
  }

  /**
   * The writes logged after `seq` (one entry per seq, so the last this.seq - seq of them); undefined beyond the log.
   */
  private entriesSince(seq: number): readonly LoggedWrite[] | undefined {
    const count = this.seq - seq;
    if (count < 0 || count > this.entries.length) return undefined;
    return this.entries.slice(this.entries.length - count);
  }
}
