import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseM3u } from '../../src/dvr/sources/m3u.parser.js';

describe('parseM3u', () => {
  it('reads attributes, names, groups and stream URLs of every supported kind', () => {
    const playlist = parseM3u(
      [
        '#EXTM3U x-tvg-url="http://guide/epg.xml.gz"',
        '#EXTINF:-1 tvg-id="bbc1.uk" tvg-chno="101" tvg-name="BBC One" tvg-logo="http://logo/bbc1.png" group-title="UK, General",BBC One HD',
        '#EXTVLCOPT:http-user-agent=VLC/3.0',
        '#KODIPROP:inputstream=inputstream.adaptive',
        'http://iptv.example/live/bbc1.ts',
        '',
        "#EXTINF:0 TVG-ID=itv1.uk group-title='Ents',ITV1",
        'https://iptv.example/live/itv1.m3u8?token=abc',
        '#EXTINF:-1,Multicast One',
        '#EXTGRP:Multicast',
        'udp://@239.0.0.1:1234',
        '#EXTINF:-1 tvg-name="Only Guide Name"',
        'rtp://239.0.0.2:5000',
      ].join('\n'),
    );
    expect(playlist).toEqual({
      skipped: 0,
      channels: [
        {
          number: '101',
          name: 'BBC One HD',
          guideId: 'bbc1.uk',
          guideName: 'BBC One',
          logo: 'http://logo/bbc1.png',
          group: 'UK, General',
          hd: true,
          url: 'http://iptv.example/live/bbc1.ts',
        },
        {
          number: '1',
          name: 'ITV1',
          guideId: 'itv1.uk',
          group: 'Ents',
          hd: false,
          url: 'https://iptv.example/live/itv1.m3u8?token=abc',
        },
        { number: '2', name: 'Multicast One', group: 'Multicast', hd: false, url: 'udp://@239.0.0.1:1234' },
        { number: '3', name: 'Only Guide Name', guideName: 'Only Guide Name', hd: false, url: 'rtp://239.0.0.2:5000' },
      ],
    });
  });

  it('handles CRLF, a BOM, a missing header, commas in names and empty attributes', () => {
    const playlist = parseM3u('\uFEFF#EXTINF:-1 tvg-id="" tvg-logo="",News, Live & Local\r\nhttp://a/1\r\n');
    expect(playlist).toEqual({
      skipped: 0,
      channels: [{ number: '1', name: 'News, Live & Local', hd: false, url: 'http://a/1' }],
    });
  });

  it('takes numbers from tvg-chno and numbers the rest around them', () => {
    const entry = (chno: string | undefined, name: string) =>
      `#EXTINF:-1${chno === undefined ? '' : ` tvg-chno="${chno}"`},${name}\nhttp://a/${encodeURIComponent(name)}`;
    const playlist = parseM3u(
      [
        entry(undefined, 'a'),
        entry('2', 'b'),
        entry('12-1', 'c'),
        entry('012.01', 'd'),
        entry('abc', 'e'),
        entry('2', 'f'),
        entry(undefined, 'g'),
        entry('1.2.3', 'h'),
        entry('3', 'i'),
      ].join('\n'),
    );
    expect(playlist.channels.map((c) => [c.name, c.number])).toEqual([
      ['a', '1'],
      ['b', '2'],
      ['c', '12.1'],
      ['d', '4'], // 12.1 again: a duplicate, numbered like one without tvg-chno
      ['e', '5'],
      ['f', '6'],
      ['g', '7'],
      ['h', '8'],
      ['i', '3'],
    ]);
  });

  it.each([
    ['BBC One HD', true],
    ['Sky Sports F1 UHD', true],
    ['Canal+ FHD', true],
    ['Arte [4K]', true],
    ['Movies (1080p)', true],
    ['Sport 1080i', true],
    ['News 720p', true],
    ['HD+ Promo', true],
    ['Discovery HDTV', true],
    ['bbc one hd', true],
    ['Channel 4', false],
    ['CHD Kids', false],
    ['4Kids TV', false],
    ['Nature HDR', false],
    ['Shopping SD', false],
    ['Radio 10800', false],
  ])('hd of %s is %s', (name, hd) => {
    expect(parseM3u(`#EXTINF:-1,${name}\nhttp://a/b`).channels[0]?.hd).toBe(hd);
  });

  it('takes hd from tvg-name when the display name does not say', () => {
    expect(parseM3u('#EXTINF:-1 tvg-name="Arte HD",Arte\nhttp://a/b').channels[0]?.hd).toBe(true);
  });

  it('skips and counts malformed entries and garbage, and keeps the good ones', () => {
    const playlist = parseM3u(
      [
        'garbage before anything',
        'http://stray/url-without-extinf',
        '#EXTINF:-1,No URL, next entry follows',
        '#EXTINF:-1,Bad URL',
        'not a url at all',
        '#EXTINF:-1,FTP',
        'ftp://files/stream.ts',
        '#EXTINF:-1,No host',
        'http://',
        '#EXTINF:-1,Space in URL',
        'http://a/b c',
        '#EXTINF:-1 tvg-name="unterminated,Name',
        'http://a/unterminated',
        '#EXTINF:-1 tvg-id="x"',
        'http://a/no-name',
        '#EXTINF:-1,Good',
        'http://a/good',
        '#EXTINF:-1,Last without URL',
      ].join('\n'),
    );
    expect(playlist.channels.map((c) => c.name)).toEqual(['Good']);
    expect(playlist.skipped).toBe(10);
  });

  it('reads an unquoted attribute (which sends @iptv/playlist into an endless loop)', () => {
    expect(parseM3u('#EXTINF:-1 tvg-id=abc tvg-chno=7,Seven\nhttp://a/7').channels).toEqual([
      { number: '7', name: 'Seven', guideId: 'abc', hd: false, url: 'http://a/7' },
    ]);
  });

  it('reads an empty or comment-only playlist as no channels', () => {
    expect(parseM3u('')).toEqual({ channels: [], skipped: 0 });
    expect(parseM3u('#EXTM3U\n# just a comment\n\n')).toEqual({ channels: [], skipped: 0 });
  });

  it('reads 100,000 channels and pathological lines in linear time', () => {
    const lines: string[] = ['#EXTM3U'];
    for (let i = 0; i < 100_000; i++)
      lines.push(`#EXTINF:-1 tvg-id="c${i}" group-title="G",Channel ${i}`, `http://a/${i}`);
    const started = performance.now();
    const big = parseM3u(lines.join('\n'));
    const quotes = parseM3u(`#EXTINF:-1 ${'a="'.repeat(300_000)}\nhttp://a/b`);
    const equals = parseM3u(
      `#EXTINF:-1 ${'a=b '.repeat(300_000)}${'='.repeat(300_000)}\nhttp://a/b\n#EXTINF:-1 tvg-chno="${'0'.repeat(500_000)}x",N\nhttp://a/c`,
    );
    expect(performance.now() - started).toBeLessThan(5000);
    expect(big.channels).toHaveLength(100_000);
    expect(big.channels[99_999]).toMatchObject({ number: '100000', name: 'Channel 99999' });
    expect(quotes).toEqual({ channels: [], skipped: 1 });
    expect(equals.channels.map((c) => c.number)).toEqual(['1']);
    expect(equals.skipped).toBe(1);
  });
});

describe('parseM3u properties', () => {
  const lineText = fc.string({ maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, ' '));
  const attributeValue = fc.string({ maxLength: 12 }).map((s) => s.replace(/[\r\n"]/g, ''));
  const chno = fc.oneof(
    fc.constant(undefined),
    fc.integer({ min: 0, max: 30 }).map(String),
    fc.constantFrom('1.1', '1-1', '02', 'x', ''),
  );
  const entry = fc.record({
    name: lineText,
    guideName: fc.option(attributeValue, { nil: undefined }),
    chno,
    options: fc.array(fc.constantFrom('#EXTVLCOPT:x=y', '#KODIPROP:a=b', '', '# note'), { maxLength: 2 }),
    url: fc.oneof(
      fc.constant(undefined),
      fc.webUrl(),
      fc.constantFrom('udp://@239.1.1.1:1234', 'rtp://10.0.0.1:5000', 'ftp://x/y', 'http://', 'garbage'),
    ),
  });
  const renderEntry = (e: {
    name: string;
    guideName: string | undefined;
    chno: string | undefined;
    options: string[];
    url: string | undefined;
  }) =>
    [
      `#EXTINF:-1${e.chno === undefined ? '' : ` tvg-chno="${e.chno}"`}${e.guideName === undefined ? '' : ` tvg-name="${e.guideName}"`},${e.name}`,
      ...e.options,
      ...(e.url === undefined ? [] : [e.url]),
    ].join('\n');

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc
            .array(
              fc.oneof(
                lineText,
                lineText.map((s) => `#EXTINF:${s}`),
              ),
              { maxLength: 20 },
            )
            .map((l) => l.join('\n')),
        ),
        (text) => {
          const playlist = parseM3u(text);
          expect(playlist.skipped).toBeGreaterThanOrEqual(0);
        },
      ),
    );
  });

  it('accounts for every #EXTINF: each becomes a channel or is skipped, and numbers are unique', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 40 }), fc.constantFrom('\n', '\r\n'), (entries, eol) => {
        const playlist = parseM3u(['#EXTM3U', ...entries.map(renderEntry)].join('\n').replace(/\n/g, eol));
        expect(playlist.channels.length + playlist.skipped).toBe(entries.length);
        const numbers = playlist.channels.map((c) => c.number);
        expect(new Set(numbers).size).toBe(numbers.length);
        for (const number of numbers) expect(number).toMatch(/^\d+(\.\d+)?$/);
      }),
    );
  });

  it('keeps each good entry, in order, with its explicit number when it is the first to claim it', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 40 }), (entries) => {
        const playlist = parseM3u(entries.map(renderEntry).join('\n'));
        const good = entries.filter((e) => {
          const named = e.name.trim() !== '' || (e.guideName ?? '').trim() !== '';
          return named && e.url !== undefined && /^(https?|udp|rtp):\/\/[^/\s]/.test(e.url);
        });
        expect(playlist.channels.map((c) => c.url)).toEqual(good.map((e) => e.url));
        expect(playlist.channels.map((c) => c.name)).toEqual(
          good.map((e) => e.name.trim() || (e.guideName ?? '').trim()),
        );
        const claimed = new Set<string>();
        good.forEach((e, i) => {
          if (e.chno === undefined || !/^\d+$/.test(e.chno)) return;
          const number = String(Number(e.chno));
          if (claimed.has(number)) return;
          claimed.add(number);
          expect(playlist.channels[i]?.number).toBe(number);
        });
      }),
    );
  });

  it('counts every line that is neither an entry nor a comment at most once', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(entry.map(renderEntry), lineText), { maxLength: 30 }), (blocks) => {
        const text = blocks.join('\n');
        const playlist = parseM3u(text);
        const extinfs = blocks.filter((b) => b.startsWith('#EXTINF:')).length;
        const others = blocks.filter((b) => !b.startsWith('#') && b.trim() !== '').length;
        expect(playlist.channels.length + playlist.skipped).toBeGreaterThanOrEqual(extinfs);
        expect(playlist.channels.length + playlist.skipped).toBeLessThanOrEqual(extinfs + others);
      }),
    );
  });
});

describe('parseM3u: cut short and garbled', () => {
  const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,10}$/);
  /** A playlist whose channels all carry their own, distinct number. */
  const playlist = fc
    .uniqueArray(fc.integer({ min: 1, max: 9999 }), { minLength: 1, maxLength: 30 })
    .chain((numbers) =>
      fc
        .tuple(fc.constant(numbers), fc.array(name, { minLength: numbers.length, maxLength: numbers.length }))
        .map(([nums, names]) =>
          [
            '#EXTM3U',
            ...nums.flatMap((n, i) => [
              `#EXTINF:-1 tvg-id="ch${n}.test" tvg-chno="${n}",${names[i] ?? ''}`,
              `http://iptv.example/live/${n}.ts`,
            ]),
          ].join('\n'),
        ),
    );

  it("reads a prefix as the first channels of the whole (the last one's URL possibly cut), never more", () => {
    fc.assert(
      fc.property(playlist, fc.nat(), (text, at) => {
        const whole = parseM3u(text).channels;
        const cut = parseM3u(text.slice(0, at % (text.length + 1))).channels;
        expect(cut.length).toBeLessThanOrEqual(whole.length);
        cut.forEach((channel, i) => {
          const { url, ...rest } = whole[i]!;
          expect(channel).toMatchObject(rest);
          if (i < cut.length - 1) expect(channel.url).toBe(url);
          else expect(url.startsWith(channel.url)).toBe(true);
        });
      }),
    );
  });

  it('garbled anywhere: never throws, and every channel it reads has a stream URL and a number of its own', () => {
    const junk = fc.string({
      unit: fc.constantFrom(
        '#',
        'EXTINF:',
        ',',
        '"',
        '=',
        '\n',
        '\r',
        ' ',
        'http://',
        'x',
        '<',
        '>',
        'tvg-chno=',
        '\u0000',
      ),
      maxLength: 30,
    });
    fc.assert(
      fc.property(playlist, fc.nat(), fc.nat(60), junk, (text, at, length, garbage) => {
        const from = at % (text.length + 1);
        const read = parseM3u(text.slice(0, from) + garbage + text.slice(from + length));
        const numbers = read.channels.map((c) => c.number);
        expect(new Set(numbers).size).toBe(numbers.length);
        for (const channel of read.channels) {
          const url = new URL(channel.url);
          expect(['http:', 'https:', 'udp:', 'rtp:']).toContain(url.protocol);
          expect(url.host).not.toBe('');
        }
      }),
    );
  });
});
