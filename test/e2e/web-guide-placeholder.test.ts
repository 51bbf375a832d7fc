/**
 * Placeholder hours in the app, in real headless Chromium against a real server
 * (test/support/web-app-fixture.ts, its M3U grown by channel 11 "Eleven", which no
 * guide describes). The guide grid shows channel 11 as muted hour blocks on the hour
 * saying "No guide data"; the remote's Down reaches them from the programmes above and
 * Right moves along them; a block's details offer "Record this hour" and Close only (no
 * series, no episode facts), and recording it adds a program rule at its start whose job
 * the jobs API lists and the grid then marks. Live TV says "No guide data" for it, with no
 * progress bar. TV mode shows and opens the same blocks. axe-core finds no serious
 * violation. Screenshots: test-output/web/guide-placeholder*.png, live-placeholder.png,
 * tv-guide-placeholder*.png.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/dvr-app.js';
import { CHANNELS, type WebApp, press, startWebApp, waitForText } from '../support/web-app-fixture.js';

let web: WebApp;
/** An element as the page shows it (this file has no DOM types: the callbacks run in the page). */
type Shown = { innerText: string };

beforeAll(async () => {
  web = await startWebApp();
  // Channel 11 has no tvg-id and a name no guide channel has: nothing describes it. It
  // streams what channel 5 streams. Nothing is removed, so the refresh applies.
  const m3u = join(web.dir, 'channels.m3u');
  const text = readFileSync(m3u, 'utf8');
  const stream = text.split('\n').find((line) => line.startsWith('http'))!;
  writeFileSync(m3u, `${text}#EXTINF:-1 tvg-chno="11",Eleven\n${stream}\n`);
  const [source] = (await web.api('GET', '/dvr/sources')).json as unknown as Array<{ id: string }>;
  expect((await web.api('POST', `/dvr/sources/${source!.id}/refresh`)).json).toMatchObject({
    channels: CHANNELS.length + 1,
  });
}, 120_000);

afterAll(async () => {
  await web?.close();
});

const focused = async (page: Page) =>
  ((await page.evaluate('document.activeElement?.innerText ?? ""')) as string).replace(/\s+/g, ' ').trim();
const texts = (page: Page, selector: string) =>
  page.$$eval(selector, (elements) =>
    elements.map((e) => (e as unknown as Shown).innerText.replace(/\s+/g, ' ').trim()),
  ) as Promise<string[]>;
const clock = (epoch: number) => new Date(epoch * 1000).toTimeString().slice(0, 5);
const HOUR = 3600;

describe('a channel no guide describes, in the guide', () => {
  it('shows hour blocks saying so, and records one hour by its time only', async () => {
    const page = await web.open('/guide');
    await waitForText(page, 'No guide data');
    expect(await texts(page, '.guide-label')).toEqual([
      ...CHANNELS.map((c) => `Watch channel ${c.number} ${c.name}`),
      'Watch channel 11 Eleven',
    ]);
    // Every block is channel 11's, named after it, on the hour, an hour wide (7 px a minute) unless the grid's left
    // edge cuts it.
    const blocks = (await page.$$eval('.guide-cell.placeholder', (cells) =>
      cells.map((c) => ({
        text: (c as unknown as Shown).innerText.replace(/\s+/g, ' ').trim(),
        width: (c as unknown as { offsetWidth: number }).offsetWidth,
      })),
    )) as { text: string; width: number }[];
    expect(blocks.length).toBeGreaterThan(1);
    for (const block of blocks)
      expect(block.text).toMatch(/^Eleven \d\d:00 No guide data , channel 11, until \d\d:00$/);
    expect(blocks.slice(1).map((block) => block.width)).toEqual(blocks.slice(1).map(() => 60 * 7));
    // The first is whole or cut to its last half hour by the grid's origin; none that ended before the origin is in the
    // page.
    expect([30 * 7, 60 * 7]).toContain(blocks[0]!.width);
    // No real programme is marked as a placeholder.
    expect((await texts(page, '.guide-cell:not(.placeholder)')).some((text) => text.includes('No guide data'))).toBe(
      false,
    );

    // The remote: from what is on now on channel 5, Down three times to channel 11's hour on now, Right to the next.
    await until(
      () => focused(page),
      (label) => label.startsWith('Harbour Watch'),
      10_000,
      'channel 5 focused',
    );
    const hour = Math.floor(Date.now() / 1000 / HOUR) * HOUR;
    await press(page, 'ArrowDown', 3);
    expect(await focused(page)).toBe(`Eleven ${clock(hour)} No guide data , channel 11, until ${clock(hour + HOUR)}`);
    await press(page, 'ArrowRight');
    const next = hour + HOUR;
    expect(await focused(page)).toBe(`Eleven ${clock(next)} No guide data , channel 11, until ${clock(next + HOUR)}`);
    await press(page, 'Enter');
    await page.waitForSelector('[role="dialog"]');
    await waitForText(page, 'Record this hour');
    const dialog = (await texts(page, '[role="dialog"]'))[0]!;
    expect(dialog).toContain('No guide data');
    expect(dialog).toContain(`${clock(next)}–${clock(next + HOUR)} · Channel 11 Eleven`);
    expect(dialog).not.toMatch(/series|episode|S\d\dE\d\d/i);
    expect(await texts(page, '[role="dialog"] button')).toEqual(['Record this hour', 'Close']);
    expect(await focused(page)).toBe('Record this hour');
    await web.shot(page, 'guide-placeholder-details');
    expect(await web.seriousViolations(page)).toEqual([]);

    await press(page, 'Enter');
    await waitForText(page, `“Eleven ${clock(next)}–${clock(next + HOUR)}” will be recorded.`);
    expect(await page.$('[role="dialog"]')).toBeNull();
    // A program rule at the block's start, and its job: channel 11, that hour.
    const rules = (await web.api('GET', '/dvr/rules')).json as unknown as Array<{
      type: string;
      channel?: string;
      start_time?: number;
    }>;
    expect(rules.filter((rule) => rule.channel === '11').map(({ type, start_time }) => ({ type, start_time }))).toEqual(
      [{ type: 'program', start_time: next }],
    );
    const jobs = await until(
      async () =>
        (await web.api('GET', '/api/v1/jobs')).json as unknown as Array<{
          channel?: string;
          start_time?: number;
          end_time?: number;
        }>,
      (list) => list.some((job) => job.channel === '11'),
      10_000,
      'the hour planned',
    );
    const planned = jobs.filter((job) => job.channel === '11');
    expect(planned).toHaveLength(1);
    expect(planned[0]!.start_time).toBeLessThanOrEqual(next);
    expect(planned[0]!.end_time).toBeGreaterThanOrEqual(next + HOUR);
    // The grid marks that block, and only it; its details now say it will be recorded and offer "Don't record".
    await page.waitForSelector('.guide-cell.placeholder.has-job', { timeout: 10_000 });
    expect(await texts(page, '.guide-cell.has-job')).toEqual([
      `Eleven ${clock(next)} No guide data , channel 11, until ${clock(next + HOUR)}, Will record`,
    ]);
    await web.shot(page, 'guide-placeholder');
    expect(await web.seriousViolations(page)).toEqual([]);
    await page.click('.guide-cell.placeholder.has-job');
    await waitForText(page, '● Will be recorded');
    expect(await texts(page, '[role="dialog"] button')).toEqual(["Don't record", 'Close']);
    await press(page, 'Escape');
    await until(
      () => page.$('[role="dialog"]'),
      (shown) => shown === null,
      5_000,
      'the details closed',
    );
    await page.close();
    expect(web.pageErrors).toEqual([]);
  }, 60_000);

  it('says "No guide data" in Live TV, with no progress bar', async () => {
    const page = await web.open('/live');
    await waitForText(page, 'Eleven');
    const rows = await texts(page, '.live-row');
    expect(rows.find((row) => row.includes('Eleven'))).toMatch(/^Watch channel 11 E Eleven No guide data/);
    expect(await page.$$eval('.live-progress', (bars) => bars.length)).toBe(CHANNELS.length);
    await web.shot(page, 'live-placeholder');
    expect(await web.seriousViolations(page)).toEqual([]);
    await page.close();
    expect(web.pageErrors).toEqual([]);
  }, 30_000);

  it('shows and opens the blocks in TV mode', async () => {
    const page = await web.open('/tv/guide');
    await waitForText(page, 'No guide data');
    await until(
      () => focused(page),
      (label) => label.startsWith('Harbour Watch'),
      10_000,
      'channel 5 focused',
    );
    await press(page, 'ArrowDown', 3);
    expect(await focused(page)).toMatch(/^Eleven \d\d:00 No guide data , channel 11, until \d\d:00$/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await web.shot(page, 'tv-guide-placeholder');
    expect(await web.seriousViolations(page)).toEqual([]);
    await press(page, 'Enter');
    await page.waitForSelector('[role="dialog"]');
    await waitForText(page, 'Record this hour');
    expect(await texts(page, '[role="dialog"] button')).toEqual(['Record this hour', 'Close']);
    await web.shot(page, 'tv-guide-placeholder-details');
    await press(page, 'Escape');
    await until(
      () => focused(page),
      (label) => label.startsWith('Eleven'),
      5_000,
      'the block focused again',
    );
    await page.close();
    expect(web.pageErrors).toEqual([]);
  }, 30_000);
});
