/**
 * The data directory's disk fills up (issue 19): the real `antenna server` runs with its
 * data directory on a small tmpfs, which the test then fills. Changes are refused with a
 * 507 saying what to do (never a 500), reads go on, the process stays up, and once space
 * returns changes are saved again; the database is sound throughout.
 */
import Database from 'better-sqlite3';
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, until } from '../support/dvr-app.js';
import { makeClip } from '../support/media-tree.js';
import { type StartedServer, startAntennaServer } from '../support/server-process.js';

let dir: string;
let server: StartedServer | undefined;
const data = () => join(dir, 'data');
const filler = () => join(data(), 'filler.bin');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'antenna-disk-full-'));
  for (const n of [1, 2, 3]) makeClip(join(dir, 'TV', 'Tide', 'Season 01', `Tide - S01E0${String(n)}.mp4`));
  mkdirSync(data());
  // A disk of its own for the data directory, small enough to fill in a moment (the test command runs as root).
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', data()]);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  spawnSync('umount', [data()]);
  rmSync(dir, { recursive: true, force: true });
});

/** Writes zeros until the disk says it is full. */
function fillDisk(): void {
  const fd = openSync(filler(), 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
  } finally {
    closeSync(fd);
  }
}

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Json }> {
  const response = await fetch(`${server?.url ?? ''}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Json };
}

/** A playlist with a lot of labels: each one makes the database grow, as a full disk will not allow. */
const bigPlaylist = (n: number) => ({
  name: `Filling ${String(n)}`,
  labels: Array.from({ length: 100 }, (_, i) => `${String(n)}-${String(i)}-`.padEnd(200, 'x')),
});

describe('a full data disk', () => {
  it('refuses changes with a 507 that says what to do, keeps serving reads, and saves again once there is room', async () => {
    server = await startAntennaServer(['--data', data(), '--tv', join(dir, 'TV')]);
    const episodes = await until(
      async () => (await call('GET', '/api/v1/episodes')).json as unknown as Json[],
      (list) => list.length === 3 && list.every((e) => Number(e.duration) > 0),
      30_000,
      'the library imported',
    );
    const id = String(episodes[0]?.id);

    fillDisk();
    let refused: { status: number; json: Json } | undefined;
    for (let n = 0; n < 3_000 && !refused; n++) {
      const answer = await call('POST', '/dvr/playlists', bigPlaylist(n));
      if (answer.status !== 201) refused = answer;
    }
    expect(refused?.status).toBe(507);
    expect(refused?.json).toMatchObject({ status: 507, code: 'disk_full' });
    expect(String(refused?.json.message)).toMatch(/Free some space/);

    // Reads go on, and the server is up.
    expect((await call('GET', '/api/v1/shows')).status).toBe(200);
    expect((await call('GET', `/dvr/files/${id}`)).status).toBe(200);
    expect((await call('GET', '/status')).status).toBe(200);
    expect(server.child.exitCode).toBeNull();

    // Space returns: changes are saved again, at once.
    rmSync(filler());
    const saved = await until(
      () => call('PUT', `/dvr/files/${id}/playback_time/42`),
      (answer) => answer.status === 200,
      10_000,
      'a change saved',
    );
    expect(saved.json.playback_time).toBe(42);
    expect((await call('POST', '/dvr/playlists', bigPlaylist(9_999))).status).toBe(201);
    expect((await call('GET', `/dvr/files/${id}`)).json.playback_time).toBe(42);

    const stopped = await server.stop('SIGTERM');
    server = undefined;
    expect(stopped.code).toBe(0);
    const db = new Database(join(data(), 'antenna.db'));
    expect(db.pragma('quick_check', { simple: true })).toBe('ok');
    db.close();
  }, 120_000);
});
