/**
 * The Antenna app's library and player in real headless Chromium against a real
 * server (test/support/web-app-fixture.ts): each library list renders what the API
 * holds; playing a movie and pausing it reports its position to interface A; a
 * recording being made is marked in Recordings, plays while it records (its position
 * reaching interface A too) and can be deleted (after a confirmation); TV mode is walked with the keyboard alone;
 * axe-core finds no serious
 * violation; an item's page says what its file holds. Screenshots: test-output/web/library-*.png, player.png, tv-*.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/dvr-app.js';
import {
  type WebApp,
  startWebApp,
  waitForText,
  clickText,
  pagePath,
  waitForPlayback,
} from '../support/web-app-fixture.js';

let web: WebApp;

beforeAll(async () => {
  web = await startWebApp();
}, 120_000);

afterAll(async () => {
  await web?.close();
});

const path = pagePath;

describe('the library in the app', () => {
  it('lists what interface A holds in each list, each page with no serious accessibility violation', async () => {
    const lists: Array<[string, string]> = [
      ['/library/shows', 'The Lighthouse Keepers'],
      ['/library/movies', 'Northern Lights'],
      ['/library/videos', ''],
      ['/library/collections', ''],
      ['/library/playlists', ''],
      ['/library/recordings', 'No recordings yet'],
    ];
    for (const [url, expected] of lists) {
      const page = await web.open(url);
      if (expected) await waitForText(page, expected);
      else await page.waitForSelector('.card-grid, .empty', { timeout: 10_000 });
      await web.shot(page, `library-${url.split('/').pop()}`);
      expect(JSON.stringify(await web.seriousViolations(page)), url).toBe('[]');
      await page.close();
    }
    const show = await web.open('/library/shows');
    await clickText(show, '.card-title', 'The Lighthouse Keepers');
    await waitForText(show, 'S01E01');
    expect(path(show)).toMatch(/^\/library\/shows\/imp-show-/);
    await web.shot(show, 'library-show');
    await show.close();
    expect(web.pageErrors).toEqual([]);
  }, 90_000);

  it('plays a movie and, paused, reports its position to interface A', async () => {
    const movies = (await web.api('GET', '/api/v1/movies')).json;
    const movie = movies.find((m) => m.title === 'Northern Lights') as { id: string };
    const page = await web.open(`/library/items/${movie.id}`);
    // What the file holds, as the probe read it, under the summary.
    await page.waitForSelector('.media-facts', { timeout: 20_000 });
    const facts = (await page.$eval('.media-facts', (element) => element.textContent)) ?? '';
    expect(facts).toMatch(/FileMatroska|FileMP4/);
    expect(facts).toMatch(/VideoH\.264 · \d+×\d+/);
    await web.shot(page, 'library-item');
    await clickText(page, 'a', 'Play');
    await page.waitForSelector('video');
    await waitForPlayback(page, 1.5, 20_000, 'the movie playing');
    await web.shot(page, 'player');
    await clickText(page, 'button', 'Pause');
    const reported = await until(
      async () =>
        (await web.api('GET', `/api/v1/movies/${movie.id}`)).json as unknown as {
          playback_time: number;
          watched?: boolean;
        },
      (m) => m.playback_time > 1 || m.watched === true,
      10_000,
      'the position reported',
    );
    expect(reported.playback_time > 1 || reported.watched).toBe(true);
    await page.close();
  }, 60_000);

  it('marks a recording being made, plays it while it records (its position reaching interface A), and deletes it after asking', async () => {
    expect((await web.api('POST', '/dvr/channels/5/recording')).status).toBe(201);
    const recording = await until(
      async () => (await web.api('GET', '/api/v1/all?source=recordings')).json,
      (items) => items.length === 1,
      30_000,
      'the recording listed',
    );
    const id = (recording[0] as { id: string }).id;
    const page = await web.open('/library/recordings');
    await waitForText(page, 'Recording');
    await web.shot(page, 'library-recordings-in-progress');
    // Played while it records (from its start), paused: interface A has its position.
    await page.goto(`${web.url}/watch/${id}?start=0`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('video');
    await waitForPlayback(page, 1.5, 40_000, 'the recording playing');
    await web.shot(page, 'player-recording');
    await clickText(page, 'button', 'Pause');
    const episode = await until(
      async () => (await web.api('GET', `/api/v1/episodes/${id}`)).json as unknown as { playback_time: number },
      (e) => e.playback_time > 1,
      10_000,
      "the recording's position in interface A",
    );
    expect(episode.playback_time).toBeGreaterThan(1);
    expect((await web.api('DELETE', '/dvr/channels/5/recording')).status).toBe(204);
    await page.goto(`${web.url}/library/items/${id}`, { waitUntil: 'networkidle0' });
    await clickText(page, 'button', 'Delete recording');
    await page.waitForSelector('[role="alertdialog"]');
    await web.shot(page, 'library-delete-confirm');
    expect(await web.seriousViolations(page)).toEqual([]);
    await clickText(page, '[role="alertdialog"] button', 'Delete');
    await until(
      () => path(page),
      (p) => p === '/library/recordings',
      10_000,
      'back to Recordings',
    );
    expect((await web.api('GET', `/dvr/files/${id}`)).status).toBe(404);
    await waitForText(page, 'No recordings yet');
    await page.close();
  }, 90_000);
});

describe('TV mode', () => {
  it('reaches every section, a list, an item and the player with arrows, Enter and Back alone', async () => {
    const page = await web.open('/tv/library/movies');
    expect(await page.evaluate('document.documentElement.classList.contains("tv")')).toBe(true);
    const focused = () => page.evaluate('document.activeElement?.innerText?.trim() ?? ""') as Promise<string>;
    const press = async (key: string, times = 1) => {
      for (let i = 0; i < times; i++) {
        await page.keyboard.press(key as never);
        await new Promise((resolve) => setTimeout(resolve, 60));
      }
    };
    // Up to the header, then along it: every section opens with Enter.
    const sections = (await page.evaluate(
      '[...document.querySelectorAll("nav[aria-label=Sections] a")].map((a) => a.innerText.trim())',
    )) as string[];
    expect(sections.length).toBeGreaterThanOrEqual(1);
    for (const [index, section] of sections.entries()) {
      await press('ArrowUp', 4);
      await press('ArrowLeft', 8);
      await press('ArrowRight', index);
      expect(await focused()).toBe(section);
      await press('Enter');
      await until(
        () =>
          page.evaluate(
            'document.querySelector("nav[aria-label=Sections] a[aria-current=page]")?.innerText?.trim()',
          ) as Promise<string>,
        (active) => active === section,
        10_000,
        `${section} open`,
      );
      expect(path(page).startsWith('/tv/')).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 500));
      await web.shot(page, `tv-walk-${section.toLowerCase().replace(/\W+/g, '-')}`);
    }
    // Into the library: Movies, the first card, its page, Play.
    await page.goto(`${web.url}/tv/library/movies`, { waitUntil: 'networkidle0' });
    await press('ArrowUp', 4);
    await press('ArrowDown', 2);
    expect(await focused()).toContain('Northern Lights');
    await press('Enter');
    await until(
      () => path(page),
      (p) => p.startsWith('/tv/library/items/'),
      10_000,
      'the movie page',
    );
    await waitForText(page, 'Play');
    await web.shot(page, 'tv-item');
    expect(await focused()).toMatch(/Play|Resume/);
    await press('Enter');
    await until(
      () => path(page),
      (p) => p.startsWith('/tv/watch/'),
      10_000,
      'the player',
    );
    await page.waitForSelector('video');
    await press('Backspace');
    await until(
      () => path(page),
      (p) => p.startsWith('/tv/library/items/'),
      10_000,
      'back to the movie page',
    );
    expect(await web.seriousViolations(page)).toEqual([]);
    await page.close();
  }, 90_000);
});
