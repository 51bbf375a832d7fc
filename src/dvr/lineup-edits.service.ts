/**
 * The lineup as the user shapes it: rename, renumber, hide, logo, group, favorite and the
 * guide a channel takes its programmes from, per channel and per group, and the guides'
 * priority. Edits are stored apart from what the sources say (channel-edits.repository.ts)
 * and applied again at every refresh (lineup-edits.ts). Rules follow a renumbered channel.
 * Every change asks for a new plan (a hidden channel records nothing; a renumbered one's
 * jobs carry its new number).
 */
import type { Static } from '@sinclair/typebox';
import { ConflictError, NotFoundError } from '../common/errors.js';
import type { Db } from '../db/database.js';
import type { LineupChannelSchema, LineupEdit, LineupGroupSchema } from '../model/lineup.schemas.js';
import { type ChannelEdit, getEdit, getLineupChannel, type LineupRow, listLineup, otherGuideIdsOfSource, saveEdit } from '../repositories/channel-edits.repository.js';
import { getGuide, type GuideRow, listGuideChannels, setGuidePriority } from '../repositories/guide.repository.js';
import { guideKey } from './guide-match.js';
import { editedFields, numberClashes, ownFields, storedNumber } from './lineup-edits.js';
import { lineupSnapshot } from './lineup-snapshot.js';
import type { RulesService } from './rules.service.js';

type LineupChannel = Static<typeof LineupChannelSchema>;
type LineupGroup = Static<typeof LineupGroupSchema>;

export interface LineupEditsOptions {
  /** Epoch milliseconds. */
  now: () => number;
  /** Called after every change: the plan is made again. */
  changed: () => void;
  rules: RulesService;
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
    return listLineup(this.db).map((row) => this.resource(row, guideOf));
  }

  get(id: string): LineupChannel {
    return this.resource(this.row(id), this.guideChannelsByNumber());
  }

  /** Applies `change` to channel `id` (null fields go back to the source's); 404 unknown, 409 a number a visible channel has. */
  edit(id: string, change: LineupEdit): LineupChannel {
    const row = this.row(id);
    const { next, own } = this.withChange(row, change);
    const renumbered = own.number !== row.number;
    if (renumbered && !own.hidden) this.refuseClashes(new Map([[row.id, own.number]]));
    this.db.transaction(() => {
      saveEdit(this.db, row.source_id, row.id, next, own, this.options.now());
      if (renumbered) this.rulesFollow(new Map([[row.number, own.number]]), new Set([row.id]));
    })();
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

  /** Hides or shows every channel of a group; its channels. */
  setGroupHidden(group: string, hidden: boolean): LineupChannel[] {
    const rows = this.groupRows(group);
    this.db.transaction(() => {
      for (const row of rows) this.saveChange(row, { hidden });
    })();
    this.options.changed();
    return this.groupChannels(group);
  }

  /** Numbers a group's visible channels start, start + 1, … in their order; 409 naming the channels that would share a number. */
  renumberGroup(group: string, start: number): LineupChannel[] {
    const rows = this.groupRows(group).filter((row) => row.hidden === 0);
    const numbers = new Map(rows.map((row, index) => [row.id, String(start + index)]));
    this.refuseClashes(numbers);
    this.db.transaction(() => {
      for (const row of rows) this.saveChange(row, { number: numbers.get(row.id) ?? row.number });
      this.rulesFollow(new Map(rows.map((row) => [row.number, numbers.get(row.id) ?? row.number])), new Set(numbers.keys()));
    })();
    this.options.changed();
    return this.groupChannels(group);
  }

  /** Makes every visible channel numbered `number` a favorite, or no longer one (the player's favorite toggle); 404 when none is. */
  setFavorite(number: string, favorite: boolean): void {
    const rows = listLineup(this.db).filter((row) => row.number === number && row.hidden === 0);
    if (rows.length === 0) throw new NotFoundError('channel', number);
    this.db.transaction(() => {
      for (const row of rows) this.saveChange(row, { favorite });
    })();
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

  private groupRows(group: string): LineupRow[] {
    const rows = listLineup(this.db).filter((row) => row.group_title === group);
    if (rows.length === 0) throw new NotFoundError('channel group', group);
    return rows;
  }

  private groupChannels(group: string): LineupChannel[] {
    const guideOf = this.guideChannelsByNumber();
    return listLineup(this.db)
      .filter((row) => row.group_title === group)
      .map((row) => this.resource(row, guideOf));
  }

  /** One change saved (inside the caller's transaction), without the checks edit() makes. */
  private saveChange(row: LineupRow, change: LineupEdit): void {
    const { next, own } = this.withChange(row, change);
    saveEdit(this.db, row.source_id, row.id, next, own, this.options.now());
  }

  /** The channel's edit with `change` applied, and what the channel becomes with it. */
  private withChange(row: LineupRow, change: LineupEdit) {
    const next = this.changed(this.editOf(row), change);
    const offered = { number: row.source_number, name: row.source_name, image_url: row.source_logo ?? undefined, group_title: row.source_group ?? undefined };
    return { next, own: ownFields(offered, { ...next, id: next.id ?? 0 }) };
  }

  /** The channel's edit, or a new one that finds it again by its stable id (when it is the only one) or number and name. */
  private editOf(row: LineupRow): Omit<ChannelEdit, 'id'> & { id: number | null } {
    const stored = row.edit_id === null ? undefined : getEdit(this.db, row.edit_id);
    const key = row.guide_id !== null && !otherGuideIdsOfSource(this.db, row.source_id, row.id).has(row.guide_id) ? row.guide_id : null;
    const identity = { source_key: key, source_number: row.source_number, source_name: row.source_name };
    if (stored) return { ...stored, ...identity };
    const blank = { number: null, name: null, logo: null, group_name: null, hidden: null, favorite: null, guide_channel: null, guide_priority: null };
    return { id: null, ...identity, ...blank };
  }

  /** The edit with `change` applied; checks that the guides and guide channels it names exist (404). */
  private changed<E extends Omit<ChannelEdit, 'id'>>(edit: E, change: LineupEdit): E {
    const next = { ...edit };
    if (change.number !== undefined) next.number = change.number === null || storedNumber(change.number) === edit.source_number ? null : storedNumber(change.number);
    if (change.name !== undefined) next.name = change.name === null || change.name.trim() === '' ? null : change.name.trim();
    if (change.logo !== undefined) next.logo = change.logo;
    if (change.group !== undefined) next.group_name = change.group === null ? null : change.group.trim();
    if (change.hidden !== undefined) next.hidden = change.hidden ? 1 : null;
    if (change.favorite !== undefined) next.favorite = change.favorite ? 1 : null;
    if (change.guide_channel !== undefined) next.guide_channel = change.guide_channel === null ? null : this.knownGuideChannel(change.guide_channel);
    if (change.guide_priority !== undefined) next.guide_priority = change.guide_priority === null ? null : JSON.stringify(this.knownGuides(change.guide_priority));
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

  /** 409 naming both channels when a renumbered channel would share its number with a visible one. */
  private refuseClashes(numbers: ReadonlyMap<string, string>): void {
    const visible = listLineup(this.db).filter((row) => row.hidden === 0);
    const clashes = numberClashes(numbers, visible);
    if (clashes.length === 0) return;
    const byId = new Map(visible.map((row) => [row.id, row]));
    const said = clashes.slice(0, 3).map(([id, other]) => {
      const moved = byId.get(id);
      const holder = byId.get(other);
      return `${moved ? named(moved) : id} would be ${numbers.get(id)}, which ${holder ? named(holder) : other} has`;
    });
    const more = clashes.length > 3 ? ` (and ${clashes.length - 3} more)` : '';
    throw new ConflictError('number_taken', `${said.join('; ')}${more}. Renumber or hide the other channel first, or choose another number.`);
  }

  /**
   * Rules naming a renumbered channel's old number name its new one, all at once (so a
   * shift 5→6, 6→7 moves each rule once), unless a channel that kept its number (another
   * source's, say) still has the old one.
   */
  private rulesFollow(moves: ReadonlyMap<string, string>, movedIds: ReadonlySet<string>): void {
    const kept = new Set(listLineup(this.db).flatMap((row) => (row.hidden === 0 && !movedIds.has(row.id) ? [row.number] : [])));
    const followed = new Map([...moves].filter(([from, to]) => from !== to && !kept.has(from)));
    if (followed.size > 0) this.options.rules.followRenumber(followed);
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

  private resource(row: LineupRow, guideOf: ReadonlyMap<string, { guide_id: string; xmltv_id: string }>): LineupChannel {
    const edit = row.edit_id === null ? undefined : getEdit(this.db, row.edit_id);
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
    };
  }
}
