/**
 * The user's lineup edits, kept apart from what the sources say: how a refreshed
 * channel finds its edit again, and what a channel is once its edit is applied. Pure.
 *
 * A channel is found again by the source's stable id for it, else by its number and
 * name at the source. The stable id is an M3U entry's tvg-id, when no other entry of
 * the playlist has the same one (one tvg-id often names the HD and SD feeds of a
 * channel, and then says nothing about which is which); an HDHomeRun has none (its
 * GuideNumber is the number). So a provider may renumber, rename and reorder channels
 * with tvg-ids, and rename or renumber (one of the two at a time) those without.
 */
import type { ChannelEdit } from '../repositories/channel-edits.repository.js';
import type { ChannelOwnFields, EditIdentity, RefreshedChannel, SourceChannel } from '../repositories/sources.repository.js';

export type { ChannelEdit, ChannelOwnFields, EditIdentity };

const sameName = (a: string, b: string) => a.toLowerCase().replace(/\s+/g, ' ').trim() === b.toLowerCase().replace(/\s+/g, ' ').trim();

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
export function ownFields(channel: Pick<SourceChannel, 'number' | 'name' | 'image_url' | 'group_title'>, edit: ChannelEdit | undefined): ChannelOwnFields {
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
 * A refresh's channels with the user's edits applied, the edits' new identities (the
 * channel's number, name and stable id at the source now), and the channels whose
 * user number another visible channel of the refresh also has: [edited, other] names.
 */
export function withEdits(
  channels: readonly SourceChannel[],
  edits: readonly ChannelEdit[],
): { channels: RefreshedChannel[]; identities: EditIdentity[]; clashes: [string, string][] } {
  const matched = matchEdits(edits, channels);
  const keys = stableKeys(channels);
  const refreshed = channels.map((channel, index) => ({ ...channel, own: ownFields(channel, matched[index]) }));
  const identities = channels.flatMap((channel, index) => {
    const edit = matched[index];
    return edit ? [{ id: edit.id, source_key: keys[index] ?? null, source_number: channel.number, source_name: channel.name }] : [];
  });
  const renumbered = new Map<string, string>();
  const visible: { id: string; number: string }[] = [];
  for (const channel of refreshed) {
    if (channel.own.hidden) continue;
    const label = `${channel.own.name} (${channel.number} at the source)`;
    if (channel.own.number !== channel.number) renumbered.set(label, channel.own.number);
    else visible.push({ id: label, number: channel.number });
  }
  return { channels: refreshed, identities, clashes: numberClashes(renumbered, visible) };
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

/**
 * The channels of `numbered` (id → its new number) that would share a number with a
 * visible channel outside them or with one another: [the renumbered, the other] pairs.
 */
export function numberClashes(
  numbered: ReadonlyMap<string, string>,
  visible: readonly { id: string; number: string }[],
): [string, string][] {
  const holder = new Map<string, string>();
  for (const channel of visible) if (!numbered.has(channel.id) && !holder.has(channel.number)) holder.set(channel.number, channel.id);
  const clashes: [string, string][] = [];
  for (const [id, number] of numbered) {
    const other = holder.get(number);
    if (other !== undefined) clashes.push([id, other]);
    else holder.set(number, id);
  }
  return clashes;
}
