import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_NFO_BYTES, parseNfo } from '../../src/importer/nfo.parser.js';

describe('parseNfo', () => {
  it('maps a Kodi movie NFO, keeping a numeric title a string, and ignores the URL line after it', () => {
    const result = parseNfo(`<?xml version="1.0" encoding="UTF-8" standalone="yes" ?>
<movie>
  <title>1917</title>
  <outline>Two soldiers cross no man's land.</outline>
  <plot>April 1917: two British soldiers &amp; a message that must get through.</plot>
  <mpaa>Rated R</mpaa>
  <premiered>2019-12-25</premiered>
  <genre>War</genre><genre>Drama</genre><genre>War</genre>
  <director>Sam Mendes</director>
  <actor><name>George MacKay</name><role>Schofield</role></actor>
  <actor><name>Dean-Charles Chapman</name></actor>
  <tag>favourites</tag>
  <set><name>Great War Films</name><overview>…</overview></set>
</movie>
https://www.imdb.com/title/tt8579674/`);
    expect(result).toEqual({
      ok: true,
      metadata: {
        title: '1917',
        summary: "Two soldiers cross no man's land.",
        fullSummary: 'April 1917: two British soldiers & a message that must get through.',
        contentRating: 'Rated R',
        releaseDate: '2019-12-25',
        releaseYear: 2019,
        genres: ['War', 'Drama'],
        directors: ['Sam Mendes'],
        cast: ['George MacKay', 'Dean-Charles Chapman'],
        labels: ['favourites'],
        collection: 'Great War Films',
      },
    });
  });

  it("takes the default <uniqueid> as the item's id, else the first, else the old <id>, and only a plain one", () => {
    const ids = (body: string) =>
      (parseNfo(`<movie><title>x</title>${body}</movie>`) as { metadata: { uniqueId?: string } }).metadata.uniqueId;
    expect(
      ids('<uniqueid type="tmdb">530915</uniqueid><uniqueid type="imdb" default="true">tt8579674</uniqueid>'),
    ).toBe('tt8579674');
    expect(ids('<uniqueid type="tmdb">530915</uniqueid><uniqueid type="imdb">tt8579674</uniqueid>')).toBe('530915');
    expect(ids('<id>tt0133093</id>')).toBe('tt0133093');
    expect(ids('<uniqueid default="true">not an id, it has spaces</uniqueid>')).toBeUndefined();
    expect(ids('')).toBeUndefined();
  });

  it('maps an episode NFO and a tvshow NFO', () => {
    expect(
      parseNfo(
        '<episodedetails><title>Pilot</title><season>1</season><episode>2</episode><aired>2005-03-26</aired><plot>It begins.</plot></episodedetails>',
      ),
    ).toEqual({
      ok: true,
      metadata: {
        title: 'Pilot',
        season: 1,
        episode: 2,
        originalAirDate: '2005-03-26',
        releaseDate: '2005-03-26',
        summary: 'It begins.',
        fullSummary: 'It begins.',
      },
    });
    expect(parseNfo('<tvshow><title>Show</title><year>2005</year><set>Old style set</set></tvshow>')).toEqual({
      ok: true,
      metadata: { title: 'Show', releaseYear: 2005, collection: 'Old style set' },
    });
  });

  it('refuses documents that declare entities, external or not, without expanding anything', () => {
    const external =
      '<?xml version="1.0"?><!DOCTYPE movie [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><movie><title>&xxe;</title></movie>';
    const laughs = `<!DOCTYPE movie [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><movie><title>&b;</title></movie>`;
    expect(parseNfo(external)).toEqual({ ok: false, reason: expect.stringContaining('entities') });
    expect(parseNfo(laughs)).toEqual({ ok: false, reason: expect.stringContaining('entities') });
  });

  it('reports malformed XML, unknown documents and oversized files', () => {
    expect(parseNfo('<movie><title>broken</movie>')).toEqual({
      ok: false,
      reason: expect.stringContaining('malformed'),
    });
    expect(parseNfo('<album><title>x</title></album>')).toEqual({
      ok: false,
      reason: expect.stringContaining('not a Kodi'),
    });
    expect(parseNfo(`<movie><plot>${'x'.repeat(MAX_NFO_BYTES)}</plot></movie>`)).toEqual({
      ok: false,
      reason: expect.stringContaining('too large'),
    });
  });

  it('ignores dates and numbers that are not what they claim', () => {
    expect(parseNfo('<movie><premiered>25/12/2019</premiered><year>nineteen</year></movie>')).toEqual({
      ok: true,
      metadata: {},
    });
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string().map((s) => `<movie><title>${s}</title></movie>`),
        ),
        (text) => {
          const result = parseNfo(text);
          expect(typeof result.ok).toBe('boolean');
        },
      ),
    );
  });
});
