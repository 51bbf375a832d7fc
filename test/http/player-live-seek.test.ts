/**
 * Live TV over interface B on the mpv player (headless), against a real Antenna server
 * buffering a real paced MPEG-TS channel whose timestamps run on (no loop during the
 * test): the player plays the channel from just behind live; a seek back past what mpv
 * holds loads the buffer from that moment; a 20-second pause resumes 20 s further behind
 * live; jump to live comes back to live; start over plays from the programme's start, as
 * far back as the buffer holds. "Behind live" is mpv's own: the newest second it has read
 * (its demuxer cache's end) less the second it shows.
 */
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningPlayer, startPlayer } from '../../src/app/player.lifecycle.js';
import { type RunningServer, startServer } from '../../src/app/server.lifecycle.js';
import { resolvePlayerConfig } from '../../src/config/player-config.js';
import { resolveServerConfig } from '../../src/config/server-config.js';
import { type Json, until, writeM3u, writeXmltv } from '../support/dvr-app.js';
import { mpvProperty } from '../support/player-fixture.js';
import { tempDir } from '../support/temp-library.js';
import { makeTsClip, type StreamServer, startStreamServer } from '../support/ts-stream-server.js';

const silent = pino({ level: 'silent' });
let work: string;
let streams: StreamServer;
let server: RunningServer;
let running: RunningPlayer;
let socket: string;
let base: string;
let programmeStart: number;

beforeAll(async () => {
  work = tempDir('antenna-live-seek-');
  // Longer than the test: the channel's timestamps run on, as a broadcast's do.
  const clip = await makeTsClip(join(work, 'channel.ts'), { seconds: 150, muxrateKbps: 600, size: '160x120' });
  streams = await startStreamServer(clip.path);
  const m3u = join(work, 'channels.m3u');
  writeM3u(m3u, [{ number: '2', name: 'News Two', url: streams.url('two'), tvgId: 'two.tv' }]);
  const xmltv = join(work, 'guide.xml');
  programmeStart = Math.floor(Date.now() / 1000) - 600;
  writeXmltv(
    xmltv,
    [['two.tv', 'News Two']],
    [{ channel: 'two.tv', start: programmeStart, stop: programmeStart + 7200, title: 'Evening News' }],
  );
  const config = { data: join(work, 'data'), host: '127.0.0.1', port: 0, m3u: [m3u], xmltv: [xmltv] };
  server = await startServer(
    resolveServerConfig([{ ...config, sample: false, mdns: false, guideRefresh: 0, movies: [join(work, 'none')] }]),
    silent,
  );
  base = server.url.replace('localhost', '127.0.0.1');
  await fetch(`${base}/dvr/refresh`, { method: 'POST' });
  socket = join(work, 'mpv.sock');
  running = await startPlayer(
    resolvePlayerConfig([{ host: '127.0.0.1', port: 0, mdns: false, headless: true, mpvIpc: socket }]),
    silent,
    { serverUrl: () => base },
  );
}, 120_000);

afterAll(async () => {
  await running?.stop();
  await server?.stop();
  await streams?.close();
});

async function command(path: string): Promise<{ status: number; json: Json }> {
  const response = await running.app.inject({ method: 'POST', url: `/api/${path}` });
  return { status: response.statusCode, json: response.json() as Json };
}

const prop = (name: string) => mpvProperty(socket, name);
const fromOfPath = async () => Number(/[?&]from=(\d+)/.exec(String(await prop('path')))?.[1]);
/** Seconds between the newest second mpv has read and the one it shows. */
async function behindLive(): Promise<number> {
  const cache = (await prop('demuxer-cache-state')) as { 'cache-end'?: number };
  return Number(cache['cache-end']) - Number(await prop('time-pos'));
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const playing = () =>
  until(
    async () => [await prop('idle-active'), await prop('time-pos')],
    ([idle, at]) => idle === false && typeof at === 'number' && at > 1,
    15_000,
    'mpv playing',
  );

describe('live TV on the mpv player', () => {
  it('seeks back through the server’s buffer, pauses behind live, jumps to live and starts over', async () => {
    // Someone else tuned the channel a while ago: the buffer holds more than mpv will.
    const tunedAt = Date.now();
    expect((await fetch(`${base}/devices/ANY/channels/2/buffer.m3u8`)).status).toBe(200);
    await pause(14_000);

    const tuned = await command('play/channel/2');
    expect(tuned.json).toMatchObject({ status: 'playing', channel: { number: '2' } });
    const firstFrom = await fromOfPath();
    expect(Math.abs(firstFrom - (Date.now() - 6000))).toBeLessThan(3000);
    await playing();
    // The moment on screen is known once the server said where the playlist begins.
    await pause(1000);

    // Ten seconds back is before what mpv read: the buffer is loaded from that moment.
    expect((await command('seek/-10')).status).toBe(200);
    await playing();
    const seekFrom = await fromOfPath();
    expect(seekFrom).toBeLessThan(firstFrom - 5000);
    expect(seekFrom).toBeGreaterThan(firstFrom - 16_000);
    expect(await behindLive()).toBeGreaterThan(12);

    const before = await behindLive();
    expect((await command('pause')).json.status).toBe('paused');
    await pause(20_000);
    expect((await command('resume')).json.status).toBe('playing');
    await pause(1500);
    const after = await behindLive();
    expect(after - before).toBeGreaterThan(16);
    expect(after - before).toBeLessThan(24);

    expect((await command('jump_to_live')).status).toBe(200);
    await until(behindLive, (seconds) => seconds < 10, 10_000, 'back at live');

    // The programme began ten minutes ago, before the buffer: it plays from the buffer's start.
    expect((await command('start_over')).status).toBe(200);
    await playing();
    expect(await fromOfPath()).toBe(programmeStart * 1000);
    expect(await behindLive()).toBeGreaterThan((Date.now() - tunedAt) / 1000 - 8);
    expect((await command('stop')).json.status).toBe('stopped');
  }, 120_000);

  it('plays on across a drop of the source: the buffer marks the gap and mpv goes on after it', async () => {
    expect((await command('play/channel/2')).json).toMatchObject({ status: 'playing' });
    await playing();
    // The source goes away mid-stream; the buffer joins it again (its clip starts over: the timestamps jump back).
    streams.dropAll('two');
    const marked = await until(
      async () =>
        (await (await fetch(`${base}/devices/ANY/channels/2/buffer.m3u8`)).text()).includes('DISCONTINUITY\n'),
      (found) => found,
      15_000,
      'the gap in the buffer',
    );
    expect(marked).toBe(true);
    // mpv reads on past the gap: still playing, its picture moving, 12 s later.
    await pause(12_000);
    const first = Number(await prop('time-pos'));
    await pause(3000);
    expect(await prop('idle-active')).toBe(false);
    expect(Number(await prop('time-pos'))).toBeGreaterThan(first + 1.5);
    const status = await running.app.inject({ method: 'GET', url: '/api/status' });
    expect(status.json()).toMatchObject({ status: 'playing', channel: { number: '2' } });
    expect((await command('stop')).json.status).toBe('stopped');
  }, 90_000);

  it('says what is wrong with a seek that is not a number, and with live commands when nothing live plays', async () => {
    const bad = await command('seek/back');
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ status: 400, code: 'invalid_parameter' });
    const idle = await command('start_over');
    expect(idle.json).toMatchObject({ status: 'stopped' });
    expect((await command('jump_to_live')).json).toMatchObject({ status: 'stopped' });
  });
});
