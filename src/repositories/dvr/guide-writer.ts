/**
 * Writing a guide's refresh (GuideWriter) and the generations that keep it out of sight
 * until it is whole: see guide.repository.ts, which re-exports the writer.
 *
 * A 1,000-channel, 14-day guide is about 300,000 programmes, and every row written to or
 * deleted from `programmes` goes through four indexes and the search triggers (tens of
 * microseconds each): seconds of work in all, which as one transaction held every other
 * writer (and, on the main thread, every request) for ten seconds (issue 21). So:
 *
 * 1. While the guide is read, rows are appended to a temp table of the writer's own (no
 *    index, no trigger: a few microseconds a row).
 * 2. `place` copies them into `programmes` under the writer's generation, one short
 *    transaction per slice (WritePace). Readers take only rows of their guide's current
 *    generation (currentRows), so these stay unseen.
 * 3. `commit` swaps them in: one short transaction sets the guide's generation (and its
 *    channels); `dropReplaced` then deletes the replaced rows, a slice at a time.
 *
 * `abandon` deletes what a refresh wrote instead, the same way. A crash leaves rows of a
 * generation their guide does not have: unread, and deleted by its next `dropReplaced`.
 * The refresher runs all of this in a worker thread with a connection of its own
 * (dvr/sources/guide-refresh.thread.ts): WAL readers never wait for it, and the main thread's
 * writers wait for one slice at most.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../../db/database.js';
import { statement } from '../../db/row-codec.js';
import type { GuideChannelRow, ProgrammeInput } from './guide.repository.js';

export const PROGRAMME_FIELDS =
  'xmltv_channel, start, stop, title, episode_title, season, episode, summary, categories, original_air_date, is_new, rating, image_url, program_id, series_id, year';

/**
 * The condition a row of programmes must meet to be read: its generation is its guide's
 * current one. A refresh's rows before its swap, and the rows it replaced until they are
 * deleted, are in the table but not in the guide. `alias` is the table's, with its dot.
 * The `+`s keep SQLite from reading a query through the guide's index because of this
 * condition (every row of the guide, for each slice of a plan's reading: 10× slower).
 */
export const currentRows = (alias = '') =>
  `(+${alias}guide_id, +${alias}generation) IN (SELECT id, generation FROM dvr_guides)`;

/**
 * How a writer shares the database: transactions of about `sliceMs`, then `pauseMs`
 * without one (0: a turn of the event loop). On the main thread every slice is a wait
 * for requests; in a worker, the pause is the main thread's chance to write (SQLite's
 * busy handler tries again after 1, 2, 5, 10, 15, 20 and then 25 ms, 50 ms and 100 ms
 * apart: a pause as long as a slice lets it in within one slice or two).
 */
export interface WritePace {
  sliceMs: number;
  pauseMs: number;
}

export const MAIN_THREAD_PACE: WritePace = { sliceMs: 8, pauseMs: 0 };
export const WORKER_PACE: WritePace = { sliceMs: 50, pauseMs: 20 };

/** Rows of the first slice; later slices are sized from how long the last one took. */
const FIRST_SLICE = 200;

const pause = (ms: number) => (ms > 0 ? sleep(ms) : new Promise<void>((resolve) => setImmediate(resolve)));

/**
 * The next slice's rows: the last slice's scaled to `sliceMs`, and at most doubled, so one slow slice (a checkpoint)
 * does not swing it.
 */
export function nextSliceSize(rows: number, ms: number, sliceMs: number, max = 20_000): number {
  const scaled = ms > 0 ? Math.floor((rows * sliceMs) / ms) : rows * 2;
  return Math.max(20, Math.min(max, rows * 2, scaled));
}

/**
 * A generation none of the guide's rows has: the clock's milliseconds, or one after the
 * largest it has (a crashed refresh's rows may be above its current one). A guide has one
 * refresh at a time (the refresher shares it), so no other writer takes the same.
 */
function newGeneration(db: Db, guideId: string): number {
  const largest = statement(
    db,
    'SELECT max(generation) FROM (SELECT generation FROM dvr_guides WHERE id = ? UNION ALL SELECT max(generation) FROM programmes WHERE guide_id = ?)',
  )
    .pluck()
    .get(guideId, guideId) as number | null;
  return Math.max(Date.now(), (largest ?? 0) + 1);
}

/**
 * Staging tables are the writer's own (two guides may be read at once): temp tables are a connection's, so a count in
 * this thread names them.
 */
let stagingTables = 0;
const stagingName = () => `temp.programmes_staging_${++stagingTables}`;

/**
 * Collects one refresh of a guide: `programme` stages rows, `place` copies them into
 * `programmes` in slices, `commit` swaps them in, then `dropReplaced` deletes the rows
 * they replaced; `abandon` deletes them instead. `commit` places whatever is still staged
 * in one go, so a caller with a small guide (the tests) may call it alone.
 */
export class GuideWriter {
  private pending: unknown[][] = [];
  private readonly channels: GuideChannelRow[] = [];
  private readonly generation: number;
  private readonly staging: string;
  private stagingExists = false;
  /** Rows staged (rowids 1..staged: the table is only appended to) and how many of them are placed. */
  private staged = 0;
  private placed = 0;
  /** The first rowid of `programmes` this writer placed: its rows are at or above it, the rows it replaces below. */
  private firstId: number | undefined;
  private sliceRows = FIRST_SLICE;
  private readonly statements = new Map<string, Statement>();
  count = 0;

  constructor(
    private readonly db: Db,
    private readonly guideId: string,
    private readonly options: {
      batchSize?: number;
      pace?: WritePace;
      wrote?: () => void;
      signal?: AbortSignal | undefined;
    } = {},
  ) {
    this.generation = newGeneration(db, guideId);
    this.staging = stagingName();
  }

  channel(channel: {
    id: string;
    displayNames: string[];
    number?: string | undefined;
    icon?: string | undefined;
  }): void {
    this.channels.push({
      guide_id: this.guideId,
      xmltv_id: channel.id,
      display_names: JSON.stringify(channel.displayNames),
      number: channel.number ?? null,
      icon: channel.icon ?? null,
    });
  }

  programme(p: ProgrammeInput): void {
    this.pending.push([
      p.channel,
      p.start,
      p.stop,
      p.title,
      p.episodeTitle ?? null,
      p.season ?? null,
      p.episode ?? null,
      p.summary ?? null,
      p.categories && p.categories.length > 0 ? JSON.stringify(p.categories) : null,
      p.originalAirDate ?? null,
      p.isNew ? 1 : 0,
      p.rating ?? null,
      p.image ?? null,
      p.programId ?? null,
      p.seriesId ?? null,
      p.year ?? null,
    ]);
    this.count++;
    if (this.pending.length >= (this.options.batchSize ?? 1000)) this.flush();
  }

  /** A statement on this writer's staging table, prepared once (the shared cache would keep every writer's). */
  private prepared(sql: string): Statement {
    let prepared = this.statements.get(sql);
    if (!prepared) this.statements.set(sql, (prepared = this.db.prepare(sql)));
    return prepared;
  }

  /**
   * Appends buffered programmes to the staging table: no index or trigger there, so a batch of a thousand is a few
   * milliseconds.
   */
  flush(): void {
    if (this.pending.length === 0) return;
    if (!this.stagingExists) {
      this.db.exec(`CREATE TABLE ${this.staging} (${PROGRAMME_FIELDS})`);
      this.stagingExists = true;
    }
    const insert = this.prepared(
      `INSERT INTO ${this.staging} (${PROGRAMME_FIELDS}) VALUES (${PROGRAMME_FIELDS.split(',')
        .map(() => '?')
        .join(', ')})`,
    );
    const rows = this.pending;
    this.pending = [];
    // Deferred on purpose: it writes only the temp staging table, and BEGIN IMMEDIATE would
    // take the main database's write lock too, making the main thread wait on a parse.
    // eslint-disable-next-line no-restricted-syntax
    this.db.transaction(() => {
      for (const row of rows) insert.run(...row);
    })();
    this.staged += rows.length;
  }

  /**
   * Copies staged rows into `programmes` under this writer's generation, unseen until
   * `commit`: one transaction of at most `limit` rows. Returns how many it copied.
   */
  private placeSlice(limit: number): number {
    const from = this.placed;
    const to = Math.min(this.staged, from + limit);
    if (to <= from) return 0;
    const copied = this.db
      .transaction(() => {
        const result = this.prepared(
          `INSERT INTO programmes (guide_id, generation, ${PROGRAMME_FIELDS})
         SELECT ?, ?, ${PROGRAMME_FIELDS} FROM ${this.staging} WHERE rowid > ? AND rowid <= ? ORDER BY rowid`,
        ).run(this.guideId, this.generation, from, to);
        // The rows of one INSERT get consecutive rowids after the table's largest: the first is the last less the
        // count.
        this.firstId ??= Number(result.lastInsertRowid) - result.changes + 1;
        return result.changes;
      })
      .immediate();
    this.placed = to;
    return copied;
  }

  private get pace(): WritePace {
    return this.options.pace ?? MAIN_THREAD_PACE;
  }

  /** Copies every staged row into `programmes`, a slice at a time (WritePace). */
  async place(): Promise<void> {
    this.flush();
    while (this.placed < this.staged) {
      this.options.signal?.throwIfAborted();
      const began = performance.now();
      const rows = this.placeSlice(this.sliceRows);
      this.options.wrote?.();
      this.sliceRows = nextSliceSize(rows, performance.now() - began, this.pace.sliceMs);
      await pause(this.pace.pauseMs);
    }
    this.dropStaging();
  }

  /** The swap: whatever is still staged placed, then the guide's channels and its generation in one transaction. */
  commit(counts: { skipped: number }, now = Date.now()): void {
    this.flush();
    // Left for here only by callers that did not `place` (small guides): one transaction.
    this.placeSlice(Number.MAX_SAFE_INTEGER);
    this.dropStaging();
    this.db
      .transaction(() => {
        statement(this.db, 'DELETE FROM guide_channels WHERE guide_id = ?').run(this.guideId);
        const insert = statement(
          this.db,
          'INSERT OR REPLACE INTO guide_channels (guide_id, xmltv_id, display_names, number, icon) VALUES (@guide_id, @xmltv_id, @display_names, @number, @icon)',
        );
        for (const channel of this.channels) insert.run(channel);
        statement(
          this.db,
          'UPDATE dvr_guides SET generation = ?, refreshed_at = ?, error = NULL, programmes = ?, skipped = ?, updated_at = ? WHERE id = ?',
        ).run(this.generation, now, this.count, counts.skipped, now, this.guideId);
      })
      .immediate();
  }

  /**
   * After `commit`: deletes the guide's rows of earlier generations (the replaced ones,
   * and any a crashed refresh left), a slice at a time; stopped by the writer's signal.
   * They are all below the first row placed, so the search stops there instead of
   * reading the new guide too. Earlier only: a later refresh's rows (its generation is
   * larger: newGeneration) are never this one's to delete, whether swapped in or not.
   */
  dropReplaced(): Promise<void> {
    return this.deleteWhere('generation < ?', 0, this.firstId ?? Number.MAX_SAFE_INTEGER, this.options.signal);
  }

  /**
   * Instead of `commit`: deletes what this refresh staged and placed, a slice at a time (even when the refresh was
   * aborted).
   */
  async abandon(): Promise<void> {
    this.pending = [];
    this.dropStaging();
    const after = this.firstId;
    if (after !== undefined) await this.deleteWhere('generation = ?', after - 1, Number.MAX_SAFE_INTEGER, undefined);
  }

  /** Drops the staging table alone (the rows placed stay, unread, for the guide's next refresh to delete). */
  dropStaging(): void {
    if (!this.stagingExists) return;
    this.statements.clear();
    this.db.exec(`DROP TABLE IF EXISTS ${this.staging}`);
    this.stagingExists = false;
  }

  /**
   * Deletes the guide's rows with `after < id < below` whose generation meets `condition`
   * (one parameter: this writer's generation), in id order from where the last slice
   * ended, so each slice reads only what it deletes, paced as the placing. `+` keeps
   * SQLite on the rowid rather than the guide's index, where the rows kept would be read
   * again at every slice.
   */
  private async deleteWhere(
    condition: string,
    after: number,
    below: number,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const next = statement(
      this.db,
      `SELECT id FROM programmes WHERE id > ? AND id < ? AND +guide_id = ? AND +${condition} ORDER BY id LIMIT ?`,
    ).pluck();
    const remove = statement(
      this.db,
      `DELETE FROM programmes WHERE id BETWEEN ? AND ? AND +guide_id = ? AND +${condition}`,
    );
    let rows = FIRST_SLICE;
    for (;;) {
      signal?.throwIfAborted();
      const began = performance.now();
      const ids = next.all(after, below, this.guideId, this.generation, rows) as number[];
      if (ids.length === 0) return;
      const last = ids.at(-1) as number;
      remove.run(ids[0], last, this.guideId, this.generation);
      this.options.wrote?.();
      after = last;
      rows = nextSliceSize(ids.length, performance.now() - began, this.pace.sliceMs);
      await pause(this.pace.pauseMs);
    }
  }
}
