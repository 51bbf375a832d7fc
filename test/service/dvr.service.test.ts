/**
 * DvrService on a real temp SQLite file, with M3U and XMLTV files in a temp directory
 * and an injected clock: planning, re-planning, restarts, failed refreshes and tuner
 * limits. The clock stays before every programme, so nothing starts recording.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../src/common/errors.js';
import { sourceIdFor } from '../../src/dvr/sources/dvr-sources.service.js';
import { ruleOfJobId } from '../../src/dvr/planning/job-ids.js';
import type { DvrService } from '../../src/dvr/dvr.service.js';
import { GuideWriter, saveGuide } from '../../src/repositories/dvr/guide.repository.js';
import { type DvrJobRow, getDvrJob, listJobs } from '../../src/repositories/dvr/jobs.repository.js';
import { getRecording, insertRecording } from '../../src/repositories/dvr/recordings.repository.js';
import { upsertMovie } from '../../src/repositories/library/items.repository.js';
import { getRule, insertRule } from '../../src/repositories/dvr/rules.repository.js';
import { createDvr, type DvrSetup, type M3uEntry, writeM3u, writeXmltv } from '../support/dvr-app.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

/** Epoch seconds of the guide's first programmes (in 2030: a fixed, known time). */
const T0 = 1_900_000_000;
/** Nothing answers here; no test lets a job become due. */
const NOWHERE = 'http://127.0.0.1:9/stream';

let temp: TempLibrary;
let started: DvrService[];
/** The injected clock, epoch milliseconds. */
let clock: number;
const now = () => clock;

beforeEach(() => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  started = [];
  clock = (T0 - 3600) * 1000;
});

afterEach(async () => {
  for (const dvr of started) await dvr.stop();
  temp.close();
});

const feed = (name: string) => join(temp.dir, name);

function dvrOf(setup: Partial<DvrSetup> & Pick<DvrSetup, 'sources' | 'guides'>): DvrService {
  const dvr = createDvr(temp, { now, ...setup });
  started.push(dvr);
  return dvr;
}

const entry = (number: string, tvgId: string): M3uEntry => ({
  number,
  name: `Channel ${number}`,
  tvgId,
  url: `${NOWHERE}/${number}`,
});

/** One M3U with channels 2 and 3, one guide with three Harbour Lights episodes and a film. */
async function standard(): Promise<{ dvr: DvrService; m3u: string; guide: string }> {
  const m3u = feed('channels.m3u');
  const guide = feed('guide.xml');
  writeM3u(m3u, [entry('2', 'two.test'), entry('3', 'three.test')]);
  writeStandardGuide(guide);
  const dvr = dvrOf({ sources: [{ kind: 'm3u', location: m3u, streams: 2 }], guides: [guide] });
  await dvr.sources.refreshAll();
  dvr.schedule.replan();
  return { dvr, m3u, guide };
}

const episode = (n: number) => `<episode-num system="dd_progid">EP00000001.000${n}</episode-num>`;

function writeStandardGuide(path: string): void {
  writeXmltv(
    path,
    [
      ['two.test', 'Two'],
      ['three.test', 'Three'],
    ],
    [
      { channel: 'two.test', start: T0, stop: T0 + 1800, title: 'Harbour Lights', extra: episode(1) },
      { channel: 'two.test', start: T0 + 1800, stop: T0 + 2400, title: 'Harbour Lights', extra: episode(2) },
      { channel: 'two.test', start: T0 + 7200, stop: T0 + 9000, title: 'Harbour Lights', extra: episode(3) },
      { channel: 'three.test', start: T0, stop: T0 + 5400, title: 'Night Movie', extra: '<category>Movie</category>' },
    ],
  );
}

const jobsOf = (ruleId: number) => listJobs(temp.db).filter((job) => job.id.endsWith(`-${ruleId}`));
const job = (id: string) => getDvrJob(temp.db, id) as DvrJobRow;

describe("the DVR's face: whole operations", () => {
  it('adds a source and a guide in one call each, read and planned; removing one plans again', async () => {
    const dvr = dvrOf({ sources: [], guides: [] });
    const series = dvr.addRule({ type: 'series', title: 'Harbour Lights' });
    expect(jobsOf(series.id)).toEqual([]);
    const m3u = feed('channels.m3u');
    writeM3u(m3u, [entry('2', 'two.test'), entry('3', 'three.test')]);
    const source = await dvr.addSource({ kind: 'm3u', location: m3u, streams: 2 });
    expect(source).toMatchObject({ channels: 2, error: null });
    const guide = feed('guide.xml');
    writeStandardGuide(guide);
    const added = await dvr.addGuide(guide);
    expect(added).toMatchObject({ error: null });
    expect(added.programmes).toBe(4);
    // No refresh or re-plan asked for: the add did both.
    expect(jobsOf(series.id)).toHaveLength(3);
    dvr.removeGuide(added.id);
    expect(jobsOf(series.id).filter((job) => !job.skipped)).toEqual([]);
    dvr.removeSource(source.id);
    expect(dvr.listSources()).toEqual([]);
    expect(() => dvr.removeSource(source.id)).toThrow(NotFoundError);
  });

  it('answers for tuners and recordings without reaching into its parts', async () => {
    const { dvr } = await standard();
    expect(dvr.tuners()).toMatchObject([{ source: { kind: 'm3u', stream_limit: 2 }, inUse: 0 }]);
    expect(dvr.recordingCount()).toBe(0);
  });
});

describe('an airing is its programme id, read from an XMLTV guide', () => {
  it('plans three shows at one second, numbered alike but with three programme ids, on two tuners: two record, one is skipped with its reason', async () => {
    const m3u = feed('quiz.m3u');
    const guide = feed('quiz.xml');
    writeM3u(m3u, [entry('2', 'two.test'), entry('3', 'three.test'), entry('4', 'four.test')]);
    const show = (channel: string, programId: string, subtitle: string) => ({
      channel,
      start: T0,
      stop: T0 + 1800,
      title: 'Quiz Night',
      extra:
        `<sub-title>${subtitle}</sub-title><episode-num system="xmltv_ns">2.6.</episode-num>` +
        `<episode-num system="dd_progid">${programId}</episode-num>`,
    });
    writeXmltv(
      guide,
      [
        ['two.test', 'Two'],
        ['three.test', 'Three'],
        ['four.test', 'Four'],
      ],
      [
        show('two.test', 'EP00000009.0001', 'Round One'),
        show('three.test', 'EP00000009.0002', 'Round Two'),
        show('four.test', 'EP00000009.0003', 'Final'),
      ],
    );
    const dvr = dvrOf({ sources: [{ kind: 'm3u', location: m3u, streams: 2 }], guides: [guide] });
    await dvr.sources.refreshAll();
    const rule = dvr.addRule({ type: 'series', title: 'Quiz Night' });
    // Three at one second: the rule's id, then the rule's id + k × 2^32 (job-ids.ts).
    const jobs = listJobs(temp.db).filter((job) => ruleOfJobId(job.id) === rule.id);
    expect(jobs).toHaveLength(3);
    expect(jobs.filter((job) => !job.skipped)).toHaveLength(2);
    const skipped = jobs.filter((job) => job.skipped);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]?.error).toMatch(/no free tuner/);
  });
});

describe('planning', () => {
  it('plans jobs from rules and the guide', async () => {
    const { dvr } = await standard();
    const series = dvr.rules.create({ type: 'series', title: 'Harbour Lights' });
    const film = dvr.rules.create({ type: 'keyword', keyword: 'movie', channels: ['3'] });
    expect(jobsOf(series.id).map((j) => j.id)).toEqual([
      `${T0}-${series.id}`,
      `${T0 + 1800}-${series.id}`,
      `${T0 + 7200}-${series.id}`,
    ]);
    expect(jobsOf(film.id)).toMatchObject([
      { id: `${T0}-${film.id}`, name: 'Night Movie', channel: '3', start_time: T0, end_time: T0 + 5400, skipped: 0 },
    ]);
  });

  it('is idempotent: planning again gives the same jobs, each keeping its updated_at', async () => {
    const { dvr } = await standard();
    dvr.rules.create({ type: 'series', title: 'Harbour Lights' });
    dvr.rules.create({ type: 'program', channel: '3', start_time: T0 });
    const snapshot = () => listJobs(temp.db);
    const before = snapshot();
    expect(before).toHaveLength(4);
    clock += 60_000;
    dvr.schedule.replan();
    clock += 60_000;
    dvr.schedule.replan();
    expect(snapshot()).toEqual(before);
  });

  it('gives a new updated_at only to the jobs that changed', async () => {
    const { dvr } = await standard();
    const series = dvr.rules.create({ type: 'series', title: 'Harbour Lights' });
    const film = dvr.rules.create({ type: 'program', channel: '3', start_time: T0 });
    const plannedAt = clock;
    clock += 60_000;
    dvr.rules.replace(film.id, { type: 'program', channel: '3', start_time: T0, name: 'Film night' });
    expect(jobsOf(film.id)).toMatchObject([{ name: 'Film night', updated_at: clock }]);
    expect(jobsOf(series.id).map((j) => j.updated_at)).toEqual([plannedAt, plannedAt, plannedAt]);
  });

  it('a program rule keeps its airing’s programme id and title, follows the airing when a refresh moves it, and an edit keeps them', async () => {
    const { dvr, guide } = await standard();
    const second = dvr.rules.create({ type: 'program', channel: '2', start_time: T0 + 1800 });
    expect(getRule(temp.db, second.id)?.definition).toMatchObject({
      title: 'Harbour Lights',
      program_id: expect.stringMatching(/^EP0*1/),
    });
    // Nothing in the guide at that time: nothing to keep, it records whatever is there.
    const nothing = dvr.rules.create({ type: 'program', channel: '3', start_time: T0 + 86400 });
    expect(getRule(temp.db, nothing.id)?.definition).toEqual({ type: 'program', channel: '3', start_time: T0 + 86400 });
    // The guide moves episode 2 an hour later and puts a film in its slot.
    writeXmltv(
      guide,
      [
        ['two.test', 'Two'],
        ['three.test', 'Three'],
      ],
      [
        { channel: 'two.test', start: T0, stop: T0 + 1800, title: 'Harbour Lights', extra: episode(1) },
        { channel: 'two.test', start: T0 + 1800, stop: T0 + 3600, title: 'Short Film' },
        { channel: 'two.test', start: T0 + 3600, stop: T0 + 4200, title: 'Harbour Lights', extra: episode(2) },
      ],
    );
    clock += 60_000;
    await dvr.sources.refreshAll();
    dvr.schedule.replan();
    expect(jobsOf(second.id)).toMatchObject([
      { id: `${T0 + 3600}-${second.id}`, name: 'Harbour Lights', start_time: T0 + 3600, end_time: T0 + 4200 },
    ]);
    // An edit that does not send them back keeps what the rule learnt (the guide no longer has it at the rule's time).
    dvr.rules.replace(second.id, { type: 'program', channel: '2', start_time: T0 + 1800, padding_after: 60 });
    expect(getRule(temp.db, second.id)?.definition).toMatchObject({ title: 'Harbour Lights', padding_after: 60 });
    expect(jobsOf(second.id)).toMatchObject([{ id: `${T0 + 3600}-${second.id}`, end_time: T0 + 4260 }]);
  });

  it('after a rule change, plans from the other rules’ kept candidates: the same jobs as a full re-plan, written once', async () => {
    const { dvr } = await standard();
    const series = dvr.rules.create({ type: 'series', title: 'Harbour Lights' });
    const film = dvr.rules.create({ type: 'keyword', keyword: 'movie', priority: 2 });
    dvr.rules.replace(series.id, { type: 'series', title: 'Harbour Lights', padding_after: 120 });
    const slot = dvr.rules.create({ type: 'slot', channel: '2', start_time: T0 + 600, duration: 600 });
    dvr.rules.delete(film.id);
    const incremental = listJobs(temp.db);
    expect(incremental.map((j) => j.id)).toEqual([
      `${T0}-${series.id}`,
      `${T0 + 600}-${slot.id}`,
      `${T0 + 1800}-${series.id}`,
      `${T0 + 7200}-${series.id}`,
    ]);
    dvr.schedule.replan();
    expect(listJobs(temp.db)).toEqual(incremental);
    // Past the time the candidates are kept for, a rule change is a full re-plan (the guide read again).
    clock += 20 * 60_000;
    dvr.rules.replace(slot.id, { type: 'slot', channel: '3', start_time: T0 + 600, duration: 600 });
    expect(jobsOf(slot.id)).toMatchObject([{ id: `${T0 + 600}-${slot.id}`, channel: '3' }]);
  });

  it('keeps the job of a programme the guide drops listed as skipped, saying why, until its end; a moved programme leaves no trace', async () => {
    const { dvr, guide } = await standard();
    const series = dvr.rules.create({ type: 'series', title: 'Harbour Lights' });
    expect(jobsOf(series.id)).toHaveLength(3);
    const rewrite = (second: { start: number; stop: number } | undefined) =>
      writeXmltv(
        guide,
        [
          ['two.test', 'Two'],
          ['three.test', 'Three'],
        ],
        [
          { channel: 'two.test', start: T0, stop: T0 + 1800, title: 'Harbour Lights', extra: episode(1) },
          ...(second ? [{ channel: 'two.test', ...second, title: 'Harbour Lights', extra: episode(2) }] : []),
          { channel: 'two.test', start: T0 + 7200, stop: T0 + 9000, title: 'Harbour Lights', extra: episode(3) },
          {
            channel: 'three.test',
            start: T0,
            stop: T0 + 5400,
            title: 'Night Movie',
            extra: '<category>Movie</category>',
          },
        ],
      );
    rewrite(undefined);
    await dvr.sources.refreshAll();
    dvr.schedule.replan();
    expect(jobsOf(series.id).map((j) => [j.id, j.skipped, j.error])).toEqual([
      [`${T0}-${series.id}`, 0, null],
      [`${T0 + 1800}-${series.id}`, 1, expect.stringMatching(/^the guide no longer lists this programme at this time/)],
      [`${T0 + 7200}-${series.id}`, 0, null],
    ]);
    // Another rule's edit (written as changes only) leaves it listed.
    dvr.rules.create({ type: 'program', channel: '3', start_time: T0 });
    expect(job(`${T0 + 1800}-${series.id}`)).toMatchObject({ skipped: 1 });
    // Once its time has passed, it goes.
    clock = (T0 + 2400) * 1000;
    dvr.schedule.replan();
    expect(jobsOf(series.id).map((j) => j.id)).toEqual([`${T0 + 7200}-${series.id}`]);

    // A programme the guide moves is planned at its new time; nothing is left at the old one.
    clock = (T0 - 3600) * 1000;
    rewrite({ start: T0 + 3600, stop: T0 + 4200 });
    await dvr.sources.refreshAll();
    dvr.schedule.replan();
    expect(jobsOf(series.id).map((j) => [j.id, j.skipped])).toEqual([
      [`${T0}-${series.id}`, 0],
      [`${T0 + 3600}-${series.id}`, 0],
      [`${T0 + 7200}-${series.id}`, 0],
    ]);
  });

  it('keeps the jobs of a removed source’s channels listed as skipped, saying why; pausing the rule then removes them', async () => {
    const { dvr, m3u } = await standard();
    const series = dvr.rules.create({ type: 'series', title: 'Harbour Lights' });
    dvr.sources.removeSource(sourceIdFor('m3u', m3u));
    dvr.schedule.replan();
    expect(jobsOf(series.id)).toHaveLength(3);
    for (const j of jobsOf(series.id))
      expect(j).toMatchObject({ skipped: 1, error: expect.stringMatching(/^no source offers channel 2 any more/) });
    // The pause re-plans after the rule's change only (no full re-plan here): its kept jobs go all the same.
    dvr.rules.replace(series.id, { type: 'series', title: 'Harbour Lights', paused: true });
    expect(jobsOf(series.id)).toEqual([]);
  });

  it('leaves a stored rule of a type it does not know out of the plan (a newer version wrote it), and plans the rest', async () => {
    const { dvr } = await standard();
    const unknown = insertRule(temp.db, { type: 'weather', when: 'stormy' });
    const series = dvr.rules.create({ type: 'series', title: 'Harbour Lights' });
    expect(jobsOf(series.id)).toHaveLength(3);
    expect(dvr.rules.list().map((rule) => rule.id)).toEqual([series.id]);
    expect(() => dvr.rules.get(unknown)).toThrow(NotFoundError);
    expect(getRule(temp.db, unknown)?.definition).toEqual({ type: 'weather', when: 'stormy' });
  });

  it('re-plans on a rule change: pausing a rule removes its scheduled jobs, un-pausing brings them back', async () => {
    const { dvr } = await standard();
    const series = dvr.rules.create({ type: 'series', series_id: 'SH00000001' });
    const other = dvr.rules.create({ type: 'program', channel: '3', start_time: T0 });
    const ids = jobsOf(series.id).map((j) => j.id);
    expect(ids).toHaveLength(3);
    dvr.rules.replace(series.id, { type: 'series', series_id: 'SH00000001', paused: true });
    expect(jobsOf(series.id)).toEqual([]);
    expect(jobsOf(other.id)).toHaveLength(1);
    dvr.rules.replace(series.id, { type: 'series', series_id: 'SH00000001' });
    expect(jobsOf(series.id).map((j) => j.id)).toEqual(ids);
  });

  it('keeps a job the user skipped skipped when the plan is made again', async () => {
    const { dvr } = await standard();
    const series = dvr.rules.create({ type: 'series', title: 'Harbour Lights' });
    const id = `${T0 + 1800}-${series.id}`;
    dvr.schedule.cancelJob(id);
    dvr.schedule.replan();
    dvr.rules.replace(series.id, { type: 'series', title: 'Harbour Lights', padding_after: 0 });
    expect(job(id)).toMatchObject({ skipped: 1, error: 'skipped by the user', state: 'scheduled' });
    expect(job(`${T0}-${series.id}`)).toMatchObject({ skipped: 0 });
  });
});

describe('a restart', () => {
  it('fails the jobs that ended while Antenna was not running, and keeps the rest', async () => {
    const { dvr, m3u, guide } = await standard();
    const series = dvr.rules.create({ type: 'series', title: 'Harbour Lights' });
    const [missed, skipped, later] = [`${T0}-${series.id}`, `${T0 + 1800}-${series.id}`, `${T0 + 7200}-${series.id}`];
    dvr.schedule.cancelJob(skipped);
    await dvr.stop();

    clock = (T0 + 3600) * 1000;
    const again = dvrOf({ sources: [{ kind: 'm3u', location: m3u, streams: 2 }], guides: [guide] });
    again.start();
    expect(job(missed)).toMatchObject({
      state: 'finished',
      failed: 1,
      error: 'Antenna was not running at the time',
      updated_at: clock,
    });
    // A job the user skipped did not fail (it ended unplanned, so it is simply no longer listed).
    expect(getDvrJob(temp.db, skipped)?.failed ?? 0).toBe(0);
    expect(job(later)).toMatchObject({ state: 'scheduled', failed: 0, skipped: 0 });
    // Settled: a refresh and a re-plan do not bring the missed job back, and it cannot be skipped any more.
    await again.refresh();
    expect(job(missed)).toMatchObject({ state: 'finished', failed: 1 });
    expect(() => again.schedule.cancelJob(missed)).toThrow(ConflictError);
  });
});

describe('failed refreshes', () => {
  it('a guide refresh that fails keeps the programmes from the last good one and records the error', async () => {
    const { dvr, guide } = await standard();
    const series = dvr.rules.create({ type: 'series', title: 'Harbour Lights' });
    const [good] = dvr.sources.listGuides();
    expect(good).toMatchObject({ programmes: 4, error: null });
    const programmes = dvr.live.guide('2', T0, T0 + 86400);
    expect(programmes).toHaveLength(3);

    writeFileSync(guide, '<html><body>Service unavailable</body></html>');
    clock += 60_000;
    const result = await dvr.sources.refreshGuide(good!.id);
    expect(result.error).toMatch(/not an XMLTV document/i);
    const [after] = dvr.sources.listGuides();
    expect(after).toMatchObject({ programmes: 4, refreshed_at: good!.refreshed_at, error: result.error });
    expect(dvr.live.guide('2', T0, T0 + 86400)).toEqual(programmes);
    dvr.schedule.replan();
    expect(jobsOf(series.id)).toHaveLength(3);

    // The next good refresh clears the error.
    writeStandardGuide(guide);
    expect((await dvr.sources.refreshGuide(good!.id)).programmes).toBe(4);
    expect(dvr.sources.listGuides()[0]).toMatchObject({ error: null, refreshed_at: clock });
  });

  it('a source refresh that fails (the file is gone) keeps the channels from the last good one', async () => {
    const { dvr, m3u } = await standard();
    const film = dvr.rules.create({ type: 'program', channel: '3', start_time: T0 });
    const [source] = dvr.sources.listSources();
    const channels = dvr.live.channels();
    expect(channels.map((c) => c.number)).toEqual(['2', '3']);

    rmSync(m3u);
    clock += 60_000;
    const result = await dvr.sources.refreshSource(source!.id);
    expect(result.error).toMatch(/does not exist/);
    expect(dvr.sources.listSources()[0]).toMatchObject({ error: result.error, refreshed_at: source!.refreshed_at });
    expect(dvr.live.channels()).toEqual(channels);
    dvr.schedule.replan();
    expect(jobsOf(film.id)).toMatchObject([{ channel: '3', skipped: 0 }]);
  });

  it('a source refresh that reads a web page instead of a playlist keeps the channels from the last good one', async () => {
    const { dvr, m3u } = await standard();
    const film = dvr.rules.create({ type: 'program', channel: '3', start_time: T0 });
    const [source] = dvr.sources.listSources();
    // What an IPTV provider or a captive portal sends with a 200 when the account has lapsed.
    writeFileSync(
      m3u,
      '<!doctype html>\n<html>\n<head><title>Sign in</title></head>\n<body><p>Your subscription has expired.</p></body>\n</html>\n',
    );
    const result = await dvr.sources.refreshSource(source!.id);
    expect(result.error).toEqual(expect.any(String));
    expect(dvr.live.channels().map((c) => c.number)).toEqual(['2', '3']);
    dvr.schedule.replan();
    expect(jobsOf(film.id)).toMatchObject([{ channel: '3', skipped: 0 }]);
  });
});

describe('recordings and rules', () => {
  it('deleting a rule leaves its recordings alone, and an episode recorded already is not planned again', async () => {
    const { dvr } = await standard();
    const series = dvr.rules.create({ type: 'series', title: 'Harbour Lights' });
    expect(jobsOf(series.id)).toHaveLength(3);
    const path = join(temp.dir, 'recordings', 'Harbour Lights.ts');
    writeFileSync(path, 'recorded');
    upsertMovie(temp.db, {
      id: 'rec-old',
      source: 'recordings',
      title: 'Harbour Lights',
      path,
      program_id: 'EP000000010003',
    });
    insertRecording(temp.db, {
      item_id: 'rec-old',
      job_id: `${T0 - 86400}-${series.id}`,
      rule_id: series.id,
      channel: '2',
      source_id: null,
      episode_key: 'pid:EP000000010003',
      started_at: clock,
    });
    dvr.schedule.replan();
    expect(jobsOf(series.id).map((j) => j.start_time)).toEqual([T0, T0 + 1800]);

    dvr.rules.delete(series.id);
    expect(jobsOf(series.id)).toEqual([]);
    expect(getRecording(temp.db, 'rec-old')).toMatchObject({ rule_id: series.id, path });
    expect(() => dvr.rules.delete(series.id)).toThrow(/No rule/);
  });
});

describe('tuner limits', () => {
  it('shares each source’s streams across rules and sources, and skips what fits nowhere with a "no free tuner" error', async () => {
    const a = feed('a.m3u');
    const b = feed('b.m3u');
    const guide = feed('guide.xml');
    writeM3u(a, [entry('2', 'two.test'), entry('3', 'three.test'), entry('5', 'five.test')]);
    writeM3u(b, [entry('4', 'four.test'), entry('5', 'five.test')]);
    writeXmltv(
      guide,
      [
        ['two.test', 'Two'],
        ['three.test', 'Three'],
        ['four.test', 'Four'],
        ['five.test', 'Five'],
      ],
      ['Two', 'Three', 'Four', 'Five'].map((name) => ({
        channel: `${name.toLowerCase()}.test`,
        start: T0,
        stop: T0 + 1800,
        title: `${name} Show`,
      })),
    );
    const dvr = dvrOf({
      sources: [
        { kind: 'm3u', location: a, streams: 1 },
        { kind: 'm3u', location: b, streams: 1 },
      ],
      guides: [guide],
    });
    await dvr.sources.refreshAll();
    const [sourceA, sourceB] = [sourceIdFor('m3u', a), sourceIdFor('m3u', b)];

    const two = dvr.rules.create({ type: 'series', title: 'Two Show' });
    const three = dvr.rules.create({ type: 'series', title: 'Three Show' });
    const five = dvr.rules.create({ type: 'series', title: 'Five Show' });
    const four = dvr.rules.create({ type: 'series', title: 'Four Show' });
    // The same programme on the same channel shares the stream already planned.
    const twoAgain = dvr.rules.create({ type: 'keyword', keyword: 'two show' });

    const one = (rule: { id: number }) => jobsOf(rule.id)[0] as DvrJobRow;
    expect(one(two)).toMatchObject({ channel: '2', source_id: sourceA, skipped: 0 });
    expect(one(three)).toMatchObject({
      skipped: 1,
      channel: null,
      error: expect.stringMatching(/^no free tuner on M3U .*a\.m3u: already recording Two Show/),
    });
    expect(one(five)).toMatchObject({ channel: '5', source_id: sourceB, skipped: 0 });
    expect(one(four)).toMatchObject({
      skipped: 1,
      error: expect.stringMatching(/^no free tuner on M3U .*b\.m3u: already recording Five Show/),
    });
    expect(one(twoAgain)).toMatchObject({ channel: '2', source_id: sourceA, skipped: 0 });

    // A higher priority takes the tuner; what it displaces is skipped instead.
    dvr.rules.replace(three.id, { type: 'series', title: 'Three Show', priority: 10 });
    expect(one(three)).toMatchObject({ channel: '3', source_id: sourceA, skipped: 0 });
    expect(one(two)).toMatchObject({
      skipped: 1,
      error: expect.stringMatching(/no free tuner.*already recording Three Show/),
    });
    // Only what the change reached was written (placeAgain's changes): the jobs as a full re-plan writes them, each
    // updated_at kept.
    const incremental = listJobs(temp.db);
    dvr.schedule.replan();
    expect(listJobs(temp.db)).toEqual(incremental);
  });
});

describe('review fixes', () => {
  it('two guides refreshed at the same time each keep their own programmes', () => {
    // Writers flushing every 2 rows, interleaved as two large guides streaming at once would be.
    saveGuide(temp.db, { id: 'g1', location: '/one.xml', origin: 'managed' });
    saveGuide(temp.db, { id: 'g2', location: '/two.xml', origin: 'managed' });
    const one = new GuideWriter(temp.db, 'g1', { batchSize: 2 });
    const two = new GuideWriter(temp.db, 'g2', { batchSize: 2 });
    for (let i = 0; i < 5; i++) {
      one.programme({ channel: 'a', start: T0 + i * 100, stop: T0 + i * 100 + 50, title: `One ${i}` });
      two.programme({ channel: 'b', start: T0 + i * 100, stop: T0 + i * 100 + 50, title: `Two ${i}` });
    }
    one.commit({ skipped: 0 });
    two.commit({ skipped: 0 });
    const stored = temp.db
      .prepare(
        'SELECT guide_id, count(*) AS n, min(title) AS first FROM programmes GROUP BY guide_id ORDER BY guide_id',
      )
      .all();
    expect(stored).toEqual([
      { guide_id: 'g1', n: 5, first: 'One 0' },
      { guide_id: 'g2', n: 5, first: 'Two 0' },
    ]);
  });

  it('a job that cannot start (its folder cannot be made) fails alone, with the reason, and nothing throws', async () => {
    const m3u = feed('channels.m3u');
    writeM3u(m3u, [entry('2', 'two.test')]);
    // The recordings "directory" is a file: making TV/<Show>/ under it fails.
    const blocked = feed('not-a-dir');
    writeFileSync(blocked, '');
    const { DvrService: Dvr } = await import('../../src/dvr/dvr.service.js');
    const dvr = new Dvr(temp.db, {
      recordingsDir: blocked,
      thumbnailsDir: feed('th'),
      workDir: feed('w'),
      sources: { sources: [{ kind: 'm3u', location: m3u, streams: 2 }], guides: [] },
      now,
      refreshInterval: 0,
      comskip: false,
    });
    started.push(dvr);
    await dvr.sources.refreshAll();
    const rule = dvr.rules.create({
      type: 'slot',
      channel: '2',
      start_time: Math.floor(clock / 1000) - 10,
      duration: 600,
    });
    const job = getDvrJob(temp.db, `${Math.floor(clock / 1000) - 10}-${rule.id}`);
    expect(job).toMatchObject({ state: 'finished', failed: 1 });
    expect(job?.error).toMatch(/could not start/);
  });
});
