/**
 * Antenna as a source for other players (issue 21): the lineup as M3U, its guide as
 * XMLTV, and an HDHomeRun tuner's face, over a real DvrService fed a playlist and a guide
 * with awkward text. What is exported is read back by Antenna's own M3U and XMLTV
 * readers, the XMLTV is checked against the XMLTV DTD by xmllint, and a stream URL from
 * the playlist and one from lineup.json are played by ffprobe from a real port.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DvrService } from '../../src/dvr/dvr.service.js';
import { parseM3u } from '../../src/dvr/sources/m3u.parser.js';
import { parseXmltv } from '../../src/dvr/sources/xmltv/xmltv.parser.js';
import type { XmltvChannel, XmltvProgramme } from '../../src/dvr/sources/xmltv/xmltv.types.js';
import { buildDvrApp, createDvr, writeXmltv } from '../support/dvr-app.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';
import { makeTsClip, type StreamServer, startStreamServer } from '../support/ts-stream-server.js';

const run = promisify(execFile);
/** The XMLTV DTD as Debian ships it (libxmltv-perl; the test command installs it). */
const XMLTV_DTD = '/usr/share/sgml/xmltv/dtd/0.5/xmltv.dtd';

let temp: TempLibrary;
let dvr: DvrService;
let app: FastifyInstance;
let streams: StreamServer;
/** The guide's first programmes: an hour from now, on a whole minute. */
let T: number;

beforeAll(async () => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  const feeds = join(temp.dir, 'feeds');
  mkdirSync(feeds);
  const clip = await makeTsClip(join(feeds, 'clip.ts'), { seconds: 2 });
  streams = await startStreamServer(clip.path);
  T = Math.floor(Date.now() / 60_000) * 60 + 3600;
  const m3u = join(feeds, 'channels.m3u');
  writeFileSync(
    m3u,
    [
      '#EXTM3U',
      `#EXTINF:-1 tvg-id="two.test" tvg-chno="2" tvg-logo="http://logos.example/two.png?a=1&b=2",Two & "Friends"`,
      streams.url('two'),
      '#EXTINF:-1 tvg-id="three.test" tvg-chno="3",Trois Télé',
      streams.url('three'),
      '#EXTINF:-1 tvg-chno="9.1",No Guide',
      streams.url('nine'),
    ].join('\n'),
  );
  const guide = join(feeds, 'guide.xml');
  writeXmltv(
    guide,
    [
      ['two.test', 'Two'],
      ['three.test', 'Three'],
    ],
    [
      {
        channel: 'two.test',
        start: T,
        stop: T + 1800,
        // Written as XML: the guide's text is Harbour Lights & <Co>, Fog "at" dawn.
        title: 'Harbour Lights &amp; &lt;Co&gt;',
        extra:
          "<sub-title>Fog &quot;at&quot; dawn</sub-title><desc>It rolls in; nobody's home.</desc><category>Drama</category><category>Series</category>" +
          '<episode-num system="xmltv_ns">1.4.</episode-num><episode-num system="dd_progid">EP00000001.0005</episode-num><new/><rating><value>TV-PG</value></rating>',
      },
      { channel: 'two.test', start: T + 1800, stop: T + 5400, title: 'Late News' },
      {
        channel: 'three.test',
        start: T,
        stop: T + 7200,
        title: 'Film du soir',
        extra: '<date>1999</date><category>Movie</category>',
      },
      { channel: 'three.test', start: T + 3 * 86_400, stop: T + 3 * 86_400 + 3600, title: 'In three days' },
    ],
  );
  dvr = createDvr(temp, { sources: [{ kind: 'm3u', location: m3u, streams: 3 }], guides: [guide] });
  await dvr.sources.refreshAll();
  app = await buildDvrApp(temp, dvr);
});

afterAll(async () => {
  await app?.close();
  await dvr?.stop();
  await streams?.close();
  temp?.close();
});

const HOST = { host: 'antenna.test:8089' };
const BASE = 'http://antenna.test:8089';

async function exportedGuide(
  query = '',
): Promise<{ channels: XmltvChannel[]; programmes: XmltvProgramme[]; text: string }> {
  const response = await app.inject({ url: `/devices/ANY/guide/xmltv${query}`, headers: HOST });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toMatch(/^application\/xml/);
  const channels: XmltvChannel[] = [];
  const programmes: XmltvProgramme[] = [];
  await parseXmltv(Readable.from([response.body]), {
    channel: (c) => channels.push(c),
    programme: (p) => programmes.push(p),
  });
  return { channels, programmes, text: response.body };
}

describe('the lineup as M3U', () => {
  it('lists every channel with its number, name and logo, streaming through Antenna, as Antenna reads a playlist', async () => {
    for (const query of ['', '?format=ts', '?format=ts&codec=copy', '?codec=copy&anything=else']) {
      const response = await app.inject({ url: `/devices/ANY/channels.m3u${query}`, headers: HOST });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^audio\/x-mpegurl/);
      expect(parseM3u(response.body)).toEqual({
        skipped: 0,
        channels: [
          {
            number: '2',
            name: 'Two & "Friends"',
            guideId: '2.antenna',
            guideName: 'Two &  Friends',
            logo: 'http://logos.example/two.png?a=1&b=2',
            hd: false,
            url: `${BASE}/devices/ANY/channels/2/stream.mpg`,
          },
          {
            number: '3',
            name: 'Trois Télé',
            guideId: '3.antenna',
            guideName: 'Trois Télé',
            hd: false,
            url: `${BASE}/devices/ANY/channels/3/stream.mpg`,
          },
          {
            number: '9.1',
            name: 'No Guide',
            guideId: '9.1.antenna',
            guideName: 'No Guide',
            hd: false,
            url: `${BASE}/devices/ANY/channels/9.1/stream.mpg`,
          },
        ],
      });
    }
  });

  it('answers a format or codec it does not offer with a 400 saying so', async () => {
    for (const query of ['?format=hls', '?codec=h264', '?format=']) {
      const response = await app.inject({ url: `/devices/ANY/channels.m3u${query}` });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ status: 400, code: expect.any(String), message: expect.any(String) });
    }
  });
});

describe('the guide as XMLTV', () => {
  it('gives each channel of the lineup (ids as in the playlist) and its programmes, as Antenna reads a guide', async () => {
    const { channels, programmes } = await exportedGuide();
    expect(channels.map((c) => [c.id, c.displayNames, c.icon])).toEqual([
      ['2.antenna', ['Two & "Friends"', '2'], 'http://logos.example/two.png?a=1&b=2'],
      ['3.antenna', ['Trois Télé', '3'], undefined],
      ['9.1.antenna', ['No Guide', '9.1'], undefined],
    ]);
    const harbour = programmes.find((p) => p.title === 'Harbour Lights & <Co>');
    expect(harbour).toMatchObject({
      channel: '2.antenna',
      start: T,
      stop: T + 1800,
      episodeTitle: 'Fog "at" dawn',
      summary: "It rolls in; nobody's home.",
      categories: ['Drama', 'Series'],
      season: 2,
      episode: 5,
      programId: 'EP000000010005',
      isNew: true,
      rating: 'TV-PG',
    });
    expect(programmes.find((p) => p.title === 'Film du soir')).toMatchObject({
      channel: '3.antenna',
      year: 1999,
      categories: ['Movie'],
      start: T,
      stop: T + 7200,
    });
    expect(programmes.filter((p) => p.channel !== '9.1.antenna')).toHaveLength(4);
  });

  it('gives a channel no guide describes hour blocks named after it, on the hour, over the whole duration', async () => {
    const { programmes } = await exportedGuide('?duration=86400');
    const blocks = programmes.filter((p) => p.channel === '9.1.antenna');
    expect(
      blocks.every(
        (p) =>
          p.title === 'No Guide' && p.stop! - p.start === 3600 && p.start % 3600 === 0 && p.programId === undefined,
      ),
    ).toBe(true);
    const now = Math.floor(Date.now() / 1000);
    expect(blocks[0]!.start).toBeLessThanOrEqual(now);
    expect(blocks.at(-1)!.stop).toBeGreaterThanOrEqual(now + 86_400);
    expect(blocks.slice(1).every((p, i) => p.start === blocks[i]!.stop)).toBe(true);
  });

  it('gives `duration` seconds of guide from now, and answers a duration out of range with a 400', async () => {
    const { programmes } = await exportedGuide('?duration=86400');
    expect(
      programmes
        .filter((p) => p.title !== 'No Guide')
        .map((p) => p.title)
        .sort(),
    ).toEqual(['Film du soir', 'Harbour Lights & <Co>', 'Late News']);
    for (const duration of ['0', '10', '-5', 'week', `${29 * 86_400}`, '1.5']) {
      expect((await app.inject({ url: `/devices/ANY/guide/xmltv?duration=${duration}` })).statusCode).toBe(400);
    }
  });

  it('holds no statement open between its pieces: the DVR writes while an export waits for a slow client', () => {
    const programmes = dvr.lineup.programmes(14 * 86_400);
    expect(programmes.next().done).toBe(false);
    // A rule's creation writes the rule and its jobs: refused ("connection is busy") were a read still open.
    const rule = dvr.rules.create({ type: 'series', title: 'Late News' });
    expect([...programmes].length).toBeGreaterThan(0);
    dvr.rules.delete(rule.id);
  });

  it('validates against the XMLTV DTD', async () => {
    const { text } = await exportedGuide();
    const file = join(temp.dir, 'exported.xml');
    writeFileSync(file, text);
    // xmllint exits non-zero, naming the element, on anything the DTD does not allow.
    const { stderr } = await run('xmllint', ['--noout', '--dtdvalid', XMLTV_DTD, file]);
    expect(stderr).toBe('');
  });
});

describe('an HDHomeRun tuner’s face', () => {
  it('describes a tuner with as many tuners as the sources allow streams, and its lineup', async () => {
    const discover = (await app.inject({ url: '/discover.json', headers: HOST })).json<Record<string, unknown>>();
    expect(discover).toMatchObject({
      FriendlyName: 'Antenna',
      BaseURL: BASE,
      LineupURL: `${BASE}/lineup.json`,
      TunerCount: 3,
      DeviceID: expect.stringMatching(/^[0-9A-F]{8}$/),
    });
    expect((await app.inject({ url: '/discover.json' })).json<Record<string, unknown>>().DeviceID).toBe(
      discover.DeviceID,
    );
    expect((await app.inject({ url: '/lineup.json', headers: HOST })).json()).toEqual([
      { GuideNumber: '2', GuideName: 'Two & "Friends"', URL: `${BASE}/devices/ANY/channels/2/stream.mpg` },
      { GuideNumber: '3', GuideName: 'Trois Télé', URL: `${BASE}/devices/ANY/channels/3/stream.mpg` },
      { GuideNumber: '9.1', GuideName: 'No Guide', URL: `${BASE}/devices/ANY/channels/9.1/stream.mpg` },
    ]);
    expect((await app.inject({ url: '/lineup_status.json' })).json()).toEqual({
      ScanInProgress: 0,
      ScanPossible: 0,
      Source: 'Cable',
      SourceList: ['Cable'],
    });
  });
});

describe('over a real port', () => {
  it('streams a channel from the playlist’s URL and from lineup.json’s, as ffprobe plays them', async () => {
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const playlist = parseM3u(await (await fetch(`${address}/devices/ANY/channels.m3u`)).text());
    const lineup = (await (await fetch(`${address}/lineup.json`)).json()) as { URL: string }[];
    for (const url of [playlist.channels[0]?.url ?? '', lineup[1]?.URL ?? '']) {
      const { stdout } = await run(
        'ffprobe',
        [
          '-v',
          'error',
          '-probesize',
          '200000',
          '-analyzeduration',
          '1000000',
          '-show_entries',
          'stream=codec_type',
          '-of',
          'csv=p=0',
          url,
        ],
        { timeout: 30_000 },
      );
      expect(stdout.split('\n')).toContain('video');
    }
  }, 70_000);
});

describe('bad input', () => {
  it('answers any query with the document or a JSON 400, never a 500', async () => {
    const value = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.integer().map(String),
      fc.constantFrom('ts', 'copy', '3600', '86400'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/devices/ANY/channels.m3u', '/devices/ANY/guide/xmltv'),
        fc.dictionary(fc.constantFrom('format', 'codec', 'duration', 'x'), value),
        async (path, query) => {
          const response = await app.inject({ url: path, query });
          expect([200, 400]).toContain(response.statusCode);
          if (response.statusCode === 400) expect(response.json()).toMatchObject({ status: 400 });
        },
      ),
      { numRuns: 150 },
    );
  });
});
