/**
 * How the Channels page reads the lineup: which channels a filter keeps, where the user
 * changed what the source offers (and what the source offers there), and the words for
 * groups and numbers. Pure functions over GET /dvr/lineup's channels, unit-tested.
 */
import type { LineupChannel, LineupGroup } from '../../api/server-types';

export type Shown = 'all' | 'visible' | 'hidden' | 'favorites';

export interface LineupFilter {
  /** A group's name; undefined: every group. */
  group?: string | undefined;
  shown: Shown;
  /** Matches a number from its start or a name anywhere, ignoring case. */
  text: string;
}

const SHOWN: Record<Shown, (channel: LineupChannel) => boolean> = {
  all: () => true,
  visible: (channel) => !channel.hidden,
  hidden: (channel) => channel.hidden,
  favorites: (channel) => channel.favorite,
};

export function filterChannels(channels: readonly LineupChannel[], filter: LineupFilter): LineupChannel[] {
  const text = filter.text.trim().toLowerCase();
  const shown = SHOWN[filter.shown];
  return channels.filter(
    (channel) =>
      (filter.group === undefined || channel.group === filter.group) &&
      shown(channel) &&
      (text === '' || channel.number.startsWith(text) || channel.name.toLowerCase().includes(text)),
  );
}

/** The fields of a channel the page edits and resets. */
export type ResettableField = 'number' | 'name' | 'group';

export interface SourceValue {
  field: ResettableField;
  /** What the source offers there ("no group" when it offers none). */
  source: string;
}

/**
 * Where the user changed the number, name or group from what the source offers, with the source's value; in that order.
 */
export function sourceValues(channel: Pick<LineupChannel, 'edited' | 'source'>): SourceValue[] {
  const fields: ResettableField[] = ['number', 'name', 'group'];
  return fields
    .filter((field) => channel.edited.includes(field))
    .map((field) => ({ field, source: channel.source[field] ?? 'no group' }));
}

/** "News: 12 channels, 3 hidden". */
export function groupLabel(group: LineupGroup): string {
  const hidden =
    group.hidden === 0 ? '' : group.hidden === group.channels ? ', all hidden' : `, ${group.hidden} hidden`;
  return `${group.name}: ${group.channels} ${group.channels === 1 ? 'channel' : 'channels'}${hidden}`;
}

/** A renumbering's first number as typed: a whole number from 1 to 999999, or why not. */
export function parseStart(text: string): { start: number } | { problem: string } {
  const value = text.trim();
  const start = /^\d{1,6}$/.test(value) ? Number(value) : Number.NaN;
  return start >= 1 && start <= 999_999
    ? { start }
    : { problem: 'The first number is a whole number from 1 to 999999.' };
}

/** A channel's number and name as a person reads them together: "7 Seven". */
export const channelLabel = (channel: Pick<LineupChannel, 'number' | 'name'>) => `${channel.number} ${channel.name}`;

/** How many of `channels` are hidden, in words: "1,000 channels, 12 hidden". */
export function lineupCount(channels: readonly Pick<LineupChannel, 'hidden'>[]): string {
  const hidden = channels.filter((channel) => channel.hidden).length;
  const count = channels.length.toLocaleString('en-US');
  return `${count} ${channels.length === 1 ? 'channel' : 'channels'}${hidden > 0 ? `, ${hidden.toLocaleString('en-US')} hidden` : ''}`;
}

/** What a saved change did, in one sentence, from the channel before and as the server answered it. */
export function describeChange(
  before: LineupChannel,
  after: LineupChannel,
  field: ResettableField | 'hidden' | 'favorite',
): string {
  const reset = !after.edited.includes(field);
  switch (field) {
    case 'number':
      return reset
        ? `${after.name} has its source’s number again: ${after.number}.`
        : `${after.name} is now channel ${after.number} (it was ${before.number}).`;
    case 'name':
      return reset
        ? `Channel ${after.number} has its source’s name again: ${after.name}.`
        : `Channel ${after.number} is now called ${after.name} (it was ${before.name}).`;
    case 'group':
      return `${channelLabel(after)} is in ${after.group ? `the group ${after.group}` : 'no group'} again, as its source has it.`;
    case 'hidden':
      return after.hidden
        ? `${channelLabel(after)} is hidden: it leaves the guide, Live TV, recording and the exports.`
        : `${channelLabel(after)} is shown again.`;
    case 'favorite':
      return after.favorite
        ? `${channelLabel(after)} is a favorite.`
        : `${channelLabel(after)} is no longer a favorite.`;
  }
}

/** What a group's change did, in one sentence. */
export function describeGroupChange(
  group: string,
  action: 'hide' | 'show' | 'renumber',
  channels: readonly LineupChannel[],
  start?: number,
): string {
  const count = (n: number, what = 'channel') => `${n} ${what}${n === 1 ? '' : 's'}`;
  if (action === 'hide') return `${group}: its ${count(channels.length)} hidden.`;
  if (action === 'show') return `${group}: its ${count(channels.length)} shown.`;
  const visible = channels.filter((channel) => !channel.hidden).length;
  return `${group}: its ${count(visible, 'visible channel')} numbered from ${start ?? ''}.`;
}
