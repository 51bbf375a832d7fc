/**
 * Settings → Channels, the lineup editor, in real headless Chromium against a real
 * server (test/support/web-app-fixture.ts) whose M3U source grows to 1,003 channels in
 * four groups (group-title). Only the rows in view are in the page, to the last channel.
 * A channel is renamed in place (Enter) and its source's name shown with Reset, which
 * gives it back; a number another channel has is refused with the server's 409 said in
 * words and the field left open (Escape cancels, nothing saved); a free number is saved
 * and the focus follows the channel to its new place. A group is hidden at once
 * (GET /api/v1/channels leaves it out) and another renumbered from a start, its clash
 * said in words first. In TV mode a remote's arrows, Enter and Back alone rename a
 * channel and cancel an edit. axe-core finds no serious violation.
 * Screenshots: test-output/web/channels-*.png, tv-channels.png, tv-channels-scrolled.png.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/dvr-app.js';
import { type WebApp, clickText, startWebApp, waitForText } from '../support/web-app-fixture.js';

let web: WebApp;

interface Channel {
  id: string;
  number: string;
  name: string;
  group?: string;
  hidden: boolean;
  edited: string[];
  source: { number: string; name: string };
}

const GROUPS = [
  { name: 'News', first: 101, count: 20 },
  { name: 'Shopping', first: 201, count: 30 },
  { name: 'Sports', first: 301, count: 50 },
  { name: 'Movies', first: 1000, count: 900 },
];

beforeAll(async () => {
  web = await startWebApp();
  // The fixture's three channels (5, 7, 9, no group) and 1,000 more in groups: nothing is removed, so the refresh
  // applies.
  const lines = ['#EXTM3U'];
  const entry = (number: number | string, name: string, group?: string) =>
    lines.push(
      `#EXTINF:-1 tvg-chno="${number}"${group ? ` group-title="${group}"` : ''},${name}`,
      `http://127.0.0.1:9/${number}.ts`,
    );
  entry(5, 'Five');
  entry(7, 'Seven');
  entry(9, 'Nine');
  for (const group of GROUPS)
    for (let i = 0; i < group.count; i++) entry(group.first + i, `${group.name} ${i + 1}`, group.name);
  writeFileSync(join(web.dir, 'channels.m3u'), `${lines.join('\n')}\n`);
  const [source] = (await web.api('GET', '/dvr/sources')).json as unknown as Array<{ id: string }>;
  const refreshed = await web.api('POST', `/dvr/sources/${source!.id}/refresh`);
  expect(refreshed.json).toMatchObject({ channels: 1003 });
}, 120_000);

afterAll(async () => {
  await web?.close();
});

const lineup = async () => (await web.api('GET', '/dvr/lineup')).json as unknown as Channel[];
const channel = async (sourceNumber: string) => (await lineup()).find((c) => c.source.number === sourceNumber)!;
const focused = (page: Page) =>
  page.evaluate(
    'document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.tagName ?? ""',
  ) as Promise<string>;
const rowsInPage = (page: Page) => page.evaluate('document.querySelectorAll(".lineup-row").length') as Promise<number>;

/** Opens the in-place field of the button whose label begins `label`, and types `value` over what is there. */
async function editInPlace(page: Page, label: string, value: string): Promise<void> {
  await page.click(`button[aria-label^="${label}"]`);
  await page.waitForSelector('input.inline-input');
  await page.evaluate('document.querySelector("input.inline-input").select()');
  await page.keyboard.type(value);
}

describe('the lineup editor', () => {
  it('renames and renumbers in place, says a refused number in words, and follows the channel', async () => {
    const page = await web.open('/settings/channels');
    await waitForText(page, '1,003 channels');
    // Virtualized: a window's worth of rows, not 1,003.
    expect(await rowsInPage(page)).toBeLessThan(40);
    await web.shot(page, 'channels-list');
    expect(await web.seriousViolations(page)).toEqual([]);

    // Rename: Enter saves; the source's name is shown with Reset.
    await editInPlace(page, 'Name of channel 7:', 'Seven <b>HD</b>');
    await page.keyboard.press('Enter');
    await until(
      () => channel('7'),
      (c) => c.name === 'Seven <b>HD</b>' && c.edited.includes('name'),
      10_000,
      'channel 7 renamed',
    );
    await waitForText(page, 'Source: Seven');
    // Data is text, never markup.
    expect(await page.$('.lineup-row b')).toBeNull();
    await waitForText(page, 'Channel 7 is now called Seven <b>HD</b> (it was Seven).');

    // A number channel 5 has: the 409 in words, the field still open with what was typed.
    await editInPlace(page, 'Number of channel Nine:', '5');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.lineup-status [role="alert"]');
    const refused = await page.$eval(
      '.lineup-status [role="alert"]',
      (element) => (element as unknown as { innerText: string }).innerText,
    );
    expect(refused).toMatch(
      /Not saved \(9 Nine\): 9 “Nine” \(.+\) would be 5, which 5 “Five” \(.+\) has\. Renumber or hide the other channel first/,
    );
    expect(
      await page.$eval('input.inline-input', (input) => [
        (input as unknown as { value: string }).value,
        input.getAttribute('aria-invalid'),
      ]),
    ).toEqual(['5', 'true']);
    await web.shot(page, 'channels-number-taken');
    expect(await web.seriousViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await page.waitForFunction('!document.querySelector("input.inline-input")');
    expect((await channel('9')).number).toBe('9');
    expect(await focused(page)).toMatch(/^Number of channel Nine: 9\./);

    // A free number: saved, the row moves after 7 and the focus goes with it.
    await editInPlace(page, 'Number of channel Nine:', '8');
    await page.keyboard.press('Enter');
    await until(
      () => channel('9'),
      (c) => c.number === '8' && c.edited.includes('number'),
      10_000,
      'channel 9 renumbered',
    );
    await until(
      () => focused(page),
      (label) => label.startsWith('Number of channel Nine: 8.'),
      5_000,
      'the focus on the moved channel',
    );
    await waitForText(page, 'Source: 9');

    // Reset gives the name back to the source.
    await page.click('button[aria-label^="Reset the name of channel 7"]');
    await until(
      () => channel('7'),
      (c) => c.name === 'Seven' && !c.edited.includes('name'),
      10_000,
      'channel 7 named by its source again',
    );
    await waitForText(page, 'Channel 7 has its source’s name again: Seven.');
    await web.shot(page, 'channels-edited');

    // The last rows are reached and drawn, still a window's worth.
    await page.evaluate('window.scrollTo(0, document.body.scrollHeight)');
    await waitForText(page, 'Movies 900');
    expect(await rowsInPage(page)).toBeLessThan(40);
    expect(web.pageErrors).toEqual([]);
    await page.close();
  }, 60_000);

  it('hides a group and renumbers another, saying a clash in words', async () => {
    const visibleBefore = ((await web.api('GET', '/api/v1/channels')).json as unknown as unknown[]).length;
    const page = await web.open('/settings/channels');
    await waitForText(page, '1,003 channels');
    await clickText(page, 'button', 'Shopping (30)');
    await waitForText(page, 'Shopping: 30 channels');
    await clickText(page, 'button', 'Hide group');
    await waitForText(page, 'Shopping: its 30 channels hidden.');
    await waitForText(page, 'Shopping: 30 channels, all hidden');
    const groups = (await web.api('GET', '/dvr/lineup/groups')).json as unknown as Array<{
      name: string;
      hidden: number;
    }>;
    expect(groups.find((g) => g.name === 'Shopping')).toMatchObject({ hidden: 30 });
    expect(((await web.api('GET', '/api/v1/channels')).json as unknown as unknown[]).length).toBe(visibleBefore - 30);
    expect(
      await page.$$eval('.lineup-row', (rows) => rows.filter((row) => row.classList.contains('lineup-hidden')).length),
    ).toBeGreaterThan(0);
    await web.shot(page, 'channels-group-hidden');
    expect(await web.seriousViolations(page)).toEqual([]);

    // Sports from 101 would take News's numbers (News is shown): refused, said in words; from 2000 it is done.
    await clickText(page, 'button', 'Sports (50)');
    await clickText(page, 'button', 'Renumber from…');
    const field = (await page.evaluate(
      `[...document.querySelectorAll('label')].find((l) => l.innerText.trim() === 'First number')?.htmlFor ?? ''`,
    )) as string;
    await page.type(`[id="${field}"]`, '101');
    await clickText(page, 'button', 'Renumber');
    await page.waitForSelector('.lineup-group-actions [role="alert"]');
    expect(
      await page.$eval(
        '.lineup-group-actions [role="alert"]',
        (element) => (element as unknown as { innerText: string }).innerText,
      ),
    ).toMatch(/would be 101, which 101 “News 1” \(.+\) has/);
    await web.shot(page, 'channels-renumber-taken');
    expect((await channel('301')).number).toBe('301');
    await page.click(`[id="${field}"]`, { clickCount: 3 });
    await page.type(`[id="${field}"]`, '2000');
    await clickText(page, 'button', 'Renumber');
    await waitForText(page, 'Sports: its 50 visible channels numbered from 2000.');
    const sports = (await lineup()).filter((c) => c.group === 'Sports');
    expect(sports.map((c) => c.number)).toEqual(Array.from({ length: 50 }, (_, i) => String(2000 + i)));
    await web.shot(page, 'channels-group-renumbered');
    expect(web.pageErrors).toEqual([]);
    await page.close();
  }, 60_000);

  it('is edited with a remote alone in TV mode', async () => {
    const page = await web.open('/tv/settings/channels');
    await waitForText(page, '1,003 channels');
    // Down from the top reaches the first row (channel 5), Right its name.
    for (let i = 0; i < 20 && !(await page.evaluate('Boolean(document.activeElement?.closest(".lineup-row"))')); i++) {
      await page.keyboard.press('ArrowDown');
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    expect(await focused(page)).toMatch(/^Number of channel Five: 5\./);
    await page.keyboard.press('ArrowRight');
    expect(await focused(page)).toMatch(/^Name of channel 5: Five\./);
    // Enter opens the field; Back cancels and leaves the focus where it was.
    await page.keyboard.press('Enter');
    await page.waitForSelector('input.inline-input');
    await page.keyboard.type(' East');
    await page.keyboard.press('Escape');
    await page.waitForFunction('!document.querySelector("input.inline-input")');
    expect(await focused(page)).toMatch(/^Name of channel 5: Five\./);
    expect((await channel('5')).name).toBe('Five');
    // Enter, the new name, Enter: saved.
    await page.keyboard.press('Enter');
    await page.waitForSelector('input.inline-input');
    await page.keyboard.press('End');
    await page.keyboard.type(' East');
    await web.shot(page, 'tv-channels');
    await page.keyboard.press('Enter');
    await until(
      () => channel('5'),
      (c) => c.name === 'Five East',
      10_000,
      'channel 5 renamed by remote',
    );
    await until(
      () => focused(page),
      (label) => label.startsWith('Name of channel 5: Five East.'),
      5_000,
      'the focus back on the name',
    );
    expect(await web.seriousViolations(page)).toEqual([]);
    // Down goes to the Reset under the new name, then row by row, past the rows first drawn: the list draws the next
    // ones as the focus reaches them.
    await page.keyboard.press('ArrowDown');
    await until(
      () => focused(page),
      (label) => /^Reset the name of channel 5 Five East/.test(label),
      5_000,
      'the focus on Reset',
    );
    await page.keyboard.press('ArrowDown');
    await until(
      () => focused(page),
      (label) => /^Name of channel 7: /.test(label),
      5_000,
      'the focus on channel 7',
    );
    // Each press once the one before has moved the focus (a press while the next rows are drawn is not lost on a busy
    // machine).
    for (let i = 0; i < 30; i++) {
      const before = await focused(page);
      await page.keyboard.press('ArrowDown');
      await until(
        () => focused(page),
        (label) => label !== before,
        5_000,
        `press ${i + 1} moving the focus from ${before}`,
      );
    }
    // 7, then 8 (Nine), News's 20 (101–120) and Shopping's first 9 (hidden, still listed here): one row a press.
    expect(await focused(page)).toMatch(/^Name of channel 209: Shopping 9\./);
    expect(await page.evaluate('document.activeElement.getBoundingClientRect().bottom <= window.innerHeight')).toBe(
      true,
    );
    await web.shot(page, 'tv-channels-scrolled');
    expect(web.pageErrors).toEqual([]);
    await page.close();
  }, 60_000);
});
