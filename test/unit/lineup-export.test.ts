/**
 * The lineup and guide as other players take them (dvr/lineup/lineup-export.ts): whatever text
 * a playlist or guide held, the exported M3U and XMLTV read back, by Antenna's own
 * readers, as that text (less what XML cannot hold), never as a broken document.
 */
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Airing } from '../../src/dvr/lineup/airing.js';
import {
  type ExportChannel,
  hdhomerunLineup,
  m3uOf,
  xmlText,
  xmltvDocument,
  xmltvTime,
} from '../../src/dvr/lineup/lineup-export.js';
import { parseM3u } from '../../src/dvr/sources/m3u.parser.js';
import { parseXmltv } from '../../src/dvr/sources/xmltv/xmltv.parser.js';
import type { XmltvProgramme } from '../../src/dvr/sources/xmltv/xmltv.types.js';

/** A name with each kind of line end some player's reader splits on. */
const BROKEN = 'One\rTwo\nThree\u2028Four\u0085Five\vSix';

const url = (number: string) => `http://antenna.test/devices/ANY/channels/${number}/stream.mpg`;
/**
 * Text with what breaks documents: markup, quotes, line breaks, control characters, lone surrogates, astral characters.
 */
const awkward = fc
  .array(
    fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom('&', '<', '>', '"', "'", '\n', '\r', '\u0001', '\ud800', '\udc00', '😀', 'é', '&amp;', ']]>'),
    ),
    { minLength: 1, maxLength: 8 },
  )
  .map((parts) => parts.join(''));
/** What a reader gives back of a text: without what XML cannot hold, its line ends as XML makes them, trimmed. */
const normal = (text: string) =>
  xmlText(text)
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\r\n?/g, '\n')
    .trim();

describe('the exported lineup and guide', () => {
  it('keep every line end out of an M3U entry', () => {
    const text = m3uOf([{ number: '1', name: BROKEN, hd: false, logo: BROKEN }], url);
    expect(text.split(/\r\n|[\r\n\v\f\u0085\u2028\u2029]/)).toHaveLength(4);
    expect(parseM3u(text).channels).toMatchObject([
      { number: '1', name: 'One Two Three Four Five Six', url: url('1') },
    ]);
  });

  it('write times as XMLTV does', () => {
    expect(xmltvTime(1_900_000_000)).toBe('20300317174640 +0000');
  });

  it('read back as the channels and programmes they were made of, whatever their text', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          awkward.filter((name) => normal(name) !== ''),
          { minLength: 1, maxLength: 4 },
        ),
        awkward.filter((title) => normal(title) !== ''),
        awkward,
        async (names, title, summary) => {
          const channels: ExportChannel[] = names.map((name, i) => ({
            number: String(i + 1),
            name,
            hd: i % 2 === 0,
            logo: `http://logo.test/${i}.png?a=1&b="2"`,
          }));
          const playlist = parseM3u(m3uOf(channels, url));
          expect(playlist.channels.map((c) => c.number)).toEqual(channels.map((c) => c.number));
          expect(playlist.channels.map((c) => c.url)).toEqual(channels.map((c) => url(c.number)));

          const airing = {
            channels: ['1'],
            start: 1_900_000_000,
            stop: 1_900_001_800,
            title,
            summary,
            isNew: false,
            categories: [title],
          } as unknown as Airing;
          const programmes: XmltvProgramme[] = [];
          const names_: string[][] = [];
          const counts = await parseXmltv(Readable.from([...xmltvDocument(channels, [{ number: '1', airing }])]), {
            channel: (c) => names_.push(c.displayNames),
            programme: (p) => programmes.push(p),
          });
          expect(counts.skipped).toBe(0);
          expect(names_.map((n) => n[1])).toEqual(channels.map((c) => c.number));
          expect(programmes).toHaveLength(1);
          expect(programmes[0]).toMatchObject({
            channel: '1.antenna',
            start: 1_900_000_000,
            stop: 1_900_001_800,
            title: normal(title),
            categories: [normal(title)],
          });
          if (normal(summary) !== '') expect(programmes[0]?.summary).toBe(normal(summary));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('number episodes as XMLTV does, specials (season 0) on screen', async () => {
    const read: XmltvProgramme[] = [];
    const base = { channels: ['1'], start: 1_900_000_000, stop: 1_900_001_800, isNew: false };
    const airings = [
      { ...base, title: 'A', season: 2, episode: 5 },
      { ...base, title: 'B', season: 0, episode: 5 },
      { ...base, title: 'C', episode: 7 },
    ] as unknown as Airing[];
    await parseXmltv(
      Readable.from([
        ...xmltvDocument(
          [{ number: '1', name: 'One', hd: false }],
          airings.map((airing) => ({ number: '1', airing })),
        ),
      ]),
      { programme: (p) => read.push(p) },
    );
    expect(read.map((p) => [p.title, p.season, p.episode])).toEqual([
      ['A', 2, 5],
      ['B', 0, 5],
      ['C', undefined, 7],
    ]);
  });

  it('list the lineup as an HDHomeRun tuner does, HD marked', () => {
    expect(
      hdhomerunLineup(
        [
          { number: '2.1', name: 'Two', hd: true },
          { number: '3', name: 'Three', hd: false },
        ],
        url,
      ),
    ).toEqual([
      { GuideNumber: '2.1', GuideName: 'Two', URL: url('2.1'), HD: 1 },
      { GuideNumber: '3', GuideName: 'Three', URL: url('3') },
    ]);
  });
});
