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
  it('has at least 1,000 cases, each path once per root', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(1000);
    expect(new Set(corpus.map((c) => `${c.root}:${c.path}`)).size).toBe(corpus.length);
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

  it('never makes an episode number over 9999, nor a negative or fractional one', () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9 ._\-[\]()]{1,40}$/);
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 3 }), (segments) => {
        const parsed = parseMediaPath('tv', `${segments.join('/')}.mkv`);
        if (parsed.kind !== 'episode') return;
        for (const n of [...(parsed.episodes ?? []), ...(parsed.season !== undefined ? [parsed.season] : [])]) {
          expect(Number.isInteger(n) && n >= 0 && n <= 9999).toBe(true);
        }
      }),
    );
  });

  it('never takes a season or episode from a year in a release name', () => {
    const word = fc.stringMatching(/^[A-Z][a-z]{2,8}$/);
    const tags = fc.subarray(['1080p', '720p', 'WEB-DL', 'HDTV', 'x264', 'H.264', 'DDP5.1', 'AAC2.0', '10bit'], {
      minLength: 0,
    });
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1900, max: 2099 }),
        tags,
        fc.boolean(),
        (words, year, tagList, inFolder) => {
          const name = [...words, String(year), ...tagList].join('.');
          const parsed = parseMediaPath('tv', inFolder ? `${words.join(' ')}/${name}.mkv` : `${name}.mkv`);
          expect(parsed).toMatchObject({ kind: 'episode' });
          expect(parsed).not.toHaveProperty('season');
          expect(parsed).not.toHaveProperty('episodes');
        },
      ),
    );
  });

  it('keeps the episode title that follows the numbers', () => {
    expect(parseMediaPath('tv', 'Show (2005)/Season 01/Show - S01E02 - The Title.mkv')).toEqual({
      kind: 'episode',
      show: 'Show',
      year: 2005,
      season: 1,
      episodes: [2],
      title: 'The Title',
    });
  });

  it('keeps the title of episode-only names', () => {
    expect(parseMediaPath('tv', 'Lost/Season 04/[401] The Beginning of the End.mkv')).toMatchObject({
      season: 4,
      episodes: [1],
      title: 'The Beginning of the End',
    });
    expect(parseMediaPath('tv', 'Lost/Season 02/Ep. 02 - Adrift.mkv')).toMatchObject({
      season: 2,
      episodes: [2],
      title: 'Adrift',
    });
    expect(parseMediaPath('tv', 'Lost/Season 02/02 Adrift.mkv')).toMatchObject({
      season: 2,
      episodes: [2],
      title: 'Adrift',
    });
  });
});
