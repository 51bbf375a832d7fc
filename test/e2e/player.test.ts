/**
 * `antenna player` as a user runs it, beside a real `antenna server`: each finds the
 * other on the network (DNS-SD, on service types of this test's own), mpv plays for
 * real (headless), watch progress reaches interface A, and the faults the issue names
 * are survived: mpv dying, the server going away mid-play, SIGTERM.
 */
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import net from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Bonjour, type Browser, type Service } from 'bonjour-service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, callJson, until } from '../support/dvr-app.js';
import { type PlayerMedia, makePlayerMedia, mpvProperty } from '../support/player-fixture.js';
import { type StartedServer, startAntennaPlayer, startAntennaServer } from '../support/server-process.js';

const tag = randomBytes(3).toString('hex');
const serverType = `_at${tag}._tcp`;
const playerType = `_ap${tag}._tcp`;
const playerName = `Test Player ${tag}`;

let media: PlayerMedia;
let server: StartedServer;
let player: StartedServer;
let serverPort: number;
let serverArgs: string[];
let socket: string;
let bonjour: Bonjour;
let browser: Browser;
let episode: string;

const api = (path: string) => callJson(player.url, 'GET', path);
const command = (path: string) => callJson(player.url, 'POST', `/api/${path}`);
const serverBase = () => `http://127.0.0.1:${serverPort}`;
const serverItem = async (id: string) => (await callJson(serverBase(), 'GET', `/api/v1/episodes/${id}`)).json;
const prop = (name: string) => mpvProperty(socket, name);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function startServer(): Promise<StartedServer> {
  return startAntennaServer(serverArgs, { ANTENNA_MDNS: 'true' });
}

beforeAll(async () => {
  media = await makePlayerMedia({ episodeSeconds: 60 });
  serverPort = await freePort();
  serverArgs = [
    ...['--port', String(serverPort), '--data', join(media.dir, 'data'), '--no-sample', '--guide-refresh', '0'],
    ...['--tv', media.roots.tv, '--movies', media.roots.movies, '--videos', media.roots.videos],
    ...['--m3u', media.m3u, '--xmltv', media.xmltv, '--mdns-type', serverType],
  ];
  server = await startServer();
  await until(
    () => callJson(serverBase(), 'GET', '/status'),
    (s) => Boolean((s.json.scan as Json | undefined)?.last) && !(s.json.scan as Json).running,
    60_000,
    'the first scan',
  );
  await callJson(serverBase(), 'POST', '/dvr/refresh');
  await callJson(serverBase(), 'PUT', '/dvr/channels/7/favorite');
  episode = String(((await callJson(serverBase(), 'GET', '/api/v1/episodes')).json as Json[])[0]?.id);
  socket = join(media.dir, 'mpv.sock');
  bonjour = new Bonjour();
  browser = bonjour.find({ type: playerType.slice(1, -5), protocol: 'tcp' });
  // No --server: the player has to find the server on the network.
  player = await startAntennaPlayer(
    ['--mpv-ipc', socket, '--name', playerName, '--mdns-type', playerType, '--server-type', serverType],
    { ANTENNA_MDNS: 'true' },
  );
}, 120_000);

afterAll(async () => {
  bonjour?.destroy();
  await player?.stop();
  await server?.stop();
  await media?.close();
});

describe('antenna player on the network', () => {
  it('advertises itself with its name, id and version, and a browser finds it', async () => {
    const found =
      browser.services[0] ??
      (await new Promise<Service>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the player was not found on the network')), 15_000);
        browser.once('up', (service) => {
          clearTimeout(timer);
          resolve(service);
        });
      }));
    expect(found.port).toBe(Number(new URL(player.url).port));
    expect(found.name).toBe(playerName);
    expect(found.txt).toMatchObject({ name: playerName, version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(String((found.txt as Json).id)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('finds the server on the network and plays an episode where it was left, reporting progress every 10 s', async () => {
    await callJson(serverBase(), 'PUT', `/dvr/files/${episode}/playback_time/5`);
    // The server is found within a few seconds of both starting.
    const answer = await until(
      () => command(`play/recording/${episode}`),
      (a) => a.status === 200,
      20_000,
      'the server found',
    );
    expect(answer.json).toMatchObject({
      status: 'playing',
      now_playing: { title: 'Harbour Lights', episode_title: 'Pilot', type: 'episode' },
    });
    expect(String(await prop('path'))).toBe(`${serverBase()}/dvr/files/${episode}/stream`);
    // Resumed from 5 s: the first position mpv tells (the answer may come while it still opens the file, without one).
    const resumedAt = Number(
      await until(
        () => prop('time-pos'),
        (time) => typeof time === 'number',
        10_000,
        'a position',
      ),
    );
    expect(resumedAt).toBeGreaterThanOrEqual(5);
    expect(resumedAt).toBeLessThan(8);
    // No pause, no stop: the periodic report alone moves the resume point on.
    const reported = await until(
      () => serverItem(episode),
      (item) => Number(item.playback_time) > 12,
      30_000,
      'a periodic progress report',
    );
    expect(reported.watched).toBe(false);
    expect((await api('/api/status')).json).toMatchObject({ status: 'playing', playback_time: expect.any(Number) });
  }, 80_000);

  it('registers with the server it found: GET /dvr/clients/info lists it with what it plays', async () => {
    const clients = await until(
      async () => (await callJson(serverBase(), 'GET', '/dvr/clients/info')).json as Json[],
      (list) => list.some((c) => c.name === playerName && (c.status as Json).status === 'playing'),
      10_000,
      'the player listed as playing',
    );
    const listed = clients.find((c) => c.name === playerName);
    expect(listed).toMatchObject({
      port: Number(new URL(player.url).port),
      local_ip: expect.any(String),
      platform: 'Linux',
      backend: 'mpv',
      online: true,
      status: { status: 'playing', now_playing: { title: 'Harbour Lights' } },
    });
    expect(Date.now() - Number(listed?.last_seen_at)).toBeLessThan(20_000);
    // What remote apps do next: interface B at the listed address and port.
    const status = await callJson(`http://${String(listed?.local_ip)}:${String(listed?.port)}`, 'GET', '/api/status');
    expect(status.json).toMatchObject({ status: 'playing' });
  });

  it('skips a commercial break by itself in auto mode, and skip_backward undoes it', async () => {
    const listed = ((await callJson(serverBase(), 'GET', '/dvr/clients/info')).json as Json[]).find(
      (c) => c.name === playerName,
    );
    const settings = `/dvr/clients/${String(listed?.device_id)}/settings`;
    expect((await callJson(serverBase(), 'PUT', settings, { commercial_skip: 'auto' })).json).toMatchObject({
      commercial_skip: 'auto',
      own_commercial_skip: 'auto',
    });
    const chosenAt = Date.now();
    // The episode is an import: its marks are set in the server's database (a recording's come from comskip).
    const db = new Database(join(media.dir, 'data', 'antenna.db'));
    db.prepare('UPDATE items SET commercials = ? WHERE id = ?').run('[20,40]', episode);
    db.close();
    await command('stop');
    // The heartbeat after the change (a stop is told at once) carries the mode back to the player.
    await until(
      async () =>
        ((await callJson(serverBase(), 'GET', '/dvr/clients/info')).json as Json[]).find((c) => c.name === playerName),
      (c) => Number(c?.last_seen_at) > chosenAt + 200,
      20_000,
      'a heartbeat after the change',
    );
    await until(
      async () => {
        await callJson(serverBase(), 'PUT', `/dvr/files/${episode}/playback_time/16`);
        return serverItem(episode);
      },
      (item) => item.playback_time === 16,
      5000,
      'the resume point at 16 s',
    );
    const started = Date.now();
    expect((await command(`play/recording/${episode}`)).json).toMatchObject({ status: 'playing' });
    // Played on from 16 s it would take 24 s to reach 40 s: the break was jumped over.
    await until(
      () => prop('time-pos'),
      (time) => typeof time === 'number' && time >= 40,
      14_000,
      'playback past the break',
    );
    expect(Date.now() - started).toBeLessThan(16_000);
    // Undo: back to the break's start, which now plays through.
    await command('skip_backward');
    const undone = Number(await prop('time-pos'));
    expect(undone).toBeGreaterThanOrEqual(19.5);
    expect(undone).toBeLessThan(23);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const later = Number(await prop('time-pos'));
    expect(later).toBeGreaterThan(undone + 1);
    expect(later).toBeLessThan(30);
    await command('stop');
    await callJson(serverBase(), 'PUT', settings, { commercial_skip: null });
  }, 60_000);

  it('walks the channels and lists the favorites', async () => {
    expect((await command('play/channel/4.1')).json).toMatchObject({
      status: 'playing',
      channel: { number: '4.1', name: 'Four One' },
    });
    expect(((await command('channel_down')).json.channel as Json).number).toBe('2');
    expect(((await command('channel_down')).json.channel as Json).number).toBe('7');
    expect(((await command('previous_channel')).json.channel as Json).number).toBe('2');
    // From the channel's live buffer on the server; the buffers of the channels left made room for the next.
    expect(String(await prop('path'))).toMatch(
      new RegExp(`^${serverBase()}/devices/ANY/channels/2/buffer\\.m3u8\\?from=\\d+$`),
    );
    expect((await api('/api/favorite_channels')).json).toEqual([{ number: '7', name: 'Seven', hd: false }]);
    expect((await command('stop')).json.status).toBe('stopped');
  });

  it('notices mpv dying, answers stopped meanwhile, and plays again once it is back', async () => {
    await command(`play/recording/${episode}`);
    const pid = Number(
      execFileSync('pgrep', ['-f', `input-ipc-server=${socket}`])
        .toString()
        .trim()
        .split('\n')[0],
    );
    process.kill(pid, 'SIGKILL');
    await until(
      () => api('/api/status'),
      (s) => s.json.status === 'stopped',
      5000,
      'stopped',
    );
    const again = await until(
      () => command(`play/recording/${episode}`),
      (a) => a.status === 200,
      15_000,
      'mpv back',
    );
    expect(again.json.status).toBe('playing');
    expect(await prop('idle-active')).toBe(false);
  });

  it('keeps playing when the server goes away, and reports the position once it is back', async () => {
    await until(
      () => prop('time-pos'),
      (t) => Number(t) > 1,
      10_000,
      'playing',
    );
    expect((await server.stop()).code).toBe(0);
    const before = Number(await prop('time-pos'));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(Number(await prop('time-pos'))).toBeGreaterThan(before + 0.5);
    expect((await api('/api/status')).json.status).toBe('playing');

    const paused = await command('pause');
    expect(paused.status).toBe(200);
    const at = Number(paused.json.playback_time);
    server = await startServer();
    const item = await until(
      () => serverItem(episode),
      (i) => Math.abs(Number(i.playback_time) - at) < 0.5,
      40_000,
      'the report retried',
    );
    expect(item.watched).toBe(false);
  }, 60_000);

  it('withdraws its advertisement and exits 0 on SIGTERM', async () => {
    expect(browser.services).toHaveLength(1);
    const gone = new Promise<void>((resolve) => browser.once('down', () => resolve()));
    const finished = await player.stop();
    expect(finished.code).toBe(0);
    await gone;
    expect(() => execFileSync('pgrep', ['-f', `input-ipc-server=${socket}`])).toThrow();
  }, 20_000);
});
