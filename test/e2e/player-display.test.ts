/**
 * The player on a display (a virtual X screen, Xvfb): mpv draws a notification over
 * the picture for a few seconds, and picture-in-picture puts the video in a small
 * always-on-top window in the lower right corner. Checked on the screen's pixels.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningPlayer, startPlayer } from '../../src/app/player.lifecycle.js';
import { type RunningServer, startServer } from '../../src/app/server.lifecycle.js';
import { resolvePlayerConfig } from '../../src/config/player-config.js';
import { resolveServerConfig } from '../../src/config/server-config.js';
import { type Json, callJson, until } from '../support/dvr-app.js';
import { type PlayerMedia, makePlayerMedia, mpvProperty } from '../support/player-fixture.js';

const WIDTH = 1280;
const HEIGHT = 720;
const display = `:${100 + Math.floor(Math.random() * 800)}`;
const silent = pino({ level: 'silent' });
let xvfb: ChildProcess;
let media: PlayerMedia;
let server: RunningServer;
let running: RunningPlayer;
let socket: string;

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

const brightPixels = (screen: Buffer, top = 0, bottom = HEIGHT) =>
  screen.subarray(top * WIDTH, bottom * WIDTH).filter((value) => value > 200).length;
const pixel = (screen: Buffer, x: number, y: number) => screen[y * WIDTH + x] ?? 0;
const post = async (path: string, body?: unknown) => {
  const response = await running.app.inject({
    method: 'POST',
    url: `/api/${path}`,
    ...(body ? { payload: body as object } : {}),
  });
  return { status: response.statusCode, json: response.json() as Json };
};

beforeAll(async () => {
  xvfb = spawn('Xvfb', [display, '-screen', '0', `${WIDTH}x${HEIGHT}x24`, '-nolisten', 'tcp'], { stdio: 'ignore' });
  await until(() => existsSync(`/tmp/.X11-unix/X${display.slice(1)}`), Boolean, 10_000, 'Xvfb');
  // This file runs in a process of its own: the player takes its display from the environment, as it would on a TV.
  process.env.DISPLAY = display;
  media = await makePlayerMedia();
  server = await startServer(
    resolveServerConfig([
      {
        data: join(media.dir, 'data'),
        host: '127.0.0.1',
        port: 0,
        movies: [media.roots.movies],
        sample: false,
        mdns: false,
      },
    ]),
    silent,
  );
  const base = server.url.replace('localhost', '127.0.0.1');
  await until(
    () => callJson(base, 'GET', '/api/v1/movies'),
    (a) => (a.json as Json[]).length === 1,
    60_000,
    'the movie imported',
  );
  socket = join(media.dir, 'mpv.sock');
  running = await startPlayer(
    resolvePlayerConfig([{ host: '127.0.0.1', port: 0, mdns: false, mpvIpc: socket, backend: 'mpv' }]),
    silent,
    { serverUrl: () => base },
  );
  // mpv may not answer while it opens its window on a busy machine (a full CI run once took
  // over 30 s, the file alone ~1 s): asked again until it does, with what it said last.
  const window = async () => {
    const asked = await Promise.all(
      ['osd-width', 'current-vo', 'vo-configured'].map((name) =>
        mpvProperty(socket, name).catch((error: Error) => error.message),
      ),
    );
    return { osdWidth: asked[0], vo: asked[1], configured: asked[2], mpv: running.backend.state() };
  };
  await until(window, (shown) => Number(shown.osdWidth) > 0, 90_000, 'the window');
}, 180_000);

afterAll(async () => {
  await running?.stop();
  await server?.stop();
  await media?.close();
  xvfb?.kill();
});

describe('the player on a display', () => {
  it('keeps a black window without controls while idle, and shows a notification over it for a few seconds', async () => {
    expect(await mpvProperty(socket, 'vo-configured')).toBe(true);
    expect(brightPixels(grab())).toBe(0);
    expect((await post('notify', { title: 'Doorbell', message: 'Someone is at the front door' })).status).toBe(200);
    const shown = await until(grab, (screen) => brightPixels(screen) > 500, 3000, 'the notification on screen');
    // The text is at the top of the picture.
    expect(brightPixels(shown, 0, HEIGHT / 2)).toBeGreaterThan(brightPixels(shown, HEIGHT / 2, HEIGHT));
    await until(grab, (screen) => brightPixels(screen) === 0, 8000, 'the notification gone');
  }, 20_000);

  it('puts the video in a small always-on-top window in the lower right corner, and back', async () => {
    const movies = (await callJson(server.url.replace('localhost', '127.0.0.1'), 'GET', '/api/v1/movies'))
      .json as Json[];
    await post(`play/recording/${String(movies[0]?.id)}`);
    await post('pause');
    const pip = await post('toggle_pip');
    expect(pip.status).toBe(200);
    expect(await mpvProperty(socket, 'ontop')).toBe(true);
    expect(await mpvProperty(socket, 'fullscreen')).toBe(false);
    await until(
      () => mpvProperty(socket, 'osd-width').catch(() => 0),
      (width) => width === WIDTH / 4,
      15_000,
      'the small window',
    );
    expect(await mpvProperty(socket, 'osd-height')).toBe(HEIGHT / 4);
    const screen = await until(
      grab,
      (s) => pixel(s, WIDTH - 32 - 160, HEIGHT - 32 - 90) > 20,
      15_000,
      'the picture in the corner',
    );
    // Nothing drawn outside the small window.
    expect(pixel(screen, 100, 100)).toBe(0);
    expect(pixel(screen, WIDTH / 2, HEIGHT / 2)).toBe(0);

    await post('toggle_pip');
    expect(await mpvProperty(socket, 'ontop')).toBe(false);
    expect(await mpvProperty(socket, 'fullscreen')).toBe(true);
    await post('stop');
  }, 60_000);
});
