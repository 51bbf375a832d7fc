/**
 * HLS as a browser plays it: hls.js in Debian's headless Chromium (puppeteer-core),
 * against a real `antenna server`. An imported H.264 file (remux), an MPEG-2 + AC-3
 * MPEG-TS (transcoded), a live channel, a recording in progress and the same recording
 * finished: each plays (time advances, the picture changes), and the file seeks to its
 * middle and its last minute. Screenshots go to test-output/hls/.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/dvr-app.js';
import { type HlsJsPage, startHlsJsPage } from '../support/hls-js-page.js';
import { type StartedServer, startAntennaServer } from '../support/server-process.js';
import { tempDir } from '../support/temp-library.js';
import { makeTsClip, type StreamServer, startStreamServer } from '../support/ts-stream-server.js';

const SHOTS = join(process.cwd(), 'test-output', 'hls');
let server: StartedServer;
let streams: StreamServer;
/** An MPEG-2 + AC-3 channel, as broadcast sends it: browsers play it transcoded. */
let broadcast: StreamServer;
let browser: Browser;
let media: string;
/** Another origin, as a web app elsewhere would be: the page that plays (the server's CORS headers let it). */
let hlsPage: HlsJsPage;
let pageUrl: string;

interface Item {
  id: string;
  title?: string;
  video_title?: string;
  completed?: boolean;
}

beforeAll(async () => {
  media = tempDir('antenna-hls-e2e-');
  mkdirSync(join(media, 'Videos', 'Clips'), { recursive: true });
  mkdirSync(SHOTS, { recursive: true });
  const pattern = (seconds: number) => [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `testsrc2=size=640x360:rate=25:duration=${seconds}`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:duration=${seconds}`,
    '-shortest',
  ];
  execFileSync('ffmpeg', [
    ...pattern(120),
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-g',
    '50',
    '-c:a',
    'aac',
    join(media, 'Videos', 'Clips', 'Modern.mp4'),
  ]);
  execFileSync('ffmpeg', [
    ...pattern(40),
    '-c:v',
    'mpeg2video',
    '-b:v',
    '2M',
    '-c:a',
    'ac3',
    '-f',
    'mpegts',
    join(media, 'Videos', 'Clips', 'Broadcast.ts'),
  ]);
  // Longer than the channel is watched and recorded here (its live buffer keeps the connection from the first test on):
  // a channel's clock does not jump back as a looped clip's does.
  const clip = await makeTsClip(join(media, 'live.ts'), { seconds: 180, size: '320x240' });
  streams = await startStreamServer(clip.path);
  const mpeg2 = join(media, 'broadcast-channel.ts');
  execFileSync('ffmpeg', [
    ...pattern(40),
    ...['-c:v', 'mpeg2video', '-g', '25', '-b:v', '1500k', '-c:a', 'ac3', '-muxrate', '2500k', '-f', 'mpegts', mpeg2],
  ]);
  broadcast = await startStreamServer(mpeg2);
  writeFileSync(
    join(media, 'channels.m3u'),
    `#EXTM3U\n#EXTINF:-1 tvg-chno="5",Five\n${streams.url('five')}\n#EXTINF:-1 tvg-chno="6",Six\n${broadcast.url('six')}\n`,
  );
  server = await startAntennaServer([
    '--data',
    join(media, 'data'),
    '--videos',
    join(media, 'Videos'),
    '--no-sample',
    '--m3u',
    join(media, 'channels.m3u'),
  ]);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const status = (await (await fetch(`${server.url}/status`)).json()) as {
      scan?: { running: boolean; last?: unknown };
    };
    const channels = (await (await fetch(`${server.url}/api/v1/channels`)).json()) as unknown[];
    if (status.scan?.last && !status.scan.running && channels.length > 0) break;
    if (Date.now() > deadline) throw new Error('scan or channel refresh did not finish');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  hlsPage = await startHlsJsPage();
  browser = hlsPage.browser;
  pageUrl = hlsPage.url;
}, 180_000);

afterAll(async () => {
  await hlsPage?.close();
  await server?.stop();
  await streams?.close();
  await broadcast?.close();
  rmSync(media, { recursive: true, force: true });
});

interface Played {
  levels: string[];
  /** The most segments a live playlist reload skipped (a Playlist Delta Update). */
  skipped: number;
  level: string;
  fatal: string[];
  /** currentTime at each check. */
  times: number[];
  /** A digest of the picture at each check. */
  pictures: string[];
}

/**
 * Plays `url` with hls.js; after each wait (and seek, when given) records currentTime and
 * the picture. A step waits `waitMs`, then on until the video has moved `advance` seconds
 * (0.25 unless given) past the step before or the seek's target, at most 20 s more: on a
 * busy machine a transcode or the live edge may stall a while, which is not a failure.
 */
async function play(
  page: Page,
  url: string,
  steps: { seek?: number; waitMs: number; advance?: number }[],
): Promise<Played> {
  await page.goto(pageUrl);
  return page.evaluate(
    async (url, steps) => {
      // Runs in the page; its globals typed here without the DOM library in the project's types.
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the DOM and hls.js, untyped in this project
      type Untyped = any;
      const page = globalThis as unknown as {
        document: { createElement(tag: string): Untyped; body: { append(node: unknown): void } };
        Hls: Untyped;
      };
      const video = page.document.createElement('video');
      video.muted = true;
      video.width = 320;
      video.height = 180;
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
      let skipped = 0;
      hls.on(Hls.Events.LEVEL_LOADED, (_event: unknown, data: { details: { skippedSegments?: number } }) => {
        skipped = Math.max(skipped, data.details.skippedSegments ?? 0);
      });
      if (!parsed) return { levels: [], level: '', fatal, times: [], pictures: [], skipped };
      await video.play();
      const canvas = page.document.createElement('canvas');
      canvas.width = 64;
      canvas.height = 36;
      const context = canvas.getContext('2d');
      const picture = () => {
        context.drawImage(video, 0, 0, 64, 36);
        const data: Uint8ClampedArray = context.getImageData(0, 0, 64, 36).data;
        let hash = 0;
        for (let i = 0; i < data.length; i += 7) hash = (hash * 31 + data[i]!) >>> 0;
        return hash.toString(16);
      };
      const times: number[] = [];
      const pictures: string[] = [];
      for (const step of steps) {
        const from: number = step.seek ?? times.at(-1) ?? -1;
        if (step.seek !== undefined) {
          const seeked = new Promise((resolve) => {
            video.addEventListener('seeked', resolve, { once: true });
            setTimeout(resolve, 20_000);
          });
          video.currentTime = step.seek;
          await seeked;
        }
        await new Promise((resolve) => setTimeout(resolve, step.waitMs));
        for (
          const until = Date.now() + 20_000;
          video.currentTime < from + (step.advance ?? 0.25) && Date.now() < until;
        )
          await new Promise((resolve) => setTimeout(resolve, 100));
        times.push(video.currentTime);
        pictures.push(picture());
      }
      return {
        levels: hls.levels.map((l: { name: string }) => l.name),
        level: hls.levels[hls.currentLevel]?.name ?? '',
        fatal,
        times,
        pictures,
        skipped,
      };
    },
    url,
    steps,
  );
}

async function items(): Promise<Item[]> {
  return (await (await fetch(`${server.url}/api/v1/all`)).json()) as Item[];
}

describe('HLS in Chromium', () => {
  it('plays an H.264 file as remux and seeks to its middle and its last minute', async () => {
    const file = (await items()).find((item) => item.video_title === 'Modern');
    const page = await browser.newPage();
    const played = await play(page, `${server.url}/dvr/files/${file?.id}/hls/master.m3u8`, [
      { waitMs: 1500 },
      { waitMs: 1500 },
      { seek: 60, waitMs: 2000 },
      { seek: 100, waitMs: 2500 },
    ]);
    await page.screenshot({ path: join(SHOTS, 'remux.png') });
    expect(played.fatal).toEqual([]);
    expect(played.levels).toContain('remux');
    expect(played.times[1]).toBeGreaterThan(played.times[0]!);
    expect(played.times[2]).toBeGreaterThan(60.2);
    expect(played.times[3]).toBeGreaterThan(100.2);
    expect(new Set(played.pictures).size).toBe(4);
    const sessions = (await (await fetch(`${server.url}/api/v1/sessions`)).json()) as {
      FileID?: string;
      Encoder: string;
    }[];
    expect(sessions.some((s) => s.FileID === file?.id && s.Encoder === 'remux')).toBe(true);
    await page.close();
  }, 180_000);

  it('transcodes an MPEG-2 + AC-3 transport stream, which no browser decodes', async () => {
    const file = (await items()).find((item) => item.video_title === 'Broadcast');
    const page = await browser.newPage();
    const played = await play(page, `${server.url}/dvr/files/${file?.id}/hls/master.m3u8`, [
      { waitMs: 2500 },
      { waitMs: 1500 },
      { seek: 20, waitMs: 3000 },
    ]);
    await page.screenshot({ path: join(SHOTS, 'transcode.png') });
    expect(played.fatal).toEqual([]);
    expect(played.levels).not.toContain('remux');
    expect(played.times[1]).toBeGreaterThan(played.times[0]!);
    expect(played.times[2]).toBeGreaterThan(20.2);
    expect(new Set(played.pictures).size).toBe(3);
    await page.close();
  }, 120_000);

  it('plays a live channel from its buffer, seeks back in it, and shares its connection', async () => {
    const page = await browser.newPage();
    const played = await play(page, `${server.url}/devices/ANY/channels/5/hls/master.m3u8`, [
      { waitMs: 1500 },
      { waitMs: 2500, advance: 1.25 },
      { waitMs: 11_000 },
      // Back to the buffer's first seconds: the master playlist's renditions list everything since the tune (and
      // hls.js keeps the segments its delta updates skipped).
      { seek: 0.5, waitMs: 1500, advance: 0.5 },
    ]);
    await page.screenshot({ path: join(SHOTS, 'live.png') });
    expect(played.fatal).toEqual([]);
    expect(played.times[1]).toBeGreaterThan(played.times[0]! + 1);
    expect(played.pictures[1]).not.toBe(played.pictures[0]);
    expect(played.times[2]).toBeGreaterThan(10);
    expect(played.times[3]).toBeLessThan(played.times[2]! - 5);
    // Past the skip boundary (12 s), hls.js reloads the playlist as delta updates.
    expect(played.skipped).toBeGreaterThan(0);
    expect(played.pictures[3]).not.toBe(played.pictures[2]);
    const sessions = (await (await fetch(`${server.url}/api/v1/sessions`)).json()) as {
      ID: string;
      Channel?: { Number: string };
    }[];
    const live = sessions.find((s) => s.Channel?.Number === '5');
    expect(live).toBeDefined();
    // One upstream connection, however many renditions and requests.
    expect(streams.connections('five')).toBe(1);
    await page.close();
    // The client says it stopped watching: the session ends; the buffer lingers (coming back finds it).
    expect((await fetch(`${server.url}/api/v1/sessions/${live?.ID}`, { method: 'DELETE' })).status).toBe(204);
    expect(
      ((await (await fetch(`${server.url}/api/v1/sessions`)).json()) as { ID: string }[]).some(
        (s) => s.ID === live?.ID,
      ),
    ).toBe(false);
    const again = await (await fetch(`${server.url}/devices/ANY/channels/5/buffer.m3u8`)).text();
    expect(again.split('\n').filter((line) => line.startsWith('#EXTINF')).length).toBeGreaterThan(5);
    expect(streams.connections('five')).toBe(1);
  }, 120_000);

  it('plays an MPEG-2 + AC-3 channel transcoded from its buffer, and seeks back in it', async () => {
    const page = await browser.newPage();
    const played = await play(page, `${server.url}/devices/ANY/channels/6/hls/master.m3u8`, [
      { waitMs: 1500 },
      { waitMs: 8000, advance: 4 },
      { seek: 0.5, waitMs: 1500, advance: 0.5 },
    ]);
    await page.screenshot({ path: join(SHOTS, 'live-transcoded.png') });
    expect(played.fatal).toEqual([]);
    expect(played.levels.length).toBeGreaterThan(0);
    expect(played.levels).not.toContain('remux');
    expect(played.times[1]).toBeGreaterThan(played.times[0]! + 3);
    expect(played.times[2]).toBeLessThan(played.times[1]! - 3);
    expect(new Set(played.pictures).size).toBe(3);
    const sessions = (await (await fetch(`${server.url}/api/v1/sessions`)).json()) as {
      ID: string;
      Channel?: { Number: string };
      Encoder: string;
    }[];
    expect(sessions.find((s) => s.Channel?.Number === '6')).toMatchObject({ Encoder: 'software' });
    await page.close();
  }, 120_000);

  it('plays a recording while it records (a growing EVENT playlist), and again once it has finished', async () => {
    expect((await fetch(`${server.url}/dvr/channels/5/recording`, { method: 'POST' })).status).toBe(201);
    let recording: Item | undefined;
    const deadline = Date.now() + 10_000;
    while (!recording && Date.now() < deadline) {
      recording = ((await (await fetch(`${server.url}/api/v1/all?source=recordings`)).json()) as Item[])[0];
      if (!recording) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(recording, 'the recording in the library').toBeDefined();
    // Two segments' worth recorded before anyone watches.
    await new Promise((resolve) => setTimeout(resolve, 13_000));
    const master = `${server.url}/dvr/files/${recording?.id}/hls/master.m3u8`;
    const page = await browser.newPage();
    const growing = await play(page, master, [{ waitMs: 1500 }, { waitMs: 2500 }]);
    await page.screenshot({ path: join(SHOTS, 'recording.png') });
    expect(growing.fatal).toEqual([]);
    expect(growing.times[1]).toBeGreaterThan(growing.times[0]!);
    expect(growing.pictures[1]).not.toBe(growing.pictures[0]);
    expect((await fetch(`${server.url}/dvr/channels/5/recording`, { method: 'DELETE' })).status).toBe(204);
    // The recording is finished asynchronously: its playlist turns VOD within moments.
    const playlistText = async () =>
      (
        await fetch(
          `${server.url}/${(await (await fetch(master)).text()).split('\n').find((line) => line.endsWith('.m3u8'))}`.replace(
            /\/s\//,
            `/dvr/files/${recording?.id}/hls/s/`,
          ),
        )
      ).text();
    await until(
      playlistText,
      (playlist) => playlist.includes('#EXT-X-PLAYLIST-TYPE:VOD'),
      15_000,
      'the finished playlist',
    );
    const finished = await play(page, master, [{ waitMs: 1500 }, { seek: 8, waitMs: 2000 }]);
    expect(finished.fatal).toEqual([]);
    expect(finished.times[1]).toBeGreaterThan(8);
    await page.close();
  }, 150_000);
});

describe('HLS requests that cannot be served', () => {
  it('answers unknown files, channels, sessions and segments with JSON 404s, and bad parameters with 400s', async () => {
    const file = (await items()).find((item) => item.video_title === 'Modern');
    const master = await (await fetch(`${server.url}/dvr/files/${file?.id}/hls/master.m3u8`)).text();
    const session = /s\/([A-Za-z0-9_-]+)\//.exec(master)?.[1];
    const cases: [string, number][] = [
      ['/dvr/files/no-such-item/hls/master.m3u8', 404],
      ['/devices/ANY/channels/99/hls/master.m3u8', 404],
      ['/devices/other-source/channels/5/hls/master.m3u8', 404],
      [`/dvr/files/${file?.id}/hls/s/unknown/remux/stream.m3u8`, 404],
      [`/dvr/files/${file?.id}/hls/s/${session}/remux/seg-9999.ts`, 404],
      [`/dvr/files/${file?.id}/hls/s/${session}/remux/..%2F..%2Fetc%2Fpasswd`, 400],
      [`/dvr/files/${file?.id}/hls/s/${session}/nope/stream.m3u8`, 404],
      [`/dvr/files/${file?.id}/hls/master.m3u8?bitrate=-5`, 400],
      [`/dvr/files/${file?.id}/hls/master.m3u8?encoder=magic`, 400],
    ];
    for (const [path, status] of cases) {
      const answer = await fetch(`${server.url}${path}`);
      expect([path, answer.status]).toEqual([path, status]);
      expect(((await answer.json()) as { status: number }).status).toBe(status);
    }
    expect((await fetch(`${server.url}/dvr/files/${file?.id}/hls/master.m3u8`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${server.url}/devices/ANY/channels/5/hls/master.m3u8`, { method: 'HEAD' })).status).not.toBe(
      405,
    );
  }, 60_000);
});
