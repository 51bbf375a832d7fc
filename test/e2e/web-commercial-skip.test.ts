/**
 * Commercial auto-skip in the Antenna app, in real headless Chromium against a real
 * server playing a real file over HLS. The file's commercial marks are set in the
 * answer of GET /dvr/files/:id as the page receives it (request interception), so each
 * case chooses its breaks, and a mark can arrive while the page plays, as marks made
 * while recording do. The mode is the household's, set over the API:
 * - Auto: playback runs into a break and lands after it, "Skipped 0:15 · Undo" shows,
 *   and Undo goes back to the break's start and plays it through;
 * - a seek by hand into a break plays it;
 * - Ask: "Skip ad" appears when a break begins and skips it when pressed;
 * - a break whose marks arrive while playback is in it is still skipped.
 * Screenshots: test-output/web/player-commercial-skipped.png, player-commercial-ask.png.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { HTTPRequest, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clipArgs } from '../support/media-tree.js';
import { type Json, until } from '../support/dvr-app.js';
import { tempDir } from '../support/temp-library.js';
import { type WebApp, clickText, startWebApp, waitForPlayback, waitForText } from '../support/web-app-fixture.js';

let web: WebApp;
let id: string;
let fileAnswer: Json;

const currentTime = (page: Page) =>
  page.evaluate('document.querySelector("video")?.currentTime ?? -1') as Promise<number>;
const timeReaches = (page: Page, seconds: number, ms: number, what: string) =>
  until(
    () => currentTime(page),
    (t) => t >= seconds,
    ms,
    what,
  );
const household = async (mode: string) =>
  expect((await web.api('PUT', '/dvr/settings/playback', { commercial_skip: mode })).status).toBe(200);

/** The player page for the file from `start`, its file answer carrying `marks()` (and growing while `growing`). */
async function openPlayer(start: number, marks: () => number[], growing = false): Promise<Page> {
  const page = await web.browser.newPage();
  await page.setViewport({ width: 1280, height: 720 });
  await page.setRequestInterception(true);
  page.on('request', (request: HTTPRequest) => {
    if (request.method() === 'GET' && new URL(request.url()).pathname === `/dvr/files/${id}`) {
      const file = growing
        ? { ...(fileAnswer.file as Json), commercial_detection: { state: 'live' } }
        : fileAnswer.file;
      const body = { ...fileAnswer, commercials: marks(), file };
      void request.respond({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
    } else void request.continue();
  });
  await page.goto(`${web.url}/watch/${id}?start=${start}`, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('video');
  await waitForPlayback(page, start + 0.5, 30_000, 'the file playing');
  return page;
}

beforeAll(async () => {
  const media = tempDir('antenna-web-skip-');
  mkdirSync(join(media, 'Breaks'), { recursive: true });
  // A key frame each second, as broadcasts have them (x264's default at 10 fps is one per 25 s).
  const args = clipArgs(join(media, 'Breaks', 'Ad Test.mp4'), { seconds: 90 });
  args.splice(-1, 0, '-g', '10');
  execFileSync('ffmpeg', args);
  web = await startWebApp({ serverArgs: ['--videos', media] });
  const videos = await until(
    async () => (await web.api('GET', '/api/v1/videos')).json,
    (list) => list.length > 0,
    30_000,
    'the video imported',
  );
  id = String(videos[0]?.id);
  fileAnswer = (await web.api('GET', `/dvr/files/${id}`)).json;
  expect(fileAnswer.id).toBe(id);
}, 120_000);

afterAll(async () => {
  await household('ask');
  await web?.close();
});

describe('commercial auto-skip in the app', () => {
  it('jumps over a break it plays into, offers Undo, and Undo plays the break', async () => {
    await household('auto');
    const page = await openPlayer(7, () => [10, 25, 60, 70]);
    // Played on from 7 s it would take 18 s to reach 25 s.
    const began = Date.now();
    await timeReaches(page, 25, 12_000, 'playback past the break');
    expect(Date.now() - began).toBeLessThan(12_000);
    await waitForText(page, 'Skipped 0:15');
    await web.shot(page, 'player-commercial-skipped');
    expect(await web.seriousViolations(page)).toEqual([]);
    await clickText(page, '.commercial-offer button', 'Undo');
    await until(
      () => currentTime(page),
      (t) => t >= 10 && t < 12,
      5000,
      'back at the break start',
    );
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const later = await currentTime(page);
    expect(later).toBeGreaterThan(11);
    expect(later).toBeLessThan(16);

    // A seek by hand into the second break plays it.
    await page.evaluate('document.querySelector("video").currentTime = 62');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const inBreak = await currentTime(page);
    expect(inBreak).toBeGreaterThan(62.5);
    expect(inBreak).toBeLessThan(68);
    await page.close();
  }, 90_000);

  it('asks in Ask mode, and skips when asked to', async () => {
    await household('ask');
    const page = await openPlayer(7, () => [10, 25]);
    await page.waitForFunction('document.querySelector(".commercial-offer")?.innerText.includes("Skip ad")', {
      timeout: 10_000,
    });
    const asked = await currentTime(page);
    expect(asked).toBeGreaterThanOrEqual(10);
    expect(asked).toBeLessThan(25);
    await web.shot(page, 'player-commercial-ask');
    await clickText(page, '.commercial-offer button', 'Skip ad');
    await timeReaches(page, 25, 3000, 'after the break');
    await page.close();
  }, 60_000);

  it('skips a break whose marks arrive while playback is in it', async () => {
    await household('auto');
    let marks: number[] = [];
    const page = await openPlayer(30, () => marks, true);
    marks = [36, 80];
    // The page reads a growing recording's marks again within 15 s; played on, 80 s is 50 s away.
    await timeReaches(page, 80, 30_000, 'playback past the late break');
    await waitForText(page, 'Skipped 0:44');
    await page.close();
  }, 60_000);
});
