/**
 * A guide refresh in its worker thread (dvr/sources/guide-refresh.thread.ts, as the built server
 * runs it: the tests of the TypeScript sources run it in their own thread): the thread's
 * own connection places the new programmes unseen, reports each such commit, swaps them
 * in, deletes the replaced rows when told to, and reports a guide it may not apply with
 * its reason and kind, leaving the stored guide as it was.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { programmesBetween, saveGuide } from '../../src/repositories/dvr/guide.repository.js';
import { until, writeXmltv } from '../support/dvr-app.js';
import { createTempLibrary, type TempLibrary } from '../support/temp-library.js';

type Thread = typeof import('../../src/dvr/sources/guide-refresh.thread.js');
const thread = (await import(
  pathToFileURL(join(import.meta.dirname, '../../dist/dvr/sources/guide-refresh.thread.js')).href
)) as Thread;

const T0 = 1_900_000_000;
let temp: TempLibrary;

beforeEach(() => {
  temp = createTempLibrary();
  saveGuide(temp.db, { id: 'g', location: 'unused', origin: 'managed' });
});
afterEach(() => temp.close());

/** A guide of 3 channels × `count` hour-long programmes titled `<title> <n>`. */
function guideFile(name: string, title: string, count: number): string {
  const path = join(temp.dir, name);
  const channels: [string, string][] = [
    ['a', 'A'],
    ['b', 'B'],
    ['c', 'C'],
  ];
  writeXmltv(
    path,
    channels,
    channels.flatMap(([id]) =>
      Array.from({ length: count }, (_, i) => ({
        channel: id,
        start: T0 + i * 3600,
        stop: T0 + (i + 1) * 3600,
        title: `${title} ${i}`,
      })),
    ),
  );
  return path;
}

const request = (location: string) => ({
  guideId: 'g',
  location,
  now: (T0 - 3600) * 1000,
  maxRemovedShare: 0.5,
  accept: false,
});
const rows = () => temp.db.prepare('SELECT count(*) FROM programmes').pluck().get() as number;
const titlesOn = (channel: string) => programmesBetween(temp.db, 'g', channel, 0, T0 * 2).map((p) => p.title);

describe('a guide refresh in its thread', () => {
  it('places unseen, swaps in whole, and deletes the replaced rows when told', async () => {
    let wrote = 0;
    const first = await thread.runGuideRefresh(temp.db, request(guideFile('one.xml', 'Old', 200)), {
      wrote: () => wrote++,
    });
    expect(first.outcome).toEqual({ programmes: 600, skipped: 0 });
    expect(wrote).toBeGreaterThan(0);
    expect(titlesOn('b')).toHaveLength(200);
    first.dropReplaced();

    const second = await thread.runGuideRefresh(temp.db, request(guideFile('two.xml', 'New', 150)), {});
    // Swapped: readers take the new rows only, while the old ones wait for the re-plan to be done.
    expect(second.outcome).toEqual({ programmes: 450, skipped: 0 });
    expect(titlesOn('a')).toEqual(Array.from({ length: 150 }, (_, i) => `New ${i}`));
    expect(rows()).toBe(1050);
    second.dropReplaced();
    await until(rows, (n) => n === 450, 20_000, 'the replaced rows deleted');
    await thread.guideThreadsStopped();
    expect(temp.db.prepare('SELECT count(*) FROM programme_fts').pluck().get()).toBe(450);
  });

  it('reports a guide cut short as not applied, with its kind, and leaves the stored one as it was', async () => {
    (await thread.runGuideRefresh(temp.db, request(guideFile('one.xml', 'Old', 20)), {})).dropReplaced();
    const cut = join(temp.dir, 'cut.xml');
    writeXmltv(cut, [['a', 'A']], [{ channel: 'a', start: T0, stop: T0 + 60, title: 'Half' }]);
    writeFileSync(cut, readFileSync(cut, 'utf8').replace('</tv>', ''));
    const failure = await thread.runGuideRefresh(temp.db, request(cut), {}).then(
      () => undefined,
      (error: unknown) => error as Error & { kind?: string },
    );
    expect(failure?.kind).toBe('incomplete');
    expect(titlesOn('a')).toHaveLength(20);
    await thread.guideThreadsStopped();
    expect(rows()).toBe(60);
  });

  it('starts no thread for a refresh asked for after the stop', async () => {
    const stopped = new AbortController();
    stopped.abort();
    await expect(
      thread.runGuideRefresh(temp.db, request(guideFile('late.xml', 'Late', 20)), { signal: stopped.signal }),
    ).rejects.toThrow();
    await thread.guideThreadsStopped();
    expect(titlesOn('a')).toEqual([]);
    expect(rows()).toBe(0);
  });

  it('is stopped at shutdown while it waits to delete the rows it replaced: the rows stay for the next refresh, which deletes them', async () => {
    (await thread.runGuideRefresh(temp.db, request(guideFile('one.xml', 'Old', 30)), {})).dropReplaced();
    await thread.guideThreadsStopped();
    let ended = 0;
    await thread.runGuideRefresh(temp.db, request(guideFile('two.xml', 'New', 30)), { ended: () => ended++ });
    const began = Date.now();
    // Never told to delete (its re-plan did not come): stopped instead, at once rather than after its minute's wait.
    await thread.guideThreadsStopped();
    expect(Date.now() - began).toBeLessThan(10_000);
    expect(ended).toBe(1);
    expect(rows()).toBe(180);
    const third = await thread.runGuideRefresh(temp.db, request(guideFile('three.xml', 'Third', 30)), {});
    third.dropReplaced();
    await thread.guideThreadsStopped();
    expect(rows()).toBe(90);
    expect(titlesOn('c')).toEqual(Array.from({ length: 30 }, (_, i) => `Third ${i}`));
  });

  it('stops when aborted: nothing applied, the thread gone', async () => {
    const abort = new AbortController();
    const running = thread.runGuideRefresh(temp.db, request(guideFile('big.xml', 'Big', 3000)), {
      signal: abort.signal,
    });
    abort.abort();
    await expect(running).rejects.toThrow();
    await thread.guideThreadsStopped();
    expect(titlesOn('a')).toEqual([]);
  });
});
