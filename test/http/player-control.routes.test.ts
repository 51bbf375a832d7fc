/**
 * Interface B through inject(), with everything real behind it: the player service,
 * mpv (headless) and an Antenna server in this process over real media and MPEG-TS
 * channels. Every check of playback state is made against mpv's own properties.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningPlayer, startPlayer } from '../../src/app/player.lifecycle.js';
import { type RunningServer, startServer } from '../../src/app/server.lifecycle.js';
import { resolvePlayerConfig } from '../../src/config/player-config.js';
import { resolveServerConfig } from '../../src/config/server-config.js';
import { upsertMovie } from '../../src/repositories/library/items.repository.js';
import { AntennaServerClient } from '../../src/player/antenna-server.client.js';
import { PlayerService } from '../../src/player/player.service.js';
import { buildPlayerHttpApp } from '../../src/player/player-http-app.js';
import { type Json, callJson, until } from '../support/dvr-app.js';
import { type PlayerMedia, makePlayerMedia, mpvProperty } from '../support/player-fixture.js';

const silent = pino({ level: 'silent' });
let media: PlayerMedia;
let server: RunningServer;
let running: RunningPlayer;
let socket: string;
const ids = { episode: '', movie: '', video: '' };
/** The server the player uses: this file's own, or for one test a stand-in that cuts a stream short. */
let serverBase = '';

type Answer = { status: number; json: Json; headers: Record<string, unknown> };

async function call(
  method: string,
  url: string,
  options: { body?: string; headers?: Record<string, string>; remoteAddress?: string } = {},
): Promise<Answer> {
  const response = await running.app.inject({
    method: method as 'POST',
    url,
    ...(options.body !== undefined ? { payload: options.body } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
  });
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  return { status: response.statusCode, json: response.json() as Json, headers: response.headers };
}

const post = (path: string, body?: string, headers?: Record<string, string>) =>
  call('POST', `/api/${path}`, { ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });

/** A POST whose path goes out exactly as written (no dot segments resolved), over a socket to the running player. */
function rawPost(path: string): Promise<{ status: number; json: Json }> {
  const { hostname, port } = new URL(running.url);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: hostname, port, method: 'POST', path }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) as Json }));
    });
    request.on('error', reject);
    request.end();
  });
}
const prop = (name: string) => mpvProperty(socket, name);
const position = async () => Number(await prop('time-pos'));
const serverItem = async (id: string) =>
  (await callJson(server.url.replace('localhost', '127.0.0.1'), 'GET', `/dvr/files/${id}`)).json;

beforeAll(async () => {
  media = await makePlayerMedia();
  const data = join(media.dir, 'data');
  server = await startServer(
    resolveServerConfig([
      {
        data,
        host: '127.0.0.1',
        port: 0,
        tv: [media.roots.tv],
        movies: [media.roots.movies],
        videos: [media.roots.videos],
        m3u: [media.m3u],
        xmltv: [media.xmltv],
        sample: false,
        mdns: false,
        guideRefresh: 0,
      },
    ]),
    silent,
  );
  const base = server.url.replace('localhost', '127.0.0.1');
  await until(
    () => callJson(base, 'GET', '/status'),
    (s) => Boolean((s.json.scan as Json | undefined)?.last) && !(s.json.scan as Json).running,
    60_000,
    'the first scan',
  );
  await callJson(base, 'POST', '/dvr/refresh');
  await callJson(base, 'PUT', '/dvr/channels/4.1/favorite');
  ids.episode = String(((await callJson(base, 'GET', '/api/v1/episodes')).json as Json[])[0]?.id);
  ids.movie = String(((await callJson(base, 'GET', '/api/v1/movies')).json as Json[])[0]?.id);
  ids.video = String(((await callJson(base, 'GET', '/api/v1/videos')).json as Json[])[0]?.id);
  socket = join(media.dir, 'mpv.sock');
  serverBase = base;
  running = await startPlayer(
    resolvePlayerConfig([
      {
        host: '127.0.0.1',
        port: 0,
        mdns: false,
        headless: true,
        mpvIpc: socket,
        allowOrigins: ['http://dashboard.local:8123'],
      },
    ]),
    silent,
    {
      serverUrl: () => serverBase,
    },
  );
}, 120_000);

afterAll(async () => {
  await running?.stop();
  await server?.stop();
  await media?.close();
});

describe('interface B: status and bodies', () => {
  it('reports stopped and unmuted while nothing is loaded, as mpv says', async () => {
    const answer = await call('GET', '/api/status');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ status: 'stopped', muted: false });
    expect(await prop('idle-active')).toBe(true);
  });

  it('takes control POSTs with no body, with an empty JSON body, and with an empty body of another type', async () => {
    const none = await post('toggle_mute');
    const emptyJson = await post('toggle_mute', '', { 'content-type': 'application/json' });
    const emptyText = await post('toggle_mute', '', { 'content-type': 'text/plain' });
    expect([none.status, emptyJson.status, emptyText.status]).toEqual([200, 200, 200]);
    expect([none.json.muted, emptyJson.json.muted, emptyText.json.muted]).toEqual([true, false, true]);
    expect(await prop('mute')).toBe(true);
    expect((await post('toggle_mute', '{}', { 'content-type': 'application/json' })).json.muted).toBe(false);
    expect(await prop('mute')).toBe(false);
  });

  it('answers every command that has nothing to do with 200 and the status as it stands, as the specification says', async () => {
    const before = (await call('GET', '/api/status')).json;
    for (const path of [
      'pause',
      'resume',
      'toggle_pause',
      'seek/10',
      'seek/-10',
      'seek_forward',
      'seek_backward',
      'skip_forward',
      'skip_backward',
      'toggle_cc',
      'toggle_record',
      'previous_channel',
      'stop',
    ]) {
      const answer = await post(path);
      expect([path, answer.status]).toEqual([path, 200]);
      expect(answer.json).toMatchObject({ status: 'stopped' });
      expect(answer.json).toEqual(before);
    }
  });

  it('answers other methods with 405 and the method that works, and commands from a public address with 403', async () => {
    const get = await call('GET', '/api/pause');
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    const postStatus = await call('POST', '/api/status');
    expect(postStatus.status).toBe(405);
    expect(postStatus.headers.allow).toBe('GET, HEAD');
    expect((await call('DELETE', '/api/play/recording/x')).status).toBe(405);
    const outsider = await call('POST', '/api/toggle_mute', { remoteAddress: '203.0.113.9' });
    expect(outsider.json).toMatchObject({ status: 403, code: 'forbidden' });
    expect(await prop('mute')).toBe(false);
    expect((await call('GET', '/api/status', { remoteAddress: '203.0.113.9' })).status).toBe(200);
    expect((await call('GET', '/api/nothing-here')).json).toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('interface B: playing items', () => {
  it('plays an episode from its stream, resumed where it was left, and reports a pause to the server', async () => {
    const base = server.url.replace('localhost', '127.0.0.1');
    await callJson(base, 'PUT', `/dvr/files/${ids.episode}/playback_time/12`);
    const answer = await post(`play/recording/${ids.episode}`);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      status: 'playing',
      muted: false,
      now_playing: {
        title: 'Harbour Lights',
        episode_title: 'Pilot',
        season_number: 1,
        episode_number: 1,
        type: 'episode',
      },
    });
    expect(answer.json.channel).toBeUndefined();
    expect(String(await prop('path'))).toBe(`${base}/dvr/files/${ids.episode}/stream`);
    await until(position, (t) => t >= 12, 5000, 'resumed at 12 s');
    expect(await position()).toBeLessThan(16);

    const paused = await post('pause');
    expect(paused.json.status).toBe('paused');
    expect(await prop('pause')).toBe(true);
    const at = await position();
    expect(paused.json.playback_time).toBeCloseTo(at, 0);
    const reported = await until(
      () => serverItem(ids.episode),
      (item) => Math.abs(Number(item.playback_time) - at) < 0.5,
      5000,
      'the pause reported',
    );
    expect(reported.watched).toBe(false);
    expect((await post('resume')).json.status).toBe('playing');
    expect(await prop('pause')).toBe(false);
    expect((await post('toggle_pause')).json.status).toBe('paused');
    expect((await post('toggle_pause')).json.status).toBe('playing');
  });

  it('seeks relative to where playback is, backwards and by fractions, clamped at the start', async () => {
    await post('pause');
    const start = await position();
    const ahead = await post('seek/2.5');
    expect(ahead.json.playback_time).toBeCloseTo(start + 2.5, 0);
    expect(await position()).toBeCloseTo(start + 2.5, 0);
    await post('seek/-1');
    expect(await position()).toBeCloseTo(start + 1.5, 0);
    await post('seek/+1');
    expect(await position()).toBeCloseTo(start + 2.5, 0);
    expect((await post('seek/-1000')).json.playback_time).toBeLessThan(0.2);
    expect(await position()).toBeLessThan(0.2);
    await post('seek_forward');
    expect(await position()).toBeCloseTo(30, 0);
    expect((await post('seek/abc')).json).toMatchObject({ status: 400, parameter: 'seconds' });
    expect((await post('seek/1e3')).json).toMatchObject({ status: 400, parameter: 'seconds' });
    expect((await post('seek/700000')).json).toMatchObject({ status: 400, parameter: 'seconds' });
  });

  it('ends at the end: seeking past it finishes the item, which is marked watched with its resume point cleared', async () => {
    await post('seek/-100');
    await post('resume');
    await post('seek/1000');
    await until(
      () => call('GET', '/api/status'),
      (s) => s.json.status === 'stopped',
      5000,
      'the end',
    );
    const item = await until(
      () => serverItem(ids.episode),
      (i) => i.watched === true,
      5000,
      'watched',
    );
    expect(item.playback_time).toBe(0);
    expect(await prop('idle-active')).toBe(true);
  });

  it("skips between the movie's chapters, then between commercial boundaries when the item has them", async () => {
    await post(`play/recording/${ids.movie}`);
    await post('pause');
    expect((await post('skip_forward')).json.playback_time).toBeCloseTo(5, 0);
    expect(await position()).toBeCloseTo(5, 0);
    await post('skip_forward');
    expect(await position()).toBeCloseTo(12, 0);
    await post('seek/2');
    await post('skip_backward');
    expect(await position()).toBeCloseTo(5, 0);
    await post('skip_backward');
    expect(await position()).toBeLessThan(0.2);

    upsertMovie(server.db, { id: ids.movie, source: 'imports', title: 'Chapter House', commercials: [3, 8] });
    await post(`play/recording/${ids.movie}`);
    await post('pause');
    await post('seek/-100');
    await post('skip_forward');
    expect(await position()).toBeCloseTo(3, 0);
    await post('skip_forward');
    expect(await position()).toBeCloseTo(8, 0);
    upsertMovie(server.db, { id: ids.movie, source: 'imports', title: 'Chapter House', commercials: null });
  });

  it('shows and hides captions, choosing the first subtitle track when none is selected', async () => {
    const without = await post('toggle_cc');
    expect(without.status).toBe(200);
    expect(await prop('sid')).toBe(false);
    await post(`play/recording/${ids.video}`);
    expect(await prop('sid')).toBe(false);
    expect((await post('toggle_cc')).status).toBe(200);
    expect(await prop('sid')).toBe(1);
    expect(await prop('sub-visibility')).toBe(true);
    await post('toggle_cc');
    expect(await prop('sub-visibility')).toBe(false);
    await post('toggle_cc');
    expect(await prop('sub-visibility')).toBe(true);
  });

  it('goes picture-in-picture and back', async () => {
    await post('toggle_pip');
    expect(await prop('ontop')).toBe(true);
    expect(await prop('fullscreen')).toBe(false);
    await post('toggle_pip');
    expect(await prop('ontop')).toBe(false);
  });

  it('stops, keeping the position on the server', async () => {
    await post('seek/6');
    const stopped = await post('stop');
    expect(stopped.json).toEqual({ status: 'stopped', muted: false });
    expect(await prop('idle-active')).toBe(true);
    const item = await until(
      () => serverItem(ids.video),
      (i) => Number(i.playback_time) > 5,
      5000,
      'the stop reported',
    );
    expect(item.watched).toBe(false);
  });

  it('answers 404 for an unknown item', async () => {
    expect((await post('play/recording/no-such-item')).json).toMatchObject({ status: 404, code: 'not_found' });
    expect(await prop('idle-active')).toBe(true);
  });

  it('answers 400 for ids that are not ids, before asking the server: dot segments, slashes, empty, over-long', async () => {
    // Sent as written, over a socket: inject() and fetch() would resolve the dot segments themselves.
    for (const id of [
      '..',
      '%2e%2e',
      '%2E.',
      '.',
      '%2e',
      'a%2Fb',
      '..%2Fstatus',
      '%00',
      'x%20y',
      'x'.repeat(129),
      'x'.repeat(3000),
    ]) {
      const answer = await rawPost(`/api/play/recording/${id}`);
      expect([id.slice(0, 20), answer.status]).toEqual([id.slice(0, 20), 400]);
      expect(answer.json).toMatchObject({
        status: 400,
        code: 'invalid_parameter',
        parameter: 'id',
        message: expect.stringMatching(/letters, digits/),
      });
    }
    for (const path of ['/api/play/recording/', '/api/play/recording']) {
      expect((await rawPost(path)).json, path).toMatchObject({
        status: 400,
        code: 'invalid_parameter',
        parameter: 'id',
        message: expect.stringMatching(/is missing/),
      });
    }
    expect((await rawPost('/api/play/channel/')).json).toMatchObject({ status: 400, parameter: 'number' });
    // a/b is two segments: no such route.
    expect((await rawPost('/api/play/recording/a/b')).json).toMatchObject({ status: 404, code: 'not_found' });
    // Every form of id the server makes is taken, and asked of the server.
    for (const id of [
      'imp-0123456789abcdef',
      'rec-1767312000-4',
      'rec-1767312000-4294967300',
      'sample-ep-1',
      'x',
      'A.b_c-1',
      'x'.repeat(128),
    ]) {
      expect((await rawPost(`/api/play/recording/${id}`)).json, id).toMatchObject({ status: 404, code: 'not_found' });
    }
    expect(await prop('idle-active')).toBe(true);
  });

  it('answers 502 bad_server_answer, not 500, when its server answers something that is not the item', async () => {
    // A stand-in that answers with what another route gives (what `..` used to reach), with nothing, or with another
    // item.
    const answers: Record<string, unknown> = {
      '/dvr/files/dvr-info': { recordings: '/srv/recordings', roots: [] },
      '/dvr/files/a-list': [],
      '/dvr/files/no-file': { id: 'no-file', title: 'T' },
      '/dvr/files/bad-chapters': { id: 'bad-chapters', file: { available: true, chapters: 'none' } },
      '/dvr/files/other-item': { id: 'imp-0123456789abcdef', file: { available: true, chapters: [] } },
      '/dvr/files/not-json': 'x',
      '/api/v1/channels': { channels: [] },
    };
    const standIn = http.createServer((request, response) => {
      const body = answers[request.url ?? ''];
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(body === 'x' ? '<html>' : JSON.stringify(body ?? null));
    });
    await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
    serverBase = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
    try {
      for (const id of ['dvr-info', 'a-list', 'no-file', 'bad-chapters', 'other-item', 'not-json']) {
        const answer = await post(`play/recording/${id}`);
        expect(answer.json, id).toMatchObject({
          status: 502,
          code: 'bad_server_answer',
          message: expect.stringContaining(
            `${serverBase} answered GET /dvr/files/${id} with something other than the recording '${id}'`,
          ),
        });
      }
      for (const command of ['play/channel/2', 'channel_up']) {
        expect((await post(command)).json, command).toMatchObject({
          status: 502,
          code: 'bad_server_answer',
          message: expect.stringContaining('a list of channels'),
        });
      }
      expect((await call('GET', '/api/favorite_channels')).json).toMatchObject({
        status: 502,
        code: 'bad_server_answer',
      });
    } finally {
      serverBase = server.url.replace('localhost', '127.0.0.1');
      standIn.closeAllConnections();
      standIn.close();
    }
    expect(await prop('idle-active')).toBe(true);
  });
});

describe('interface B: channels', () => {
  it('plays a channel live, with the guide as now_playing, walks the channels and wraps', async () => {
    const base = server.url.replace('localhost', '127.0.0.1');
    const two = await post('play/channel/2');
    expect(two.json).toMatchObject({
      status: 'playing',
      channel: { number: '2', name: 'News Two' },
      now_playing: {
        title: 'Evening News',
        episode_title: 'Harbour report',
        summary: 'The day in the harbour.',
        type: 'live',
        duration: 3 * 3600 + 600,
      },
    });
    // From the channel's live buffer, from a moment just behind live (mpv plays it from its first segment).
    const path = String(await prop('path'));
    expect(path.startsWith(`${base}/devices/ANY/channels/2/buffer.m3u8?from=`)).toBe(true);
    expect(Math.abs(Number(path.split('=')[1]) - (Date.now() - 6000))).toBeLessThan(5000);
    await until(
      () => prop('idle-active'),
      (idle) => idle === false,
      5000,
      'live playback',
    );
    const walk = [];
    for (const command of ['channel_up', 'channel_up', 'channel_up', 'channel_down', 'channel_down']) {
      walk.push(((await post(command)).json.channel as Json | undefined)?.number);
    }
    expect(walk).toEqual(['4.1', '7', '2', '7', '4.1']);
    expect(String(await prop('path'))).toContain('/channels/4.1/buffer.m3u8');
    expect((await call('GET', '/api/status')).json).toMatchObject({
      channel: { number: '4.1', name: 'Four One' },
      now_playing: { title: 'Four One', type: 'live' },
    });
  });

  it('swaps with the previous channel', async () => {
    expect(((await post('previous_channel')).json.channel as Json).number).toBe('7');
    expect(((await post('previous_channel')).json.channel as Json).number).toBe('4.1');
    expect(String(await prop('path'))).toContain('/channels/4.1/buffer.m3u8');
  });

  it("lists the server's favorite channels in the compatibility notes' shape", async () => {
    const answer = await call('GET', '/api/favorite_channels');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual([{ number: '4.1', name: 'Four One', hd: false }]);
  });

  it("records what is on the current channel through the server's DVR, stops it, and plays the recording", async () => {
    const base = server.url.replace('localhost', '127.0.0.1');
    expect((await post('toggle_record')).status).toBe(200);
    const recording = await callJson(base, 'GET', '/dvr/channels/4.1/recording');
    expect(recording.status).toBe(200);
    expect(recording.json.channel).toBe('4.1');
    // A few seconds of the channel in the file, then stop.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect((await post('toggle_record')).status).toBe(200);
    expect((await callJson(base, 'GET', '/dvr/channels/4.1/recording')).status).toBe(404);

    const recorded = await until(
      () => callJson(base, 'GET', '/api/v1/all?source=recordings'),
      (a) => (a.json as Json[]).length === 1,
      10_000,
      'the recording in the library',
    );
    const id = String((recorded.json as Json[])[0]?.id);
    const played = await post(`play/recording/${id}`);
    expect(played.json).toMatchObject({ status: 'playing' });
    expect(played.json.channel).toBeUndefined();
    expect(String(await prop('path'))).toBe(`${base}/dvr/files/${encodeURIComponent(id)}/stream`);
    await until(position, (t) => t > 0.5, 5000, 'the recording playing');
    await post('play/channel/4.1');
  });

  it('answers 404 for an unknown channel and 400 for a malformed number', async () => {
    expect((await post('play/channel/99')).json).toMatchObject({ status: 404, code: 'not_found' });
    expect((await post('play/channel/abc')).json).toMatchObject({ status: 400, parameter: 'number' });
  });
});

describe('interface B: notify and navigate', () => {
  it('shows a notification, and refuses missing, non-string and overlong fields', async () => {
    const shown = await post('notify', JSON.stringify({ title: 'Doorbell', message: 'Someone is at the front door' }), {
      'content-type': 'application/json',
    });
    expect(shown.status).toBe(200);
    expect(shown.json).toHaveProperty('status');
    const json = { 'content-type': 'application/json' };
    expect((await post('notify', JSON.stringify({ title: 'x' }), json)).json).toMatchObject({
      status: 400,
      parameter: 'message',
    });
    expect((await post('notify', JSON.stringify({ title: 5, message: 'm' }), json)).json).toMatchObject({
      status: 400,
      parameter: 'title',
    });
    expect((await post('notify', JSON.stringify({ title: 't', message: 'm'.repeat(501) }), json)).json).toMatchObject({
      status: 400,
      parameter: 'message',
    });
    expect((await post('notify', JSON.stringify({ title: 't'.repeat(101), message: 'm' }), json)).json).toMatchObject({
      status: 400,
      parameter: 'title',
    });
    expect((await post('notify', '{"title":', json)).status).toBe(400);
    expect((await post('notify')).status).toBe(400);
    expect(
      (await post('notify', 'title=a&message=b', { 'content-type': 'application/x-www-form-urlencoded' })).status,
    ).toBe(400);
  });

  it('refuses unknown sections with 400 and says that mpv cannot navigate', async () => {
    for (const section of ['Guide', 'Live%20TV', 'live_tv', 'LIBRARY', 'search']) {
      const answer = await post(`navigate/${section}`);
      expect(answer.json, section).toMatchObject({ status: 501, code: 'navigation_unsupported' });
      expect(String(answer.json.message)).toMatch(/--backend browser/);
    }
    expect((await post('navigate/Settings')).json).toMatchObject({
      status: 400,
      parameter: 'section',
      allowed: ['Guide', 'Library', 'Live TV', 'Search'],
    });
  });
});

describe('interface B: order, speed and faults', () => {
  it('applies commands that arrive together one after another', async () => {
    const before = Boolean(await prop('mute'));
    // 10 (not more): each answer must come within its own 850 ms while they run one after another, on a busy machine
    // too.
    const answers = await Promise.all(Array.from({ length: 10 }, () => post('toggle_mute')));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    // Each answer is the state after its own toggle: half say muted, half not, and 10 toggles end where they began.
    expect(answers.filter((a) => a.json.muted === true)).toHaveLength(5);
    expect(await prop('mute')).toBe(before);
  });

  it('answers a command that takes long (a channel whose stream does not start) within the second, and goes on', async () => {
    media.streams.set('seven', { stallAfterBytes: 0 });
    const started = Date.now();
    const answer = await post('play/channel/7');
    expect(Date.now() - started).toBeLessThan(1000);
    // The state as it stands: mpv is opening the channel's stream.
    expect(answer.json).toMatchObject({ status: 'playing', channel: { number: '7' } });
    expect(String(await prop('path'))).toContain('/channels/7/buffer.m3u8');
    // The next command is not held up behind the stream that never starts.
    const stopped = await post('stop');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(stopped.json.status).toBe('stopped');
    expect(await prop('idle-active')).toBe(true);
    media.streams.set('seven', {});
  });

  it('reports stopped while mpv is down, restarts it, and plays again', async () => {
    await post(`play/recording/${ids.episode}`);
    const pid = running.backend.pid;
    expect(pid).toBeGreaterThan(0);
    process.kill(pid as number, 'SIGKILL');
    await until(
      () => call('GET', '/api/status'),
      (s) => s.json.status === 'stopped',
      5000,
      'stopped after mpv died',
    );
    await until(
      () => running.backend.pid,
      (p) => p !== undefined && p !== pid,
      10_000,
      'mpv restarted',
    );
    await until(
      () => running.backend.state().available,
      (up) => up,
      10_000,
      'mpv taking commands',
    );
    expect((await post(`play/recording/${ids.episode}`)).json.status).toBe('playing');
    expect(await prop('idle-active')).toBe(false);
    await post('stop');
  });

  it('says which server cannot be reached (502), which did not answer within the window (504) and when none is known (503)', async () => {
    // A server that takes connections and never answers (a machine that hangs).
    const silentServer = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silentServer.listen(0, '127.0.0.1', resolve));
    const silentUrl = `http://127.0.0.1:${(silentServer.address() as AddressInfo).port}`;
    // One that sends its headers and then stalls in the body: the body is read under the same deadline.
    const stallingServer = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"id":');
    });
    await new Promise<void>((resolve) => stallingServer.listen(0, '127.0.0.1', resolve));
    const stallingUrl = `http://127.0.0.1:${(stallingServer.address() as AddressInfo).port}`;
    for (const [locate, status, code] of [
      [() => 'http://127.0.0.1:9', 502, 'server_unreachable'],
      [() => silentUrl, 504, 'server_timeout'],
      [() => stallingUrl, 504, 'server_timeout'],
      [() => undefined, 503, 'no_server'],
    ] as const) {
      const player = new PlayerService({
        backend: running.backend,
        server: new AntennaServerClient({ locate }),
        logger: silent,
        seekForwardSeconds: 30,
        seekBackwardSeconds: 10,
      });
      const app = await buildPlayerHttpApp({ player, logger: silent });
      for (const url of ['/api/play/recording/x', '/api/play/channel/2', '/api/channel_up']) {
        const started = Date.now();
        const answer = await app.inject({ method: 'POST', url });
        expect(Date.now() - started, url).toBeLessThan(1000);
        expect(answer.json(), url).toMatchObject({ status, code });
        if (status !== 503) expect(answer.json().message).toContain(locate());
        if (status === 504) expect(answer.json().message).toContain('did not answer within 0.7 s');
      }
      expect((await app.inject({ method: 'GET', url: '/api/favorite_channels' })).statusCode).toBe(status);
      await app.close();
      await player.stop();
    }
    for (const server of [silentServer, stallingServer]) {
      server.closeAllConnections();
      server.close();
    }
  });

  it('counts a stream cut short as a position to resume from, not as watched', async () => {
    // A stand-in server: a ten-minute item whose stream ends after a few seconds of the movie file.
    const movie = readFileSync(join(media.roots.movies, 'Chapter House (2019)', 'Chapter House (2019).mkv'));
    const reports: string[] = [];
    const standIn = http.createServer((request, response) => {
      if (request.method === 'GET' && request.url === '/dvr/files/cut') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            id: 'cut',
            title: 'Cut Short',
            duration: 600,
            playback_time: 0,
            file: { available: true, chapters: [] },
          }),
        );
      } else if (request.method === 'GET' && request.url === '/dvr/files/cut/stream') {
        response.writeHead(200, { 'content-type': 'video/x-matroska', 'content-length': movie.length });
        response.write(movie.subarray(0, Math.floor(movie.length * 0.3)), () => response.destroy());
      } else {
        // The player's heartbeats (PUT /dvr/clients/ID) are not progress reports.
        if (!request.url?.startsWith('/dvr/clients/')) reports.push(`${request.method} ${request.url}`);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{}');
      }
    });
    await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
    serverBase = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
    try {
      expect((await post('play/recording/cut')).json).toMatchObject({
        status: 'playing',
        now_playing: { title: 'Cut Short', duration: 600 },
      });
      await until(
        () => call('GET', '/api/status'),
        (s) => s.json.status === 'stopped',
        30_000,
        'the end of what came',
      );
      await until(
        () => reports,
        (r) => r.length > 0,
        5000,
        'a report',
      );
      // Positions only (the 10-second report may come too), never watched.
      for (const report of reports) expect(report).toMatch(/^PUT \/dvr\/files\/cut\/playback_time\/\d+(\.\d+)?$/);
    } finally {
      serverBase = server.url.replace('localhost', '127.0.0.1');
      standIn.closeAllConnections();
      standIn.close();
    }
  });

  it('leaves no listeners behind on mpv events after many loads', async () => {
    for (let n = 0; n < 15; n++) await post(n % 2 ? `play/recording/${ids.movie}` : 'play/channel/2');
    await post('stop');
    const ipc = (running.backend as unknown as { ipc: { listenerCount(event: string): number } }).ipc;
    expect(ipc.listenerCount('close')).toBeLessThanOrEqual(1);
    expect(ipc.listenerCount('event')).toBeLessThanOrEqual(1);
  });

  it('takes commands from the local network, to its address or a local name, from its own pages or allowed origins only', async () => {
    const toggle = (headers: Record<string, string>, remoteAddress?: string) =>
      call('POST', '/api/toggle_mute', { headers, ...(remoteAddress ? { remoteAddress } : {}) });
    const before = await prop('mute');
    expect((await toggle({ host: 'evil.example.com:57000' })).json).toMatchObject({
      status: 403,
      code: 'forbidden_host',
    });
    expect((await toggle({ host: '192.168.1.20:57000', origin: 'http://evil.example.com' })).json).toMatchObject({
      status: 403,
      code: 'forbidden_origin',
    });
    expect(await prop('mute')).toBe(before);
    const accepted: Record<string, string>[] = [
      { host: '192.168.1.20:57000' },
      { host: 'tv.local:57000', origin: 'http://tv.local:57000' },
      { host: 'livingroom', origin: 'http://dashboard.local:8123' },
      { host: '[fd00::2]:57000' },
    ];
    for (const headers of accepted) {
      expect((await toggle(headers)).status, JSON.stringify(headers)).toBe(200);
    }
    // An even number of toggles: where it started.
    expect(await prop('mute')).toBe(before);
  });
});

describe('interface B: play routes', () => {
  it('never answers 500 to any id or channel number, and takes every id of the server’s form (property)', async () => {
    const pathSegment = fc.oneof(
      fc.constantFrom(
        '..',
        '.',
        '%2e%2e',
        '%2E%2e',
        '.%2e',
        '%2e',
        '%2F',
        '..%2F..%2Fdvr',
        '%00',
        '%E0%A4%A',
        '%',
        '?',
        '#',
        'imp-0123456789abcdef',
        'rec-1767312000-4',
      ),
      fc.string({ maxLength: 40 }).map(encodeURIComponent),
      fc.string({ unit: 'grapheme', maxLength: 20 }).map(encodeURIComponent),
      fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,40}$/),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('recording', 'channel'), pathSegment, async (kind, segment) => {
        const answer = await rawPost(`/api/play/${kind}/${segment}`);
        expect(answer.status).not.toBe(500);
        expect([400, 404, 200, 502, 503, 504]).toContain(answer.status);
        if (answer.status === 400)
          expect(answer.json).toMatchObject({
            code: 'invalid_parameter',
            parameter: kind === 'recording' ? 'id' : 'number',
          });
        // An id of the server's form is the server's to know: never refused here.
        if (kind === 'recording' && /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(segment))
          expect(answer.status).not.toBe(400);
      }),
      { numRuns: 200 },
    );
    await post('stop');
  }, 120_000);
});

describe('interface B: any request', () => {
  it('never answers 500 and always answers JSON, whatever the path, method and body', async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'api',
        'status',
        'seek',
        'play',
        'channel',
        'recording',
        'navigate',
        'notify',
        'toggle_mute',
        'pause',
        'stop',
        'favorite_channels',
        'guide',
        'live_tv',
        '-5',
        '2',
        '4.1',
        '..',
        '%2e%2e',
        '%00',
        '%E0%A4%A',
      ),
      fc.string({ maxLength: 12 }).map(encodeURIComponent),
    );
    const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/api/${parts.join('/')}`);
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD');
    const body = fc.option(
      fc.oneof(fc.json(), fc.string({ maxLength: 200 }), fc.constant('{"title":"t","message":"m"}')),
      { nil: undefined },
    );
    const type = fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', undefined);
    await fc.assert(
      fc.asyncProperty(path, method, body, type, async (url, verb, payload, contentType) => {
        // Nothing is played for long: a control that starts playback is undone by the next stop.
        const response = await running.app.inject({
          method: verb as 'GET',
          url,
          ...(payload !== undefined && verb !== 'GET' && verb !== 'HEAD' ? { payload } : {}),
          ...(contentType ? { headers: { 'content-type': contentType } } : {}),
        });
        // 5xx only where something outside the request is at fault or missing, never a crash.
        expect(response.statusCode).not.toBe(500);
        if (response.statusCode >= 500)
          expect(['navigation_unsupported', 'player_unavailable', 'media_unavailable']).toContain(response.json().code);
        if (verb !== 'HEAD') {
          expect(response.headers['content-type']).toMatch(/^application\/json/);
          expect(() => JSON.parse(response.body)).not.toThrow();
        }
      }),
      { numRuns: 150 },
    );
    await post('stop');
  }, 120_000);
});
