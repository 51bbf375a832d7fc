/**
 * The writes a household makes all day (a player reporting its position every few
 * seconds, watched marks, favorites) kept apart from every other change to the library.
 * Interface A's cache keys its answers on the library generation, which any row written
 * moves: without this log, a position write made the next read of a 50,000-episode list
 * render it again (about half a second). With it, such a write leaves the generation
 * where it was and is logged here; a cached list holding the item has that item's bytes
 * written again, and every other answer stays (api/response-cache.ts).
 *
 * Safe by construction: a write not made through `ItemStateLog.track` moves the
 * generation as before, so forgetting to track one costs speed, never correctness.
 */
export class ItemStateLog {
  /** Moves at each tracked write. */
  seq = 0;
  /** Rows the tracked writes changed on the connection (its total_changes() delta), which the generation leaves out. */
  rowsChanged = 0;
  private readonly entries: { seq: number; ids: readonly string[]; progress: boolean }[] = [];

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
    this.entries.push({ seq: this.seq, ids, progress });
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    return result;
  }

  /** Whether every write after `seq` was a progress report (false when the log no longer reaches back that far). */
  onlyProgressSince(seq: number): boolean {
    const first = this.entries[0];
    if (!first || seq < first.seq - 1 || seq > this.seq) return false;
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i] as { seq: number; progress: boolean };
      if (entry.seq <= seq) break;
      if (!entry.progress) return false;
    }
    return true;
  }

  /** The items changed after `seq`; undefined when the log no longer reaches back that far. */
  idsSince(seq: number): Set<string> | undefined {
    if (seq === this.seq) return new Set();
    const first = this.entries[0];
    if (!first || seq < first.seq - 1 || seq > this.seq) return undefined;
    const ids = new Set<string>();
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i] as { seq: number; ids: readonly string[] };
      if (entry.seq <= seq) break;
      for (const id of entry.ids) ids.add(id);
    }
    return ids;
  }
}
