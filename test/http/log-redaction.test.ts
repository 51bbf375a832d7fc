/**
 * A token a client puts in a request's query, or credentials in a URL an error names,
 * never reach the log: the server's app and the player's, each logging through the
 * options `antenna server` and `antenna player` use (app/log-output.ts) into a
 * captured stream.
 */
import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { loggerOptions } from '../../src/app/log-output.js';
import { AntennaServerClient } from '../../src/player/antenna-server.client.js';
import { type BackendEvents, IDLE_STATE, type PlayerBackend } from '../../src/player/player-backend.js';
import { PlayerService } from '../../src/player/player.service.js';
import { buildPlayerHttpApp } from '../../src/player/player-http-app.js';
import { type TempLibrary, buildTestApp, createTempLibrary } from '../support/temp-library.js';

/** A logger as the services make it, writing into `lines`. */
function capturedLogger() {
  const lines: string[] = [];
  const logger = pino(loggerOptions('info'), { write: (line: string) => void lines.push(line) });
  return { logger, text: () => lines.join('') };
}

describe('the server’s log', () => {
  let temp: TempLibrary | undefined;
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await app?.close();
    temp?.close();
  });

  it('names a failed request by its URL without the token in its query, and the error without the credentials it names', async () => {
    temp = createTempLibrary();
    const { logger, text } = capturedLogger();
    app = await buildTestApp(temp, { logger, webDir: false });
    vi.spyOn(temp.library, 'listShows').mockImplementation(() => {
      throw new Error('reading http://viewer:SECRET-B@tuner.local/lineup.json?token=SECRET-C failed');
    });
    const answer = await app.inject({ method: 'GET', url: '/api/v1/shows?token=SECRET-A&order=desc' });
    expect(answer.statusCode).toBe(500);
    expect(answer.json()).toMatchObject({ code: 'internal_error' });
    const log = text();
    expect(log).toContain('request failed');
    expect(log).toContain('"url":"/api/v1/shows?token=[Redacted]&order=desc"');
    expect(log).toContain('http://[Redacted]@tuner.local/lineup.json?token=[Redacted] failed');
    expect(log).not.toContain('SECRET');
  });
});

/** A backend that plays nothing: the commands here fail at the server first. */
class IdleBackend extends EventEmitter<BackendEvents> implements PlayerBackend {
  readonly name = 'idle';
  start = () => Promise.resolve();
  stop = () => Promise.resolve();
  state = () => ({ ...IDLE_STATE, available: true });
  readBack = () => Promise.resolve(this.state());
  load = () => Promise.resolve();
  unload = () => Promise.resolve();
  setPaused = () => Promise.resolve();
  setMuted = () => Promise.resolve();
  seekTo = () => Promise.resolve();
  toggleCaptions = () => Promise.resolve();
  setPip = () => Promise.resolve();
  showMessage = () => Promise.resolve();
  navigate = () => Promise.resolve();
}

describe('the player’s log', () => {
  // A stand-in for a server: channels fail (500), and an item is something else (GET /dvr's answer).
  const standIn = http.createServer((request, response) => {
    response.writeHead(request.url === '/api/v1/channels' ? 500 : 200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify(
        request.url === '/api/v1/channels'
          ? { status: 500, code: 'internal_error', message: 'failed' }
          : { recordings: '/srv/recordings', roots: [] },
      ),
    );
  });
  afterAll(() => {
    standIn.closeAllConnections();
    standIn.close();
  });

  it('logs a command its server failed, by its URL without the token in its query', async () => {
    await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
    const { logger, text } = capturedLogger();
    const player = new PlayerService({
      backend: new IdleBackend(),
      server: new AntennaServerClient({ locate: () => base }),
      logger,
      seekForwardSeconds: 30,
      seekBackwardSeconds: 10,
    });
    const app = await buildPlayerHttpApp({ player, logger });
    try {
      const item = await app.inject({ method: 'POST', url: '/api/play/recording/imp-0123456789abcdef?token=SECRET-D' });
      expect(item.json()).toMatchObject({ status: 502, code: 'bad_server_answer' });
      const channel = await app.inject({ method: 'POST', url: '/api/channel_up?access_token=SECRET-E&x=1' });
      expect(channel.json()).toMatchObject({ status: 502, code: 'server_error' });
      const log = text();
      expect(log).toContain('"url":"/api/play/recording/imp-0123456789abcdef?token=[Redacted]"');
      expect(log).toContain('"url":"/api/channel_up?access_token=[Redacted]&x=1"');
      expect(log).not.toContain('SECRET');
    } finally {
      await app.close();
      await player.stop();
    }
  });

  it('names a server whose URL carries credentials without them, in its answers and its log', async () => {
    const { logger, text } = capturedLogger();
    // Port 9 (discard) has nobody listening: the call fails, naming the server.
    const server = new AntennaServerClient({ locate: () => 'http://viewer:SECRET-F@127.0.0.1:9' });
    const player = new PlayerService({
      backend: new IdleBackend(),
      server,
      logger,
      seekForwardSeconds: 30,
      seekBackwardSeconds: 10,
    });
    const app = await buildPlayerHttpApp({ player, logger });
    try {
      const answer = await app.inject({ method: 'POST', url: '/api/channel_up' });
      expect(answer.json()).toMatchObject({
        status: 502,
        code: 'server_unreachable',
        message: expect.stringContaining('http://[Redacted]@127.0.0.1:9'),
      });
      expect(answer.body).not.toContain('SECRET');
      expect(text()).toContain('http://[Redacted]@127.0.0.1:9');
      expect(text()).not.toContain('SECRET');
    } finally {
      await app.close();
      await player.stop();
    }
  });
});
