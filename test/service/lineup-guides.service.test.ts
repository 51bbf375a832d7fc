/**
 * Which guide describes a channel, as the user decides it (guides' priority, a channel's
 * own guide order, a guide channel chosen by hand), and placeholder hours for a channel
 * no guide describes: in the channel guide, the grid, and the planner (a single-programme
 * rule on an hour records it; series and keyword rules never see placeholders; "record
 * now" keeps its own length). DvrService on a real temp SQLite file and files.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { guideIdFor, sourceIdFor } from '../../src/dvr/sources/dvr-sources.service.js';
import type { DvrService } from '../../src/dvr/dvr.service.js';
import { lineupSnapshot } from '../../src/dvr/lineup/lineup-snapshot.js';
import { listJobs } from '../../src/repositories/dvr/jobs.repository.js';
import { createDvr, writeXmltv } from '../support/dvr-app.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

/** Epoch seconds, on the hour (2030); the clock is 30 minutes before. */
const T0 = 1_900_000_800;

let temp: TempLibrary;
let dvr: DvrService;
let first: string;
let second: string;
let playlist: string;

const source = () => sourceIdFor('m3u', playlist);
const titlesOn = (number: string) => dvr.live.guide(number, T0, T0 + 3600).map((a) => a.title);

beforeEach(async () => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  playlist = join(temp.dir, 'channels.m3u');
  first = join(temp.dir, 'first.xml');
  second = join(temp.dir, 'second.xml');
  writeFileSync(
    playlist,
    [
      '#EXTM3U',
      '#EXTINF:-1 tvg-id="alpha.tv" tvg-chno="1",Alpha',
      'http://127.0.0.1:9/1',
      '#EXTINF:-1 tvg-chno="2",Quiet Channel',
      'http://127.0.0.1:9/2',
      '',
    ].join('\n'),
  );
  // Both guides describe Alpha; only the second lists a channel that could stand in for it by hand.
  writeXmltv(
    first,
    [['alpha.tv', 'Alpha']],
    [{ channel: 'alpha.tv', start: T0, stop: T0 + 3600, title: 'First guide show' }],
  );
  writeXmltv(
    second,
    [
      ['alpha.tv', 'Alpha'],
      ['alpha-east', 'Alpha East'],
    ],
    [
      { channel: 'alpha.tv', start: T0, stop: T0 + 3600, title: 'Second guide show' },
      { channel: 'alpha-east', start: T0, stop: T0 + 3600, title: 'East coast show' },
    ],
  );
  dvr = createDvr(temp, {
    sources: [{ kind: 'm3u', location: playlist }],
    guides: [first, second],
    now: () => (T0 - 1800) * 1000,
  });
  const summary = await dvr.sources.refreshAll();
  expect([...summary.sources, ...summary.guides].every((r) => r.error === undefined)).toBe(true);
});

afterEach(async () => {
  await dvr.stop();
  temp.close();
});

describe('which guide describes a channel', () => {
  it('is the guide first in priority order (lower first)', () => {
    expect(dvr.sources.listGuides().map((g) => g.priority)).toEqual([100, 100]);
    dvr.lineupEdits.setGuidePriority(guideIdFor(first), 50);
    expect(titlesOn('1')).toEqual(['First guide show']);
    expect(dvr.lineupEdits.setGuidePriority(guideIdFor(second), 10).priority).toBe(10);
    expect(titlesOn('1')).toEqual(['Second guide show']);
    expect(dvr.sources.listGuides().map((g) => g.id)).toEqual([guideIdFor(second), guideIdFor(first)]);
    expect(dvr.lineupEdits.get(`${source()}-1`).guide).toEqual({ guide_id: guideIdFor(second), xmltv_id: 'alpha.tv' });
  });

  it("follows a channel's own guide order before the guides' priority, and a guide channel chosen by hand before both", () => {
    dvr.lineupEdits.setGuidePriority(guideIdFor(first), 50);
    dvr.lineupEdits.edit(`${source()}-1`, { guide_priority: [guideIdFor(second)] });
    expect(titlesOn('1')).toEqual(['Second guide show']);
    dvr.lineupEdits.edit(`${source()}-1`, { guide_channel: { guide_id: guideIdFor(second), xmltv_id: 'alpha-east' } });
    expect(titlesOn('1')).toEqual(['East coast show']);
    expect(dvr.lineupEdits.get(`${source()}-1`)).toMatchObject({
      guide: { xmltv_id: 'alpha-east' },
      edited: ['guide_channel', 'guide_priority'],
    });
    dvr.lineupEdits.edit(`${source()}-1`, { guide_channel: null, guide_priority: null });
    expect(titlesOn('1')).toEqual(['First guide show']);
  });
});

describe('placeholder hours for a channel no guide describes', () => {
  it('fill its channel guide and its row of the grid, on the hour, named after it', () => {
    expect(dvr.lineupEdits.get(`${source()}-2`)).toMatchObject({ placeholder: true });
    expect(dvr.lineupEdits.get(`${source()}-1`)).toMatchObject({ placeholder: false });
    const hours = dvr.live.guide('2', T0 + 600, T0 + 3 * 3600);
    expect(hours.map((a) => [a.start - T0, a.stop - T0, a.title])).toEqual([
      [0, 3600, 'Quiet Channel'],
      [3600, 7200, 'Quiet Channel'],
      [7200, 10800, 'Quiet Channel'],
    ]);
    const page = dvr.live.guidePage({ start: T0, end: T0 + 7200, offset: 0, limit: 10, favorites: false });
    const row = page.channels.find((c) => c.number === '2');
    expect(row?.airings.map((a) => [a.start_time - T0, a.title, a.placeholder])).toEqual([
      [0, 'Quiet Channel', true],
      [3600, 'Quiet Channel', true],
    ]);
    expect(page.channels.find((c) => c.number === '1')?.airings.every((a) => a.placeholder === undefined)).toBe(true);
  });

  it('can be recorded by time with a single-programme rule, and are never taken by series or keyword rules', () => {
    dvr.rules.create({ type: 'series', title: 'Quiet Channel' });
    dvr.rules.create({ type: 'keyword', keyword: 'Quiet' });
    expect(listJobs(temp.db)).toEqual([]);
    const rule = dvr.rules.create({ type: 'program', channel: '2', start_time: T0 + 3600 });
    // Nothing learnt from a placeholder: the rule records what is at its channel and time.
    expect(rule.definition).not.toHaveProperty('title');
    expect(listJobs(temp.db).map((j) => [j.channel, j.start_time - T0, j.end_time - T0, j.name])).toEqual([
      ['2', 3600, 7200, 'Quiet Channel'],
    ]);
    const page = dvr.live.guidePage({ start: T0 + 3600, end: T0 + 7200, offset: 0, limit: 10, favorites: false });
    expect(page.channels.find((c) => c.number === '2')?.airings[0]).toMatchObject({
      placeholder: true,
      job_id: listJobs(temp.db)[0]!.id,
    });
  });

  it('go once a guide describes the channel', () => {
    writeXmltv(
      first,
      [
        ['alpha.tv', 'Alpha'],
        ['quiet', 'Quiet Channel'],
      ],
      [{ channel: 'quiet', start: T0, stop: T0 + 1800, title: 'Real programme' }],
    );
    return dvr.refreshGuide(guideIdFor(first), true).then(() => {
      expect(titlesOn('2')).toEqual(['Real programme']);
      expect(dvr.lineupEdits.get(`${source()}-2`)).toMatchObject({
        placeholder: false,
        guide: { guide_id: guideIdFor(first), xmltv_id: 'quiet' },
      });
    });
  });
});

describe('the lineup snapshot', () => {
  it('is read once per change of the lineup: other writes keep it, a channel or guide written (by anyone) does not', () => {
    const first = lineupSnapshot(temp.db);
    expect(lineupSnapshot(temp.db).channels).toBe(first.channels);
    expect(lineupSnapshot(temp.db).guideMap).toBe(first.guideMap);
    dvr.rules.create({ type: 'slot', channel: '1', start_time: T0, duration: 600 });
    expect(lineupSnapshot(temp.db).guideMap).toBe(first.guideMap);
    temp.db.prepare("UPDATE guide_channels SET display_names = '[\"Alpha One\"]' WHERE xmltv_id = 'alpha.tv'").run();
    expect(lineupSnapshot(temp.db).guideMap).not.toBe(first.guideMap);
    dvr.lineupEdits.edit(`${source()}-2`, { name: 'Loud Channel' });
    const after = lineupSnapshot(temp.db);
    expect(after.channels).not.toBe(first.channels);
    expect(after.channels.map((c) => c.name)).toEqual(['Alpha', 'Loud Channel']);
    expect(dvr.live.guide('2', T0, T0 + 3600).map((a) => a.title)).toEqual(['Loud Channel']);
  });
});
