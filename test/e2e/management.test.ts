/**
 * The management interface from outside: the `antenna` subcommands against a real
 * server, and mpv playing (and seeking in) a file the server streams.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editFields, requests } from '../../src/cli/remote.commands.js';
import { runAntenna, type StartedServer, startAntennaServer } from '../support/server-process.js';
import { tempDir } from '../support/temp-library.js';

const execFileAsync = promisify(execFile);
let server: StartedServer;

type Json = Record<string, unknown>;

async function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runAntenna([...args, '--server', server.url]).done;
}

async function get<T>(path: string): Promise<T> {
  return (await (await fetch(server.url + path)).json()) as T;
}

beforeAll(async () => {
  server = await startAntennaServer(['--data', join(tempDir('antenna-mgmt-'), 'data')]);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await get<{ scan?: { running: boolean; last?: unknown } }>('/status');
    if (status.scan?.last && !status.scan.running) break;
    if (Date.now() > deadline) throw new Error('the sample library was not imported');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 90_000);

afterAll(async () => {
  await server?.stop();
});

describe('request builders', () => {
  it('build the paths and bodies the server expects', () => {
    expect(requests.position('a b', '12.5')).toMatchObject({
      method: 'PUT',
      path: '/dvr/files/a%20b/playback_time/12.5',
    });
    expect(requests.playlistAdd('pl', ['x', 'y'], 2)).toMatchObject({
      method: 'POST',
      path: '/dvr/playlists/pl/items',
      body: { item_ids: ['x', 'y'], position: 2 },
    });
    expect(requests.edit('video-group', 'g', { favorited: true })).toMatchObject({
      method: 'PATCH',
      path: '/dvr/video_groups/g',
    });
    expect(editFields({ favorite: false, labels: 'a, b,,c' })).toEqual({ favorited: false, labels: ['a', 'b', 'c'] });
    expect(editFields({ labels: false })).toEqual({ labels: null });
  });
});

describe('antenna subcommands against a running server', () => {
  it('watch, position and edit an item, and interface A shows it', async () => {
    const [movie] = await get<Json[]>('/api/v1/movies');
    const id = String(movie?.id);
    const watched = await cli('watch', id);
    expect(watched.code).toBe(0);
    expect(watched.stdout).toMatch(/^Watched: /);
    expect((await cli('position', id, '2.5', '--json')).stdout).toContain('"playback_time":2.5');
    expect((await cli('edit', 'file', id, '--favorite', '--labels', 'calm,blue')).code).toBe(0);
    expect(await get<Json>(`/api/v1/movies/${id}`)).toMatchObject({
      watched: true,
      playback_time: 2.5,
      favorited: true,
      labels: ['calm', 'blue'],
    });
    expect((await cli('unwatch', id)).stdout).toMatch(/^Not watched: /);
  });

  it('builds a collection and a playlist', async () => {
    const movies = await get<Json[]>('/api/v1/movies');
    const created = JSON.parse(
      (await cli('collection', 'create', 'Evening', '--type', 'movies', '--json')).stdout,
    ) as Json;
    const collection = String(created.id);
    for (const movie of movies) expect((await cli('collection', 'add', collection, String(movie.id))).code).toBe(0);
    expect(await get<Json>(`/api/v1/collections/${collection}`)).toMatchObject({
      name: 'Evening',
      content_count: movies.length,
    });

    const episodes = await get<Json[]>('/api/v1/episodes');
    const playlist = JSON.parse(
      (await cli('playlist', 'create', 'Marathon', ...episodes.map((e) => String(e.id)), '--json')).stdout,
    ) as Json;
    const pl = String(playlist.id);
    expect((await cli('playlist', 'add', pl, String(movies[0]?.id), '--at', '0')).stdout).toMatch(/now has 4 items/);
    expect((await cli('playlist', 'remove', pl, '0')).code).toBe(0);
    const content = await get<Json[]>(`/api/v1/playlists/${pl}/content`);
    expect(content.map((i) => i.id)).toEqual(episodes.map((e) => e.id));
  });

  it('says what is wrong, one line, exit 1: a refused delete, an unknown id, no server', async () => {
    const [movie] = await get<Json[]>('/api/v1/movies');
    const refused = await cli('delete', String(movie?.id));
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toMatch(/^antenna: .*never deletes your files/);
    const unknown = await cli('watch', 'no-such-item');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No file with id 'no-such-item'/);
    const away = await runAntenna(['watch', 'x', '--server', 'http://127.0.0.1:9']).done;
    expect(away.code).toBe(1);
    expect(away.stderr).toMatch(/no Antenna server answers at http:\/\/127\.0\.0\.1:9/);
  });
});

describe('mpv and the stream', () => {
  it('plays a streamed file from the server, and seeks in it', async () => {
    const [episode] = await get<Json[]>('/api/v1/episodes');
    const url = `${server.url}/dvr/files/${String(episode?.id)}/stream.mkv`;
    // No window, no sound card: decode everything, seek 2 s in, stop at 3.5 s.
    const { stdout, stderr } = await execFileAsync(
      'mpv',
      [
        '--no-config',
        '--vo=null',
        '--ao=null',
        '--start=2',
        '--end=3.5',
        '--msg-level=all=v',
        '--term-playing-msg=PLAYING ${time-pos}',
        url,
      ],
      { timeout: 60_000 },
    );
    const log = stdout + stderr;
    expect(log).toMatch(/PLAYING/);
    expect(log).toMatch(/Exiting\.\.\. \(End of file\)/);
    // mpv asked for a byte range to seek: the server's 206 is what made that work.
    expect(log).not.toMatch(/Failed to open|Errors when loading file/);
  }, 90_000);
});
