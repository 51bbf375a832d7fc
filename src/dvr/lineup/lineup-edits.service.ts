/**
 * The lineup as the user shapes it: rename, renumber, hide, logo, group, favorite and the
 * guide a channel takes its programmes from, per channel and per group, and the guides'
 * priority. Edits are stored apart from what the sources say (channel-edits.repository.ts)
 * and applied again at every refresh (lineup-edits.ts). Rules follow a renumbered channel.
 * Every change asks for a new plan (a hidden channel records nothing; a renumbered one's
 * jobs carry its new number).
 */
import type { Static } from '@sinclair/typebox';
import { BadRequestError, ConflictError, NotFoundError } from '../../common/errors.js';
import type { Db } from '../../db/database.js';
import type { LineupChannelSchema, LineupEdit, LineupGroupSchema } from '../../model/dvr/lineup.schemas.js';
import {
  type ChannelEdit,
  getLineupChannel,
  type LineupRow,
  listLineup,
  saveEdit,
} from '../../repositories/dvr/channel-edits.repository.js';
import {
  getGuide,
  type GuideRow,
  listGuideChannels,
  setGuidePriority,
} from '../../repositories/dvr/guide.repository.js';
import { guideKey } from './guide-match.js';
import {
  editedFields,
  mayShare,
  type NumberedChannel,
  numberClashes,
  ownFields,
  stableKeys,
  storedNumber,
} from './lineup-edits.js';
import { lineupSnapshot } from './lineup-snapshot.js';

type LineupChannel = Static<typeof LineupChannelSchema>;
type LineupGroup = Static<typeof LineupGroupSchema>;

export interface LineupEditsOptions {
  /** Epoch milliseconds. */
  now: () => number;
  /** Called after every change: the plan is made again. */
  changed: () => void;
  /**
   * Moves rules that name a renumbered channel to its new number (old number -> new):
   * the planning wing's (RulesService.followRenumber), handed in so the lineup, below
   * planning, does not import it.
   */
  followRenumber: (moves: ReadonlyMap<string, string>) => void;
}

/** A channel as people name it in a message. */
const named = (row: Pick<LineupRow, 'id' | 'number' | 'name'>) => `${row.number} “${row.name}” (${row.id})`;

export class LineupEditsService {
  constructor(
    private readonly db: Db,
    private readonly options: LineupEditsOptions,
  ) {}

  /** Every channel, hidden ones too, in number order, with what its source says and what the user changed. */
  list(): LineupChannel[] {
    const guideOf = this.guideChannelsByNumber();
    const lineup = listLineup(this.db);
    const clashes = clashesOf(lineup);
    return lineup.map((row) => this.resource(row, guideOf, clashes));
  }

  get(id: string): LineupChannel {
    const row = this.row(id);
    return this.resource(row, this.guideChannelsByNumber(), clashesOf(listLineup(this.db)));
  }

  /**
   * Applies `change` to channel `id` (null fields go back to the source's); 404 unknown, 409
   * when a visible channel would share its number with one it may not (numberClashes). A
   * number two sources carry is one channel to a viewer: a visible channel's change goes
   * to each source's copy of it.
   */
  edit(id: string, change: LineupEdit): LineupChannel {
    const row = this.row(id);
    const lineup = listLineup(this.db);
    this.applyAll(copiesOf([row], lineup), () => change, lineup);
    this.options.changed();
    return this.get(id);
  }

  /** The groups: the user's, else the sources' group-titles, with how many channels each has and hides. */
  groups(): LineupGroup[] {
    const groups = new Map<string, LineupGroup>();
    for (const row of listLineup(this.db)) {
      if (row.group_title === null) continue;
      const group = groups.get(row.group_title) ?? { name: row.group_title, channels: 0, hidden: 0 };
      group.channels++;
      if (row.hidden === 1) group.hidden++;
      groups.set(row.group_title, group);
    }
    return [...groups.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Hides or shows every channel of a group (409 when one shown would share a number it may not); its channels. */
  setGroupHidden(group: string, hidden: boolean): LineupChannel[] {
    const lineup = listLineup(this.db);
    this.applyAll(this.groupRows(group, lineup), () => ({ hidden }), lineup);
    this.options.changed();
    return this.groupChannels(group);
  }

  /**
   * Numbers a group's visible channels start, start + 1, … in their order (each number
   * once: another source's copy of a channel, in the group or not, goes with it); 409
   * naming the channels that would share a number, and then nothing changes.
   */
  renumberGroup(group: string, start: number): LineupChannel[] {
    const lineup = listLineup(this.db);
    const numbers = [
      ...new Set(this.groupRows(group, lineup).flatMap((row) => (row.hidden === 0 ? [row.number] : []))),
    ];
    if (start + numbers.length - 1 > MAX_CHANNEL_NUMBER) {
      throw new BadRequestError(
        'start',
        `${numbers.length} channels from ${start} would go past ${MAX_CHANNEL_NUMBER}, the highest number rules can name: start at ${MAX_CHANNEL_NUMBER - numbers.length + 1} at most.`,
      );
    }
    const to = new Map(numbers.map((number, index) => [number, String(start + index)]));
    const visible = this.groupRows(group, lineup).filter((row) => row.hidden === 0);
    this.applyAll(copiesOf(visible, lineup), (row) => ({ number: to.get(row.number) ?? row.number }), lineup);
    this.options.changed();
    return this.groupChannels(group);
  }

  /**
   * Makes every visible channel numbered `number` a favorite, or no longer one (the player's favorite toggle); 404 when
   * none is.
   */
  setFavorite(number: string, favorite: boolean): void {
    const lineup = listLineup(this.db);
    const rows = lineup.filter((row) => row.number === number && row.hidden === 0);
    if (rows.length === 0) throw new NotFoundError('channel', number);
    this.applyAll(rows, () => ({ favorite }), lineup);
  }

  /** Where guides describe one channel, the first in priority order (lower first) gives its programmes. */
  setGuidePriority(guideId: string, priority: number): GuideRow {
    if (!setGuidePriority(this.db, guideId, priority, this.options.now())) throw new NotFoundError('guide', guideId);
    this.options.changed();
    return getGuide(this.db, guideId) as GuideRow;
  }

  private row(id: string): LineupRow {
    const row = getLineupChannel(this.db, id);
    if (!row) throw new NotFoundError('channel', id);
    return row;
  }

  private groupRows(group: string, lineup: readonly LineupRow[]): LineupRow[] {
    const rows = lineup.filter((row) => row.group_title === group);
    if (rows.length === 0) throw new NotFoundError('channel group', group);
    return rows;
  }

  private groupChannels(group: string): LineupChannel[] {
    const guideOf = this.guideChannelsByNumber();
    const lineup = listLineup(this.db);
    const clashes = clashesOf(lineup);
    return lineup.filter((row) => row.group_title === group).map((row) => this.resource(row, guideOf, clashes));
  }

  /**
   * Saves `changeOf(row)` for each of `rows` in one transaction, after checking the lineup
   * it makes (409 naming the channels that would share a number they may not); rules
   * naming a renumbered channel's old number follow it.
   */
  private applyAll(
    rows: readonly LineupRow[],
    changeOf: (row: LineupRow) => LineupEdit,
    lineup: readonly LineupRow[],
  ): void {
    const keys = stableKeysOf(lineup);
    const planned = rows.map((row) => ({ row, ...this.withChange(row, changeOf(row), keys.get(row.id) ?? null) }));
    const changed = new Map(
      planned.map(({ row, own }) => [row.id, { number: own.number, hidden: own.hidden ? 1 : 0 }]),
    );
    const after = lineup.map((row) => ({ ...row, ...changed.get(row.id) }));
    const before = new Map(lineup.flatMap((row) => (row.hidden === 0 ? [[row.id, row.number] as const] : [])));
    const involved = new Set(
      planned.flatMap(({ row, own }) =>
        own.number !== row.number || (row.hidden === 1 && !own.hidden) ? [row.id] : [],
      ),
    );
    refuseClashes(numberClashes(after, involved, before), lineup, after);
    const moves = new Map(
      planned.flatMap(({ row, own }) =>
        row.hidden === 0 && own.number !== row.number ? [[row.number, own.number] as const] : [],
      ),
    );
    const now = this.options.now();
    this.db
      .transaction(() => {
        for (const { row, next, own } of planned) saveEdit(this.db, row.source_id, row.id, next, own, now);
        if (moves.size > 0) this.rulesFollow(moves, new Set(changed.keys()));
      })
      .immediate();
  }

  /** The channel's edit with `change` applied, and what the channel becomes with it. */
  private withChange(row: LineupRow, change: LineupEdit, key: string | null) {
    const next = this.changed(editOf(row, key), change);
    const offered = {
      number: row.source_number,
      name: row.source_name,
      image_url: row.source_logo ?? undefined,
      group_title: row.source_group ?? undefined,
    };
    return { next, own: ownFields(offered, { ...next, id: next.id ?? 0 }) };
  }

  /** The edit with `change` applied; checks that the guides and guide channels it names exist (404). */
  private changed<E extends Omit<ChannelEdit, 'id'>>(edit: E, change: LineupEdit): E {
    const next = { ...edit };
    if (change.number !== undefined)
      next.number =
        change.number === null || storedNumber(change.number) === edit.source_number
          ? null
          : storedNumber(change.number);
    if (change.name !== undefined)
      next.name = change.name === null || change.name.trim() === '' ? null : change.name.trim();
    if (change.logo !== undefined) next.logo = change.logo;
    if (change.group !== undefined)
      next.group_name = change.group === null || change.group.trim() === '' ? null : change.group.trim();
    if (change.hidden !== undefined) next.hidden = change.hidden ? 1 : null;
    if (change.favorite !== undefined) next.favorite = change.favorite ? 1 : null;
    if (change.guide_channel !== undefined)
      next.guide_channel = change.guide_channel === null ? null : this.knownGuideChannel(change.guide_channel);
    if (change.guide_priority !== undefined)
      next.guide_priority =
        change.guide_priority === null ? null : JSON.stringify(this.knownGuides(change.guide_priority));
    return next;
  }

  private knownGuideChannel(ref: { guide_id: string; xmltv_id: string }): string {
    const key = guideKey(ref.guide_id, ref.xmltv_id);
    if (!listGuideChannels(this.db).some((gc) => guideKey(gc.guide_id, gc.xmltv_id) === key)) {
      throw new NotFoundError('guide channel', `${ref.xmltv_id} in guide ${ref.guide_id}`);
    }
    return key;
  }

  private knownGuides(ids: readonly string[]): string[] {
    for (const id of ids) if (!getGuide(this.db, id)) throw new NotFoundError('guide', id);
    return [...new Set(ids)];
  }

  /**
   * Rules naming a renumbered channel's old number name its new one, all at once (so a
   * shift 5→6, 6→7 moves each rule once), unless a channel that kept its number (another
   * source's, say) still has the old one.
   */
  private rulesFollow(moves: ReadonlyMap<string, string>, movedIds: ReadonlySet<string>): void {
    const kept = new Set(
      listLineup(this.db).flatMap((row) => (row.hidden === 0 && !movedIds.has(row.id) ? [row.number] : [])),
    );
    const followed = new Map([...moves].filter(([from, to]) => from !== to && !kept.has(from)));
    if (followed.size > 0) this.options.followRenumber(followed);
  }

  /** The guide channel each visible channel number takes its programmes from. */
  private guideChannelsByNumber(): Map<string, { guide_id: string; xmltv_id: string }> {
    const byNumber = new Map<string, { guide_id: string; xmltv_id: string }>();
    for (const [key, numbers] of lineupSnapshot(this.db).guideMap) {
      const [guideId = '', xmltvId = ''] = key.split('\t');
      for (const number of numbers) byNumber.set(number, { guide_id: guideId, xmltv_id: xmltvId });
    }
    return byNumber;
  }

  private resource(
    row: LineupRow,
    guideOf: ReadonlyMap<string, { guide_id: string; xmltv_id: string }>,
    clashes: ReadonlyMap<string, string>,
  ): LineupChannel {
    const edit = row.edit ?? undefined;
    const clash = clashes.get(row.id);
    const guide = row.hidden === 0 ? guideOf.get(row.number) : undefined;
    const [guideId, xmltvId] = row.guide_channel?.split('\t') ?? [];
    return {
      id: row.id,
      source_id: row.source_id,
      number: row.number,
      name: row.name,
      ...(row.image_url ? { logo: row.image_url } : {}),
      ...(row.group_title ? { group: row.group_title } : {}),
      hidden: row.hidden === 1,
      favorite: row.favorited === 1,
      ...(guide ? { guide } : {}),
      placeholder: row.hidden === 0 && !guide,
      ...(guideId && xmltvId ? { guide_channel: { guide_id: guideId, xmltv_id: xmltvId } } : {}),
      ...(row.guide_priority ? { guide_priority: JSON.parse(row.guide_priority) as string[] } : {}),
      source: {
        number: row.source_number,
        name: row.source_name,
        ...(row.source_logo ? { logo: row.source_logo } : {}),
        ...(row.source_group ? { group: row.source_group } : {}),
        ...(row.guide_id ? { guide_id: row.guide_id } : {}),
      },
      edited: editedFields(edit),
      ...(clash ? { number_clash: clash } : {}),
    };
  }
}

/** The highest channel number rules can name (their schema: 5 digits). */
const MAX_CHANNEL_NUMBER = 99999;

/**
 * `rows` and, for each visible one, its copies at other sources: the visible channels with
 * its number that are the same channel to a viewer (mayShare), not another channel a
 * refresh landed on that number.
 */
function copiesOf(rows: readonly LineupRow[], lineup: readonly LineupRow[]): LineupRow[] {
  const ids = new Set(rows.map((row) => row.id));
  const byNumber = new Map<string, LineupRow[]>();
  for (const row of rows) if (row.hidden === 0) byNumber.set(row.number, [...(byNumber.get(row.number) ?? []), row]);
  const copies = lineup.filter(
    (other) =>
      !ids.has(other.id) &&
      other.hidden === 0 &&
      (byNumber.get(other.number) ?? []).some((row) => mayShare(row, other)),
  );
  return [...rows, ...copies];
}

/** Each channel's stable id at its source (stableKeys, per source), by channel id. */
function stableKeysOf(lineup: readonly LineupRow[]): Map<string, string | null> {
  const bySource = new Map<string, LineupRow[]>();
  for (const row of lineup) bySource.set(row.source_id, [...(bySource.get(row.source_id) ?? []), row]);
  const keys = new Map<string, string | null>();
  for (const rows of bySource.values()) {
    const found = stableKeys(rows.map((row) => (row.guide_id === null ? {} : { guide_id: row.guide_id })));
    rows.forEach((row, index) => keys.set(row.id, found[index] ?? null));
  }
  return keys;
}

/**
 * The channel's edit, or a new one; either way finding it again by `key` (its stable id, when it has one) or number and
 * name.
 */
function editOf(row: LineupRow, key: string | null): Omit<ChannelEdit, 'id'> & { id: number | null } {
  const identity = { source_key: key, source_number: row.source_number, source_name: row.source_name };
  if (row.edit) return { ...row.edit, ...identity };
  const blank = {
    number: null,
    name: null,
    logo: null,
    group_name: null,
    hidden: null,
    favorite: null,
    guide_channel: null,
    guide_priority: null,
  };
  return { id: null, ...identity, ...blank };
}

/**
 * Each visible channel the user numbered that shares its number with one it may not, and that one's id (no before: as a
 * refresh left it).
 */
function clashesOf(lineup: readonly LineupRow[]): Map<string, string> {
  const involved = new Set(lineup.flatMap((row) => (row.number !== row.source_number ? [row.id] : [])));
  return new Map(
    numberClashes(lineup, involved).flatMap(([id, other]) => [[id, other] as const, [other, id] as const]),
  );
}

/** 409 naming both channels of each clash (the first three), as they are now, and the number they would share. */
function refuseClashes(
  clashes: readonly [string, string][],
  now: readonly LineupRow[],
  after: readonly NumberedChannel[],
): void {
  if (clashes.length === 0) return;
  const current = new Map(now.map((row) => [row.id, row]));
  const next = new Map(after.map((row) => [row.id, row]));
  const name = (id: string) => {
    const row = current.get(id);
    return row ? named(row) : id;
  };
  const said = clashes.slice(0, 3).map(([id, other]) => {
    const number = next.get(id)?.number ?? '';
    const holderMoves =
      next.get(other)?.number !== current.get(other)?.number || next.get(other)?.hidden !== current.get(other)?.hidden;
    return `${name(id)} would be ${number}, which ${name(other)} ${holderMoves ? 'would be too' : 'has'}`;
  });
  const more = clashes.length > 3 ? ` (and ${clashes.length - 3} more)` : '';
  throw new ConflictError(
    'number_taken',
    `${said.join('; ')}${more}. Renumber or hide the other channel first, or choose another number.`,
  );
}
