/**
 * Chromium plays and seeks in a file the server streams: a <video> element in a
 * headless Chromium (driven by puppeteer-core; the browser is Debian's) pointed at
 * `/dvr/files/:id/stream.webm`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedServer, startAntennaServer } from '../support/server-process.js';
import { tempDir } from '../support/temp-library.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
let server: StartedServer;
let browser: Browser;
let media: string;

beforeAll(async () => {
  media = tempDir('antenna-chromium-');
  const clip = join(media, 'Videos', 'Clips', 'Colour bars.webm');
  mkdirSync(join(media, 'Videos', 'Clips'), { recursive: true });
  // VP8 and Opus: codecs every Chromium build plays.
  execFileSync('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=320x240:rate=25:duration=4',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:duration=4',
    '-c:v',
    'libvpx',
    '-deadline',
    'realtime',
    '-b:v',
    '300k',
    '-c:a',
    'libopus',
    '-shortest',
    clip,
  ]);
  server = await startAntennaServer([
    '--data',
    join(tempDir('antenna-chromium-data-'), 'data'),
    '--videos',
    join(media, 'Videos'),
    '--no-sample',
  ]);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const status = (await (await fetch(`${server.url}/status`)).json()) as {
      scan?: { running: boolean; last?: unknown };
    };
    if (status.scan?.last && !status.scan.running) break;
    if (Date.now() > deadline) throw new Error('scan did not finish');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Tests run as root in CI, where Chromium's sandbox cannot start.
    args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required', '--mute-audio'],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(media, { recursive: true, force: true });
});

describe('Chromium and the stream', () => {
  it('plays a streamed file and seeks in it', async () => {
    const [video] = (await (await fetch(`${server.url}/api/v1/videos`)).json()) as { id: string }[];
    const src = `${server.url}/dvr/files/${video?.id}/stream.webm`;
    const page = await browser.newPage();
    const result = await page.evaluate(async (url) => {
      // Runs in the page; typed here without pulling the DOM library into the project's types.
      interface Video {
        muted: boolean;
        src: string;
        currentTime: number;
        duration: number;
        readyState: number;
        error: { code: number } | null;
        play(): Promise<void>;
        addEventListener(event: string, listener: (value: unknown) => void, options: { once: boolean }): void;
      }
      const page = globalThis as unknown as {
        document: { createElement(tag: 'video'): Video; body: { append(node: Video): void } };
      };
      const element = page.document.createElement('video');
      element.muted = true;
      element.src = url;
      page.document.body.append(element);
      await element.play();
      // Until it has played a little (600 ms is enough on a quiet machine; at most 15 s on a busy one).
      for (const until = Date.now() + 15_000; element.currentTime <= 0.1 && Date.now() < until; )
        await new Promise((resolve) => setTimeout(resolve, 100));
      const played = element.currentTime;
      const seeked = new Promise((resolve) => element.addEventListener('seeked', resolve, { once: true }));
      element.currentTime = 2.5;
      await seeked;
      return {
        played,
        after: element.currentTime,
        duration: element.duration,
        error: element.error?.code ?? null,
        readyState: element.readyState,
      };
    }, src);
    expect(result.error).toBeNull();
    expect(result.played).toBeGreaterThan(0.1);
    expect(result.duration).toBeCloseTo(4, 0);
    expect(result.after).toBeCloseTo(2.5, 0);
    expect(result.readyState).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
