/**
 * The user's lineup edits, kept apart from what the sources say: how a refreshed
 * channel finds its edit again, and what a channel is once its edit is applied. Pure.
 *
 * A channel is found again by the source's stable id for it, else by its number and
 * name at the source. The stable id is an M3U entry's tvg-id, when no other entry of
 * the playlist has the same one (one tvg-id often names the HD and SD feeds of a
 * channel, and then says nothing about which is which); an HDHomeRun has none (its
 * GuideNumber is the number). So a provider may renumber, rename and reorder channels
 * with tvg-ids; one without a tvg-id is found again only while it keeps both its number
 * and its name at the source.
 */
import type { ChannelEdit } from '../../repositories/dvr/channel-edits.repository.js';
import type {
  ChannelOwnFields,
  EditIdentity,
  RefreshedChannel,
  SourceChannel,
} from '../../repositories/dvr/sources.repository.js';

export type { ChannelEdit, ChannelOwnFields, EditIdentity };

const sameName = (a: string, b: string) =>
  a.toLowerCase().replace(/\s+/g, ' ').trim() === b.toLowerCase().replace(/\s+/g, ' ').trim();

/** Channel numbers as stored: 7-1 and 7_1 → 7.1, leading zeros gone (007.01 → 7.1). */
export function storedNumber(text: string): string {
  const [major = '', minor] = text.trim().split(/[.\-_]/);
  const strip = (part: string) => part.replace(/^0+(?=\d)/, '');
  return minor === undefined ? strip(major) : `${strip(major)}.${strip(minor)}`;
}

/** Each channel's stable id at its source: its tvg-id when no other channel of the refresh has it. */
export function stableKeys(channels: readonly Pick<SourceChannel, 'guide_id'>[]): (string | undefined)[] {
  const counts = new Map<string, number>();
  for (const { guide_id: key } of channels) if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
  return channels.map(({ guide_id: key }) => (key && counts.get(key) === 1 ? key : undefined));
}

/**
 * The edit of each channel of a refresh (by index), or undefined. Edits with a stable id
 * take the channel with that id first; every edit left then takes the channel left with
 * its number and name. An edit finds at most one channel, a channel at most one edit.
 */
export function matchEdits<E extends Pick<ChannelEdit, 'source_key' | 'source_number' | 'source_name'>>(
  edits: readonly E[],
  channels: readonly Pick<SourceChannel, 'number' | 'name' | 'guide_id'>[],
): (E | undefined)[] {
  const keys = stableKeys(channels);
  const matched: (E | undefined)[] = channels.map(() => undefined);
  const byKey = new Map<string, number>();
  keys.forEach((key, index) => key !== undefined && byKey.set(key, index));
  const left: E[] = [];
  for (const edit of edits) {
    const index = edit.source_key === null ? undefined : byKey.get(edit.source_key);
    if (index !== undefined && matched[index] === undefined) matched[index] = edit;
    else left.push(edit);
  }
  const byNumber = new Map<string, number>();
  channels.forEach((channel, index) => matched[index] === undefined && byNumber.set(channel.number, index));
  for (const edit of left) {
    const index = byNumber.get(edit.source_number);
    if (index === undefined || matched[index] !== undefined) continue;
    if (!sameName(channels[index]?.name ?? '', edit.source_name)) continue;
    matched[index] = edit;
  }
  return matched;
}

/** A channel with its edit applied. */
export function ownFields(
  channel: Pick<SourceChannel, 'number' | 'name' | 'image_url' | 'group_title'>,
  edit: ChannelEdit | undefined,
): ChannelOwnFields {
  return {
    number: edit?.number ?? channel.number,
    name: edit?.name ?? channel.name,
    image_url: edit?.logo ?? channel.image_url ?? null,
    group_title: edit?.group_name ?? channel.group_title ?? null,
    hidden: edit?.hidden === 1,
    favorite: edit?.favorite === 1,
    guide_channel: edit?.guide_channel ?? null,
    guide_priority: edit?.guide_priority ?? null,
    edit_id: edit?.id ?? null,
  };
}

/**
 * A refresh's channels with the user's edits applied, and the edits' new identities (the
 * channel's number, name and stable id at the source now).
 */
export function withEdits(
  channels: readonly SourceChannel[],
  edits: readonly ChannelEdit[],
): { channels: RefreshedChannel[]; identities: EditIdentity[] } {
  const matched = matchEdits(edits, channels);
  const keys = stableKeys(channels);
  const refreshed = channels.map((channel, index) => ({ ...channel, own: ownFields(channel, matched[index]) }));
  const identities = channels.flatMap((channel, index) => {
    const edit = matched[index];
    return edit
      ? [{ id: edit.id, source_key: keys[index] ?? null, source_number: channel.number, source_name: channel.name }]
      : [];
  });
  return { channels: refreshed, identities };
}

/** The fields of an edit the user set, as the lineup lists them. */
export function editedFields(edit: ChannelEdit | undefined): string[] {
  if (!edit) return [];
  const fields: [string, unknown][] = [
    ['number', edit.number],
    ['name', edit.name],
    ['logo', edit.logo],
    ['group', edit.group_name],
    ['hidden', edit.hidden],
    ['favorite', edit.favorite],
    ['guide_channel', edit.guide_channel],
    ['guide_priority', edit.guide_priority],
  ];
  return fields.filter(([, value]) => value !== null && value !== 0).map(([name]) => name);
}

/** A channel as the number rules see it. */
export interface NumberedChannel {
  id: string;
  number: string;
  source_id: string;
  source_number: string;
  hidden: number;
}

/**
 * Whether two visible channels may have one number. A number two sources carry is one
 * channel to a viewer (the DVR picks the source), so two sources' channels may share a
 * number each has from its source, or one they shared before the change (`before`); with
 * no before (a refresh), one the user gave both. Two channels of one source never may.
 */
export function mayShare(a: NumberedChannel, b: NumberedChannel, before?: ReadonlyMap<string, string>): boolean {
  if (a.source_id === b.source_id) return false;
  const ownA = a.number === a.source_number;
  const ownB = b.number === b.source_number;
  if (!before) return ownA === ownB;
  const wasA = before.get(a.id);
  return (wasA !== undefined && wasA === before.get(b.id)) || (ownA && ownB);
}

/**
 * In a lineup as it would be (`after`), the visible channels of `involved` that would
 * share their number with a visible channel they may not (mayShare): [involved, other]
 * pairs, each pair once. `before`: each channel's visible number before the change.
 */
export function numberClashes(
  after: readonly NumberedChannel[],
  involved: ReadonlySet<string>,
  before?: ReadonlyMap<string, string>,
): [string, string][] {
  const byNumber = new Map<string, NumberedChannel[]>();
  for (const channel of after) {
    if (channel.hidden !== 0) continue;
    const list = byNumber.get(channel.number);
    if (list) list.push(channel);
    else byNumber.set(channel.number, [channel]);
  }
  const clashes: [string, string][] = [];
  const said = new Set<string>();
  for (const channels of byNumber.values()) {
    if (channels.length < 2) continue;
    for (const a of channels) {
      if (!involved.has(a.id)) continue;
      for (const b of channels) {
        if (a === b || mayShare(a, b, before) || said.has(`${b.id}\n${a.id}`)) continue;
        said.add(`${a.id}\n${b.id}`);
        clashes.push([a.id, b.id]);
        break;
      }
    }
  }
  return clashes;
}
