/**
 * The programme guide: configured XMLTV guides, their channels and programmes. A
 * refresh streams programmes into a staging table and swaps them in with one
 * transaction at the end, so a guide that fails half-way leaves the old one whole.
 */
import type { Db } from '../db/database.js';
import { statement } from '../db/row-codec.js';
import type { Origin } from './sources.repository.js';

export interface GuideRow {
  id: string;
  location: string;
  origin: Origin;
  refreshed_at: number | null;
  error: string | null;
  /** The kind of the refresh not applied that `error` tells of (meaningless once error is null). */
  rejected: string | null;
  programmes: number;
  skipped: number;
  /** Lower first: where guides describe one channel, the first gives its programmes. */
  priority: number;
}

export interface GuideChannelRow {
  guide_id: string;
  xmltv_id: string;
  display_names: string;
  number: string | null;
  icon: string | null;
}

/** What the guide says of one programme (epoch seconds); the planner's Airing has the same fields. */
export interface ProgrammeFields {
  start: number;
  stop: number;
  title: string;
  episodeTitle?: string | undefined;
  season?: number | undefined;
  episode?: number | undefined;
  summary?: string | undefined;
  categories?: string[] | undefined;
  originalAirDate?: string | undefined;
  isNew?: boolean | undefined;
  rating?: string | undefined;
  image?: string | undefined;
  programId?: string | undefined;
  seriesId?: string | undefined;
  year?: number | undefined;
}

/** A programme to store: its fields and the guide channel it airs on. */
export interface ProgrammeInput extends ProgrammeFields {
  channel: string;
}

export interface ProgrammeRow {
  guide_id: string;
  xmltv_channel: string;
  start: number;
  stop: number;
  title: string;
  episode_title: string | null;
  season: number | null;
  episode: number | null;
  summary: string | null;
  categories: string | null;
  original_air_date: string | null;
  is_new: number;
  rating: string | null;
  image_url: string | null;
  program_id: string | null;
  series_id: string | null;
  year: number | null;
}

const GUIDE_COLUMNS = 'id, location, origin, refreshed_at, error, rejected, programmes, skipped, priority';

export function listGuides(db: Db): GuideRow[] {
  return statement(db, `SELECT ${GUIDE_COLUMNS} FROM dvr_guides ORDER BY priority, created_at, id`).all() as GuideRow[];
}

export function getGuide(db: Db, id: string): GuideRow | undefined {
  return statement(db, `SELECT ${GUIDE_COLUMNS} FROM dvr_guides WHERE id = ?`).get(id) as GuideRow | undefined;
}

export function saveGuide(db: Db, guide: Pick<GuideRow, 'id' | 'location' | 'origin'>, now = Date.now()): void {
  statement(
    db,
    `INSERT INTO dvr_guides (id, location, origin, created_at, updated_at) VALUES (@id, @location, @origin, @now, @now)
     ON CONFLICT (id) DO UPDATE SET origin = excluded.origin, updated_at = excluded.updated_at`,
  ).run({ ...guide, now });
}

export function setGuidePriority(db: Db, id: string, priority: number, now = Date.now()): boolean {
  return statement(db, 'UPDATE dvr_guides SET priority = ?, updated_at = ? WHERE id = ?').run(priority, now, id).changes > 0;
}

export function deleteGuide(db: Db, id: string): boolean {
  return statement(db, 'DELETE FROM dvr_guides WHERE id = ?').run(id).changes > 0;
}

export function removeConfigGuidesExcept(db: Db, keep: readonly string[]): void {
  for (const guide of listGuides(db)) if (guide.origin === 'config' && !keep.includes(guide.id)) deleteGuide(db, guide.id);
}

/** A guide's stored programmes that end after `after` (epoch seconds): what a refresh is judged against. */
export function countProgrammesEndingAfter(db: Db, guideId: string, after: number): number {
  return statement(db, 'SELECT count(*) FROM programmes WHERE guide_id = ? AND stop > ?').pluck().get(guideId, after) as number;
}

/** A refresh not applied: why (`error`) and its kind (`rejected`: whether confirming would apply it), until one is applied. */
export function setGuideError(db: Db, id: string, error: string, now = Date.now(), rejected: string | null = null): void {
  statement(db, 'UPDATE dvr_guides SET error = ?, rejected = ?, updated_at = ? WHERE id = ?').run(error, rejected, now, id);
}

const PROGRAMME_FIELDS =
  'xmltv_channel, start, stop, title, episode_title, season, episode, summary, categories, original_air_date, is_new, rating, image_url, program_id, series_id, year';

/** Collects one refresh of a guide; `commit` swaps it in, `abandon` drops it. */
export class GuideWriter {
  private pending: unknown[][] = [];
  private readonly channels: GuideChannelRow[] = [];
  count = 0;

  constructor(
    private readonly db: Db,
    private readonly guideId: string,
    private readonly batchSize = 5000,
  ) {
    // Staged rows carry their guide: two refreshes of different guides may run at once.
    db.exec(`CREATE TEMP TABLE IF NOT EXISTS programmes_staging (staging_guide TEXT NOT NULL, ${PROGRAMME_FIELDS})`);
    statement(db, 'DELETE FROM temp.programmes_staging WHERE staging_guide = ?').run(guideId);
  }

  channel(channel: { id: string; displayNames: string[]; number?: string | undefined; icon?: string | undefined }): void {
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
    if (this.pending.length >= this.batchSize) this.flush();
  }

  /** Writes buffered programmes to staging; short transactions, so other writers wait at most one batch. */
  flush(): void {
    if (this.pending.length === 0) return;
    const insert = statement(
      this.db,
      `INSERT INTO temp.programmes_staging (staging_guide, ${PROGRAMME_FIELDS}) VALUES (?, ${PROGRAMME_FIELDS.split(',').map(() => '?').join(', ')})`,
    );
    const rows = this.pending;
    this.pending = [];
    this.db.transaction(() => {
      for (const row of rows) insert.run(this.guideId, ...row);
    })();
  }

  commit(counts: { skipped: number }, now = Date.now()): void {
    this.flush();
    this.db.transaction(() => {
      statement(this.db, 'DELETE FROM programmes WHERE guide_id = ?').run(this.guideId);
      statement(
        this.db,
        `INSERT INTO programmes (guide_id, ${PROGRAMME_FIELDS}) SELECT staging_guide, ${PROGRAMME_FIELDS} FROM temp.programmes_staging WHERE staging_guide = ?`,
      ).run(this.guideId);
      statement(this.db, 'DELETE FROM guide_channels WHERE guide_id = ?').run(this.guideId);
      const insert = statement(
        this.db,
        'INSERT OR REPLACE INTO guide_channels (guide_id, xmltv_id, display_names, number, icon) VALUES (@guide_id, @xmltv_id, @display_names, @number, @icon)',
      );
      for (const channel of this.channels) insert.run(channel);
      statement(this.db, 'UPDATE dvr_guides SET refreshed_at = ?, error = NULL, programmes = ?, skipped = ?, updated_at = ? WHERE id = ?').run(
        now,
        this.count,
        counts.skipped,
        now,
        this.guideId,
      );
    })();
    this.abandon();
  }

  abandon(): void {
    this.pending = [];
    statement(this.db, 'DELETE FROM temp.programmes_staging WHERE staging_guide = ?').run(this.guideId);
  }
}

/** Every guide's channels, the guides in priority order (lower first, then the first added). */
export function listGuideChannels(db: Db): GuideChannelRow[] {
  return statement(
    db,
    `SELECT gc.guide_id, gc.xmltv_id, gc.display_names, gc.number, gc.icon FROM guide_channels gc JOIN dvr_guides g ON g.id = gc.guide_id
      ORDER BY g.priority, g.created_at, g.id, gc.xmltv_id`,
  ).all() as GuideChannelRow[];
}

/** Programmes that end after `after`, streamed (a 14-day guide holds hundreds of thousands). */
export function iterateProgrammes(db: Db, after: number): IterableIterator<ProgrammeRow> {
  return statement(db, `SELECT guide_id, ${PROGRAMME_FIELDS} FROM programmes WHERE stop > ?`).iterate(after) as IterableIterator<ProgrammeRow>;
}

/** The columns of a programme row as an array, in PROGRAMME_FIELDS order after guide_id. */
export type ProgrammeTuple = [
  guideId: string,
  xmltvChannel: string,
  start: number,
  stop: number,
  title: string,
  episodeTitle: string | null,
  season: number | null,
  episode: number | null,
  summary: string | null,
  categories: string | null,
  originalAirDate: string | null,
  isNew: number,
  rating: string | null,
  imageUrl: string | null,
  programId: string | null,
  seriesId: string | null,
  year: number | null,
];

/** The match function of the iteration running on a connection (the SQL function below calls it). */
const activeMatches = new WeakMap<Db, (title: string, summary: string | null, seriesId: string | null) => boolean>();
const withMatchFunction = new WeakSet<Db>();

/**
 * Programme rows, as arrays, that end after `after` and either air on one of
 * `channelKeys` (`guide_id<TAB>xmltv_id`) or pass `match`. The match runs inside the
 * query, as an SQL function, so rows it rejects are never turned into JavaScript
 * values: on a 14-day guide that was most of a plan's time.
 */
export function* iterateProgrammeTuplesWhere(
  db: Db,
  after: number,
  filter: { channelKeys: readonly string[]; needsSummary: boolean; match: (title: string, summary: string | null, seriesId: string | null) => boolean },
): Generator<ProgrammeTuple> {
  if (!withMatchFunction.has(db)) {
    db.function('antenna_plan_match', { deterministic: false, directOnly: true }, (title, summary, seriesId) => {
      const match = activeMatches.get(db);
      return match && match(String(title), summary as string | null, seriesId as string | null) ? 1 : 0;
    });
    withMatchFunction.add(db);
  }
  activeMatches.set(db, filter.match);
  try {
    yield* statement(
      db,
      `SELECT guide_id, ${PROGRAMME_FIELDS} FROM programmes
        WHERE stop > ? AND ((guide_id || char(9) || xmltv_channel) IN (SELECT value FROM json_each(?))
              OR antenna_plan_match(title, CASE WHEN ? THEN summary END, series_id))`,
    )
      .raw(true)
      .iterate(after, JSON.stringify(filter.channelKeys), filter.needsSummary ? 1 : 0) as IterableIterator<ProgrammeTuple>;
  } finally {
    activeMatches.delete(db);
  }
}

/**
 * What a few rules want of the guide, said so the indexes can answer it: programmes on
 * `channelKeys` (`guide_id<TAB>xmltv_id`), with a series id in `seriesIds`, with a title
 * in `titles` (ASCII, compared case-blind as SQLite's NOCASE does), or whose title or
 * summary contains one of `substrings` (ASCII, case-blind: LIKE).
 */
export interface GuideQuery {
  channelKeys: readonly string[];
  seriesIds: readonly string[];
  titles: readonly string[];
  substrings: readonly string[];
}

/** `%text%` for LIKE … ESCAPE '\': the text's own %, _ and \ taken literally. */
export const likeContaining = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Programme rows, as arrays, that end after `after` and answer `query`, in row order.
 * Channels, series ids and titles go through their indexes (a rule's edit reads a few
 * hundred rows, not the guide); substrings need a pass over titles and summaries, made
 * by SQLite's own LIKE rather than a JavaScript call per row.
 */
export function iterateProgrammeTuplesMatching(db: Db, after: number, query: GuideQuery): IterableIterator<ProgrammeTuple> {
  const params: Record<string, string | number> = {
    channels: JSON.stringify(query.channelKeys),
    seriesIds: JSON.stringify(query.seriesIds),
    titles: JSON.stringify(query.titles),
    after,
  };
  query.substrings.forEach((text, i) => (params[`like${i}`] = likeContaining(text)));
  return statement(db, programmesMatchingSql(query.substrings.length)).raw(true).iterate(params) as IterableIterator<ProgrammeTuple>;
}

/** The statement of iterateProgrammeTuplesMatching for `substrings` words (named parameters: @channels, @seriesIds, @titles, @like0…, @after). */
export function programmesMatchingSql(substrings: number): string {
  const branches = [
    `SELECT p.id FROM json_each(@channels) AS k JOIN programmes AS p
       ON p.guide_id = substr(k.value, 1, instr(k.value, char(9)) - 1) AND p.xmltv_channel = substr(k.value, instr(k.value, char(9)) + 1)`,
    'SELECT id FROM programmes WHERE series_id IN (SELECT value FROM json_each(@seriesIds))',
    'SELECT id FROM programmes WHERE title COLLATE NOCASE IN (SELECT value FROM json_each(@titles))',
  ];
  if (substrings > 0) {
    const terms = Array.from({ length: substrings }, (_, i) => `title LIKE @like${i} ESCAPE '\\' OR summary LIKE @like${i} ESCAPE '\\'`);
    branches.push(`SELECT id FROM programmes WHERE ${terms.join(' OR ')}`);
  }
  return `SELECT guide_id, ${PROGRAMME_FIELDS} FROM programmes WHERE id IN (${branches.join(' UNION ')}) AND stop > @after ORDER BY id`;
}

/**
 * Programme rows, as arrays, that end after `after` on `channelKeys` (`guide_id<TAB>xmltv_id`),
 * one channel at a time through the (guide, channel, start) index: for plans whose rules
 * look at channels only, a few hundred rows each instead of a pass over the whole guide.
 */
export function* iterateProgrammeTuplesOn(db: Db, after: number, channelKeys: readonly string[]): Generator<ProgrammeTuple> {
  const query = statement(db, `SELECT guide_id, ${PROGRAMME_FIELDS} FROM programmes WHERE guide_id = ? AND xmltv_channel = ? AND stop > ?`).raw(true);
  for (const key of channelKeys) {
    const [guideId, xmltvChannel] = key.split('\t');
    yield* query.iterate(guideId, xmltvChannel, after) as IterableIterator<ProgrammeTuple>;
  }
}

/**
 * One guide channel's programmes, as arrays, that end after `after` and start before
 * `before`, in time order, read whole: a caller that hands them on across event-loop
 * turns (a streamed export) must not hold a statement open, which would refuse every
 * write on the connection meanwhile.
 */
export function programmeTuplesOf(db: Db, channelKey: string, after: number, before: number): ProgrammeTuple[] {
  const [guideId, xmltvChannel] = channelKey.split('\t');
  return statement(db, `SELECT guide_id, ${PROGRAMME_FIELDS} FROM programmes WHERE guide_id = ? AND xmltv_channel = ? AND stop > ? AND start < ? ORDER BY start`)
    .raw(true)
    .all(guideId, xmltvChannel, after, before) as ProgrammeTuple[];
}

/** One guide channel's programmes overlapping [from, to), in time order. */
export function programmesBetween(db: Db, guideId: string, xmltvChannel: string, from: number, to: number): ProgrammeRow[] {
  return statement(
    db,
    `SELECT guide_id, ${PROGRAMME_FIELDS} FROM programmes
      WHERE guide_id = ? AND xmltv_channel = ? AND start < ? AND stop > ? ORDER BY start LIMIT 2000`,
  ).all(guideId, xmltvChannel, to, from) as ProgrammeRow[];
}

/** Drops programmes that ended before `before` (the guide keeps only what can still matter). */
export function deleteProgrammesEndedBefore(db: Db, before: number): number {
  return statement(db, 'DELETE FROM programmes WHERE stop < ?').run(before).changes;
}
