/**
 * The programme guide: configured XMLTV guides, their channels and programmes. A
 * refresh stages its programmes, places them beside the current ones under a generation
 * of its own in short transactions, and swaps them in by setting the guide's generation
 * (GuideWriter): readers see the old guide or the new one, never half, and a guide that
 * fails half-way leaves the old one whole. Every read of programmes takes only current
 * rows (currentRows, guide-writer.ts).
 */
import type { Db } from '../../db/database.js';
import { statement } from '../../db/row-codec.js';
import { currentRows, PROGRAMME_FIELDS } from './guide-writer.js';
import type { Origin } from './sources.repository.js';

export { GuideWriter } from './guide-writer.js';

const CURRENT_ROWS = currentRows();

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
  return (
    statement(db, 'UPDATE dvr_guides SET priority = ?, updated_at = ? WHERE id = ?').run(priority, now, id).changes > 0
  );
}

export function deleteGuide(db: Db, id: string): boolean {
  return statement(db, 'DELETE FROM dvr_guides WHERE id = ?').run(id).changes > 0;
}

export function removeConfigGuidesExcept(db: Db, keep: readonly string[]): void {
  for (const guide of listGuides(db))
    if (guide.origin === 'config' && !keep.includes(guide.id)) deleteGuide(db, guide.id);
}

/**
 * A guide's current programmes that end after `after` (epoch seconds): what a refresh is
 * judged against. Read by the refresh's own connection (a worker's): about 0.2 s for
 * 400,000 rows, which no index holds by guide, generation and stop together.
 */
export function countProgrammesEndingAfter(db: Db, guideId: string, after: number): number {
  return statement(
    db,
    'SELECT count(*) FROM programmes WHERE guide_id = ? AND stop > ? AND generation = (SELECT generation FROM dvr_guides WHERE id = ?)',
  )
    .pluck()
    .get(guideId, after, guideId) as number;
}

/**
 * A refresh not applied: why (`error`) and its kind (`rejected`: whether confirming would apply it), until one is
 * applied.
 */
export function setGuideError(
  db: Db,
  id: string,
  error: string,
  now = Date.now(),
  rejected: string | null = null,
): void {
  statement(db, 'UPDATE dvr_guides SET error = ?, rejected = ?, updated_at = ? WHERE id = ?').run(
    error,
    rejected,
    now,
    id,
  );
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
  return statement(
    db,
    `SELECT guide_id, ${PROGRAMME_FIELDS} FROM programmes WHERE stop > ? AND ${CURRENT_ROWS}`,
  ).iterate(after) as IterableIterator<ProgrammeRow>;
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

/** What a plan looks for in every programme: its channels (`guide_id<TAB>xmltv_id`), else `match` on its words. */
export interface GuideRowFilter {
  channelKeys: readonly string[];
  needsSummary: boolean;
  match: (title: string, summary: string | null, seriesId: string | null) => boolean;
}

const whereSql = (range: boolean) =>
  `SELECT guide_id, ${PROGRAMME_FIELDS} FROM programmes
    WHERE ${range ? 'id > ? AND id <= ? AND +stop > ?' : 'stop > ?'} AND ${CURRENT_ROWS}
      AND ((guide_id || char(9) || xmltv_channel) IN (SELECT value FROM json_each(?)) OR antenna_plan_match(title, CASE WHEN ? THEN summary END, series_id))`;

/** Runs `read` with the connection's antenna_plan_match calling `match`. */
function* matchingWith<T>(db: Db, match: GuideRowFilter['match'], read: () => Iterable<T>): Generator<T> {
  if (!withMatchFunction.has(db)) {
    db.function('antenna_plan_match', { deterministic: false, directOnly: true }, (title, summary, seriesId) => {
      const active = activeMatches.get(db);
      return active && active(String(title), summary as string | null, seriesId as string | null) ? 1 : 0;
    });
    withMatchFunction.add(db);
  }
  activeMatches.set(db, match);
  try {
    yield* read();
  } finally {
    activeMatches.delete(db);
  }
}

/**
 * Programme rows, as arrays, that end after `after` and either air on one of
 * `channelKeys` (`guide_id<TAB>xmltv_id`) or pass `match`. The match runs inside the
 * query, as an SQL function, so rows it rejects are never turned into JavaScript
 * values: on a 14-day guide that was most of a plan's time.
 */
export function iterateProgrammeTuplesWhere(db: Db, after: number, filter: GuideRowFilter): Generator<ProgrammeTuple> {
  return matchingWith(
    db,
    filter.match,
    () =>
      statement(db, whereSql(false))
        .raw(true)
        .iterate(
          after,
          JSON.stringify(filter.channelKeys),
          filter.needsSummary ? 1 : 0,
        ) as IterableIterator<ProgrammeTuple>,
  );
}

/**
 * The rows of iterateProgrammeTuplesWhere with `fromId < id <= toId`: a slice of the guide read in row order, to read
 * it a part at a time.
 */
export function programmeTuplesWhereIn(
  db: Db,
  after: number,
  filter: GuideRowFilter,
  fromId: number,
  toId: number,
): ProgrammeTuple[] {
  const rows = statement(db, whereSql(true)).raw(true);
  return [
    ...matchingWith(
      db,
      filter.match,
      () =>
        rows.all(
          fromId,
          toId,
          after,
          JSON.stringify(filter.channelKeys),
          filter.needsSummary ? 1 : 0,
        ) as ProgrammeTuple[],
    ),
  ];
}

/** The largest row id of programmes (0 when empty): where reading the guide a part at a time ends. */
export function largestProgrammeId(db: Db): number {
  return (statement(db, 'SELECT max(id) FROM programmes').pluck().get() as number | null) ?? 0;
}

/** Each guide's current generation, as one text: it changes when any guide's refresh is swapped in. */
export function guideGenerations(db: Db): string {
  return (
    (statement(
      db,
      "SELECT group_concat(id || '=' || generation, ' ') FROM (SELECT id, generation FROM dvr_guides ORDER BY id)",
    )
      .pluck()
      .get() as string | null) ?? ''
  );
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
export function iterateProgrammeTuplesMatching(
  db: Db,
  after: number,
  query: GuideQuery,
): IterableIterator<ProgrammeTuple> {
  const params: Record<string, string | number> = {
    channels: JSON.stringify(query.channelKeys),
    seriesIds: JSON.stringify(query.seriesIds),
    titles: JSON.stringify(query.titles),
    after,
  };
  query.substrings.forEach((text, i) => (params[`like${i}`] = likeContaining(text)));
  return statement(db, programmesMatchingSql(query.substrings.length))
    .raw(true)
    .iterate(params) as IterableIterator<ProgrammeTuple>;
}

/**
 * The statement of iterateProgrammeTuplesMatching for `substrings` words (named parameters: @channels, @seriesIds,
 * @titles, @like0…, @after).
 */
export function programmesMatchingSql(substrings: number): string {
  const branches = [
    `SELECT p.id FROM json_each(@channels) AS k JOIN programmes AS p
       ON p.guide_id = substr(k.value, 1, instr(k.value, char(9)) - 1) AND p.xmltv_channel = substr(k.value, instr(k.value, char(9)) + 1)`,
    'SELECT id FROM programmes WHERE series_id IN (SELECT value FROM json_each(@seriesIds))',
    'SELECT id FROM programmes WHERE title COLLATE NOCASE IN (SELECT value FROM json_each(@titles))',
  ];
  if (substrings > 0) {
    const terms = Array.from(
      { length: substrings },
      (_, i) => `title LIKE @like${i} ESCAPE '\\' OR summary LIKE @like${i} ESCAPE '\\'`,
    );
    branches.push(`SELECT id FROM programmes WHERE ${terms.join(' OR ')}`);
  }
  return `SELECT guide_id, ${PROGRAMME_FIELDS} FROM programmes WHERE id IN (${branches.join(' UNION ')}) AND stop > @after AND ${CURRENT_ROWS} ORDER BY id`;
}

/**
 * Programme rows, as arrays, that end after `after` on `channelKeys` (`guide_id<TAB>xmltv_id`),
 * one channel at a time through the (guide, channel, start) index: for plans whose rules
 * look at channels only, a few hundred rows each instead of a pass over the whole guide.
 */
export function* iterateProgrammeTuplesOn(
  db: Db,
  after: number,
  channelKeys: readonly string[],
): Generator<ProgrammeTuple> {
  const query = statement(
    db,
    `SELECT guide_id, ${PROGRAMME_FIELDS} FROM programmes WHERE guide_id = ? AND xmltv_channel = ? AND stop > ? AND ${CURRENT_ROWS}`,
  ).raw(true);
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
  return statement(
    db,
    `SELECT guide_id, ${PROGRAMME_FIELDS} FROM programmes WHERE guide_id = ? AND xmltv_channel = ? AND stop > ? AND start < ? AND ${CURRENT_ROWS} ORDER BY start`,
  )
    .raw(true)
    .all(guideId, xmltvChannel, after, before) as ProgrammeTuple[];
}

/** One guide channel's programmes overlapping [from, to), in time order. */
export function programmesBetween(
  db: Db,
  guideId: string,
  xmltvChannel: string,
  from: number,
  to: number,
): ProgrammeRow[] {
  return statement(
    db,
    `SELECT guide_id, ${PROGRAMME_FIELDS} FROM programmes
      WHERE guide_id = ? AND xmltv_channel = ? AND start < ? AND stop > ? AND ${CURRENT_ROWS} ORDER BY start LIMIT 2000`,
  ).all(guideId, xmltvChannel, to, from) as ProgrammeRow[];
}

/** Drops programmes that ended before `before` (the guide keeps only what can still matter). */
export function deleteProgrammesEndedBefore(db: Db, before: number): number {
  return statement(db, 'DELETE FROM programmes WHERE stop < ?').run(before).changes;
}
