/**
 * The commands a user types: `antenna start` (server and player in one process, what
 * `npm start` runs) and `antenna player`'s refusals at start-up, one line each.
 */
import net from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databasePath, openDatabase } from '../../src/db/database.js';
import { getItemJson } from '../../src/repositories/library/items.repository.js';
import { type Json, callJson, until } from '../support/dvr-app.js';
import { runAntenna, startAntennaProcess } from '../support/server-process.js';
import { tempDir } from '../support/temp-library.js';

describe('antenna start', () => {
  it('runs the server with its sample library and a player that plays from it, and stops both on SIGTERM, reporting the position', async () => {
    const data = join(tempDir('antenna-start-'), 'data');
    const started = await startAntennaProcess([
      'start',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--player-host',
      '127.0.0.1',
      '--player-port',
      '0',
      '--headless',
      '--data',
      data,
    ]);
    const stdout = started.output().stdout;
    const server = /Antenna server is running at (http:\/\/\S+) /.exec(stdout)?.[1] as string;
    const player = await until(
      () => /Antenna player is running at (http:\/\/\S+) /.exec(started.output().stdout)?.[1],
      Boolean,
      10_000,
      'the player line',
    );
    expect(server).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const episodes = await until(
      () => callJson(server, 'GET', '/api/v1/episodes'),
      (a) => (a.json as Json[]).length === 3,
      60_000,
      'the sample library',
    );
    const id = String((episodes.json as Json[])[0]?.id);
    const played = await callJson(player as string, 'POST', `/api/play/recording/${id}`);
    expect(played.json).toMatchObject({ status: 'playing', now_playing: { type: 'episode' } });
    await callJson(player as string, 'POST', '/api/pause');
    const at = Number((await callJson(player as string, 'POST', '/api/seek/1.5')).json.playback_time);
    await callJson(server, 'PUT', `/dvr/files/${id}/playback_time/0`);
    const finished = await started.stop();
    expect(finished.code).toBe(0);
    expect(finished.stderr).toBe('');
    // The player stopped first and told the server where playback was.
    const db = openDatabase(databasePath(data));
    const item = JSON.parse(getItemJson(db, id, 'episode', 'http://x')?.toString() ?? '{}') as Json;
    db.close();
    expect(Number(item.playback_time)).toBeCloseTo(at, 1);
  }, 90_000);
});

describe('antenna player refuses to start, in one line', () => {
  it('without mpv (exit 1), on a port in use (exit 1), with a bad setting (exit 2)', async () => {
    const noMpv = await runAntenna(['player', '--no-mdns', '--port', '0', '--mpv', '/nonexistent/mpv']).done;
    expect(noMpv.code).toBe(1);
    expect(noMpv.stderr.trim()).toMatch(
      /^antenna: mpv is not installed \(\/nonexistent\/mpv not found\): install it with `sudo apt-get install mpv`\.$/,
    );

    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    const busy = await runAntenna(['player', '--no-mdns', '--headless', '--host', '127.0.0.1', '--port', String(port)])
      .done;
    taken.close();
    expect(busy.code).toBe(1);
    expect(busy.stderr.trim()).toBe(`antenna: Port ${port} is in use (another player?): stop it, or give --port.`);

    const bad = await runAntenna(['player', '--server', 'ftp://x', '--seek-forward', '5']).done;
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^antenna: Server URL 'ftp:\/\/x' must use http or https\.$/);
    const badOption = await runAntenna(['player', '--mpv-option', 'input-ipc-server=/tmp/x']).done;
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toMatch(/the player sets --input-ipc-server itself/);
  }, 30_000);
});
