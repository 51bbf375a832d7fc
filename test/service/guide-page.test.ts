/**
 * The guide grid's pages (LiveTvService.guidePage) on a real temp SQLite file holding
 * 500 channels × 14 days of half-hour programmes (336,000 rows, written straight through
 * the repositories): paging in channel-number order, windows anywhere in the fortnight,
 * jobs marked, answers fast, and the queries on their indexes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DvrService } from '../../src/dvr/dvr.service.js';
import { jobRecords } from '../../src/dvr/lineup/guide-page.js';
import { GuideWriter, saveGuide } from '../../src/repositories/dvr/guide.repository.js';
import { upsertJob } from '../../src/repositories/dvr/jobs.repository.js';
import { replaceSourceChannels, saveSource } from '../../src/repositories/dvr/sources.repository.js';
import { createDvr } from '../support/dvr-app.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

/** Epoch seconds of the guide's first programmes (2030, on a whole hour). */
const T0 = 1_900_000_800;
const CHANNELS = 500;
const SLOTS = 14 * 48;

let temp: TempLibrary;
let dvr: DvrService;

beforeAll(() => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  saveSource(temp.db, {
    id: 'm3u-big',
    kind: 'm3u',
    location: '/big.m3u',
    name: 'Big',
    stream_limit: 2,
    origin: 'managed',
  });
  // Numbers given out of order, with a subchannel: the page orders them as a person would.
  const numbers = Array.from({ length: CHANNELS - 1 }, (_, i) => String(CHANNELS - 1 - i)).concat('2.1');
  replaceSourceChannels(temp.db, 'm3u-big', {
    skipped: 0,
    channels: numbers.map((number) => ({
      number,
      name: `Channel ${number}`,
      hd: false,
      stream_url: `http://127.0.0.1:9/${number}`,
      guide_id: `c${number}`,
    })),
  });
  saveGuide(temp.db, { id: 'g', location: '/guide.xml', origin: 'managed' });
  const writer = new GuideWriter(temp.db, 'g');
  for (const number of numbers) {
    writer.channel({ id: `c${number}`, displayNames: [`Channel ${number}`] });
    for (let slot = 0; slot < SLOTS; slot++) {
      writer.programme({
        channel: `c${number}`,
        start: T0 + slot * 1800,
        stop: T0 + (slot + 1) * 1800,
        title: `Show ${number}`,
        episodeTitle: `Part ${slot}`,
        seriesId: `S${number}`,
      });
    }
  }
  writer.commit({ skipped: 0 });
  dvr = createDvr(temp, { sources: [], guides: [], now: () => T0 * 1000 });
}, 120_000);

afterAll(async () => {
  await dvr?.stop();
  temp?.close();
});

const page = (start: number, end: number, offset = 0, limit = 100, favorites = false) =>
  dvr.live.guidePage({ start, end, offset, limit, favorites });

describe('guide pages', () => {
  it('pages the channels in channel-number order, with a total', () => {
    const first = page(T0, T0 + 3600, 0, 100);
    expect(first.total).toBe(CHANNELS);
    expect(first.channels.map((c) => c.number).slice(0, 4)).toEqual(['1', '2', '2.1', '3']);
    const numbers: string[] = [];
    for (let offset = 0; offset < CHANNELS; offset += 100)
      numbers.push(...page(T0, T0 + 3600, offset, 100).channels.map((c) => c.number));
    expect(numbers).toHaveLength(CHANNELS);
    expect(new Set(numbers).size).toBe(CHANNELS);
    expect(page(T0, T0 + 3600, CHANNELS, 100).channels).toEqual([]);
  });

  it('answers each channel with exactly the programmes overlapping the window, anywhere in the fortnight', () => {
    const start = T0 + 13 * 86400 + 900;
    const result = page(start, start + 6 * 3600, 200, 100);
    expect(result.channels).toHaveLength(100);
    for (const channel of result.channels) {
      // 06:15 to 12:15 from a half hour's boundary: 13 programmes, the first started before the window.
      expect(channel.airings).toHaveLength(13);
      expect(channel.airings[0]!.start_time).toBe(start - 900);
      expect(
        channel.airings.every(
          (a) => a.start_time < start + 6 * 3600 && a.end_time > start && a.title === `Show ${channel.number}`,
        ),
      ).toBe(true);
      expect(channel.airings.map((a) => a.start_time)).toEqual(
        [...channel.airings.map((a) => a.start_time)].sort((a, b) => a - b),
      );
    }
    // What is on at one instant: one programme per channel.
    expect(
      page(start, start + 1).channels.every(
        (c) => c.airings.length === 1 && c.airings[0]!.series_id === `S${c.number}`,
      ),
    ).toBe(true);
    // Past the guide's end: channels, no programmes.
    expect(page(T0 + 15 * 86400, T0 + 15 * 86400 + 3600).channels.every((c) => c.airings.length === 0)).toBe(true);
  });

  it('opens a 100-channel, 24-hour page well within the grid budget', () => {
    page(T0, T0 + 3600); // Statements prepared once, as in a running server.
    const started = performance.now();
    const result = page(T0 + 7 * 86400, T0 + 8 * 86400, 300, 100);
    const elapsed = performance.now() - started;
    expect(result.channels.reduce((n, c) => n + c.airings.length, 0)).toBe(100 * 48);
    expect(elapsed).toBeLessThan(400);
  });

  it('marks the airings a job records, and only on its channel', () => {
    const start = T0 + 86400;
    upsertJob(temp.db, {
      id: `${start - 60}-1`,
      name: 'Show 5',
      start_time: start - 60,
      end_time: start + 1800 + 120,
      channels: ['5'],
      channel: '5',
      item: { title: 'Show 5' },
    });
    const result = page(start - 1800, start + 3600, 0, 10);
    const five = result.channels.find((c) => c.number === '5')!;
    expect(five.airings.map((a) => a.job_id ?? null)).toEqual([null, `${start - 60}-1`, null]);
    expect(result.channels.find((c) => c.number === '6')!.airings.some((a) => a.job_id)).toBe(false);
  });

  it('lists only favorites when asked', () => {
    dvr.lineupEdits.setFavorite('42', true);
    const favorites = page(T0, T0 + 1800, 0, 100, true);
    expect(favorites.total).toBe(1);
    expect(favorites.channels.map((c) => [c.number, c.favorited])).toEqual([['42', true]]);
  });

  it('rejects a window that ends before it starts', () => {
    expect(() => page(T0, T0)).toThrow(/"end" must be after "start"/);
  });

  it('reads programmes and jobs through their indexes', () => {
    const plan = (sql: string, ...args: unknown[]) =>
      (temp.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[])
        .map((row) => row.detail)
        .join('\n');
    const programmes = plan(
      `SELECT p.start FROM json_each(?) k JOIN programmes p ON p.guide_id = json_extract(k.value, '$[0]') AND p.xmltv_channel = json_extract(k.value, '$[1]')
        WHERE p.start >= ? AND p.start < ? AND p.stop > ? ORDER BY k.key, p.start`,
      '[["g","c1"]]',
      0,
      1,
      0,
    );
    expect(programmes).toMatch(
      /SEARCH p USING INDEX programmes_channel_start \(guide_id=\? AND xmltv_channel=\? AND start>\? AND start<\?\)/,
    );
    const jobs = plan(
      'SELECT id FROM jobs WHERE start_time >= ? AND start_time < ? AND end_time > ? AND skipped = 0 AND failed = 0 ORDER BY start_time',
      0,
      1,
      0,
    );
    expect(jobs).toMatch(/USING INDEX jobs_start/);
  });
});

describe('which airing a job records', () => {
  it('is the one whose middle it covers, or that covers its middle; not the one its padding spills into', () => {
    expect(jobRecords({ start_time: 940, end_time: 2100 }, 1000, 2000)).toBe(true);
    expect(jobRecords({ start_time: 940, end_time: 2100 }, 2000, 3000)).toBe(false);
    expect(jobRecords({ start_time: 1700, end_time: 2000 }, 1000, 2000)).toBe(true);
    expect(jobRecords({ start_time: 3000, end_time: 4000 }, 1000, 2000)).toBe(false);
  });
});
