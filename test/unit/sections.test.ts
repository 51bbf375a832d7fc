import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchSection, SECTIONS, type Section } from '../../src/player/sections.js';

describe('matchSection', () => {
  it.each<[string, Section]>([
    ['Guide', 'Guide'],
    ['guide', 'Guide'],
    ['LIBRARY', 'Library'],
    ['Live TV', 'Live TV'],
    ['Live%20TV', 'Live TV'],
    ['live_tv', 'Live TV'],
    ['LIVE-TV', 'Live TV'],
    [' live  tv ', 'Live TV'],
    ['search', 'Search'],
  ])('takes %j as %s', (name, section) => {
    expect(matchSection(name)).toBe(section);
  });

  it.each(['Settings', '', 'LiveTV', 'Guides', 'live tv x', '%20'])('refuses %j', (name) => {
    expect(matchSection(name)).toBeUndefined();
  });

  it('takes every section in any casing, with its spaces written as space, _, %20 or -', () => {
    const separator = fc.constantFrom(' ', '_', '%20', '-');
    fc.assert(
      fc.property(
        fc.constantFrom(...SECTIONS),
        fc.infiniteStream(fc.boolean()),
        fc.infiniteStream(separator),
        (section, upper, separators) => {
          const cased = [...section]
            .map((char) => (upper.next().value ? char.toUpperCase() : char.toLowerCase()))
            .join('');
          const written = cased.replace(/ /g, () => separators.next().value as string);
          expect(matchSection(written)).toBe(section);
        },
      ),
    );
  });

  it('answers undefined or one of the sections for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii' }), (name) => {
        const section = matchSection(name);
        expect(section === undefined || (SECTIONS as readonly string[]).includes(section)).toBe(true);
      }),
    );
  });
});
