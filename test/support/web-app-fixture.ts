/**
 * A real `antenna server` for the app's end-to-end tests, as a household would have
 * it: the sample library, three M3U channels streaming an ffmpeg-made MPEG-TS, and an
 * XMLTV guide around now (a series airing on each channel every 30 minutes, from an
 * hour ago to a day ahead); and Debian's headless Chromium (puppeteer-core) to open
 * the app in. Screenshots go to test-output/web/<name>.png; look at them.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { type Json, callJson, until, writeM3u, writeXmltv } from './dvr-app.js';
import { type StartedServer, startAntennaServer } from './server-process.js';
import { tempDir } from './temp-library.js';
import { makeTsClip, type StreamServer, startStreamServer } from './ts-stream-server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SHOTS = join(process.cwd(), 'test-output', 'web');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export const CHANNELS = [
  { number: '5', name: 'Five', id: 'five.example', series: 'Harbour Watch' },
  { number: '7', name: 'Seven', id: 'seven.example', series: 'Kitchen Nights' },
  { number: '9', name: 'Nine', id: 'nine.example', series: 'Night News' },
] as const;

export interface WebApp {
  server: StartedServer;
  url: string;
  browser: Browser;
  dir: string;
  /** A new page at `path`, waited on until the network is quiet; page errors collected. */
  open(path: string, options?: { width?: number; height?: number }): Promise<Page>;
  /** Errors the pages threw or logged. */
  pageErrors: string[];
  /** Saves test-output/web/<name>.png. */
  shot(page: Page, name: string): Promise<void>;
  /** axe-core's violations of impact serious or critical on the page as it is. */
  seriousViolations(page: Page): Promise<Array<{ id: string; impact: string; help: string; nodes: number }>>;
  api(method: string, path: string, body?: unknown): Promise<{ status: number; json: Json & Json[] }>;
  close(): Promise<void>;
}

export async function startWebApp(options: { serverArgs?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<WebApp> {
  const dir = tempDir('antenna-web-e2e-');
  mkdirSync(SHOTS, { recursive: true });
  const clip = await makeTsClip(join(dir, 'live.ts'), { seconds: 40, size: '320x240' });
  const streams: StreamServer = await startStreamServer(clip.path);
  writeM3u(
    join(dir, 'channels.m3u'),
    CHANNELS.map((channel) => ({
      number: channel.number,
      name: channel.name,
      url: streams.url(channel.id),
      tvgId: channel.id,
    })),
  );
  const now = Math.floor(Date.now() / 1000);
  const start = now - (now % 1800) - 3600;
  const programmes = CHANNELS.flatMap((channel) =>
    Array.from({ length: 52 }, (_, slot) => ({
      channel: channel.id,
      start: start + slot * 1800,
      stop: start + (slot + 1) * 1800,
      title: channel.series,
      extra: `<sub-title>Episode ${slot + 1}</sub-title><desc>Episode ${slot + 1} of ${channel.series}.</desc><episode-num system="xmltv_ns">0.${slot}.</episode-num>`,
    })),
  );
  writeXmltv(
    join(dir, 'guide.xml'),
    CHANNELS.map((channel) => [channel.id, channel.name]),
    programmes,
  );
  const server = await startAntennaServer(
    [
      '--data',
      join(dir, 'data'),
      '--m3u',
      join(dir, 'channels.m3u'),
      '--xmltv',
      join(dir, 'guide.xml'),
      ...(options.serverArgs ?? []),
    ],
    options.env,
  );
  const url = server.url;
  await until(
    async () => {
      const status = (await (await fetch(`${url}/status`)).json()) as { scan?: { running: boolean; last?: unknown } };
      const channels = (await (await fetch(`${url}/api/v1/channels`)).json()) as unknown[];
      return Boolean(status.scan?.last && !status.scan.running && channels.length === CHANNELS.length);
    },
    Boolean,
    60_000,
    'the sample library scanned and the channels read',
  );
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required', '--mute-audio'],
  });
  const pageErrors: string[] = [];
  const axeSource = readFileSync(AXE, 'utf8');
  return {
    server,
    url,
    browser,
    dir,
    pageErrors,
    async open(path, size = {}) {
      const page = await browser.newPage();
      await page.setViewport({ width: size.width ?? 1280, height: size.height ?? 800 });
      page.on('pageerror', (error) => pageErrors.push(`${path}: ${(error as Error).message}`));
      await page.goto(url + path, { waitUntil: 'networkidle0' });
      return page;
    },
    async shot(page, name) {
      await page.screenshot({ path: join(SHOTS, `${name}.png`) });
    },
    async seriousViolations(page) {
      await page.evaluate(axeSource);
      // A string, so this file needs no DOM types: it runs in the page, where axe now is.
      return page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length })))`) as Promise<
        Array<{ id: string; impact: string; help: string; nodes: number }>
      >;
    },
    api: (method, path, body) => callJson(url, method, path, body),
    async close() {
      await browser.close().catch(() => undefined);
      await server.stop();
      await streams.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------- what the tests do on a page

/** The page's visible text. */
export const pageText = (page: Page) => page.evaluate('document.body.innerText') as Promise<string>;

/** The path of the page's URL. */
export const pagePath = (page: Page) => new URL(page.url()).pathname;

export async function waitForText(page: Page, wanted: string, timeoutMs = 10_000): Promise<void> {
  await until(
    () => pageText(page),
    (body) => body.includes(wanted),
    timeoutMs,
    `"${wanted}" on ${page.url()}`,
  );
}

/**
 * Waits until the page's <video> has played past `seconds`. On failure it says what the
 * video and the player showed (ready and network state, what is buffered, the player's
 * error), not only the time: a stall and a refused stream read the same otherwise.
 */
export async function waitForPlayback(page: Page, seconds: number, timeoutMs: number, what: string): Promise<void> {
  await until(
    () =>
      page.evaluate(`(() => {
        const video = document.querySelector('video');
        const buffered = video && video.buffered.length > 0 ? [video.buffered.start(0), video.buffered.end(video.buffered.length - 1)] : [];
        return {
          time: video ? video.currentTime : -1,
          paused: video ? video.paused : null,
          readyState: video ? video.readyState : null,
          networkState: video ? video.networkState : null,
          buffered,
          mediaError: video && video.error ? video.error.code : null,
          shown: document.querySelector('.player-error')?.innerText ?? null,
        };
      })()`) as Promise<{ time: number }>,
    (state) => state.time > seconds,
    timeoutMs,
    what,
  );
}

/** Clicks the element matching `selector` whose visible text is exactly `label`, once there is one. */
export async function clickText(page: Page, selector: string, label: string): Promise<void> {
  const handle = await page.waitForFunction(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].find((element) => element.innerText.trim() === ${JSON.stringify(label)}) ?? null`,
    { timeout: 10_000 },
  );
  await (handle as unknown as { click(): Promise<void> }).click();
}

/** Presses `key` `times` times, a little apart, as a remote would. */
export async function press(page: Page, key: string, times = 1, gapMs = 80): Promise<void> {
  for (let i = 0; i < times; i++) {
    await page.keyboard.press(key as never);
    await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
}
