/**
 * The streaming XMLTV parser: element mapping, times and numbering, skipped entries,
 * well-formedness recovery, entity safety, abort, chunk boundaries, encodings, and a
 * guide written by bench/generate-guide.mjs.
 */
import fc from 'fast-check';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { parseOnscreen, parseXmltvNs, parseXmltvTime } from '../../src/dvr/sources/xmltv/field-parsers.js';
import {
  type XmltvChannel,
  XmltvDocumentError,
  type XmltvProgramme,
  parseXmltv,
} from '../../src/dvr/sources/xmltv/xmltv.parser.js';

async function* source(parts: Array<Buffer | string>): AsyncGenerator<Buffer | string> {
  for (const part of parts) yield part;
}

async function parse(doc: string | Buffer | Array<Buffer | string>, signal?: AbortSignal) {
  const channels: XmltvChannel[] = [];
  const programmes: XmltvProgramme[] = [];
  const counts = await parseXmltv(
    source(Array.isArray(doc) ? doc : [doc]),
    { channel: (c) => channels.push(c), programme: (p) => programmes.push(p) },
    signal ? { signal } : {},
  );
  return { counts, channels, programmes };
}

const tv = (body: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE tv SYSTEM "xmltv.dtd">\n<tv generator-info-name="test">\n${body}\n</tv>\n`;
const NOON = Date.UTC(2024, 2, 1, 12) / 1000;
const TIMES = 'start="20240301120000 +0000" stop="20240301130000 +0000"';
const programme = (inner: string, attributes = `${TIMES} channel="c1"`): string =>
  `<programme ${attributes}>${inner}</programme>`;
const titled = (inner = ''): string => programme(`<title>T</title>${inner}`);
const base = {
  channel: 'c1',
  start: NOON,
  stop: NOON + 3600,
  title: 'T',
  categories: [],
  isNew: false,
  previouslyShown: false,
};

/** What a parse that must refuse the document may throw; anything else is a bug. */
const DOCUMENTED_ERROR = /^(Not an XMLTV document|XMLTV document refused|XMLTV document cut short)/;

/**
 * The result of a parse, or the message and kind of the XmltvDocumentError it threw (any other error fails the test).
 */
async function outcome(doc: string | Buffer | Array<Buffer | string>) {
  try {
    return await parse(doc);
  } catch (error) {
    if (!(error instanceof XmltvDocumentError)) throw error;
    return { refused: error.message, problem: error.problem };
  }
}

describe('parseXmltv: channels', () => {
  it('maps id, display names, a number-like display name and the icon; skips channels without id', async () => {
    const { counts, channels } = await parse(
      tv(`
      <channel id="kqed.us"><display-name>KQED</display-name><display-name> 9.1 </display-name><display-name>9 KQED</display-name><icon src="http://logo/kqed.png"/></channel>
      <channel id="bbc1"><display-name lang="en">BBC One</display-name><display-name>101</display-name></channel>
      <channel id="plain"><display-name>Plain</display-name></channel>
      <channel><display-name>No id</display-name></channel>`),
    );
    expect(channels).toEqual([
      { id: 'kqed.us', displayNames: ['KQED', '9.1', '9 KQED'], number: '9.1', icon: 'http://logo/kqed.png' },
      { id: 'bbc1', displayNames: ['BBC One', '101'], number: '101' },
      { id: 'plain', displayNames: ['Plain'] },
    ]);
    expect(counts).toEqual({ channels: 3, programmes: 0, skipped: 1 });
  });

  it('prefers <lcn> over a number guessed from the display names', async () => {
    const { channels } = await parse(tv('<channel id="x"><display-name>12</display-name><lcn>112</lcn></channel>'));
    expect(channels).toEqual([{ id: 'x', displayNames: ['12'], number: '112' }]);
  });
});

describe('parseXmltv: programmes', () => {
  it('maps every element of a full programme', async () => {
    const { counts, programmes } = await parse(
      tv(`
      <programme start="20240301193000 +0100" stop="20240301200000 +0100" channel="kqed.us">
        <title lang="en">Nova</title><title lang="fr">Nova (fr)</title>
        <sub-title>Black Holes &amp; Stars</sub-title>
        <desc lang="en">  Where light goes.  </desc>
        <credits><actor>Someone</actor></credits>
        <date>20200105</date>
        <category>Science</category><category>Documentary</category><category>Science</category>
        <icon src="http://img/nova.jpg"/>
        <episode-num system="onscreen">S09E09</episode-num>
        <episode-num system="xmltv_ns">46.4/12.</episode-num>
        <episode-num system="dd_progid">EP01234567.0012</episode-num>
        <new/>
        <rating system="VCHIP"><value>TV-PG</value></rating><rating system="MPAA"><value>PG</value></rating>
      </programme>`),
    );
    expect(programmes).toEqual([
      {
        channel: 'kqed.us',
        start: Date.UTC(2024, 2, 1, 18, 30) / 1000,
        stop: Date.UTC(2024, 2, 1, 19) / 1000,
        title: 'Nova',
        episodeTitle: 'Black Holes & Stars',
        summary: 'Where light goes.',
        categories: ['Science', 'Documentary'],
        season: 47,
        episode: 5,
        originalAirDate: '2020-01-05',
        year: 2020,
        isNew: true,
        previouslyShown: false,
        rating: 'TV-PG',
        image: 'http://img/nova.jpg',
        programId: 'EP012345670012',
        seriesId: 'SH01234567',
      },
    ]);
    expect(counts).toEqual({ channels: 0, programmes: 1, skipped: 0 });
  });

  it('takes the first non-empty title, and needs no stop', async () => {
    const { programmes } = await parse(
      tv(programme('<title> </title><title>Second</title><title>Third</title>', 'start="20240301120000" channel="c1"')),
    );
    const { stop: _stop, ...withoutStop } = base;
    expect(programmes).toStrictEqual([{ ...withoutStop, title: 'Second' }]);
  });

  it('prefers xmltv_ns over onscreen, field by field, and reads the onscreen forms', async () => {
    const { programmes } = await parse(
      tv(
        [
          titled('<episode-num system="xmltv_ns">.6.</episode-num><episode-num system="onscreen">S03E09</episode-num>'),
          titled('<episode-num system="onscreen">S1 E5</episode-num>'),
          titled('<episode-num system="SxxExx">S02E10</episode-num>'),
          titled('<episode-num>2x07</episode-num>'),
          titled('<episode-num system="onscreen">E12</episode-num>'),
          titled('<episode-num system="imdb.com">tt0123456</episode-num>'),
        ].join('\n'),
      ),
    );
    expect(programmes.map((p) => [p.season, p.episode])).toEqual([
      [3, 7],
      [1, 5],
      [2, 10],
      [2, 7],
      [undefined, 12],
      [undefined, undefined],
    ]);
  });

  it('reads Gracenote dd_progid ids: episodes and shows get a SH series id, movies none', async () => {
    const { programmes } = await parse(
      tv(
        [
          titled('<episode-num system="dd_progid">EP012345670012</episode-num>'),
          titled('<episode-num system="dd_progid">SH01234567.0000</episode-num>'),
          titled('<episode-num system="dd_progid">MV00998877.0000</episode-num>'),
          titled('<episode-num system="dd_progid">SP00112233.0004</episode-num>'),
          titled('<episode-num system="dd_progid">custom-42</episode-num>'),
        ].join('\n'),
      ),
    );
    expect(programmes.map((p) => [p.programId, p.seriesId])).toEqual([
      ['EP012345670012', 'SH01234567'],
      ['SH012345670000', 'SH01234567'],
      ['MV009988770000', undefined],
      ['SP001122330004', 'SH00112233'],
      ['custom-42', undefined],
    ]);
  });

  it('reads <date> and <previously-shown start> into year and original air date', async () => {
    const { programmes } = await parse(
      tv(
        [
          titled('<date>1994</date>'),
          titled('<date>2019-12-25</date>'),
          titled('<previously-shown start="20180704210000 -0500"/>'),
          titled('<date>20200105</date><previously-shown start="20180704"/>'),
          titled('<date>2019</date><previously-shown start="20180704"/>'),
          titled('<date>20190231</date>'),
          titled('<date>nineteen</date>'),
        ].join('\n'),
      ),
    );
    expect(programmes.map((p) => [p.year, p.originalAirDate, p.previouslyShown])).toEqual([
      [1994, undefined, false],
      [2019, '2019-12-25', false],
      [undefined, '2018-07-04', true],
      [2020, '2020-01-05', true],
      [2019, '2018-07-04', true],
      [2019, undefined, false],
      [undefined, undefined, false],
    ]);
  });

  it('counts <premiere> as new; takes <image> when there is no <icon>', async () => {
    const { programmes } = await parse(
      tv(
        [
          titled('<premiere>Season premiere</premiere>'),
          titled('<image type="poster">http://img/poster.jpg</image>'),
          titled('<image>http://img/second.jpg</image><icon src="http://img/icon.jpg"/>'),
        ].join('\n'),
      ),
    );
    expect(programmes.map((p) => [p.isNew, p.image])).toEqual([
      [true, undefined],
      [false, 'http://img/poster.jpg'],
      [false, 'http://img/icon.jpg'],
    ]);
  });

  it('reads CDATA text', async () => {
    const { programmes } = await parse(tv(programme('<title><![CDATA[Tom & Jerry <3]]></title>')));
    expect(programmes[0]?.title).toBe('Tom & Jerry <3');
  });
});

describe('parseXmltv: skipped entries', () => {
  it('skips and counts programmes without channel, start or title, with bad times or stop <= start', async () => {
    const { counts, programmes } = await parse(
      tv(
        [
          programme('<title>no channel</title>', TIMES),
          programme('<title>empty channel</title>', `${TIMES} channel=" "`),
          programme('<title>no start</title>', 'stop="20240301130000" channel="c1"'),
          programme('<title>bad start</title>', 'start="yesterday" channel="c1"'),
          programme('<title>bad stop</title>', 'start="20240301120000" stop="202403011" channel="c1"'),
          programme('<title>equal</title>', 'start="20240301120000 +0000" stop="20240301130000 +0100" channel="c1"'),
          programme('<title>backwards</title>', 'start="20240301120000" stop="20240301110000" channel="c1"'),
          programme('<sub-title>no title</sub-title>'),
          programme('<title>good</title>'),
        ].join('\n'),
      ),
    );
    expect(programmes.map((p) => p.title)).toEqual(['good']);
    expect(counts).toEqual({ channels: 0, programmes: 1, skipped: 8 });
  });
});

describe('parseXmltvTime', () => {
  it('reads the full form with and without offsets, and shorter forms as UTC', () => {
    expect(parseXmltvTime('20240301193000 +0100')).toBe(Date.UTC(2024, 2, 1, 18, 30) / 1000);
    expect(parseXmltvTime('20240301193000 -0500')).toBe(Date.UTC(2024, 3 - 1, 2, 0, 30) / 1000);
    expect(parseXmltvTime('20240301193000+0530')).toBe(Date.UTC(2024, 2, 1, 14) / 1000);
    expect(parseXmltvTime('20240301193000 +05:30')).toBe(Date.UTC(2024, 2, 1, 14) / 1000);
    expect(parseXmltvTime('20240301193000 +01')).toBe(Date.UTC(2024, 2, 1, 18, 30) / 1000);
    expect(parseXmltvTime('20240301193000 Z')).toBe(Date.UTC(2024, 2, 1, 19, 30) / 1000);
    expect(parseXmltvTime('20240301193000 UTC')).toBe(Date.UTC(2024, 2, 1, 19, 30) / 1000);
    expect(parseXmltvTime('20240301193000')).toBe(Date.UTC(2024, 2, 1, 19, 30) / 1000);
    expect(parseXmltvTime(' 202403011930 ')).toBe(Date.UTC(2024, 2, 1, 19, 30) / 1000);
    expect(parseXmltvTime('2024030119')).toBe(Date.UTC(2024, 2, 1, 19) / 1000);
    expect(parseXmltvTime('20240301')).toBe(Date.UTC(2024, 2, 1) / 1000);
    expect(parseXmltvTime('2024')).toBe(Date.UTC(2024, 0, 1) / 1000);
    expect(parseXmltvTime('20240229000000 +0000')).toBe(Date.UTC(2024, 1, 29) / 1000);
    expect(parseXmltvTime('19691231235959 +0000')).toBe(-1);
  });

  it('refuses what is not a time', () => {
    for (const text of [
      '',
      'now',
      '2024030',
      '202403011930001',
      '20230229000000',
      '20241301000000',
      '20240301240000',
      '20240301126000',
      '20240301120060',
      '20240301120000 +1500',
      '20240301120000 +0160',
      '20240301120000 +010',
      '20240301120000 CET',
      '20240301120000 + 0100',
      '-20240301',
    ]) {
      expect(parseXmltvTime(text), text).toBeUndefined();
    }
  });

  it('round-trips any instant written in any offset', () => {
    const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4_102_444_799 }),
        fc.integer({ min: -48, max: 56 }),
        fc.boolean(),
        (seconds, quarters, withSpace) => {
          const offset = quarters * 15;
          const local = new Date((seconds + offset * 60) * 1000);
          const abs = Math.abs(offset);
          const text = `${local.getUTCFullYear()}${pad(local.getUTCMonth() + 1)}${pad(local.getUTCDate())}${pad(local.getUTCHours())}${pad(local.getUTCMinutes())}${pad(local.getUTCSeconds())}${withSpace ? ' ' : ''}${offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`;
          expect(parseXmltvTime(text)).toBe(seconds);
        },
      ),
    );
  });
});

describe('parseXmltvNs and parseOnscreen', () => {
  it('reads xmltv_ns as 0-based with optional totals', () => {
    expect(parseXmltvNs('0.4/12.')).toEqual({ season: 1, episode: 5 });
    expect(parseXmltvNs(' 2 . 9 / 10 . 0/1')).toEqual({ season: 3, episode: 10 });
    expect(parseXmltvNs('.4.')).toEqual({ episode: 5 });
    expect(parseXmltvNs('0..')).toEqual({ season: 1 });
    expect(parseXmltvNs('..')).toEqual({});
    expect(parseXmltvNs('a.b.')).toEqual({});
    expect(parseXmltvNs('1.2.3.4')).toEqual({});
    expect(parseXmltvNs('S01E02')).toEqual({});
  });

  it('reads the on-screen forms', () => {
    expect(parseOnscreen('S01E05')).toEqual({ season: 1, episode: 5 });
    expect(parseOnscreen('S1 E5')).toEqual({ season: 1, episode: 5 });
    expect(parseOnscreen('s02e10e11')).toEqual({ season: 2, episode: 10 });
    expect(parseOnscreen('Season 3, Episode 4')).toEqual({ season: 3, episode: 4 });
    expect(parseOnscreen('1x05')).toEqual({ season: 1, episode: 5 });
    expect(parseOnscreen('E5')).toEqual({ episode: 5 });
    expect(parseOnscreen('Ep. 7')).toEqual({ episode: 7 });
    expect(parseOnscreen('S4')).toEqual({ season: 4 });
    expect(parseOnscreen('Pilot')).toEqual({});
  });
});

describe('parseXmltv: malformed and hostile documents', () => {
  it('drops and counts an entry with a well-formedness error, and keeps going', async () => {
    const { counts, programmes } = await parse(
      tv(
        [
          titled(),
          programme('<title>Undefined&nbsp;entity</title>'),
          `<programme ${TIMES} channel="c1"><title>Unclosed</programme>`,
          programme('<title a="1" a="2">Duplicate attribute</title>'),
          programme('<title>After</title>'),
        ].join('\n'),
      ),
    );
    expect(programmes.map((p) => p.title)).toEqual(['T', 'After']);
    expect(counts).toEqual({ channels: 0, programmes: 2, skipped: 3 });
  });

  it('counts an error outside any entry once', async () => {
    const outside = await parse(tv(`${titled()} stray < text ${titled()}`));
    expect(outside.counts).toEqual({ channels: 0, programmes: 2, skipped: 1 });
  });

  it('refuses a document cut short: its <tv> not closed, or the input ending inside a tag', async () => {
    const whole = tv(`${titled()}${titled()}`);
    for (const cut of [
      whole.lastIndexOf('</title>'),
      whole.lastIndexOf('</programme>') + '</programme>'.length,
      whole.lastIndexOf('</tv>') + 3,
    ]) {
      const error = await parse(whole.slice(0, cut)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(XmltvDocumentError);
      expect(error).toMatchObject({
        problem: 'incomplete',
        message: expect.stringMatching(/^XMLTV document cut short: it ends before its closing <\/tv>/),
      });
    }
    await expect(parse('<tv><programme start="2024" channel="c"><title>x</title></programme>')).rejects.toThrow(
      /cut short.*unclosed tag: tv/,
    );
    // Whole: a closed <tv>, with or without what may follow it.
    expect((await parse(whole.trimEnd())).counts.programmes).toBe(2);
    expect((await parse('<tv/>')).counts).toEqual({ channels: 0, programmes: 0, skipped: 0 });
  });

  it('refuses a document that a stray "<" left unreadable to its end, instead of keeping what came before', async () => {
    // saxes cannot recover from "<<![CDATA[": everything after it would be lost without a word.
    const garbled = tv([titled(), programme('<title>x<<![CDATA[x & y]]></title>'), titled(), titled()].join('\n'));
    await expect(parse(garbled)).rejects.toThrow(/^XMLTV document cut short/);
  });

  it('repairs bare ampersands in text and attributes, but not in CDATA, instead of losing what follows', async () => {
    const { counts, programmes } = await parse(
      tv(
        [
          programme(
            '<title>Tom & Jerry</title><desc>R&D &amp; &#38; &#x26; &lt; &</desc><icon src="http://img/x.jpg?a=1&b=2"/>',
          ),
          programme('<title>Law &amp Order</title><sub-title><![CDATA[a & b &amp; c]]></sub-title>'),
          programme('<title>Next</title>'),
        ].join('\n'),
      ),
    );
    expect(programmes.map((p) => [p.title, p.summary, p.image, p.episodeTitle])).toEqual([
      ['Tom & Jerry', 'R&D & & & < &', 'http://img/x.jpg?a=1&b=2', undefined],
      ['Law &amp Order', undefined, undefined, 'a & b &amp; c'],
      ['Next', undefined, undefined, undefined],
    ]);
    expect(counts.skipped).toBe(0);
  });

  it('throws a clear Error for documents that are not XMLTV at all', async () => {
    await expect(parse('')).rejects.toThrow('Not an XMLTV document: it is empty');
    await expect(parse(Buffer.alloc(0))).rejects.toThrow('Not an XMLTV document: it is empty');
    await expect(parse(' \n\t ')).rejects.toThrow('Not an XMLTV document: it is empty');
    await expect(parse('hello, world')).rejects.toThrow(/^Not an XMLTV document/);
    await expect(parse('{"tv": []}')).rejects.toThrow(/^Not an XMLTV document/);
    await expect(parse('<!DOCTYPE html><html><body>502 Bad Gateway</body></html>')).rejects.toThrow(
      'Not an XMLTV document: the root element is <html>, not <tv>',
    );
    await expect(parse(Buffer.from([0x00, 0xff, 0x13, 0x37, 0x42]))).rejects.toThrow(/^Not an XMLTV document/);
  });

  it('refuses documents that declare entities, without expanding or handing over anything', async () => {
    const external =
      '<?xml version="1.0"?><!DOCTYPE tv [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><tv><channel id="a"><display-name>&xxe;</display-name></channel></tv>';
    const laughs =
      '<!DOCTYPE tv [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><tv><programme start="2024" channel="c"><title>&b;</title></programme></tv>';
    const parameter = '<!DOCTYPE tv [<!ENTITY % p SYSTEM "http://evil.example/x.dtd"> %p;]><tv/>';
    for (const doc of [external, laughs, parameter]) {
      const seen: unknown[] = [];
      await expect(
        parseXmltv(source([doc]), { channel: (c) => seen.push(c), programme: (p) => seen.push(p) }),
      ).rejects.toThrow(/^XMLTV document refused: its DOCTYPE declares entities/);
      expect(seen).toEqual([]);
    }
  });

  it('never expands an undeclared entity reference either', async () => {
    const { programmes, counts } = await parse(
      tv(
        `${programme('<title>&xxe;</title>')}${programme('<title>ok</title><desc>&lt;b&gt; &#233; &#x1F600;</desc>')}`,
      ),
    );
    expect(programmes).toEqual([{ ...base, title: 'ok', summary: '<b> é 😀' }]);
    expect(counts.skipped).toBe(1);
  });

  it('passes a handler error through unchanged', async () => {
    const failure = new Error('database is locked');
    await expect(
      parseXmltv(source([tv(titled())]), {
        programme: () => {
          throw failure;
        },
      }),
    ).rejects.toBe(failure);
  });

  const anyText = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.string({
      unit: fc.constantFrom(
        '<',
        '>',
        '&',
        ';',
        '/',
        '!',
        '?',
        '"',
        '=',
        ' ',
        'a',
        'tv',
        'programme',
        'title',
        '[',
        ']',
        '#',
        'x',
        '-',
        'DOCTYPE',
        'ENTITY',
      ),
      maxLength: 60,
    }),
  );

  it('resolves with counts or throws only the documented Error, whatever the text', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          anyText,
          anyText.map((s) => `<tv>${s}</tv>`),
          anyText.map((s) => tv(programme(`<title>x</title>${s}`))),
          fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
        ),
        async (doc) => {
          try {
            const { counts } = await parse(doc);
            expect(counts.channels + counts.programmes + counts.skipped).toBeGreaterThanOrEqual(0);
          } catch (error) {
            expect(error).toBeInstanceOf(Error);
            expect((error as Error).message).toMatch(DOCUMENTED_ERROR);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('parseXmltv: cut short and garbled (never a partial guide)', () => {
  const word = fc.stringMatching(/^[A-Za-z0-9 &<>é😀]{1,12}$/u);
  const escape = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  /** A well-formed guide of a few channels and programmes, as the DVR's sources write them. */
  const guide = fc
    .record({ channels: fc.array(word, { maxLength: 4 }), titles: fc.array(word, { minLength: 1, maxLength: 12 }) })
    .map(({ channels, titles }) =>
      tv(
        [
          ...channels.map((name, i) => `<channel id="c${i}"><display-name>${escape(name)}</display-name></channel>`),
          ...titles.map((title, i) => programme(`<title>${escape(title)}</title><desc>Part ${i}</desc>`)),
        ].join('\n'),
      ),
    );
  const closed = (doc: string) => doc.lastIndexOf('</tv>') + '</tv>'.length;

  it('refuses every prefix that ends before </tv> closes, in any chunks, and reads every longer one whole', async () => {
    await fc.assert(
      fc.asyncProperty(
        guide,
        fc.nat(),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.boolean(),
        async (doc, at, cuts, asBytes) => {
          const whole = await parse(doc);
          const end = at % (doc.length + 1);
          const text = doc.slice(0, end);
          const input = asBytes ? Buffer.from(text) : text;
          const points = [...new Set(cuts.map((c) => c % (input.length + 1)))].sort((a, b) => a - b);
          const parts = [0, ...points].map((from, i) => input.slice(from, points[i] ?? input.length));
          const result = await outcome(parts);
          if (end < closed(doc))
            expect(result).toMatchObject({ problem: expect.stringMatching(/^(incomplete|not_xmltv)$/) });
          else expect(result).toEqual(whole);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses a gzipped guide whose download stopped early', async () => {
    await fc.assert(
      fc.asyncProperty(guide, fc.nat(), async (doc, at) => {
        const gz = gzipSync(Buffer.from(doc));
        // Up to the last 8 bytes (the gzip trailer): zlib then knows the stream ended early.
        const cut = gz.subarray(0, at % (gz.length - 8));
        await expect(parse(cut)).rejects.toThrow();
      }),
      { numRuns: 100 },
    );
  });

  it('garbled anywhere: reads it or refuses it with a documented error, never anything else', async () => {
    const garbage = fc.string({
      unit: fc.constantFrom(
        '<',
        '>',
        '&',
        ';',
        '/',
        '!',
        '?',
        '"',
        '=',
        ' ',
        'x',
        'tv',
        'programme',
        'title',
        '[',
        ']',
        'CDATA',
        '--',
        '\u0000',
        '\uFFFD',
      ),
      maxLength: 20,
    });
    await fc.assert(
      fc.asyncProperty(guide, fc.nat(), fc.nat(40), garbage, async (doc, at, length, junk) => {
        const from = at % (doc.length + 1);
        const result = await outcome(doc.slice(0, from) + junk + doc.slice(from + length));
        if ('refused' in result) expect(result.refused).toMatch(DOCUMENTED_ERROR);
        else expect(result.counts.programmes + result.counts.skipped).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 300 },
    );
  });
});

describe('parseXmltv: abort', () => {
  const isAbortError = (error: unknown): boolean => error instanceof Error && error.name === 'AbortError';

  it('rejects at once with an already-aborted signal, handing over nothing', async () => {
    const seen: unknown[] = [];
    const error = await parseXmltv(
      source([tv(titled())]),
      { programme: (p) => seen.push(p) },
      { signal: AbortSignal.abort() },
    ).catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect(seen).toEqual([]);
  });

  it('stops handing over programmes as soon as a handler aborts', async () => {
    const controller = new AbortController();
    const seen: XmltvProgramme[] = [];
    const doc = tv([titled(), titled(), titled()].join('\n'));
    const error = await parseXmltv(
      source([doc]),
      {
        programme: (p) => {
          seen.push(p);
          controller.abort();
        },
      },
      { signal: controller.signal },
    ).catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect(seen).toHaveLength(1);
  });

  it('rejects while the source stalls, and releases the source', async () => {
    let released = false;
    let sent = false;
    const stalled: AsyncIterable<string> = {
      [Symbol.asyncIterator]: () => ({
        next: () =>
          sent
            ? new Promise<IteratorResult<string>>(() => {})
            : ((sent = true), Promise.resolve({ done: false, value: `<tv>${titled()}` })),
        return: () => {
          released = true;
          return Promise.resolve({ done: true, value: undefined });
        },
      }),
    };
    const controller = new AbortController();
    const seen: XmltvProgramme[] = [];
    setTimeout(() => controller.abort(), 30);
    const error = await parseXmltv(stalled, { programme: (p) => seen.push(p) }, { signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    expect(isAbortError(error)).toBe(true);
    expect(seen).toHaveLength(1);
    expect(released).toBe(true);
  });
});

describe('parseXmltv: chunks and encodings', () => {
  const doc = tv(
    `<channel id="é.1"><display-name>Télé 5</display-name><display-name>5</display-name></channel>\r\n${programme(
      '<title>Café &amp; Crème 😀 & Co</title><sub-title><![CDATA[a]]b & c]]></sub-title><desc>line one &\r\nline two &#x1F600;</desc><category>Ünterhaltung</category><episode-num system="xmltv_ns">1.2.</episode-num><new/>',
      `${TIMES} channel="é.1"`,
    )}\r\n${programme('<title>Zweite</title>', 'start="20240301130000 +0000" channel="é.1"')}`,
  );
  const bytes = Buffer.from(doc, 'utf8');

  it('gives the same result for the document split at every byte and at every character', async () => {
    const whole = await parse(doc);
    expect(whole.counts).toEqual({ channels: 1, programmes: 2, skipped: 0 });
    expect(whole.programmes[0]).toMatchObject({
      title: 'Café & Crème 😀 & Co',
      episodeTitle: 'a]]b & c',
      summary: 'line one &\nline two 😀',
      categories: ['Ünterhaltung'],
      season: 2,
      episode: 3,
    });
    for (let at = 0; at <= bytes.length; at++) {
      expect(await parse([bytes.subarray(0, at), bytes.subarray(at)]), `byte ${at}`).toEqual(whole);
    }
    for (let at = 0; at <= doc.length; at++) {
      expect(await parse([doc.slice(0, at), doc.slice(at)]), `char ${at}`).toEqual(whole);
    }
    expect(await parse([...bytes].map((b) => Buffer.from([b])))).toEqual(whole);
  });

  it('gives the same result however a document with ampersands and CDATA is cut into chunks', async () => {
    const piece = fc.constantFrom(
      '&',
      '&amp;',
      '&#38;',
      '&#x26;',
      ';',
      'amp',
      '#x',
      'é',
      '😀',
      ' ',
      'a',
      '<![CDATA[x & y]]>',
      ']]',
      '<',
      '\r\n',
    );
    const content = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''));
    await fc.assert(
      fc.asyncProperty(
        fc.array(content, { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.boolean(),
        async (titles, cuts, asBytes) => {
          const text = tv(titles.map((t) => programme(`<title>x${t}</title>`)).join('\n'));
          const whole = asBytes ? Buffer.from(text) : text;
          const at = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((a, b) => a - b);
          const parts = [0, ...at].map((from, i) => whole.slice(from, at[i] ?? whole.length));
          expect(await outcome(parts)).toEqual(await outcome(whole));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('decompresses gzip, honours a declared ISO-8859-1 encoding and a UTF-16 byte order mark', async () => {
    const whole = await parse(doc);
    const gz = gzipSync(bytes);
    expect(await parse([gz.subarray(0, 1), gz.subarray(1, 100), gz.subarray(100)])).toEqual(whole);
    const latin1 = Buffer.from(
      '<?xml version="1.0" encoding="ISO-8859-1"?><tv><programme start="2024" channel="c"><title>Caf\u00e9 \u00fcber</title></programme></tv>',
      'latin1',
    );
    expect((await parse(latin1)).programmes[0]?.title).toBe('Café über');
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('<tv><programme start="2024" channel="c"><title>Ünïcode 😀</title></programme></tv>', 'utf16le'),
    ]);
    expect((await parse([utf16.subarray(0, 3), utf16.subarray(3)])).programmes[0]?.title).toBe('Ünïcode 😀');
    await expect(parse(Buffer.from('<?xml version="1.0" encoding="x-klingon"?><tv/>'))).rejects.toThrow(
      'XMLTV document refused: unsupported encoding "x-klingon"',
    );
  });
});

describe('parseXmltv: round trip', () => {
  const special = fc.constantFrom(
    'a',
    'Z',
    ' ',
    '&',
    '<',
    '>',
    '"',
    "'",
    ']]>',
    ';',
    '&amp;',
    'é',
    '€',
    '😀',
    '\n',
    '\t',
    '\u00a0',
  );
  const unit = fc.oneof(
    { weight: 3, arbitrary: special },
    { weight: 1, arbitrary: fc.integer({ min: 0x20, max: 0xd7ff }).map((c) => String.fromCharCode(c)) },
  );
  const text = fc.string({ unit, maxLength: 30 });
  const escapeText = (s: string): string => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  // Literal tabs/newlines in attributes are normalized to spaces by XML: write them as references.
  const escapeAttribute = (s: string): string =>
    escapeText(s).replaceAll('"', '&quot;').replaceAll('\n', '&#10;').replaceAll('\t', '&#9;');
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
  const xmltvTime = (seconds: number): string => {
    const d = new Date(seconds * 1000);
    return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())} +0000`;
  };

  it('hands back arbitrary programme fields written into a document', async () => {
    const fields = fc.record({
      channel: text.filter((s) => s.trim() !== ''),
      start: fc.integer({ min: 0, max: 4_000_000_000 }),
      length: fc.option(fc.integer({ min: 1, max: 86_400 * 3 }), { nil: undefined }),
      title: text.filter((s) => s.trim() !== ''),
      episodeTitle: fc.option(text, { nil: undefined }),
      summary: fc.option(text, { nil: undefined }),
      categories: fc.array(text, { maxLength: 4 }),
      ns: fc.option(
        fc.record({
          season: fc.option(fc.nat(999), { nil: undefined }),
          episode: fc.option(fc.nat(999), { nil: undefined }),
        }),
        { nil: undefined },
      ),
      onscreen: fc.option(fc.record({ season: fc.nat(99), episode: fc.nat(999) }), { nil: undefined }),
      isNew: fc.boolean(),
      previouslyShown: fc.boolean(),
      rating: fc.option(text, { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(fields, { minLength: 1, maxLength: 3 }), async (list) => {
        const body = list
          .map((f) => {
            const stop = f.length === undefined ? '' : ` stop="${xmltvTime(f.start + f.length)}"`;
            const ns = f.ns
              ? `<episode-num system="xmltv_ns">${f.ns.season ?? ''}.${f.ns.episode ?? ''}.</episode-num>`
              : '';
            const onscreen = f.onscreen
              ? `<episode-num system="onscreen">S${pad(f.onscreen.season)}E${pad(f.onscreen.episode)}</episode-num>`
              : '';
            return (
              `<programme start="${xmltvTime(f.start)}"${stop} channel="${escapeAttribute(f.channel)}">` +
              `<title>${escapeText(f.title)}</title>` +
              (f.episodeTitle === undefined ? '' : `<sub-title>${escapeText(f.episodeTitle)}</sub-title>`) +
              (f.summary === undefined ? '' : `<desc>${escapeText(f.summary)}</desc>`) +
              f.categories.map((c) => `<category>${escapeText(c)}</category>`).join('') +
              onscreen +
              ns +
              (f.isNew ? '<new/>' : '') +
              (f.previouslyShown ? '<previously-shown/>' : '') +
              (f.rating === undefined ? '' : `<rating><value>${escapeText(f.rating)}</value></rating>`) +
              '</programme>'
            );
          })
          .join('\n');
        const expected = list.map((f) => {
          const p: XmltvProgramme = {
            channel: f.channel.trim(),
            start: f.start,
            title: f.title.trim(),
            categories: [...new Set(f.categories.map((c) => c.trim()).filter((c) => c !== ''))],
            isNew: f.isNew,
            previouslyShown: f.previouslyShown,
          };
          if (f.length !== undefined) p.stop = f.start + f.length;
          if (f.episodeTitle?.trim()) p.episodeTitle = f.episodeTitle.trim();
          if (f.summary?.trim()) p.summary = f.summary.trim();
          const season = f.ns?.season === undefined ? f.onscreen?.season : f.ns.season + 1;
          const episode = f.ns?.episode === undefined ? f.onscreen?.episode : f.ns.episode + 1;
          if (season !== undefined) p.season = season;
          if (episode !== undefined) p.episode = episode;
          if (f.rating?.trim()) p.rating = f.rating.trim();
          return p;
        });
        const { programmes, counts } = await parse(tv(body));
        expect(programmes).toStrictEqual(expected);
        expect(counts).toEqual({ channels: 0, programmes: list.length, skipped: 0 });
      }),
      { numRuns: 200 },
    );
  });
});

describe('parseXmltv: a guide from bench/generate-guide.mjs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'antenna-xmltv-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  type WriteGuide = (
    path: string,
    options: { channels?: number; days?: number; start?: number; gzip?: boolean },
  ) => Promise<{ programmes: number; bytes: number; xmlBytes: number }>;
  const loadGenerator = async (): Promise<WriteGuide> =>
    ((await import(new URL('../../bench/generate-guide.mjs', import.meta.url).href)) as { writeGuide: WriteGuide })
      .writeGuide;

  it('parses a 2-channel, 1-day guide completely, plain and gzipped', async () => {
    const writeGuide = await loadGenerator();
    const start = Date.UTC(2024, 2, 1) / 1000;
    const plainPath = join(dir, 'guide.xml');
    const written = await writeGuide(plainPath, { channels: 2, days: 1, start });
    const channels: XmltvChannel[] = [];
    const programmes: XmltvProgramme[] = [];
    const counts = await parseXmltv(createReadStream(plainPath), {
      channel: (c) => channels.push(c),
      programme: (p) => programmes.push(p),
    });

    expect(written.bytes).toBe(written.xmlBytes);
    expect(counts).toEqual({ channels: 2, programmes: written.programmes, skipped: 0 });
    expect(channels.map((c) => [c.id, c.number])).toEqual([
      ['ch0.example', '2.1'],
      ['ch1.example', '3'],
    ]);
    for (const id of ['ch0.example', 'ch1.example']) {
      const schedule = programmes.filter((p) => p.channel === id);
      expect(schedule[0]?.start).toBe(start);
      // Back to back: each programme starts when the one before stops, through the whole day.
      schedule.slice(1).forEach((p, i) => expect(p.start).toBe(schedule[i]?.stop));
      expect(schedule.at(-1)?.stop).toBeGreaterThanOrEqual(start + 86_400);
    }
    const movies = programmes.filter((p) => p.programId?.startsWith('MV'));
    const episodes = programmes.filter((p) => p.programId?.startsWith('EP'));
    expect(movies.length).toBeGreaterThan(0);
    expect(
      movies.every((m) => m.seriesId === undefined && m.year !== undefined && m.categories.includes('Movie')),
    ).toBe(true);
    expect(
      episodes.every(
        (e) =>
          e.seriesId === `SH${e.programId?.slice(2, 10)}` &&
          e.season !== undefined &&
          e.episode !== undefined &&
          e.episodeTitle !== undefined &&
          (e.summary?.length ?? 0) > 100,
      ),
    ).toBe(true);
    expect(programmes.some((p) => p.isNew)).toBe(true);

    const gzPath = join(dir, 'guide.xml.gz');
    const gzipped = await writeGuide(gzPath, { channels: 2, days: 1, start, gzip: true });
    expect(gzipped.bytes).toBeLessThan(gzipped.xmlBytes);
    const again: XmltvProgramme[] = [];
    await parseXmltv(createReadStream(gzPath), { programme: (p) => again.push(p) });
    expect(again).toEqual(programmes);
  });
});
