/**
 * Settings' refreshes held back for confirmation, in real headless Chromium against a
 * real server (test/support/web-app-fixture.ts): the M3U source's playlist file shrinks
 * to one of its three channels and its own Refresh is held back (GET /dvr/sources keeps
 * 3 channels and stores the error); the page says why in words (not the API call the
 * server suggests to other clients) and Apply anyway, after the confirm dialog, applies
 * it (1 channel, no error). Then the guide shrinks to one channel's programmes; Refresh
 * now holds it back and, in TV mode, a remote's arrows and Enter alone reach Apply
 * anyway and confirm it. axe-core finds no serious violation.
 * Screenshots: test-output/web/settings-refresh-held.png, settings-refresh-confirm.png,
 * settings-refresh-applied.png, tv-settings-guide-held.png, settings-guide-priority.png. A guide's
 * priority is set in place (PATCH /dvr/guides/:id), one out of range refused in words.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until, writeM3u, writeXmltv } from '../support/dvr-app.js';
import { CHANNELS, type WebApp, clickText, pageText, startWebApp, waitForText } from '../support/web-app-fixture.js';

let web: WebApp;

beforeAll(async () => {
  web = await startWebApp();
}, 120_000);

afterAll(async () => {
  await web?.close();
});

interface Entry {
  id: string;
  name?: string;
  location: string;
  channels?: number;
  programmes?: number;
  error?: string;
}

const sources = async () => (await web.api('GET', '/dvr/sources')).json as unknown as Entry[];
const guides = async () => (await web.api('GET', '/dvr/guides')).json as unknown as Entry[];
const channelCount = async () => ((await web.api('GET', '/api/v1/channels')).json as unknown as unknown[]).length;

/** Presses `key` until the focused element satisfies `test` (a page expression over `el`), as a remote would. */
async function pressUntil(page: Page, key: string, test: string, most = 40): Promise<void> {
  const there = () =>
    page.evaluate(
      `(() => { const el = document.activeElement; return Boolean(el && (${test})); })()`,
    ) as Promise<boolean>;
  for (let i = 0; i < most && !(await there()); i++) {
    await page.keyboard.press(key as never);
    await new Promise((resolve) => setTimeout(resolve, 60));
  }
  expect(await there(), `focus reached ${test} with ${key}`).toBe(true);
}

describe('a refresh held back for confirmation', () => {
  it('shows why a shrunken source was not applied, and applies it after asking', async () => {
    const [source] = await sources();
    expect(source).toMatchObject({ channels: 3 });
    const page = await web.open('/settings');
    await waitForText(page, '3 channels');

    // The playlist now lists channel 5 alone: two of its three channels would go.
    const m3u = join(web.dir, 'channels.m3u');
    const five = /tvg-chno="5",Five\n(\S+)/.exec(readFileSync(m3u, 'utf8'))?.[1];
    expect(five).toBeDefined();
    writeM3u(m3u, [{ number: '5', name: 'Five', url: five!, tvgId: 'five.example' }]);

    await page.click(`button[aria-label="Refresh source ${source!.name}"]`);
    await waitForText(page, 'This refresh was held back');
    const held = await pageText(page);
    expect(held).toMatch(/held back: it would remove 2 of the 3 channels \(7, 9\), more than 50 % of them\./);
    // The server's note for other clients (the API call, the command) is not the app's way to confirm.
    expect(held).not.toMatch(/POST \/dvr|antenna refresh/);
    // Nothing applied: the lineup and the count are as they were, the reason stored.
    expect(await channelCount()).toBe(3);
    expect((await sources())[0]).toMatchObject({
      channels: 3,
      error: expect.stringMatching(/would remove 2 of the 3 channels/),
      rejected: 'shrinks',
      needs_confirmation: true,
    });
    // The list itself says it is held: a page opened afresh offers Apply anyway too.
    await page.reload();
    await waitForText(page, 'This refresh was held back');
    await web.shot(page, 'settings-refresh-held');
    expect(await web.seriousViolations(page)).toEqual([]);

    // Cancelling changes nothing; Apply anyway in the dialog applies it.
    await clickText(page, 'button', 'Apply anyway');
    await page.waitForSelector('[role="alertdialog"]');
    expect(
      await page.$eval('[role="alertdialog"]', (element) => (element as unknown as { innerText: string }).innerText),
    ).toMatch(/would remove 2 of the 3 channels/);
    await clickText(page, '[role="alertdialog"] button', 'Cancel');
    await page.waitForFunction('!document.querySelector("[role=alertdialog]")');
    expect(await channelCount()).toBe(3);
    await clickText(page, 'button', 'Apply anyway');
    await page.waitForSelector('[role="alertdialog"]');
    await web.shot(page, 'settings-refresh-confirm');
    expect(await web.seriousViolations(page)).toEqual([]);
    await clickText(page, '[role="alertdialog"] button', 'Apply anyway');
    await until(
      sources,
      (list) => list[0]?.channels === 1 && list[0].error === undefined,
      15_000,
      'the refresh applied',
    );
    expect(await channelCount()).toBe(1);
    await waitForText(page, 'Refreshed: 1 channel.');
    await until(
      () => pageText(page),
      (body) => !body.includes('held back') && !body.includes('Apply anyway'),
      10_000,
      'the hold gone from the page',
    );
    await page.waitForFunction('!document.querySelector("[role=alertdialog]")');
    await web.shot(page, 'settings-refresh-applied');
    expect(web.pageErrors).toEqual([]);
    await page.close();
  }, 60_000);

  it('offers Apply anyway after Refresh now, reached and confirmed with a remote in TV mode', async () => {
    const [guide] = await guides();
    const before = guide!.programmes!;
    expect(before).toBe(156);
    // Only channel 5's programmes: two thirds of those still to come would go.
    const guideFile = join(web.dir, 'guide.xml');
    const now = Math.floor(Date.now() / 1000);
    const start = now - (now % 1800) - 3600;
    const five = CHANNELS[0];
    writeXmltv(
      guideFile,
      [[five.id, five.name]],
      Array.from({ length: 52 }, (_, slot) => ({
        channel: five.id,
        start: start + slot * 1800,
        stop: start + (slot + 1) * 1800,
        title: five.series,
      })),
    );

    const page = await web.open('/tv/settings');
    await waitForText(page, 'Refresh now');
    await pressUntil(page, 'ArrowDown', `el.innerText?.trim() === 'Refresh now'`);
    await page.keyboard.press('Enter');
    await waitForText(page, 'Refreshed:', 20_000);
    expect(await pageText(page)).toMatch(/held back: it has \d+ programmes still to come where the guide has \d+/);
    expect((await guides())[0]).toMatchObject({ programmes: before, error: expect.stringMatching(/not applied/) });

    await pressUntil(
      page,
      'ArrowDown',
      `el.getAttribute('aria-label') === 'Apply anyway: the refresh of ${guide!.location}'`,
    );
    await web.shot(page, 'tv-settings-guide-held');
    expect(await web.seriousViolations(page)).toEqual([]);
    await page.keyboard.press('Enter');
    await page.waitForSelector('[role="alertdialog"]');
    // The dialog holds the focus: Right goes from Cancel to Apply anyway.
    await pressUntil(
      page,
      'ArrowRight',
      `el.closest('[role=alertdialog]') && el.innerText.trim() === 'Apply anyway'`,
      4,
    );
    await page.keyboard.press('Enter');
    await until(
      guides,
      (list) => list[0]?.programmes === 52 && list[0].error === undefined,
      15_000,
      'the guide refresh applied',
    );
    await waitForText(page, 'Refreshed: 52 programmes.');
    // Focus comes back to the entry's Refresh, so the remote goes on from there.
    await until(
      () => page.evaluate('document.activeElement?.getAttribute("aria-label") ?? ""') as Promise<string>,
      (label) => label === `Refresh guide ${guide!.location}`,
      5_000,
      'focus on the guide’s Refresh',
    );
    expect(web.pageErrors).toEqual([]);
    await page.close();
  }, 60_000);

  it("sets a guide's priority in place, refusing one out of range in words", async () => {
    const [guide] = await guides();
    const page = await web.open('/settings');
    const button = `button[aria-label^="Priority of guide ${guide!.location}:"]`;
    await page.waitForSelector(button);
    await page.click(button);
    await page.waitForSelector('input.inline-input');
    await page.evaluate('document.querySelector("input.inline-input").select()');
    await page.keyboard.type('5000');
    await page.keyboard.press('Enter');
    await waitForText(page, 'A priority is a whole number from 1 to 1000.');
    expect(await page.$eval('input.inline-input', (input) => input.getAttribute('aria-invalid'))).toBe('true');
    await page.evaluate('document.querySelector("input.inline-input").select()');
    await page.keyboard.type('3');
    await page.keyboard.press('Enter');
    await until(
      guides,
      (list) => (list[0] as { priority?: number } | undefined)?.priority === 3,
      10_000,
      'the priority saved',
    );
    await page.waitForFunction('!document.querySelector("input.inline-input")');
    await until(
      () => pageText(page),
      (body) => !body.includes('A priority is a whole number'),
      5_000,
      'the message gone',
    );
    await web.shot(page, 'settings-guide-priority');
    expect(web.pageErrors).toEqual([]);
    await page.close();
  }, 30_000);
});
