/**
 * The importer's name parser against the corpus in test/data/import-names.json:
 * paths under an import root and what they are, written by us from the naming
 * conventions that Kodi, Plex and Jellyfin document.
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type ParsedMedia, type RootKind, parseMediaPath } from '../../src/importer/media-name.parser.js';

interface Case {
  root: RootKind;
  path: string;
  expect: Record<string, unknown> & { kind: string };
  note?: string;
}

const corpus = JSON.parse(readFileSync(new URL('../data/import-names.json', import.meta.url), 'utf8')) as Case[];

/** The parser's answer in the corpus's terms (titles of episodes and reasons are not part of it). */
function comparable(parsed: ParsedMedia): Record<string, unknown> {
  if (parsed.kind === 'ignored') return { kind: 'ignored' };
  if (parsed.kind === 'episode') {
    const { title: _title, ...rest } = parsed;
    return rest;
  }
  return { ...parsed };
}

describe('the filename corpus', () => {
  it('has at least 300 cases', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(300);
  });

  it.each(corpus.map((c) => [`${c.root}: ${c.path}`, c] as const))('%s', (_, c) => {
    expect(comparable(parseMediaPath(c.root, c.path))).toEqual(c.expect);
  });
});

describe('parseMediaPath', () => {
  it('never throws and always answers a known kind, whatever the path', () => {
    fc.assert(
      fc.property(fc.constantFrom<RootKind>('tv', 'movies', 'videos'), fc.string({ maxLength: 300 }), (root, path) => {
        const parsed = parseMediaPath(root, path);
        expect(['episode', 'movie', 'video', 'ignored']).toContain(parsed.kind);
      }),
    );
  });

  it('keeps the episode title that follows the numbers', () => {
    expect(parseMediaPath('tv', 'Show (2005)/Season 01/Show - S01E02 - The Title.mkv')).toEqual({
      kind: 'episode', show: 'Show', year: 2005, season: 1, episodes: [2], title: 'The Title',
    });
  });
});
