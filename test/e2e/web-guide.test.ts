/**
 * The app's Guide and Live TV in real headless Chromium against a real server
 * (test/support/web-app-fixture.ts: channels 5, 7 and 9 with a day of guide). The grid
 * shows each channel's programmes; a programme's details open with the keyboard alone
 * and "Record series" adds a rule whose jobs interface A lists and the grid marks;
 * Live TV lists what is on now, stars a favorite and plays channel 5. axe-core finds
 * no serious violation. Screenshots: test-output/web/guide*.png, live*.png, tv-guide.png.
 */
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/dvr-app.js';
import { CHANNELS, type WebApp, startWebApp, waitForText, press, waitForPlayback } from '../support/web-app-fixture.js';

let web: WebApp;
/** An element as the page shows it (this file has no DOM types: the callbacks run in the page). */
type Shown = { innerText: string };

beforeAll(async () => {
  web = await startWebApp();
}, 120_000);

afterAll(async () => {
  await web?.close();
});

/** What the focused element says (a programme's visible text and the part for screen readers), spaces collapsed. */
const focused = async (page: Page) =>
  ((await page.evaluate('document.activeElement?.innerText ?? ""')) as string).replace(/\s+/g, ' ').trim();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the guide', () => {
  it('shows every channel’s programmes, opens one with the keyboard and records its series', async () => {
    const page = await web.open('/guide');
    for (const channel of CHANNELS) await waitForText(page, channel.series);
    expect(
      await page.$$eval('.guide-label', (labels) =>
        labels.map((l) => (l as unknown as Shown).innerText.replace(/\s+/g, ' ').trim()),
      ),
    ).toEqual(CHANNELS.map((c) => `Watch channel ${c.number} ${c.name}`));
    // The grid opens on what is on now on the first channel; one step down is channel 7's.
    await until(
      () => focused(page),
      (label) => label.startsWith('Harbour Watch'),
      10_000,
      'channel 5 focused',
    );
    await press(page, 'ArrowDown');
    expect(await focused(page)).toMatch(/^Kitchen Nights \d\d:\d\d S01E\d+ Episode \d+ , channel 7, until \d\d:\d\d$/);
    await press(page, 'Enter');
    await page.waitForSelector('[role="dialog"]');
    await waitForText(page, 'Record new episodes');
    await web.shot(page, 'guide-details');
    expect(await web.seriousViolations(page)).toEqual([]);
    expect(await focused(page)).toBe('Record this');
    await press(page, 'ArrowRight');
    expect(await focused(page)).toBe('Record series');
    await press(page, 'Enter');
    await waitForText(page, '“Kitchen Nights” will be recorded: every episode.');
    expect(await page.$('[role="dialog"]')).toBeNull();
    const jobs = await until(
      async () => (await web.api('GET', '/api/v1/jobs')).json as unknown as { name: string; channel?: string }[],
      (list) => list.some((job) => job.name === 'Kitchen Nights'),
      10_000,
      'the series planned',
    );
    expect(jobs.filter((job) => job.name === 'Kitchen Nights').every((job) => job.channel === '7')).toBe(true);
    expect(JSON.stringify((await web.api('GET', '/dvr/rules')).json)).toMatch(
      /"type":"series".*"title":"Kitchen Nights"|"title":"Kitchen Nights".*"type":"series"/,
    );
    // The grid marks the airings the new jobs record, on channel 7 only.
    await page.waitForSelector('.guide-cell.has-job', { timeout: 10_000 });
    const marked = (await page.$$eval('.guide-cell.has-job', (cells) =>
      cells.map((c) => (c as unknown as Shown).innerText),
    )) as string[];
    expect(marked.length).toBeGreaterThan(0);
    expect(
      marked.filter((label) => !/^Kitchen Nights[^]*(Will record|Recording now)$/.test(label.replace(/\s+/g, ' '))),
    ).toEqual([]);
    await web.shot(page, 'guide');
    expect(await web.seriousViolations(page)).toEqual([]);
    // Scrolling through the day fetches later windows: programmes 20 hours on are in the grid.
    await page.evaluate('document.querySelector(".guide-scroller").scrollLeft += 20 * 60 * 7');
    await waitForText(page, 'Episode 42');
    await page.close();
    expect(web.pageErrors).toEqual([]);
  }, 60_000);
});

describe('the guide, with a clock set at a time that tripped it', () => {
  it('opens on what is on now while a later window is still on its way, and Down from the left edge keeps the time', async () => {
    // The page's clock at B + 10 min, B the next 6-hour boundary an hour or more away
    // (the fixture's programmes run from an hour ago for 26 hours): the grid starts at
    // B - 30 min, so it asks for two windows, and what is on now (from B) is in the
    // second, which the server answers last here. Before, the grid focused the first
    // programme it had, at its left edge, and Down from there went to a channel's name.
    const realNow = Math.floor(Date.now() / 1000);
    const boundary = (Math.floor((realNow + 3600) / 21600) + 1) * 21600;
    const offsetMs = (realNow - (boundary + 600)) * 1000;
    const page = await web.browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    page.on('pageerror', (error) => web.pageErrors.push(`shifted clock: ${(error as Error).message}`));
    await page.evaluateOnNewDocument(
      `{ const RealDate = Date, offset = ${offsetMs};
         globalThis.Date = class extends RealDate { constructor(...args) { super(...(args.length ? args : [RealDate.now() - offset])); } static now() { return RealDate.now() - offset; } }; }`,
    );
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      const later =
        request.url().includes('/dvr/guide?') && new URL(request.url()).searchParams.get('start') === String(boundary);
      if (later) setTimeout(() => void request.continue(), 1_500);
      else void request.continue();
    });
    await page.goto(`${web.url}/guide`);
    const clock = new Date(boundary * 1000).toTimeString().slice(0, 5);
    await until(
      () => focused(page),
      (label) => label.startsWith(`Harbour Watch ${clock} `),
      10_000,
      `channel 5 at ${clock} focused`,
    );
    await press(page, 'ArrowLeft');
    const before = new Date((boundary - 1800) * 1000).toTimeString().slice(0, 5);
    expect(await focused(page)).toMatch(new RegExp(`^Harbour Watch ${before} `));
    await press(page, 'ArrowDown');
    expect(await focused(page)).toMatch(new RegExp(`^Kitchen Nights ${before} .*, channel 7, until ${clock}(,|$)`));
    await press(page, 'ArrowDown');
    expect(await focused(page)).toMatch(new RegExp(`^Night News ${before} `));
    await press(page, 'ArrowUp', 2);
    expect(await focused(page)).toMatch(new RegExp(`^Harbour Watch ${before} `));
    await page.close();
    expect(web.pageErrors).toEqual([]);
  }, 30_000);
});

describe('live TV', () => {
  it('lists what is on now, stars a favorite and plays channel 5', async () => {
    const page = await web.open('/live');
    for (const channel of CHANNELS) await waitForText(page, channel.series);
    expect(await page.$$eval('.live-progress', (bars) => bars.length)).toBe(3);
    await web.shot(page, 'live');
    expect(await web.seriousViolations(page)).toEqual([]);
    await page.click('button[aria-label="Favorite channel 9 Nine"]');
    await until(
      async () =>
        (await web.api('GET', '/api/v1/channels')).json as unknown as { number: string; favorited?: boolean }[],
      (channels) => channels.some((c) => c.number === '9' && c.favorited === true),
      10_000,
      'channel 9 a favorite',
    );
    await page.click('button[role="tab"]:not([aria-selected="true"])');
    await until(
      () => page.$$eval('.live-name', (names) => names.map((n) => (n as unknown as Shown).innerText)),
      (names) => names.join() === 'Nine',
      10_000,
      'favorites only',
    );
    await page.click('button[role="tab"]:not([aria-selected="true"])');
    await page.waitForSelector('a[href="/watch/channel/5"]');
    await page.click('a[href="/watch/channel/5"]');
    await until(
      () => new URL(page.url()).pathname,
      (p) => p === '/watch/channel/5',
      10_000,
      'the player',
    );
    await page.waitForSelector('video');
    await waitForPlayback(page, 1.5, 30_000, 'channel 5 playing');
    await web.shot(page, 'live-playing');
    await page.close();
  }, 60_000);
});

describe('live TV from the buffer', () => {
  it('pauses, plays on behind live, goes back 10 s, jumps to live again and records what is on', async () => {
    const page = await web.open('/watch/channel/7');
    await page.waitForSelector('video');
    await waitForPlayback(page, 1.5, 30_000, 'channel 7 playing');
    // Played from the channel's buffer, not the short window.
    const loaded = (await page.evaluate(
      "performance.getEntriesByType('resource').map((entry) => entry.name).join(' ')",
    )) as string;
    expect(loaded).toMatch(/\/devices\/ANY\/channels\/7\/buffer\.m3u8/);
    expect(loaded).not.toMatch(/channels\/7\/hls\/master/);
    await waitForText(page, 'Live');
    await page.click('button[aria-label="Pause"]');
    await pause(12_000);
    await page.click('button[aria-label="Play"]');
    const behindOf = () =>
      page.evaluate(
        "(() => { const v = document.querySelector('video'); return v.seekable.end(v.seekable.length - 1) - v.currentTime; })()",
      ) as Promise<number>;
    const behind = await until(behindOf, (seconds) => seconds >= 10, 10_000, 'playing behind live');
    expect(behind).toBeLessThan(40);
    await waitForText(page, 'behind live');
    // The programme the buffer holds is a band on the seek bar, and the thumb says which programme it is on.
    const bands = (await page.$$eval('.seek-programme', (elements) =>
      elements.map((element) => element.getAttribute('data-title')),
    )) as string[];
    expect(bands.length).toBeGreaterThan(0);
    const valueText = await page.$eval('input[aria-label="Position in the live buffer"]', (element) =>
      element.getAttribute('aria-valuetext'),
    );
    expect(valueText).toContain(bands.at(-1));
    expect(valueText).toMatch(/behind live/);
    await web.shot(page, 'live-behind');
    const place = () =>
      page.evaluate(
        "(() => { const v = document.querySelector('video'); return { time: v.currentTime, start: v.seekable.start(0) }; })()",
      ) as Promise<{ time: number; start: number }>;
    const before = await place();
    await page.click('button[aria-label="−10 s, back 10 seconds"]');
    // Ten seconds back, or the buffer's oldest second when it holds less (a seek before it clamps to it).
    const after = await place();
    expect(after.time).toBeCloseTo(Math.max(before.start, before.time - 10), 0);
    expect(after.time).toBeLessThan(before.time - 1);
    await page.click('button[aria-label="Live, jump to live"]');
    await until(behindOf, (seconds) => seconds < 10, 10_000, 'back at live');
    await waitForPlayback(page, 1, 15_000, 'playing at live');
    // Record what is on from the player (the first test's series pass may be recording it already: stopped first).
    const recordButton = 'button[aria-label="Record"][aria-pressed="false"]:not([disabled])';
    const stopButton = 'button[aria-label="Stop recording"][aria-pressed="true"]:not([disabled])';
    await page.waitForSelector(`${recordButton}, ${stopButton}`, { timeout: 15_000 });
    if (await page.$(stopButton)) {
      await page.click(stopButton);
      await page.waitForSelector(recordButton, { timeout: 20_000 });
    }
    await page.click(recordButton);
    await page.waitForSelector(stopButton, { timeout: 15_000 });
    await web.shot(page, 'live-recording');
    expect(web.pageErrors).toEqual([]);
    await page.close();
  }, 120_000);
});

describe('TV mode', () => {
  it('lays the guide out for a television', async () => {
    const page = await web.open('/tv/guide');
    await waitForText(page, 'Harbour Watch');
    await until(
      () => focused(page),
      (label) => label.startsWith('Harbour Watch'),
      10_000,
      'channel 5 focused',
    );
    await pause(300);
    await web.shot(page, 'tv-guide');
    expect(await web.seriousViolations(page)).toEqual([]);
    await page.close();
  }, 30_000);
});
