/** The lineup edits' pure parts: finding a channel's edit again, numbers, clashes, placeholder hours. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  matchEdits,
  numberClashes,
  ownFields,
  stableKeys,
  storedNumber,
  withEdits,
} from '../../src/dvr/lineup/lineup-edits.js';
import { channelEditBody, channelRequests } from '../../src/cli/channels.commands.js';
import { PLACEHOLDER_SECONDS, placeholderAirings } from '../../src/dvr/lineup/placeholder-airings.js';
import type { ChannelEdit } from '../../src/repositories/dvr/channel-edits.repository.js';

const edit = (id: number, fields: Partial<ChannelEdit>): ChannelEdit => ({
  id,
  source_key: null,
  source_number: '0',
  source_name: '',
  number: null,
  name: null,
  logo: null,
  group_name: null,
  hidden: null,
  favorite: null,
  guide_channel: null,
  guide_priority: null,
  ...fields,
});
const channel = (number: string, name: string, guide_id?: string) => ({
  number,
  name,
  hd: false,
  stream_url: `http://x/${number}`,
  ...(guide_id ? { guide_id } : {}),
});

describe('finding an edit again', () => {
  it('by a unique tvg-id first, else by number and name (case and spacing ignored)', () => {
    const edits = [
      edit(1, { source_key: 'a.tv', source_number: '1', source_name: 'A' }),
      edit(2, { source_number: '5', source_name: 'Echo  one' }),
    ];
    const matched = matchEdits(edits, [channel('9', 'Renamed', 'a.tv'), channel('5', 'echo one')]);
    expect(matched.map((e) => e?.id)).toEqual([1, 2]);
    // Renamed without a tvg-id: not found.
    expect(matchEdits(edits, [channel('5', 'Echo two')])).toEqual([undefined]);
  });

  it('does not take a shared tvg-id for a stable id', () => {
    expect(stableKeys([{ guide_id: 'x' }, { guide_id: 'x' }, { guide_id: 'y' }, {}])).toEqual([
      undefined,
      undefined,
      'y',
      undefined,
    ]);
  });

  it('gives an edit at most one channel and a channel at most one edit, whatever the edits and channels', () => {
    const name = fc.constantFrom('A', 'B', 'a', 'C ');
    const number = fc.constantFrom('1', '2', '3');
    const key = fc.option(fc.constantFrom('k1', 'k2', 'k3'), { nil: undefined });
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            source_key: fc.option(fc.constantFrom('k1', 'k2', 'k3'), { nil: null }),
            source_number: number,
            source_name: name,
          }),
          { maxLength: 6 },
        ),
        fc.array(fc.record({ number, name, guide_id: key }), { maxLength: 6 }),
        (editFields, channels) => {
          const edits = editFields.map((fields, index) => edit(index, fields));
          const matched = matchEdits(edits, channels);
          const ids = matched.flatMap((e) => (e ? [e.id] : []));
          expect(new Set(ids).size).toBe(ids.length);
          const keys = stableKeys(channels);
          matched.forEach((e, index) => {
            if (!e) return;
            const byKey = e.source_key !== null && keys[index] === e.source_key;
            const byNumberAndName =
              e.source_number === channels[index]!.number &&
              e.source_name.trim().toLowerCase() === channels[index]!.name.trim().toLowerCase();
            expect(byKey || byNumberAndName).toBe(true);
          });
        },
      ),
    );
  });
});

describe('what an edit makes of a channel', () => {
  it("takes the user's values where set, the source's elsewhere", () => {
    const source = { number: '4', name: 'Delta', image_url: 'http://l/d.png', group_title: 'Sports' };
    expect(ownFields(source, undefined)).toMatchObject({
      number: '4',
      name: 'Delta',
      image_url: 'http://l/d.png',
      group_title: 'Sports',
      hidden: false,
      edit_id: null,
    });
    expect(ownFields(source, edit(7, { number: '104', hidden: 1, favorite: 1 }))).toMatchObject({
      number: '104',
      name: 'Delta',
      hidden: true,
      favorite: true,
      edit_id: 7,
    });
  });

  it('learns the identity each edit found its channel by', () => {
    const result = withEdits(
      [channel('1', 'One', 'one'), channel('7', 'Seven')],
      [edit(1, { source_key: 'one', source_number: '1', source_name: 'One', number: '7' })],
    );
    expect(result.identities).toEqual([{ id: 1, source_key: 'one', source_number: '1', source_name: 'One' }]);
    expect(result.channels.map((c) => c.own?.number)).toEqual(['7', '7']);
  });
});

describe('numbers', () => {
  it('are stored as rules name them', () => {
    expect(['7-1', '7_1', '007.01', '12', '0', '10.0'].map(storedNumber)).toEqual([
      '7.1',
      '7.1',
      '7.1',
      '12',
      '0',
      '10.0',
    ]);
  });

  const row = (id: string, number: string, source = 's1', sourceNumber = number, hidden = 0) => ({
    id,
    number,
    source_id: source,
    source_number: sourceNumber,
    hidden,
  });

  it('clash: two channels of one source, whoever numbered them', () => {
    expect(numberClashes([row('a', '2', 's1', '1'), row('b', '2')], new Set(['a']))).toEqual([['a', 'b']]);
    // A hidden one holds no number.
    expect(numberClashes([row('a', '2', 's1', '1'), row('b', '2', 's1', '2', 1)], new Set(['a']))).toEqual([]);
  });

  it('two sources may share a number each has from its source, or one they shared before; not one the user gave one of them', () => {
    expect(numberClashes([row('a', '5', 's1'), row('b', '5', 's2')], new Set(['a', 'b']))).toEqual([]);
    const before = new Map([
      ['a', '5'],
      ['b', '5'],
    ]);
    expect(
      numberClashes([row('a', '105', 's1', '5'), row('b', '105', 's2', '5')], new Set(['a', 'b']), before),
    ).toEqual([]);
    expect(
      numberClashes(
        [row('a', '50', 's1', '1'), row('b', '50', 's2')],
        new Set(['a']),
        new Map([
          ['a', '1'],
          ['b', '50'],
        ]),
      ),
    ).toEqual([['a', 'b']]);
    // After a refresh (no before): a number the user gave one, which another source's channel has from its source.
    expect(numberClashes([row('a', '50', 's1', '1'), row('b', '50', 's2')], new Set(['a']))).toEqual([['a', 'b']]);
  });

  it('reports each pair once, only pairs with an involved channel', () => {
    expect(numberClashes([row('a', '9', 's1', '1'), row('b', '9', 's1', '2')], new Set(['a', 'b']))).toEqual([
      ['a', 'b'],
    ]);
    expect(numberClashes([row('a', '9', 's1', '1'), row('b', '9', 's1', '2')], new Set())).toEqual([]);
  });
});

describe('placeholder hours', () => {
  it('cover any window with contiguous hour blocks on the hour', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4_000_000_000 }),
        fc.integer({ min: 1, max: 5 * 86400 }),
        (from, length) => {
          const hours = placeholderAirings('5', 'Five', from, from + length);
          expect(hours[0]!.start).toBeLessThanOrEqual(from);
          expect(hours[0]!.start % PLACEHOLDER_SECONDS).toBe(0);
          expect(hours.at(-1)!.stop).toBeGreaterThanOrEqual(from + length);
          expect(hours.at(-1)!.start).toBeLessThan(from + length);
          hours.slice(1).forEach((hour, index) => expect(hour.start).toBe(hours[index]!.stop));
          expect(hours.every((hour) => hour.title === 'Five' && hour.placeholder && hour.channels[0] === '5')).toBe(
            true,
          );
        },
      ),
    );
  });
});

describe('antenna channels', () => {
  it('builds the edit body from the flags given, nulls for --reset', () => {
    expect(channelEditBody({ number: '105', hidden: false, favorite: true, reset: 'name, guide' })).toEqual({
      number: '105',
      hidden: false,
      favorite: true,
      name: null,
      guide_channel: null,
    });
    expect(channelEditBody({ guide: 'xmltv-abc:alpha.east:1', guidePriority: 'xmltv-b, xmltv-a' })).toEqual({
      guide_channel: { guide_id: 'xmltv-abc', xmltv_id: 'alpha.east:1' },
      guide_priority: ['xmltv-b', 'xmltv-a'],
    });
    expect(() => channelEditBody({})).toThrow(/Say what to change/);
    expect(() => channelEditBody({ guide: 'no-colon' })).toThrow(/GUIDE_ID:XMLTV_ID/);
    expect(() => channelEditBody({ reset: 'colour' })).toThrow(/'colour' is not one/);
  });

  it('sends each command to its route, group names encoded', () => {
    expect(channelRequests.edit('m3u-1-5', { name: 'x' })).toMatchObject({
      method: 'PATCH',
      path: '/dvr/lineup/m3u-1-5',
      body: { name: 'x' },
    });
    expect(channelRequests.group('News & Talk', 'hide')).toMatchObject({
      method: 'POST',
      path: '/dvr/lineup/groups/News%20%26%20Talk/hide',
    });
    expect(channelRequests.renumberGroup('Sports', '200')).toMatchObject({
      path: '/dvr/lineup/groups/Sports/renumber',
      body: { start: 200 },
    });
    expect(() => channelRequests.renumberGroup('Sports', 'ten')).toThrow(/not a channel number/);
    expect(channelRequests.guidePriority('xmltv-1', '5')).toMatchObject({
      method: 'PATCH',
      path: '/dvr/guides/xmltv-1',
      body: { priority: 5 },
    });
    const line = channelRequests.list().describe([
      {
        number: '5',
        name: 'Five',
        hidden: true,
        favorite: false,
        placeholder: false,
        edited: ['hidden'],
        id: 'm3u-1-5',
        group: 'News',
      },
    ] as never);
    expect(line).toBe('5\tFive\t[hidden]\t(you changed: hidden)\tm3u-1-5\tgroup News');
  });
});
