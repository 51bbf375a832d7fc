/**
 * JobScheduler.replanInSlices (issue 21): a full re-plan whose pass over the guide is read
 * a slice at a time with the event loop free between slices. It must give exactly the
 * jobs replan gives, and start its reading again when a plan is made meanwhile (a rule's
 * edit) or the guide changes, so it never writes a plan made from a guide it half read.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DvrService } from '../../src/dvr/dvr.service.js';
import { listJobs } from '../../src/repositories/dvr/jobs.repository.js';
import { createDvr, writeM3u, writeXmltv } from '../support/dvr-app.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

const T0 = 1_900_000_000;
const WORDS = ['harbour', 'comet', 'garden', 'quartet', 'lantern', 'meadow'];

let temp: TempLibrary;
let dvr: DvrService;
let clock: number;

beforeEach(async () => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  clock = (T0 - 3600) * 1000;
  const m3u = join(temp.dir, 'channels.m3u');
  const guide = join(temp.dir, 'guide.xml');
  const channels = Array.from({ length: 6 }, (_, c) => ({
    number: String(c + 1),
    name: `Channel ${c + 1}`,
    tvgId: `c${c}.test`,
    url: `http://127.0.0.1:9/${c}`,
  }));
  writeM3u(m3u, channels);
  // 6 channels × 1,200 half-hour programmes: 7,200 rows (more than one slice), their titles cycling through the words.
  const programmes = channels.flatMap((_, c) =>
    Array.from({ length: 1200 }, (_, i) => ({
      channel: `c${c}.test`,
      start: T0 + i * 1800,
      stop: T0 + (i + 1) * 1800,
      title: `The ${WORDS[(i + c) % WORDS.length]} hour ${i}`,
    })),
  );
  writeXmltv(
    guide,
    channels.map((c) => [c.tvgId, c.name] as [string, string]),
    programmes,
  );
  dvr = createDvr(temp, { now: () => clock, sources: [{ kind: 'm3u', location: m3u, streams: 6 }], guides: [guide] });
  await dvr.sources.refreshAll();
  // Five keyword rules: more words than one indexed query takes, so the plan passes over the whole guide (the sliced
  // reading).
  for (const word of WORDS.slice(0, 5)) dvr.rules.create({ type: 'keyword', keyword: word, channels: ['1', '2'] });
});

afterEach(async () => {
  await dvr.stop();
  temp.close();
});

const jobIds = () => listJobs(temp.db).map((job) => job.id);

describe('replanInSlices', () => {
  it('gives exactly the jobs replan gives', async () => {
    dvr.schedule.replan();
    const planned = listJobs(temp.db);
    expect(planned.length).toBeGreaterThan(100);
    // From nothing: every job is its to write.
    temp.db.prepare('DELETE FROM jobs').run();
    await dvr.schedule.replanInSlices();
    expect(listJobs(temp.db)).toEqual(planned);
  });

  it('starts its reading again when a guide is swapped while it reads, and writes the plan of the guide as it is now', async () => {
    dvr.schedule.replan();
    const reading = dvr.schedule.replanInSlices();
    // A refresh's swap, as seen from here: the guide's generation moves (here to one no row has: the guide empties).
    temp.db.prepare('UPDATE dvr_guides SET generation = generation + 1').run();
    await reading;
    const written = listJobs(temp.db);
    expect(written.filter((job) => job.skipped === 0)).toEqual([]);
    dvr.schedule.replan();
    expect(listJobs(temp.db)).toEqual(written);
  });

  it('starts its reading again when a rule is made while it reads, and writes the plan with it', async () => {
    dvr.schedule.replan();
    const before = jobIds();
    const reading = dvr.schedule.replanInSlices();
    // While the first slice's turn of the event loop is pending: a new rule is planned at once (replanRule).
    const added = dvr.rules.create({ type: 'keyword', keyword: WORDS[5] as string, channels: ['3'] });
    const withRule = jobIds();
    expect(withRule.filter((id) => id.endsWith(`-${added.id}`)).length).toBeGreaterThan(10);
    await reading;
    expect(jobIds()).toEqual(withRule);
    expect(withRule.length).toBeGreaterThan(before.length);
    dvr.schedule.replan();
    expect(jobIds()).toEqual(withRule);
  });
});
