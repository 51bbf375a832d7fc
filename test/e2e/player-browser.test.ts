/**
 * The player on a TV: `antenna player --backend browser` shows the Antenna app full
 * screen in Debian's Chromium on a display (Xvfb here), beside a real `antenna server`.
 * Every interface-B command is checked where a person would see it, in the page: the
 * section shown, the video's paused/currentTime/muted, its text tracks (CEA-608 captions
 * of a live channel), picture-in-picture, the notification's pixels on the screen. The
 * remote (keys pressed in the page) and interface B take turns; Chromium is killed and
 * comes back; pychannels-style calls (empty JSON bodies, 1 s timeouts) get status JSON.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pino from 'pino';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningPlayer, startPlayer } from '../../src/app/player.lifecycle.js';
import { resolvePlayerConfig } from '../../src/config/player-config.js';
import type { BrowserBackend } from '../../src/player/tv/browser.backend.js';
import { SECTION_PATHS } from '../../src/player/tv-page-protocol.js';
import { type Json, callJson, until } from '../support/dvr-app.js';
import { type PlayerMedia, makePlayerMedia } from '../support/player-fixture.js';
import { type StartedServer, startAntennaServer } from '../support/server-process.js';
import { SHOTS } from '../support/web-app-fixture.js';

const WIDTH = 1280;
const HEIGHT = 720;
const display = `:${100 + Math.floor(Math.random() * 800)}`;
const CAPTION = 'HELLO ANTENNA';
const silent = pino({ level: 'silent' });
let xvfb: ChildProcess;
let media: PlayerMedia;
let server: StartedServer;
let serverUrl: string;
let running: RunningPlayer;
let episode: string;
let movie: string;

interface VideoState {
  paused: boolean;
  time: number;
  muted: boolean;
  tracks: Array<{ kind: string; mode: string; cues: string[] }>;
}

const backend = () => running.backend as BrowserBackend;
function page(): Page {
  const shown = backend().appPage;
  if (!shown) throw new Error('the app page is not open');
  return shown;
}
const inPage = <T>(expression: string) => page().evaluate(expression) as Promise<T>;
const video = () =>
  inPage<VideoState | null>(
    `(() => { const v = document.querySelector('video'); return v && { paused: v.paused, time: v.currentTime, muted: v.muted, tracks: [...v.textTracks].map((t) => ({ kind: t.kind, mode: t.mode, cues: [...(t.cues ?? [])].map((c) => c.text) })) }; })()`,
  );
const path = () => inPage<string>('location.pathname');
/**
 * The page's address once it is `expected`: a command answers within 850 ms, the router may paint a little later on a
 * busy machine.
 */
const pathBecomes = (expected: string) => until(path, (shown) => shown === expected, 5000, `the page at ${expected}`);
const post = (command: string, body?: unknown) => callJson(running.url, 'POST', `/api/${command}`, body);
const status = async () => (await callJson(running.url, 'GET', '/api/status')).json;
const serverJson = async (route: string) => (await callJson(serverUrl, 'GET', route)).json;
/** Waits until the page's video plays; a failure says what the page showed (an error message, the path). */
const playing = () =>
  until(
    async () => ({
      video: await video(),
      path: await path(),
      error: await inPage<string>(`document.querySelector('.player-error')?.innerText ?? ''`),
      requests: await inPage<string[]>(
        `performance.getEntriesByType('resource').filter((e) => e.name.includes('/hls/')).slice(-14).map((e) => e.name.replace(location.origin, '') + ' ' + e.responseStatus)`,
      ),
    }),
    (shown) => shown.video !== null && !shown.video.paused && shown.video.time > 0.3,
    25_000,
    'the video playing in the page',
  );

/** The screen as one byte of brightness per pixel. */
function grab(): Buffer {
  return execFileSync(
    'ffmpeg',
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'x11grab',
      '-video_size',
      `${WIDTH}x${HEIGHT}`,
      '-i',
      display,
      '-frames:v',
      '1',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'gray',
      '-',
    ],
    {
      maxBuffer: WIDTH * HEIGHT * 2,
    },
  );
}

/** Pixels brighter than `over` in the rectangle. */
function brightIn(
  screen: Buffer,
  box: { left: number; top: number; right: number; bottom: number },
  over = 230,
): number {
  let count = 0;
  for (let y = box.top; y < box.bottom; y++)
    for (let x = box.left; x < box.right; x++) if ((screen[y * WIDTH + x] ?? 0) > over) count++;
  return count;
}

beforeAll(async () => {
  xvfb = spawn('Xvfb', [display, '-screen', '0', `${WIDTH}x${HEIGHT}x24`, '-nolisten', 'tcp'], { stdio: 'ignore' });
  await until(() => existsSync(`/tmp/.X11-unix/X${display.slice(1)}`), Boolean, 10_000, 'Xvfb');
  // This file runs in a process of its own: the player takes its display from the environment, as it would on a TV.
  process.env.DISPLAY = display;
  mkdirSync(SHOTS, { recursive: true });
  media = await makePlayerMedia({ episodeSeconds: 60, captions: CAPTION });
  server = await startAntennaServer([
    ...['--data', join(media.dir, 'data'), '--no-sample', '--no-mdns', '--guide-refresh', '0'],
    ...[
      '--tv',
      media.roots.tv,
      '--movies',
      media.roots.movies,
      '--videos',
      media.roots.videos,
      '--m3u',
      media.m3u,
      '--xmltv',
      media.xmltv,
    ],
  ]);
  serverUrl = server.url.replace('localhost', '127.0.0.1');
  await until(
    () => serverJson('/status'),
    (s) => Boolean((s.scan as Json | undefined)?.last) && !(s.scan as Json).running,
    60_000,
    'the first scan',
  );
  await until(
    () => serverJson('/api/v1/channels'),
    (channels) => channels.length === 3,
    30_000,
    'the channels',
  );
  const episodes = await callJson(serverUrl, 'GET', '/api/v1/episodes');
  const movies = await callJson(serverUrl, 'GET', '/api/v1/movies');
  if (!episodes.json?.[0] || !movies.json?.[0]) {
    const scan = await serverJson('/status');
    throw new Error(
      `the first scan ended without the episode or the movie: episodes ${episodes.status} ${JSON.stringify(episodes.json)}, movies ${movies.status} ${JSON.stringify(movies.json)}, status ${JSON.stringify(scan)}, server output ${JSON.stringify(server.output())}`,
    );
  }
  episode = String(episodes.json[0].id);
  movie = String(movies.json[0].id);
  running = await startPlayer(
    resolvePlayerConfig([
      {
        host: '127.0.0.1',
        port: 0,
        mdns: false,
        backend: 'browser',
        chromium: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      },
    ]),
    silent,
    {
      serverUrl: () => serverUrl,
    },
  );
  await until(() => running.backend.state().available, Boolean, 30_000, 'the app on screen');
}, 180_000);

afterAll(async () => {
  await running?.stop();
  await server?.stop();
  await media?.close();
  xvfb?.kill();
});

describe('the browser backend on a display', () => {
  it("shows the app's TV mode full screen, idle", async () => {
    expect(await path()).toBe(SECTION_PATHS.Library);
    // Full screen, give or take the pixel Chromium leaves on X without a window manager.
    const [width, height] = await inPage<number[]>('[innerWidth, innerHeight]');
    expect(width).toBeGreaterThanOrEqual(WIDTH - 1);
    expect(height).toBeGreaterThanOrEqual(HEIGHT - 1);
    expect(await status()).toEqual({ status: 'stopped', muted: false });
    // The app is drawn on the screen (not a black or white window).
    const screen = grab();
    expect(screen.filter((value) => value > 40).length).toBeGreaterThan(1000);
    expect(screen.filter((value) => value < 40).length).toBeGreaterThan(WIDTH * HEIGHT * 0.3);
  }, 20_000);

  it('navigate opens each section, by any of its names, and answers with the status', async () => {
    const cases = [
      ['Guide', 'Guide', 'Guide'],
      ['live_tv', 'Live TV', 'Live TV'],
      ['Live%20TV', 'Live TV', 'Live TV'],
      ['SEARCH', 'Search', 'Search'],
      ['library', 'Library', 'Library'],
    ] as const;
    for (const [name, section, label] of cases) {
      const answer = await post(`navigate/${name}`);
      expect(answer.status, name).toBe(200);
      expect(answer.json).toEqual({ status: 'stopped', muted: false });
      // On screen (within moments of the answer on a busy machine): the path and the highlighted section.
      await pathBecomes(SECTION_PATHS[section]);
      expect(await inPage<string>(`document.querySelector('[aria-current=page]')?.textContent ?? ''`)).toBe(label);
      if (section === 'Guide') {
        await until(
          () => inPage<string>('document.body.innerText'),
          (text) => text.includes('Evening News'),
          10_000,
          'the guide grid',
        );
        await page().screenshot({ path: join(SHOTS, 'player-browser-guide.png') });
      }
    }
    const unknown = await post('navigate/Kitchen');
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({ status: 400, code: 'invalid_parameter', parameter: 'section' });
    await pathBecomes(SECTION_PATHS.Library);
  }, 60_000);

  it('plays a recording in the player view and pauses, seeks, mutes and stops it, each read back from the page', async () => {
    const started = await post(`play/recording/${episode}`);
    expect(started.status).toBe(200);
    // Answered within the window: playing, or on a busy machine the state as it stands while the play goes on (as
    // interface B says).
    const begun =
      started.json.status === 'playing'
        ? started.json
        : await until(status, (now) => now.status === 'playing', 20_000, 'the play under way');
    expect(begun).toMatchObject({ status: 'playing', now_playing: { title: 'Harbour Lights', type: 'episode' } });
    await pathBecomes(`/tv/watch/${episode}`);
    await playing();

    expect((await post('pause')).json.status).toBe('paused');
    expect((await video())?.paused).toBe(true);
    const from = (await video())?.time ?? 0;
    const sought = await post('seek/20');
    expect((await video())?.time).toBeCloseTo(from + 20, 0);
    expect(Number(sought.json.playback_time)).toBeCloseTo(from + 20, 0);
    await post('seek_backward');
    expect((await video())?.time).toBeCloseTo(from + 10, 0);
    await post('seek_forward');
    expect((await video())?.time).toBeCloseTo(from + 40, 0);

    const resumed = await post('resume');
    expect(resumed.json.status).toBe('playing');
    expect((await video())?.paused).toBe(false);
    expect((await post('toggle_pause')).json.status).toBe('paused');
    expect((await post('toggle_pause')).json.status).toBe('playing');

    const muted = await post('toggle_mute');
    expect(muted.json.muted).toBe(true);
    expect((await video())?.muted).toBe(true);
    expect((await post('toggle_mute')).json.muted).toBe(false);
    expect((await video())?.muted).toBe(false);

    const shownAt = (await video())?.time ?? 0;
    expect(Math.abs(Number((await status()).playback_time) - shownAt)).toBeLessThan(1.5);
    const stopped = await post('stop');
    expect(stopped.json).toEqual({ status: 'stopped', muted: false });
    // Back to the section it was opened from, and the position is the resume point on the server.
    await pathBecomes(SECTION_PATHS.Library);
    expect(await video()).toBeNull();
    await until(
      () => serverJson(`/api/v1/episodes/${episode}`),
      (item) => Math.abs(Number(item.playback_time) - shownAt) < 3,
      10_000,
      'the position on the server',
    );
  }, 60_000);

  it("skips between a movie's chapter marks", async () => {
    await post(`play/recording/${movie}`);
    await playing();
    await post('pause');
    await post('skip_forward');
    expect((await video())?.time).toBeCloseTo(5, 0);
    await post('skip_forward');
    expect((await video())?.time).toBeCloseTo(12, 0);
    await post('skip_backward');
    expect((await video())?.time).toBeCloseTo(5, 0);
    await post('stop');
  }, 60_000);

  it('skips a commercial break in the app on the TV as its player is told, and skip_backward undoes it', async () => {
    const clients = (await callJson(serverUrl, 'GET', '/dvr/clients/info')).json as Json[];
    expect(clients).toHaveLength(1);
    const settings = `/dvr/clients/${String(clients[0]?.device_id)}/settings`;
    expect((await callJson(serverUrl, 'PUT', settings, { commercial_skip: 'auto' })).status).toBe(200);
    // What the next heartbeat's answer says, told now (the heartbeat's part is the mpv player's test): the page knows.
    running.player.setCommercialSkip('auto');
    // The episode is an import: its marks are set in the server's database (a recording's come from comskip).
    const setMarks = (marks: string | null) => {
      const db = new Database(join(media.dir, 'data', 'antenna.db'));
      db.prepare('UPDATE items SET commercials = ? WHERE id = ?').run(marks, episode);
      db.close();
    };
    setMarks('[26,46]');
    // The page may hold the episode's answer from before (its Library section loads what is focused): it reads it
    // again once that is stale (5 s), as it would after the server changed the marks itself.
    await new Promise((resolve) => setTimeout(resolve, 5500));
    try {
      await callJson(serverUrl, 'PUT', `/dvr/files/${episode}/playback_time/16`);
      const started = Date.now();
      await post(`play/recording/${episode}`);
      await playing();
      // Played on from 16 s, 46 s is 30 s away.
      await until(video, (shown) => (shown?.time ?? 0) >= 46, 16_000, 'playback past the break');
      expect(Date.now() - started).toBeLessThan(18_000);
      expect(await inPage<string>(`document.querySelector('.commercial-offer')?.innerText ?? ''`)).toContain(
        'Skipped 0:20',
      );
      await post('skip_backward');
      const undone = (await video())?.time ?? 0;
      expect(undone).toBeGreaterThanOrEqual(25.5);
      expect(undone).toBeLessThan(29);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const later = (await video())?.time ?? 0;
      expect(later).toBeGreaterThan(undone + 1);
      expect(later).toBeLessThan(36);
      await post('stop');
    } finally {
      setMarks(null);
      await callJson(serverUrl, 'PUT', settings, { commercial_skip: null });
    }
  }, 60_000);

  it("shows and hides a file's subtitles, from the HLS stream's subtitle rendition", async () => {
    const group = (await serverJson('/api/v1/video_groups'))[0];
    const beachDay = String((await serverJson(`/api/v1/video_groups/${String(group?.id)}/videos`))[0]?.id);
    await post(`play/recording/${beachDay}`);
    await playing();
    await post('toggle_cc');
    await until(
      video,
      (v) =>
        v?.tracks.some((t) => t.mode === 'showing' && t.cues.some((cue) => cue.includes('Hello from the captions'))) ===
        true,
      15_000,
      'subtitles showing',
    );
    await page().screenshot({ path: join(SHOTS, 'player-browser-subtitles.png') });
    await post('toggle_cc');
    await until(video, (v) => v?.tracks.every((t) => t.mode !== 'showing') === true, 5000, 'subtitles hidden');
    await post('stop');
  }, 60_000);

  it('plays what is asked right after a stop whose Back the page has not finished (a busy TV box)', async () => {
    await post(`play/recording/${movie}`);
    await playing();
    // The page's Back lands 3 s late: well after stop has answered (it waits 1 s at most).
    await inPage(
      `(() => { const back = history.back.bind(history); history.back = () => { setTimeout(back, 3000); }; })()`,
    );
    try {
      const stopAt = Date.now();
      expect((await post('stop')).status).toBe(200);
      expect(await path()).toContain('/watch/');
      await post(`play/recording/${episode}`);
      // Without the wait for the pending Back, it landed after this play's navigation and closed the player.
      await playing();
      // Read once the delayed Back has surely fired (3 s after the stop), whenever the play began.
      await new Promise((resolve) => setTimeout(resolve, Math.max(1000, stopAt + 4500 - Date.now())));
      expect(await path()).toContain(`/watch/`);
      expect((await video())?.paused).toBe(false);
    } finally {
      await inPage('delete history.back');
    }
    await post('stop');
    await pathBecomes(SECTION_PATHS.Library);
  }, 90_000);

  it('puts the video in picture-in-picture and back', async () => {
    await post(`play/recording/${movie}`);
    await playing();
    expect((await post('toggle_pip')).status).toBe(200);
    expect(await inPage<string | null>('document.pictureInPictureElement?.tagName ?? null')).toBe('VIDEO');
    expect(running.backend.state().pip).toBe(true);
    expect((await post('toggle_pip')).status).toBe(200);
    expect(await inPage<string | null>('document.pictureInPictureElement?.tagName ?? null')).toBeNull();
    await post('stop');
    // With nothing playing there is nothing to put in a small window: the status says so, unchanged.
    const idle = await post('toggle_pip');
    expect(idle.status).toBe(200);
    expect(await inPage<string | null>('document.pictureInPictureElement?.tagName ?? null')).toBeNull();
  }, 60_000);

  it('shows a notification over whatever is on screen for a few seconds', async () => {
    const corner = { left: WIDTH - 500, top: 20, right: WIDTH - 20, bottom: 200 };
    const before = brightIn(grab(), corner);
    const answer = await post('notify', { title: 'Doorbell', message: 'Someone is at the front door' });
    expect(answer.status).toBe(200);
    const shown = await until(
      grab,
      (screen) => brightIn(screen, corner) > before + 20_000,
      3000,
      'the notification in the corner',
    );
    // Only the corner: the rest of the top of the screen is as it was.
    expect(brightIn(shown, { left: 0, top: 300, right: WIDTH, bottom: HEIGHT })).toBeLessThan(brightIn(shown, corner));
    expect(await inPage<string>(`document.querySelector('.player-notice')?.innerText ?? ''`)).toContain(
      'Someone is at the front door',
    );
    await page().screenshot({ path: join(SHOTS, 'player-browser-notify.png') });
    await until(grab, (screen) => brightIn(screen, corner) <= before + 500, 9000, 'the notification gone');
  }, 20_000);

  it('tunes channels, walks them, shows their CEA-608 captions and records the one watched', async () => {
    const tuned = await post('play/channel/2');
    expect(tuned.json).toMatchObject({
      channel: { number: '2', name: 'News Two' },
      now_playing: { title: 'Evening News', type: 'live' },
    });
    await pathBecomes('/tv/watch/channel/2');
    await playing();

    // hls.js turns the captions in the stream's video into a text track.
    await until(video, (v) => (v?.tracks.length ?? 0) > 0, 20_000, 'the caption track');
    await post('toggle_cc');
    const captioned = await until(
      video,
      (v) => v?.tracks.some((t) => t.mode === 'showing' && t.cues.some((cue) => cue.includes(CAPTION))) === true,
      20_000,
      'captions showing',
    );
    expect(captioned?.tracks[0]?.kind).toBe('captions');
    await page().screenshot({ path: join(SHOTS, 'player-browser-captions.png') });
    await post('toggle_cc');
    expect((await video())?.tracks.every((t) => t.mode !== 'showing')).toBe(true);

    expect((await post('channel_up')).json).toMatchObject({ channel: { number: '4.1' } });
    await pathBecomes('/tv/watch/channel/4.1');
    expect((await post('channel_down')).json).toMatchObject({ channel: { number: '2' } });
    expect((await post('previous_channel')).json).toMatchObject({ channel: { number: '4.1' } });
    await pathBecomes('/tv/watch/channel/4.1');
    await playing();

    await post('toggle_record');
    const recording = () => callJson(serverUrl, 'GET', '/dvr/channels/4.1/recording');
    await until(recording, (answer) => answer.status === 200, 15_000, 'recording the channel watched');
    await post('toggle_record');
    await until(recording, (answer) => answer.status === 404, 15_000, 'the recording stopped');
    // Five channels tuned one after another: one Back on the remote leaves the player, not zaps back through them.
    await page().keyboard.press('Escape');
    await until(status, (s) => s.status === 'stopped', 5000, 'stopped from the remote');
    await until(path, (shown) => !shown.includes('/watch/'), 5000, 'the player view left');
  }, 90_000);

  it('keeps one state when the remote and interface B take turns', async () => {
    await post(`play/recording/${episode}`);
    await playing();
    // Play/Pause has the remote's focus in the player view: Enter presses it.
    await page().keyboard.press('Enter');
    await until(status, (s) => s.status === 'paused', 5000, 'the pause pressed on the remote in the status');
    expect((await post('toggle_pause')).json.status).toBe('playing');
    expect((await video())?.paused).toBe(false);
    await page().keyboard.press('Enter');
    await until(status, (s) => s.status === 'paused', 5000, 'paused again from the remote');
    const at = (await video())?.time ?? 0;
    // Back on the remote leaves the player: stopped, and the position reported as a stop would.
    await page().keyboard.press('Escape');
    await until(status, (s) => s.status === 'stopped', 5000, 'stopped from the remote');
    await until(
      () => serverJson(`/api/v1/episodes/${episode}`),
      (item) => Math.abs(Number(item.playback_time) - at) < 1.5,
      10_000,
      'the position on the server',
    );

    // A play the person starts in the app is what the status shows, and commands act on it.
    await post('navigate/Library');
    await page().evaluate(`document.querySelector('a[href="/tv/library/movies"]').click()`);
    await until(
      () => inPage<boolean>(`Boolean(document.querySelector('a[href^="/tv/library/items/"]'))`),
      Boolean,
      10_000,
      'the movies',
    );
    await page().evaluate(`document.querySelector('a[href^="/tv/library/items/"]').click()`);
    // The item's page: its first choice (Play, or Resume) has the remote's focus, and Enter plays it.
    await until(
      () => inPage<string>('document.activeElement?.innerText ?? ""'),
      (label) => /^(Play|Resume)/.test(label),
      10_000,
      "the item's page",
    );
    await page().keyboard.press('Enter');
    await until(
      status,
      (s) => s.status === 'playing' && (s.now_playing as Json | undefined)?.title === 'Chapter House',
      10_000,
      "the person's play in the status",
    );
    expect((await post('pause')).json.status).toBe('paused');
    expect((await video())?.paused).toBe(true);
    await page().keyboard.press('Escape');
    await until(status, (s) => s.status === 'stopped', 5000, 'stopped from the remote');
  }, 60_000);

  it('opens the app again when Chromium is killed, and plays on', async () => {
    await post(`play/recording/${episode}`);
    await playing();
    const pid = backend().pid;
    expect(pid).toBeDefined();
    process.kill(pid!, 'SIGKILL');
    await until(status, (s) => s.status === 'stopped', 5000, 'stopped when Chromium died');
    // Meanwhile a command says why it cannot play, as JSON.
    const meanwhile = await post(`play/recording/${episode}`);
    if (meanwhile.status !== 200) expect(meanwhile.json).toMatchObject({ status: 503, code: 'player_unavailable' });
    await until(
      () => backend().pid,
      (p) => p !== undefined && p !== pid,
      20_000,
      'Chromium restarted',
    );
    await until(() => running.backend.state().available, Boolean, 30_000, 'the app on screen again');
    expect(await path()).toMatch(/^\/tv\//);
    await post(`play/recording/${episode}`);
    await playing();
    await post('stop');
  }, 90_000);

  it('answers pychannels-style calls (empty JSON bodies, 1 s timeouts) with status JSON', async () => {
    const commands = [
      'toggle_pip',
      'toggle_mute',
      'toggle_mute',
      'toggle_cc',
      'toggle_pause',
      'pause',
      'resume',
      'seek_forward',
      'seek_backward',
      'skip_forward',
      'skip_backward',
      'seek/5',
      'navigate/Guide',
      'play/channel/7',
      'channel_up',
      'channel_down',
      'previous_channel',
      `play/recording/${episode}`,
      'stop',
    ];
    for (const command of commands) {
      const response = await fetch(`${running.url}/api/${command}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '',
        signal: AbortSignal.timeout(1000),
      });
      const body = (await response.json()) as Json;
      expect(response.status, command).toBe(200);
      expect(['playing', 'paused', 'stopped'], command).toContain(body.status);
      expect(typeof body.muted, command).toBe('boolean');
    }
    const notify = await fetch(`${running.url}/api/notify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Hello', message: 'Hi' }),
      signal: AbortSignal.timeout(1000),
    });
    expect(((await notify.json()) as Json).status).toBe('stopped');
  }, 60_000);
});
