/**
 * The Antenna app's DVR and Settings sections in real headless Chromium against a real
 * server (test/support/web-app-fixture.ts): a series pass for channel 5's "Harbour
 * Watch" made through the form lands in GET /dvr/rules and plans jobs; a bad value is
 * refused by the server and said beside its field; the pass is paused and resumed, one
 * of its jobs skipped and a recording stopped through the UI, and the pass deleted;
 * Settings shows the M3U source with its 3 channels, the guide, the scan and the disk,
 * and Refresh now reports what it read. axe-core finds no serious violation.
 * Screenshots: test-output/web/schedule-*.png, settings.png, tv-schedule.png, tv-settings-panels.png.
 */
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/dvr-app.js';
import { type WebApp, startWebApp, waitForText, clickText, pageText, pagePath } from '../support/web-app-fixture.js';

let web: WebApp;

beforeAll(async () => {
  web = await startWebApp();
}, 120_000);

afterAll(async () => {
  await web?.close();
});

interface Rule {
  id: string;
  type: string;
  title?: string;
  priority?: number;
  keep?: number;
  padding_after?: number;
  paused?: boolean;
}
interface Job {
  id: string;
  name: string;
  channel?: string;
  start_time: number;
  skipped?: boolean;
  error?: string;
}

const text = pageText;
const path = pagePath;
const rules = async () => (await web.api('GET', '/dvr/rules')).json as unknown as Rule[];
const jobsOf = async (ruleId: string) =>
  ((await web.api('GET', '/api/v1/jobs')).json as unknown as Job[]).filter((job) => job.id.endsWith(`-${ruleId}`));

/** Types into the field labelled `label` (its whole text replaced). */
async function fill(page: Page, label: string, value: string): Promise<void> {
  const id = (await page.evaluate(
    `[...document.querySelectorAll('label')].find((l) => l.innerText.trim() === ${JSON.stringify(label)})?.htmlFor ?? ''`,
  )) as string;
  expect(id, `a field labelled "${label}"`).not.toBe('');
  const selector = `[id="${id}"]`;
  await page.click(selector, { clickCount: 3 });
  await page.keyboard.press('Backspace');
  await page.type(selector, value);
}

async function confirm(page: Page, label: string): Promise<void> {
  await page.waitForSelector('[role="alertdialog"]');
  await clickText(page, '[role="alertdialog"] button', label);
  await page.waitForFunction('!document.querySelector("[role=alertdialog]")', { timeout: 10_000 });
}

describe('the DVR section', () => {
  it('makes, pauses, resumes and deletes a series pass through the UI, and skips one of its jobs', async () => {
    const page = await web.open('/schedule/passes/new');
    await waitForText(page, 'Series title');
    // A priority out of range: the server's message is shown beside the field.
    await fill(page, 'Series title', 'Harbour Watch');
    await fill(page, 'Priority', '5000');
    await clickText(page, 'button', 'Create pass');
    await page.waitForSelector('.field-invalid .field-error');
    expect(
      await page.$eval(
        '.field-invalid .field-error',
        (element) => (element as unknown as { innerText: string }).innerText,
      ),
    ).toMatch(/priority.*1000/i);
    expect(await rules()).toEqual([]);
    await page.evaluate('window.scrollTo(0, 0)');
    await web.shot(page, 'schedule-pass-form');
    expect(await web.seriousViolations(page)).toEqual([]);
    await fill(page, 'Priority', '5');
    await fill(page, 'Keep newest', '3');
    await fill(page, 'Keep recording after the end (minutes)', '2');
    expect(await page.$('.field-invalid')).toBeNull();
    await clickText(page, 'button', 'Create pass');
    await until(
      () => path(page),
      (p) => p === '/schedule/passes',
      10_000,
      'back to Passes',
    );

    const [rule] = await rules();
    expect(rule).toMatchObject({ type: 'series', title: 'Harbour Watch', priority: 5, keep: 3, padding_after: 120 });
    const jobs = await until(
      () => jobsOf(rule!.id),
      (list) => list.length > 10,
      15_000,
      'the pass planned',
    );
    expect(jobs.every((job) => job.name === 'Harbour Watch' && job.channel === '5')).toBe(true);
    await waitForText(page, 'Next:');
    await web.shot(page, 'schedule-passes');
    expect(await web.seriousViolations(page)).toEqual([]);

    await clickText(page, 'button', 'Pause');
    await until(
      async () => (await rules())[0]?.paused,
      (paused) => paused === true,
      10_000,
      'the pass paused',
    );
    await waitForText(page, 'Paused: plans nothing');
    await clickText(page, 'button', 'Resume');
    await until(
      async () => (await rules())[0]?.paused,
      (paused) => !paused,
      10_000,
      'the pass resumed',
    );

    // Upcoming lists its jobs by day; one is skipped, with the reason shown.
    await page.goto(`${web.url}/schedule/upcoming`, { waitUntil: 'networkidle0' });
    await waitForText(page, 'Harbour Watch');
    expect(await text(page)).toMatch(/today/i);
    await web.shot(page, 'schedule-upcoming');
    expect(await web.seriousViolations(page)).toEqual([]);
    await clickText(page, 'button', 'Skip');
    await confirm(page, 'Skip it');
    const skipped = await until(
      async () => (await jobsOf(rule!.id)).filter((job) => job.skipped),
      (list) => list.length === 1,
      10_000,
      'a job skipped',
    );
    expect(skipped[0]!.error).toBe('skipped by the user');
    await waitForText(page, 'Skipped: you cancelled it.');

    await page.goto(`${web.url}/schedule/passes`, { waitUntil: 'networkidle0' });
    await clickText(page, 'button', 'Delete');
    await confirm(page, 'Delete pass');
    await until(rules, (list) => list.length === 0, 10_000, 'the pass deleted');
    await waitForText(page, 'No passes yet');
    expect(web.pageErrors).toEqual([]);
    await page.close();
  }, 60_000);

  it('draws the form of each kind of pass from the server’s table: a weekly time slot from a link, its length in minutes', async () => {
    const start = Math.floor(Date.now() / 3_600_000) * 3600 + 2 * 86400;
    const page = await web.open(`/schedule/passes/new?type=slot&channel=5&start=${start}`);
    await waitForText(page, 'Length (minutes)');
    // The type's own fields, as GET /dvr/rule-types lists them; "new episodes only" means nothing to a slot.
    expect(await text(page)).toMatch(/A channel at a time, once or every week/);
    expect(await text(page)).not.toMatch(/New episodes only/);
    await clickText(page, 'button', 'Create pass');
    await page.waitForSelector('.field-invalid .field-error');
    expect(await text(page)).toMatch(/Give the length in minutes/);
    await fill(page, 'Length (minutes)', '30');
    await clickText(page, 'label', 'Every week at this time');
    await clickText(page, 'button', 'Create pass');
    await until(
      () => path(page),
      (p) => p === '/schedule/passes',
      10_000,
      'back to Passes',
    );
    const [rule] = await rules();
    expect(rule).toMatchObject({ type: 'slot', channel: '5', start_time: start, duration: 1800, weekly: true });
    await waitForText(page, 'for 30 min, weekly');
    expect(await text(page)).toMatch(/time slot\s+Channel 5, .* for 30 min, weekly/i);
    await web.api('DELETE', `/dvr/rules/${rule!.id}`);
    expect(web.pageErrors).toEqual([]);
    await page.close();
  });

  it('shows what records now and stops it', async () => {
    expect((await web.api('POST', '/dvr/channels/7/recording')).status).toBe(201);
    const page = await web.open('/schedule/recording');
    await waitForText(page, 'Channel 7', 15_000);
    await web.shot(page, 'schedule-recording');
    // The pass's airing in progress on channel 5 may record too (a deleted pass's recording goes on).
    await page.click('button[aria-label*="on channel 7"]');
    await confirm(page, 'Stop recording');
    await until(
      async () => (await web.api('GET', '/dvr/channels/7/recording')).status,
      (status) => status === 404,
      10_000,
      'the recording stopped',
    );
    await until(
      () => text(page),
      (body) => !body.includes('Channel 7'),
      10_000,
      'channel 7 gone from Recording now',
    );
    // Upcoming lists it with the finished jobs, as stopped.
    await page.goto(`${web.url}/schedule/upcoming`, { waitUntil: 'networkidle0' });
    await waitForText(page, 'Stopped');
    expect(
      await page.evaluate(
        `[...document.querySelectorAll('.job')].find((row) => row.innerText.includes('Channel 7'))?.innerText ?? ''`,
      ),
    ).toMatch(/Stopped/);
    await page.close();
  }, 60_000);

  it('lays Upcoming and Settings out for a television under /tv', async () => {
    // Something to reach on the page, whatever the time: channel 9 recording now.
    expect((await web.api('POST', '/dvr/channels/9/recording')).status).toBe(201);
    const page = await web.open('/tv/schedule/upcoming');
    expect(await page.evaluate('document.documentElement.classList.contains("tv")')).toBe(true);
    await waitForText(page, 'Upcoming recordings');
    // A remote reaches a job's button with Down alone.
    const onJob = () => page.evaluate('Boolean(document.activeElement?.closest(".job"))') as Promise<boolean>;
    for (let i = 0; i < 6 && !(await onJob()); i++) {
      await page.keyboard.press('ArrowDown');
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    expect(await onJob()).toBe(true);
    await web.shot(page, 'tv-schedule');
    expect(await web.seriousViolations(page)).toEqual([]);
    await page.goto(`${web.url}/tv/settings`, { waitUntil: 'networkidle0' });
    await waitForText(page, 'Last scan');
    await web.shot(page, 'tv-settings-panels');
    expect(await web.seriousViolations(page)).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('Settings', () => {
  it('shows the sources, the guide, the scan and the disk, and refreshes them', async () => {
    const page = await web.open('/settings');
    await waitForText(page, 'channels.m3u');
    await waitForText(page, '3 channels');
    await waitForText(page, 'guide.xml');
    await waitForText(page, 'Last scan');
    expect(await page.$('[role="meter"][aria-label="Recordings disk in use"]')).not.toBeNull();
    expect(await text(page)).toMatch(/free of/);
    await clickText(page, 'button', 'Refresh now');
    await waitForText(page, 'Refreshed:', 20_000);
    expect(await text(page)).toMatch(/3 channels/);
    expect(await text(page)).toMatch(/156 programmes/);
    await web.shot(page, 'settings');
    expect(await web.seriousViolations(page)).toEqual([]);
    await clickText(page, 'button', 'Scan now');
    await waitForText(page, 'Scan queued');
    expect(web.pageErrors).toEqual([]);
    await page.close();
  }, 60_000);
});
