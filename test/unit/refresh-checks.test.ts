/**
 * Whether a refresh is believable (src/dvr/sources/refresh-checks.ts): table tests of each
 * decision, and properties joining the readers to them: a playlist cut short is applied
 * only when it keeps at least half the channels, an XMLTV document cut short never.
 */
import fc from 'fast-check';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseM3u } from '../../src/dvr/sources/m3u.parser.js';
import {
  advice,
  confirmation,
  judgeGuide,
  judgeLineup,
  MAX_REMOVED_SHARE,
  needsConfirmation,
  playlistProblem,
  REJECTION_KINDS,
  RefreshRejected,
  rejectionKind,
} from '../../src/dvr/sources/refresh-checks.js';
import { SourceError } from '../../src/dvr/sources/source-reader.js';
import { parseXmltv, XmltvDocumentError } from '../../src/dvr/sources/xmltv/xmltv.parser.js';

const numbers = (count: number, from = 1) => Array.from({ length: count }, (_, i) => String(from + i));

describe('playlistProblem', () => {
  const read = (text: string) =>
    playlistProblem(text, { channels: parseM3u(text).channels.length, skipped: parseM3u(text).skipped });

  it.each([
    ['nothing at all', '', /^the playlist is empty \(0 bytes\)$/],
    ['blank space only', ' \n\r\n\t', /^the playlist is empty \(only blank space\)$/],
    ['a BOM only', '\uFEFF', /^the playlist is empty \(only blank space\)$/],
    [
      'a login page with a 200',
      '<!doctype html>\n<html><body>Your subscription has expired</body></html>',
      /^it is a web page or other markup, not an M3U playlist \(it begins "<!doctype html>/,
    ],
    ['an HTML page that lists stream links', '<html>\n#EXTINF:-1,One\nhttp://a/1\n</html>', /web page or other markup/],
    ['XML', '<?xml version="1.0"?><tv></tv>', /web page or other markup/],
    ['an error text', 'Service Unavailable', /^it is not an M3U playlist \(1 line could not be read\)$/],
    ['JSON', '{"error": "expired"}\n{"code": 403}', /^it is not an M3U playlist \(2 lines could not be read\)$/],
    [
      'entries that are all broken',
      '#EXTM3U\n#EXTINF:-1,One\nnot a url',
      /^it is not an M3U playlist \(1 line could not be read\)$/,
    ],
  ])('refuses %s', (_what, text, message) => {
    expect(read(text)).toMatch(message);
  });

  it.each([
    ['a playlist', '#EXTM3U\n#EXTINF:-1,One\nhttp://a/1\n'],
    ['one without its header', '#EXTINF:-1,One\nhttp://a/1'],
    ['a header and no entries (judged as empty by judgeLineup, not here)', '#EXTM3U\n'],
    ['an #EXTINF with no URL yet', '#EXTM3U x-tvg-url="http://guide"\n'],
    ['channels beside garbage', '#EXTM3U\n#EXTINF:-1,One\nhttp://a/1\ngarbage\n'],
  ])('accepts %s', (_what, text) => {
    expect(read(text)).toBeUndefined();
  });
});

describe('judgeLineup', () => {
  it.each([
    ['the first refresh, empty', [], [], undefined],
    ['the first refresh', [], numbers(3), undefined],
    ['the same lineup', numbers(4), numbers(4), undefined],
    ['a bigger one', numbers(4), numbers(9), undefined],
    ['half of the channels gone (not more than half)', numbers(4), numbers(2), undefined],
    ['one of three gone', numbers(3), ['1', '3'], undefined],
    ['all channels gone', numbers(12), [], 'empty'],
    ['more than half gone', numbers(5), numbers(2), 'shrinks'],
    ['two of three gone', numbers(3), ['2'], 'shrinks'],
    ['renumbered: as many channels, none with its old number', numbers(6), numbers(6, 100), 'shrinks'],
    ['the only channel gone, another in its place', ['7'], ['8'], 'shrinks'],
  ] as const)('%s', (_what, before, after, kind) => {
    expect(judgeLineup(before, after)?.kind).toBe(kind);
  });

  it('says what would go, a few numbers by name', () => {
    expect(judgeLineup(numbers(12), numbers(2))?.detail).toBe(
      'it would remove 10 of the 12 channels (3, 4, 5, 6, 7 and 5 more), more than 50 % of them',
    );
    expect(judgeLineup(numbers(12), [])?.detail).toBe('it lists no channels, where the last good refresh gave 12');
  });

  it('takes another share when told', () => {
    expect(judgeLineup(numbers(10), numbers(8), 0.1)?.kind).toBe('shrinks');
    expect(judgeLineup(numbers(10), numbers(1), 0.95)).toBeUndefined();
  });

  it('refuses exactly the lineups that remove more than the share (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat(50).map(String)), fc.uniqueArray(fc.nat(50).map(String)), (before, after) => {
        const gone = before.filter((n) => !after.includes(n)).length;
        const judged = judgeLineup(before, after);
        if (before.length === 0) expect(judged).toBeUndefined();
        else if (after.length === 0) expect(judged?.kind).toBe('empty');
        else expect(judged?.kind).toBe(gone > before.length * MAX_REMOVED_SHARE ? 'shrinks' : undefined);
      }),
    );
  });
});

describe('judgeGuide', () => {
  it.each([
    ['the first refresh', { programmes: 0, upcoming: 0 }, { programmes: 0, upcoming: 0 }, undefined],
    [
      'the first refresh, with programmes',
      { programmes: 0, upcoming: 0 },
      { programmes: 500, upcoming: 400 },
      undefined,
    ],
    ['a guide as big', { programmes: 500, upcoming: 400 }, { programmes: 520, upcoming: 410 }, undefined],
    ['half of what is to come', { programmes: 500, upcoming: 400 }, { programmes: 300, upcoming: 200 }, undefined],
    ['an empty <tv></tv>', { programmes: 500, upcoming: 400 }, { programmes: 0, upcoming: 0 }, 'empty'],
    [
      'empty, where everything stored has ended',
      { programmes: 500, upcoming: 0 },
      { programmes: 0, upcoming: 0 },
      'empty',
    ],
    [
      'only programmes that have ended',
      { programmes: 500, upcoming: 400 },
      { programmes: 300, upcoming: 0 },
      'shrinks',
    ],
    [
      'less than half of what is to come',
      { programmes: 500, upcoming: 400 },
      { programmes: 450, upcoming: 199 },
      'shrinks',
    ],
    [
      'smaller, where nothing stored is to come',
      { programmes: 500, upcoming: 0 },
      { programmes: 3, upcoming: 3 },
      undefined,
    ],
  ] as const)('%s', (_what, before, after, kind) => {
    expect(judgeGuide(before, after)?.kind).toBe(kind);
  });

  it('says what would go', () => {
    expect(judgeGuide({ programmes: 500, upcoming: 400 }, { programmes: 120, upcoming: 100 })?.detail).toBe(
      'it has 100 programmes still to come where the guide has 400: it would remove more than 50 % of them',
    );
    expect(judgeGuide({ programmes: 500, upcoming: 400 }, { programmes: 0, upcoming: 0 })?.detail).toBe(
      'it has no programmes, where the last good refresh gave 500',
    );
  });
});

describe('rejections', () => {
  const zlibError = (bytes: Buffer) => {
    try {
      gunzipSync(bytes);
    } catch (error) {
      return error;
    }
    throw new Error('it decompressed');
  };

  it.each([
    ['an HTTP error status', new SourceError('x answered HTTP 500', 'http_status', 500), 'unreadable'],
    ['a timeout', new SourceError('x did not answer within 30 s', 'timeout'), 'unreadable'],
    ['a missing file', new SourceError('x does not exist', 'not_found'), 'unreadable'],
    ['not JSON from a tuner', new SourceError('x is not JSON', 'invalid'), 'not_recognised'],
    ['not XMLTV', new XmltvDocumentError('Not an XMLTV document: it is empty', 'not_xmltv'), 'not_recognised'],
    ['XMLTV with entities', new XmltvDocumentError('XMLTV document refused: ...', 'refused'), 'not_recognised'],
    ['XMLTV cut short', new XmltvDocumentError('XMLTV document cut short: ...', 'incomplete'), 'incomplete'],
    ['gzip cut short', zlibError(gzipSync('x'.repeat(1000)).subarray(0, 20)), 'incomplete'],
    ['not gzip after all', zlibError(Buffer.from([0x1f, 0x8b, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3])), 'not_recognised'],
    ['a rejection', new RefreshRejected('it lists no channels', 'empty'), 'empty'],
    ['anything else', new Error('database is locked'), 'unreadable'],
    ['not even an Error', 'boom', 'unreadable'],
  ] as const)('%s is %s', (_what, error, kind) => {
    expect(rejectionKind(error)).toBe(kind);
  });

  it('asks for a confirmation only when what was read is fine but removes much', () => {
    expect(REJECTION_KINDS.filter(needsConfirmation)).toEqual(['empty', 'shrinks']);
  });

  it('says what to do about each, and how to confirm', () => {
    expect(confirmation('source', 'm3u-abc')).toBe(
      'POST /dvr/sources/m3u-abc/refresh?accept=true (antenna refresh --source m3u-abc --accept)',
    );
    expect(advice('shrinks', 'guide', 'xmltv-1')).toBe(
      'if the guide really changed, confirm it: POST /dvr/guides/xmltv-1/refresh?accept=true (antenna refresh --guide xmltv-1 --accept)',
    );
    expect(advice('unreadable', 'source', 'm3u-abc')).toMatch(/check the source's URL or file and the network/);
    for (const kind of REJECTION_KINDS) expect(advice(kind, 'guide', 'g').length).toBeGreaterThan(20);
  });
});

describe('the readers and the checks together: never a partial apply', () => {
  const channels = fc.uniqueArray(fc.integer({ min: 1, max: 999 }), { minLength: 1, maxLength: 40 });
  const m3u = (nums: number[]) =>
    [
      '#EXTM3U',
      ...nums.flatMap((n) => [`#EXTINF:-1 tvg-chno="${n}",Channel ${n}`, `http://iptv.example/${n}.ts`]),
    ].join('\n');

  it('applies a playlist cut short only when it still has at least half the channels', () => {
    fc.assert(
      fc.property(channels, fc.nat(), (nums, at) => {
        const text = m3u(nums);
        const before = parseM3u(text).channels.map((c) => c.number);
        const cutText = text.slice(0, at % (text.length + 1));
        const cut = parseM3u(cutText);
        const refused =
          playlistProblem(cutText, { channels: cut.channels.length, skipped: cut.skipped }) ??
          judgeLineup(
            before,
            cut.channels.map((c) => c.number),
          );
        if (refused === undefined) expect(cut.channels.length * 2).toBeGreaterThanOrEqual(before.length);
        else expect(cut.channels.length * 2 < before.length || cut.channels.length === 0).toBe(true);
      }),
    );
  });

  it('never has counts to judge for an XMLTV document cut short: the reader refuses it first', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 30 }), fc.nat(), async (count, at) => {
        const doc = `<?xml version="1.0"?>\n<tv>\n${Array.from({ length: count }, (_, i) => `<programme start="2030010100${String(i % 60).padStart(2, '0')}00 +0000" stop="2030010101000000 +0000" channel="c"><title>P${i}</title></programme>`).join('\n')}\n</tv>\n`;
        const cut = doc.slice(0, at % doc.lastIndexOf('</tv>'));
        const handed: unknown[] = [];
        const error = await parseXmltv(
          (async function* () {
            yield cut;
          })(),
          { programme: (p) => handed.push(p) },
        ).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(XmltvDocumentError);
        expect(rejectionKind(error)).toMatch(/^(incomplete|not_recognised)$/);
      }),
      { numRuns: 200 },
    );
  });
});
