/**
 * The Channels page's reading of the lineup: filters, the source's values where the user changed one, and its
 * sentences.
 */
import { describe, expect, it } from 'vitest';
import type { LineupChannel } from '../src/api/server-types';
import {
  describeChange,
  describeGroupChange,
  filterChannels,
  groupLabel,
  lineupCount,
  parseStart,
  sourceValues,
} from '../src/sections/settings/lineup-view';

const channel = (fields: Partial<LineupChannel> & Pick<LineupChannel, 'number' | 'name'>): LineupChannel => ({
  id: `s:${fields.number}`,
  source_id: 's',
  hidden: false,
  placeholder: false,
  favorite: false,
  edited: [],
  source: { number: fields.number, name: fields.name },
  ...fields,
});

const lineup = [
  channel({ number: '5', name: 'Five' }),
  channel({ number: '7', name: 'Seven', group: 'News', favorite: true }),
  channel({ number: '71', name: 'Shop', group: 'Shopping', hidden: true }),
  channel({ number: '12.1', name: 'News Twelve', group: 'News' }),
];
const numbers = (list: LineupChannel[]) => list.map((c) => c.number);

describe('the Channels page', () => {
  it('filters by group, by what is shown, and by a number from its start or a name anywhere', () => {
    expect(numbers(filterChannels(lineup, { shown: 'all', text: '' }))).toEqual(['5', '7', '71', '12.1']);
    expect(numbers(filterChannels(lineup, { group: 'News', shown: 'all', text: '' }))).toEqual(['7', '12.1']);
    expect(numbers(filterChannels(lineup, { shown: 'visible', text: '' }))).toEqual(['5', '7', '12.1']);
    expect(numbers(filterChannels(lineup, { shown: 'hidden', text: '' }))).toEqual(['71']);
    expect(numbers(filterChannels(lineup, { shown: 'favorites', text: '' }))).toEqual(['7']);
    expect(numbers(filterChannels(lineup, { shown: 'all', text: '7' }))).toEqual(['7', '71']);
    expect(numbers(filterChannels(lineup, { shown: 'all', text: ' news ' }))).toEqual(['12.1']);
  });

  it("shows the source's value only where the user changed one", () => {
    expect(sourceValues(lineup[0]!)).toEqual([]);
    const edited = channel({
      number: '50',
      name: 'Fifty',
      edited: ['name', 'number', 'hidden', 'group'],
      source: { number: '5', name: 'Five' },
    });
    expect(sourceValues(edited)).toEqual([
      { field: 'number', source: '5' },
      { field: 'name', source: 'Five' },
      { field: 'group', source: 'no group' },
    ]);
  });

  it('says what a change did, and the groups and counts, in words', () => {
    const before = channel({ number: '9', name: 'Nine' });
    expect(describeChange(before, { ...before, number: '8', edited: ['number'] }, 'number')).toBe(
      'Nine is now channel 8 (it was 9).',
    );
    expect(describeChange({ ...before, number: '8' }, before, 'number')).toBe('Nine has its source’s number again: 9.');
    expect(describeChange(before, { ...before, name: 'Nine HD', edited: ['name'] }, 'name')).toBe(
      'Channel 9 is now called Nine HD (it was Nine).',
    );
    expect(describeChange(before, { ...before, hidden: true, edited: ['hidden'] }, 'hidden')).toMatch(
      /^9 Nine is hidden/,
    );
    expect(describeChange(before, { ...before, favorite: true }, 'favorite')).toBe('9 Nine is a favorite.');
    expect(
      describeGroupChange('News', 'renumber', [lineup[1]!, lineup[3]!, { ...lineup[1]!, hidden: true }], 100),
    ).toBe('News: its 2 visible channels numbered from 100.');
    expect(describeGroupChange('News', 'hide', [lineup[1]!])).toBe('News: its 1 channel hidden.');
    expect(groupLabel({ name: 'News', channels: 12, hidden: 0 })).toBe('News: 12 channels');
    expect(groupLabel({ name: 'News', channels: 12, hidden: 3 })).toBe('News: 12 channels, 3 hidden');
    expect(groupLabel({ name: 'Shop', channels: 1, hidden: 1 })).toBe('Shop: 1 channel, all hidden');
    expect(lineupCount(lineup)).toBe('4 channels, 1 hidden');
    expect(lineupCount(Array.from({ length: 1000 }, () => ({ hidden: false })))).toBe('1,000 channels');
  });

  it('takes a renumbering’s first number only as a whole number from 1 to 999999', () => {
    expect(parseStart(' 100 ')).toEqual({ start: 100 });
    expect(parseStart('999999')).toEqual({ start: 999999 });
    for (const bad of ['0', '', '12.5', '-3', '1000000', 'abc']) expect(parseStart(bad)).toHaveProperty('problem');
  });
});
