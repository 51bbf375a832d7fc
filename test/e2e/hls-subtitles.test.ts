/**
 * A file's SRT subtitles as an HLS subtitle rendition in a browser: hls.js in Debian's
 * headless Chromium (puppeteer-core) plays a Matroska file with an English SRT track,
 * its subtitle track turned on, and the cue from 2 s to 8 s must be active exactly
 * then: not before 2 s, from 2 s, and no longer after 8 s. That is what the WebVTT's
 * X-TIMESTAMP-MAP (MPEGTS:126000, where ffmpeg's MPEG-TS segments put the file's
 * time 0) is for: a map 1.4 s off moves the cue 1.4 s. Played as it is (remux) and
 * transcoded. The server runs in this process (the source, not the build), served to
 * a page of another origin as in hls-playback.test.ts. A screenshot with the cue on
 * screen goes to test-output/hls/.
 */
import { NO_LIVE_BUFFERS } from '../../src/streaming/buffer-hls-session.js';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemFiles } from '../support/hls-items.js';
import { type HlsJsPage, startHlsJsPage } from '../support/hls-js-page.js';
import { NotFoundError } from '../../src/common/errors.js';
import { HlsService } from '../../src/streaming/hls-sessions.service.js';
import { type TempLibrary, buildTestApp, createTempLibrary } from '../support/temp-library.js';

const SHOTS = join(process.cwd(), 'test-output', 'hls');
const CUE_TEXT = 'Subtitles in time';

let temp: TempLibrary;
let hls: HlsService;
let app: FastifyInstance;
let serverUrl: string;
let hlsPage: HlsJsPage;
let pageUrl: string;
let browser: Browser;

beforeAll(async () => {
  temp = createTempLibrary();
  mkdirSync(SHOTS, { recursive: true });
  const plain = join(temp.dir, 'plain.mp4');
  const ffmpeg = (args: string[]) => execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
  ffmpeg([
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=320x180:rate=25:duration=12',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:duration=12',
    '-shortest',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-g',
    '25',
    '-c:a',
    'aac',
    plain,
  ]);
  const srt = join(temp.dir, 'english.srt');
  writeFileSync(srt, `1\n00:00:02,000 --> 00:00:08,000\n${CUE_TEXT}\n`);
  const subbed = join(temp.dir, 'Beach Day.mkv');
  ffmpeg([
    '-i',
    plain,
    '-i',
    srt,
    '-map',
    '0',
    '-map',
    '1',
    '-c',
    'copy',
    '-c:s',
    'srt',
    '-metadata:s:s:0',
    'language=eng',
    '-metadata:s:s:0',
    'title=English',
    subbed,
  ]);
  hls = new HlsService({
    dir: join(temp.dir, 'hls'),
    ffmpeg: 'ffmpeg',
    ffprobe: 'ffprobe',
    encoder: 'software',
    maxTranscodes: 2,
    ...itemFiles((id) => {
      if (id !== 'beach') throw new NotFoundError('file', id);
      return { path: subbed, growing: false };
    }),
    resolveChannel: (number) => {
      throw new NotFoundError('channel', number);
    },
    liveBuffer: NO_LIVE_BUFFERS,
  });
  hls.start();
  app = await buildTestApp(temp, { hls });
  serverUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  hlsPage = await startHlsJsPage();
  browser = hlsPage.browser;
  pageUrl = hlsPage.url;
}, 60_000);

afterAll(async () => {
  await hlsPage?.close();
  await app?.close();
  await hls?.stop();
  temp?.close();
});

interface Loaded {
  fatal: string[];
  level: string;
  tracks: { name: string; lang: string }[];
  /** The cues as hls.js placed them on the media timeline. */
  cues: { start: number; end: number; text: string }[];
}

interface Watched {
  fatal: string[];
  /** The active cues' texts at every timeupdate while it played. */
  samples: { time: number; active: string[] }[];
  /** When the active cues changed (cuechange), and to what. */
  changes: { time: number; active: string[] }[];
  /** Right after a seek, paused. */
  afterSeek: { time: number; active: string[] };
}

/** Starts `url` with hls.js, its first subtitle track shown, and waits (paused at 0) until its cues are in. */
async function load(page: Page, url: string): Promise<Loaded> {
  await page.goto(pageUrl);
  return page.evaluate(async (url) => {
    // Runs in the page; its globals typed here without the DOM library in the project's types.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the DOM and hls.js, untyped in this project
    type Untyped = any;
    const page = globalThis as unknown as { document: Untyped; Hls: Untyped; player?: Untyped };
    const video = page.document.createElement('video');
    video.muted = true;
    video.width = 480;
    video.height = 270;
    page.document.body.append(video);
    const Hls = page.Hls;
    const hls = new Hls();
    const fatal: string[] = [];
    hls.on(
      Hls.Events.ERROR,
      (_event: unknown, data: { fatal: boolean; details: string }) => data.fatal && fatal.push(data.details),
    );
    hls.loadSource(url);
    hls.attachMedia(video);
    const parsed = await new Promise((resolve) => {
      hls.on(Hls.Events.MANIFEST_PARSED, () => resolve(true));
      hls.on(Hls.Events.ERROR, (_event: unknown, data: { fatal: boolean }) => data.fatal && resolve(false));
    });
    const tracks = hls.subtitleTracks.map((t: { name: string; lang: string }) => ({ name: t.name, lang: t.lang }));
    if (!parsed) return { fatal, level: '', tracks, cues: [] };
    hls.subtitleDisplay = true;
    hls.subtitleTrack = 0;
    const subtitles = () =>
      [...video.textTracks].find((t: Untyped) => t.kind === 'subtitles' && t.cues && t.cues.length > 0);
    for (const deadline = Date.now() + 10_000; !subtitles() && Date.now() < deadline && fatal.length === 0; )
      await new Promise((resolve) => setTimeout(resolve, 50));
    const track = subtitles();
    page.player = { video, hls, track, fatal };
    const cues = track
      ? [...track.cues].map((c: Untyped) => ({ start: c.startTime, end: c.endTime, text: c.text }))
      : [];
    return { fatal, level: hls.levels[hls.currentLevel]?.name ?? hls.levels[0]?.name ?? '', tracks, cues };
  }, url);
}

/** Seeks to `from` (checked paused), then plays until `until`, recording the active cues as time passes. */
async function watch(page: Page, from: number, until: number): Promise<Watched> {
  return page.evaluate(
    async (from, until) => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the DOM and hls.js, untyped in this project
      type Untyped = any;
      const { video, track, fatal } = (globalThis as unknown as { player: Untyped }).player;
      const active = () => [...(track.activeCues ?? [])].map((c: Untyped) => c.text as string);
      video.pause();
      const seeked = new Promise((resolve) => {
        video.addEventListener('seeked', resolve, { once: true });
        setTimeout(resolve, 5000);
      });
      video.currentTime = from;
      await seeked;
      await new Promise((resolve) => setTimeout(resolve, 100));
      const afterSeek = { time: video.currentTime, active: active() };
      const samples: { time: number; active: string[] }[] = [];
      const changes: { time: number; active: string[] }[] = [];
      const onTime = () => samples.push({ time: video.currentTime, active: active() });
      const onChange = () => changes.push({ time: video.currentTime, active: active() });
      video.addEventListener('timeupdate', onTime);
      track.addEventListener('cuechange', onChange);
      await video.play();
      for (const deadline = Date.now() + 10_000; video.currentTime < until && Date.now() < deadline; )
        await new Promise((resolve) => setTimeout(resolve, 20));
      video.pause();
      video.removeEventListener('timeupdate', onTime);
      track.removeEventListener('cuechange', onChange);
      return { fatal, samples, changes, afterSeek };
    },
    from,
    until,
  );
}

/** The cue is shown from 2 s to 8 s of playback, and at no other time. */
async function expectCueOnTime(url: string, shot?: string): Promise<Loaded> {
  const page = await browser.newPage();
  const loaded = await load(page, url);
  expect(loaded.fatal).toEqual([]);
  expect(loaded.tracks).toEqual([{ name: 'English', lang: 'en' }]);
  // Where hls.js put the cue: the file's 2 s to 8 s (and the 23 ms Matroska's AAC priming moved every stream by).
  expect(loaded.cues).toHaveLength(1);
  expect(loaded.cues[0]?.text).toBe(CUE_TEXT);
  expect(loaded.cues[0]?.start).toBeGreaterThan(1.9);
  expect(loaded.cues[0]?.start).toBeLessThan(2.1);
  expect(loaded.cues[0]?.end).toBeGreaterThan(7.9);
  expect(loaded.cues[0]?.end).toBeLessThan(8.1);

  // Playing from the start: nothing shown before 2 s, the cue from 2 s on.
  const start = await watch(page, 0, 2.8);
  expect(start.fatal).toEqual([]);
  expect(start.afterSeek.active).toEqual([]);
  const before = start.samples.filter((s) => s.time < 1.9);
  expect(before.some((s) => s.time > 1)).toBe(true);
  for (const sample of before) expect(sample.active).toEqual([]);
  const during = start.samples.filter((s) => s.time > 2.2);
  expect(during.length).toBeGreaterThan(0);
  for (const sample of during) expect(sample.active).toEqual([CUE_TEXT]);
  const shown = start.changes.find((c) => c.active.includes(CUE_TEXT));
  expect(shown?.time).toBeGreaterThan(1.85);
  expect(shown?.time).toBeLessThan(2.35);
  if (shot) await page.screenshot({ path: join(SHOTS, shot) });

  // Near its end: shown at 7.5 s, gone from 8 s.
  const end = await watch(page, 7.5, 8.6);
  expect(end.afterSeek.active).toEqual([CUE_TEXT]);
  const gone = end.changes.find((c) => c.active.length === 0);
  expect(gone?.time).toBeGreaterThan(7.85);
  expect(gone?.time).toBeLessThan(8.35);
  for (const sample of end.samples.filter((s) => s.time > 8.3)) expect(sample.active).toEqual([]);
  expect(end.samples.some((s) => s.time > 8.3)).toBe(true);
  await page.close();
  return loaded;
}

describe('HLS subtitles in Chromium', () => {
  it('shows an SRT cue from 2 s to 8 s of a remuxed file', async () => {
    const loaded = await expectCueOnTime(`${serverUrl}/dvr/files/beach/hls/master.m3u8?encoder=remux`, 'subtitles.png');
    expect(loaded.level).toBe('remux');
  }, 60_000);

  it('shows it at the same moments when the file is transcoded', async () => {
    // No rendition taller than 144 lines: the source (180) is not offered as it is.
    const loaded = await expectCueOnTime(`${serverUrl}/dvr/files/beach/hls/master.m3u8?max_height=144`);
    expect(loaded.level).toBe('144p');
  }, 60_000);
});
