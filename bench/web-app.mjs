/**
 * The web app's figures for `npm run bench` (called by bench/run.mjs with the server
 * under test, on the bench library), measured in Debian's headless Chromium, each
 * beside a reference measured in the same browser in the same run:
 * - initial JavaScript: the gzipped bytes the first page loads (the entry script and
 *   what it preloads; the player and hls.js load later), against the 250 KB budget;
 * - first contentful paint of /library/recordings, a fresh browser context each time
 *   (nothing cached), against a bare HTML page from node:http;
 * - Recordings opened, flung down at 6,000 px/s for 10 s, then sent to its end: frame
 *   intervals from requestAnimationFrame, against the same scroll of a static page as
 *   tall, which is what the browser itself does;
 * - the Guide of 500 channels × 14 days (bench/generate-guide.mjs, on a server of its
 *   own): from navigation to the grid's programmes on screen, against the time of one
 *   `GET /dvr/guide` page the grid asks for; then scrolled down through every channel and
 *   across a day, counting the guide requests and the programmes they carried (the
 *   grid must page by channel and time, never load the whole guide).
 */
/*
  global document, innerHeight, scrollTo, scrollBy, scrollY, requestAnimationFrame, PerformanceObserver -- of the page,
  in functions puppeteer runs there
*/
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import puppeteer from 'puppeteer-core';
import { writeGuide } from './generate-guide.mjs';
import { freePort, median } from './player.mjs';

const { fetch } = globalThis;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WEB = join(ROOT, 'dist', 'web');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const LOADS = 5;
/** A fast fling on a touchpad or a held arrow key: 6,000 px a second at 60 fps, for 10 s. */
const FLING_PX_PER_FRAME = 100;
const FLING_FRAMES = 600;

/** The gzipped size of the JavaScript index.html loads before anything is played. */
export function initialJavaScript(webDir = WEB) {
  const page = readFileSync(join(webDir, 'index.html'), 'utf8');
  const scripts = [...page.matchAll(/<(?:script[^>]*src|link[^>]*rel="modulepreload"[^>]*href)="\/([^"]+\.js)"/g)].map(
    (match) => match[1],
  );
  return {
    files: scripts,
    gzipBytes: scripts.reduce((sum, file) => sum + gzipSync(readFileSync(join(webDir, file)), { level: 9 }).length, 0),
  };
}

async function firstContentfulPaint(browser, url) {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.setCacheEnabled(false);
    await page.goto(url, { waitUntil: 'load' });
    return await page.evaluate(
      () =>
        new Promise((resolve) => {
          const found = () => performance.getEntriesByName('first-contentful-paint')[0];
          if (found()) return resolve(found().startTime);
          new PerformanceObserver((list) => resolve(list.getEntries()[0].startTime)).observe({
            type: 'paint',
            buffered: true,
          });
        }),
    );
  } finally {
    await context.close();
  }
}

/**
 * Scrolls the page by `step` px per animation frame for `frames` frames, then jumps to
 * its end (the End key's way) and stays 60 frames there; the frame intervals of both.
 */
async function scrollFrames(page, step = FLING_PX_PER_FRAME, frames = FLING_FRAMES) {
  return page.evaluate(
    (step, frames) =>
      new Promise((resolve) => {
        const height = document.documentElement.scrollHeight - innerHeight;
        const intervals = [];
        let last = performance.now();
        let count = 0;
        const tick = (now) => {
          intervals.push(now - last);
          last = now;
          count++;
          if (count === frames) scrollTo(0, height);
          else if (count < frames) scrollBy(0, step);
          if (count >= frames + 60)
            return resolve({
              intervals: intervals.slice(1),
              height,
              atEnd: scrollY + innerHeight >= document.documentElement.scrollHeight - 2,
              where: [scrollY, innerHeight, document.documentElement.scrollHeight],
            });
          requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
    step,
    frames,
  );
}

function frameFigures({ intervals, height, atEnd, where }) {
  const sorted = [...intervals].sort((a, b) => a - b);
  const p95 = sorted[Math.floor(sorted.length * 0.95)] ?? 0;
  const total = intervals.reduce((sum, ms) => sum + ms, 0);
  return {
    frames: intervals.length,
    height,
    atEnd,
    where,
    fps: (intervals.length * 1000) / total,
    medianMs: median(intervals),
    p95Ms: p95,
    slowShare: intervals.filter((ms) => ms > 25).length / intervals.length,
  };
}

export async function benchWeb({ port, log }) {
  const base = `http://127.0.0.1:${port}`;
  const initial = initialJavaScript();
  log(`web: initial JavaScript ${initial.files.join(', ')}: ${(initial.gzipBytes / 1024).toFixed(1)} KB gzipped`);
  const bare = http.createServer((_request, response) =>
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><title>bare</title><h1>Bare page</h1>'),
  );
  await new Promise((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareUrl = `http://127.0.0.1:${bare.address().port}/`;
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  try {
    const fcp = { antenna: [], bare: [] };
    for (let i = 0; i < LOADS; i++) {
      fcp.antenna.push(await firstContentfulPaint(browser, `${base}/library/recordings`));
      fcp.bare.push(await firstContentfulPaint(browser, bareUrl));
    }
    log(
      `web: first contentful paint ${fcp.antenna.map((ms) => ms.toFixed(0)).join(', ')} ms | bare page ${fcp.bare.map((ms) => ms.toFixed(0)).join(', ')} ms`,
    );

    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    const opened = performance.now();
    await page.goto(`${base}/library/recordings`, { waitUntil: 'load' });
    await page.waitForSelector('.card', { timeout: 30_000 });
    const openMs = performance.now() - opened;
    const cards = await page.$$eval('.card', (nodes) => nodes.length);
    const antennaScroll = frameFigures(await scrollFrames(page));
    if (!antennaScroll.atEnd)
      throw new Error(`the Recordings list did not scroll to its end: ${JSON.stringify(antennaScroll.where)}`);
    const endCards = await page.$$eval('.card', (nodes) => nodes.length);
    // The reference: a static page as tall, scrolled the same way.
    await page.goto('about:blank');
    await page.setContent(
      `<!doctype html><html><body style="margin:0;background:#0f141a"><div style="height:${antennaScroll.height + 800}px;background:repeating-linear-gradient(#234 0 200px,#0f141a 200px 400px)"></div></body></html>`,
    );
    await page.waitForFunction(`document.documentElement.scrollHeight > ${antennaScroll.height}`);
    const staticScroll = frameFigures(await scrollFrames(page));
    log(
      `web: Recordings opened in ${openMs.toFixed(0)} ms (${cards} cards in the page of a ${antennaScroll.height} px list; ${endCards} at its end); ` +
        `scroll ${antennaScroll.fps.toFixed(1)} fps (median frame ${antennaScroll.medianMs.toFixed(1)} ms, p95 ${antennaScroll.p95Ms.toFixed(1)} ms) | static page ${staticScroll.fps.toFixed(1)} fps`,
    );
    return { initial, fcp, openMs, cards, endCards, scroll: antennaScroll, staticScroll };
  } finally {
    await browser.close();
    bare.close();
  }
}

const GUIDE_CHANNELS = 500;
const GUIDE_DAYS = 14;

/** The channel numbers bench/generate-guide.mjs gives its channels (its channelXml). */
const guideNumber = (c) => (c % 9 === 0 ? `${2 + (c % 60)}.${1 + (c % 4)}` : String(c + 2));

async function startGuideServer({ antennaBin, work, log }) {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  log(`web: writing a ${GUIDE_CHANNELS}-channel × ${GUIDE_DAYS}-day guide`);
  const guide = await writeGuide(join(work, 'guide.xml'), {
    channels: GUIDE_CHANNELS,
    days: GUIDE_DAYS,
    start: Math.floor(Date.now() / 3_600_000) * 3600 - 3600,
  });
  // Channels matched to the guide by tvg-id; nothing streams (the grid never tunes).
  const lines = ['#EXTM3U'];
  for (let c = 0; c < GUIDE_CHANNELS; c++)
    lines.push(
      `#EXTINF:-1 tvg-id="ch${c}.example" tvg-chno="${guideNumber(c)}",Channel ${c}`,
      `http://127.0.0.1:9/ch${c}`,
    );
  writeFileSync(join(work, 'channels.m3u'), `${lines.join('\n')}\n`);
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      antennaBin,
      'server',
      '--data',
      join(work, 'data'),
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--no-sample',
      '--m3u',
      join(work, 'channels.m3u'),
      '--xmltv',
      join(work, 'guide.xml'),
      '--log-level',
      'warn',
    ],
    { stdio: 'ignore', env: { ...process.env, ANTENNA_MDNS: 'false' } },
  );
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      const page = await (await fetch(`${base}/dvr/guide?limit=1&offset=${GUIDE_CHANNELS - 1}`)).json();
      if (page.channels?.[0]?.airings?.length > 0) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error('the guide server did not import its guide in 3 minutes');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return { child, base, programmes: guide.programmes };
}

export async function benchGuideGrid({ antennaBin, work, log }) {
  const server = await startGuideServer({ antennaBin, work, log });
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  try {
    const opens = [];
    const apiMs = [];
    let requests = [];
    for (let i = 0; i < LOADS; i++) {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport({ width: 1280, height: 800 });
      requests = [];
      page.on('requestfinished', (request) => request.url().includes('/dvr/guide?') && requests.push(request.url()));
      const started = performance.now();
      await page.goto(`${server.base}/guide`);
      await page.waitForSelector('.guide-cell:not(.guide-empty)', { timeout: 30_000 });
      opens.push(performance.now() - started);
      // The same first page, asked alone: what the server's part of it costs.
      const first = requests[0];
      const asked = performance.now();
      await (await fetch(first)).arrayBuffer();
      apiMs.push(performance.now() - asked);
      if (i < LOADS - 1) await context.close();
      else {
        const before = requests.length;
        // Down through every channel, then a day across.
        await page.evaluate(async () => {
          const box = document.querySelector('.guide-scroller');
          for (let y = 0; y < box.scrollHeight; y += box.clientHeight) {
            box.scrollTop = y;
            await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
          }
          for (let x = 0; x < 24 * 4 * 60; x += box.clientWidth / 2) {
            box.scrollLeft = box.scrollLeft + box.clientWidth / 2;
            await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
          }
        });
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const windows = requests.map((url) => Object.fromEntries(new URL(url).searchParams));
        const widest = Math.max(...windows.map((w) => Number(w.end) - Number(w.start)));
        const mostChannels = Math.max(...windows.map((w) => Number(w.limit)));
        log(
          `web: guide scrolled through ${GUIDE_CHANNELS} channels and a day: ${requests.length - before} more requests, at most ${mostChannels} channels × ${(widest / 3600).toFixed(0)} h each`,
        );
        await context.close();
        return {
          programmes: server.programmes,
          opens,
          apiMs,
          requests: requests.length,
          afterScroll: requests.length - before,
          widestHours: widest / 3600,
          mostChannels,
        };
      }
    }
  } finally {
    await browser.close();
    server.child.kill('SIGTERM');
  }
}

export function webRows(result, { fmt, verdict }) {
  const fcp = median(result.fcp.antenna);
  const bareFcp = median(result.fcp.bare);
  const { scroll, staticScroll } = result;
  return [
    {
      target: `Web app: initial JavaScript, gzipped (${result.initial.files.length} file${result.initial.files.length === 1 ? '' : 's'}; the player and hls.js load when first played)`,
      threshold: '≤ 250 KB',
      measured: `${(result.initial.gzipBytes / 1024).toFixed(1)} KB`,
      ceiling: '250 KB budget',
      ratio: fmt.ratio(result.initial.gzipBytes / (250 * 1024)),
      result: verdict(result.initial.gzipBytes <= 250 * 1024),
    },
    {
      target: `Web app: first contentful paint of /library/recordings, loopback, nothing cached (median of ${result.fcp.antenna.length}); ceiling: a bare HTML page`,
      threshold: '≤ 1 s',
      measured: fmt.ms(fcp),
      ceiling: fmt.ms(bareFcp),
      ratio: fmt.times(fcp / bareFcp),
      result: verdict(fcp <= 1000),
    },
    {
      target: `Web app: Recordings (bench library, ${(scroll.height / 1000).toFixed(0)},000 px) flung at 6,000 px/s for 10 s then sent to its end, ${scroll.frames} frames, ${result.cards} cards in the page at a time; ceiling: a static page as tall`,
      threshold: '60 fps (median frame ≤ 17.5 ms, ≤ 5 % of frames over 25 ms)',
      measured: `${scroll.fps.toFixed(1)} fps, median ${scroll.medianMs.toFixed(1)} ms, p95 ${scroll.p95Ms.toFixed(1)} ms, ${(scroll.slowShare * 100).toFixed(1)} % slow`,
      ceiling: `${staticScroll.fps.toFixed(1)} fps, p95 ${staticScroll.p95Ms.toFixed(1)} ms`,
      ratio: fmt.times(scroll.fps / staticScroll.fps),
      result: verdict(scroll.medianMs <= 17.5 && scroll.slowShare <= 0.05),
    },
    ...(result.guide ? guideRows(result.guide, { fmt, verdict }) : []),
  ];
}

function guideRows(guide, { fmt, verdict }) {
  const open = median(guide.opens);
  const api = median(guide.apiMs);
  const wholeGuideHours = GUIDE_DAYS * 24;
  return [
    {
      target: `Web app: the Guide of ${GUIDE_CHANNELS} channels × ${GUIDE_DAYS} days (${guide.programmes.toLocaleString('en-US')} programmes) opened, navigation to programmes on screen (median of ${guide.opens.length}); ceiling: one GET /dvr/guide page alone`,
      threshold: '≤ 1 s',
      measured: fmt.ms(open),
      ceiling: fmt.ms(api),
      ratio: fmt.times(open / api),
      result: verdict(open <= 1000),
    },
    {
      target: `Web app: the Guide scrolled through all ${GUIDE_CHANNELS} channels and across a day: paged by channel and time, never the whole guide`,
      threshold: `no request for more than 100 channels or 24 h (the whole guide is ${GUIDE_CHANNELS} × ${wholeGuideHours} h)`,
      measured: `${guide.afterScroll} requests, each ≤ ${guide.mostChannels} channels × ${guide.widestHours.toFixed(0)} h`,
      ceiling: '—',
      ratio: '—',
      result: verdict(guide.mostChannels <= 100 && guide.widestHours <= 24),
    },
  ];
}

// `node bench/web-app.mjs [PORT]`: the figures against a server already running on PORT (8089).
if (import.meta.url === `file://${process.argv[1]}`) {
  const log = (line) => console.log(line);
  const result = await benchWeb({ port: Number(process.argv[2] ?? 8089), log });
  result.guide = await benchGuideGrid({
    antennaBin: join(ROOT, 'bin', 'antenna'),
    work: join(ROOT, '.bench', 'web-guide'),
    log,
  });
  const fmt = {
    ms: (n) => `${Math.round(n)} ms`,
    ratio: (n) => `${(n * 100).toFixed(0)} %`,
    times: (n) => `${n.toFixed(2)}×`,
  };
  for (const row of webRows(result, { fmt, verdict: (ok) => (ok ? 'PASS' : 'FAIL') }))
    console.log(`${row.result}  ${row.target}: ${row.measured} (ceiling ${row.ceiling})`);
}
