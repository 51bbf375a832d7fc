/**
 * The app's Search section in real headless Chromium against a real server
 * (test/support/web-app-fixture.ts): typing finds the sample library's show, movie and
 * video and the guide's "Harbour Watch" on channel 5, each in its group; the query is
 * in the address, so opening a result and going Back returns to it; Record on a guide
 * programme makes a job that GET /api/v1/jobs lists; in TV mode the field is focused
 * on arrival, typing works and Down then Enter open a result. axe-core finds no
 * serious violation. Screenshots: test-output/web/search.png, search-results.png,
 * search-guide.png, tv-search.png, tv-search-guide.png.
 */
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/dvr-app.js';
import { type WebApp, startWebApp, pageText } from '../support/web-app-fixture.js';

let web: WebApp;

beforeAll(async () => {
  web = await startWebApp();
}, 120_000);

afterAll(async () => {
  await web?.close();
});

const text = pageText;
const location = (page: Page) => new URL(page.url());
const groupText = (page: Page, heading: string) =>
  page.evaluate(
    `[...document.querySelectorAll('.search-group')].find((g) => g.querySelector('h2')?.innerText.startsWith(${JSON.stringify(heading)}))?.innerText ?? ''`,
  ) as Promise<string>;

async function waitForGroup(page: Page, heading: string, wanted: string): Promise<string> {
  return until(
    () => groupText(page, heading),
    (body) => body.includes(wanted),
    10_000,
    `"${wanted}" under ${heading}`,
  );
}

/** Replaces what the search field holds by typing, as a person would. */
async function typeQuery(page: Page, query: string): Promise<void> {
  await page.click('#search-field', { clickCount: 3 });
  await page.keyboard.press('Backspace');
  await page.keyboard.type(query, { delay: 20 });
}

describe('search in the app', () => {
  it('finds the show, the movie and the guide programme, keeps the query in the address, and records', async () => {
    const page = await web.open('/search');
    expect(await page.evaluate('document.activeElement?.id')).toBe('search-field');
    await until(
      () => text(page),
      (body) => body.includes('Type the name of a show'),
      10_000,
      'the empty state',
    );
    await web.shot(page, 'search');
    expect(await web.seriousViolations(page)).toEqual([]);

    await typeQuery(page, 'lighthouse');
    await waitForGroup(page, 'TV shows', 'The Lighthouse Keepers');
    await waitForGroup(page, 'Episodes', 'The Fog');
    await waitForGroup(page, 'Videos', 'Lighthouse tour');
    expect(location(page).searchParams.get('q')).toBe('lighthouse');
    await web.shot(page, 'search-results');
    expect(await web.seriousViolations(page)).toEqual([]);

    await typeQuery(page, 'northern LIGHTS');
    await waitForGroup(page, 'Movies', 'Northern Lights');
    expect(await groupText(page, 'TV shows')).toBe('');
    await until(
      () => location(page).searchParams.get('q'),
      (q) => q === 'northern LIGHTS',
      5_000,
      'the query in the address',
    );
    // Open it, then Back: the same search, field and results.
    await page.click('.search-group .card-link');
    await until(
      () => location(page).pathname,
      (p) => p.startsWith('/library/items/'),
      10_000,
      'the movie page',
    );
    await until(
      () => text(page),
      (body) => body.includes('Play'),
      10_000,
      'the movie page loaded',
    );
    await page.goBack();
    await waitForGroup(page, 'Movies', 'Northern Lights');
    expect(await page.evaluate('document.querySelector("#search-field").value')).toBe('northern LIGHTS');

    await typeQuery(page, 'harbour watch');
    const guide = await waitForGroup(page, 'On TV', '5 · Five');
    expect(guide).toMatch(/Now, until/);
    expect(guide).toContain('Watch');
    expect(await page.$('.search-airing-now a[href="/watch/channel/5"]')).not.toBeNull();
    // The next airing (not the one on now): Record, then the job is planned.
    const found = (await web.api('GET', '/dvr/search?q=harbour%20watch')).json as unknown as {
      programmes: Array<{ start_time: number; on_now: boolean; channel: string }>;
    };
    const next = found.programmes.find((p) => !p.on_now);
    expect(next?.channel).toBe('5');
    const rows = await page.$$('.search-airing');
    const row = rows[found.programmes.indexOf(next!)];
    await (await row!.$('button'))!.click();
    await until(
      () => row!.evaluate((element) => (element as unknown as { innerText: string }).innerText),
      (body) => body.includes('Will record'),
      10_000,
      'the airing marked',
    );
    await web.shot(page, 'search-guide');
    const jobs = (await web.api('GET', '/api/v1/jobs')).json as unknown as Array<{
      id: string;
      start_time: number;
      channels?: string[];
    }>;
    expect(jobs.some((job) => job.start_time === next!.start_time && job.id.startsWith(`${next!.start_time}-`))).toBe(
      true,
    );
    expect(await web.seriousViolations(page)).toEqual([]);
    await page.close();
    expect(web.pageErrors).toEqual([]);
  }, 60_000);

  it('in TV mode, is typed into from the start and left with Down for the results', async () => {
    const page = await web.open('/tv/search');
    expect(await page.evaluate('document.documentElement.classList.contains("tv")')).toBe(true);
    expect(await page.evaluate('document.activeElement?.id')).toBe('search-field');
    await page.keyboard.type('north', { delay: 20 });
    await waitForGroup(page, 'Movies', 'Northern Lights');
    await web.shot(page, 'tv-search');
    expect(await web.seriousViolations(page)).toEqual([]);
    await page.keyboard.press('ArrowDown');
    await until(
      () => page.evaluate('document.activeElement?.innerText ?? ""') as Promise<string>,
      (focused) => focused.includes('Northern Lights'),
      5_000,
      'the result focused',
    );
    await page.keyboard.press('Enter');
    await until(
      () => location(page).pathname,
      (p) => p.startsWith('/tv/library/items/'),
      10_000,
      'the movie page',
    );
    // Backspace is the remote's Back: the search again.
    await until(
      () => text(page),
      (body) => body.includes('Play'),
      10_000,
      'the movie page loaded',
    );
    await page.keyboard.press('Backspace');
    await until(
      () => location(page).pathname + location(page).search,
      (p) => p === '/tv/search?q=north',
      10_000,
      'back to the search',
    );
    // A bookmarked search of the guide, laid out for the TV.
    await page.goto(`${web.url}/tv/search?q=harbour`, { waitUntil: 'networkidle0' });
    await waitForGroup(page, 'On TV', 'Harbour Watch');
    expect(await page.evaluate('document.querySelector("#search-field").value')).toBe('harbour');
    await web.shot(page, 'tv-search-guide');
    expect(await web.seriousViolations(page)).toEqual([]);
    await page.close();
    expect(web.pageErrors).toEqual([]);
  }, 60_000);
});
