import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { runAntenna, type StartedServer, startAntennaServer } from '../support/server-process.js';
import { tempDir } from '../support/temp-library.js';

const dirs: string[] = [];
const servers: StartedServer[] = [];

function freshDir(): string {
  const dir = tempDir('antenna-e2e-');
  dirs.push(dir);
  return dir;
}

afterEach(async () => {
  for (const server of servers.splice(0)) if (server.child.exitCode === null) await server.stop('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Polls /status until the sample library's first scan has finished. */
async function sampleImported(url: string): Promise<{ library: Record<string, number> }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = (await (await fetch(`${url}/status`)).json()) as {
      library: Record<string, number>;
      scan?: { running: boolean; last?: unknown };
    };
    if (status.scan?.last && !status.scan.running) return status;
    if (Date.now() > deadline) throw new Error(`the sample library was not imported: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('antenna server as a process', () => {
  it('starts on an empty data directory, makes and imports the sample library, and stops cleanly on SIGTERM', async () => {
    const data = join(freshDir(), 'data');
    const server = await startAntennaServer(['--data', data]);
    servers.push(server);

    const status = await sampleImported(server.url);
    expect(status.library).toMatchObject({
      shows: 1,
      episodes: 3,
      movies: 2,
      video_groups: 1,
      videos: 2,
      collections: 1,
    });
    const shows = (await (await fetch(`${server.url}/api/v1/shows`)).json()) as { name: string; image_url: string }[];
    expect(shows.map((s) => s.name)).toEqual(['The Lighthouse Keepers']);
    expect((await fetch(shows[0]?.image_url ?? '')).status).toBe(200);
    const episodes = (await (await fetch(`${server.url}/api/v1/episodes`)).json()) as {
      duration: number;
      thumbnail_url?: string;
    }[];
    expect(episodes.every((e) => e.duration > 3 && e.thumbnail_url !== undefined)).toBe(true);
    expect(existsSync(join(data, 'sample-media', 'TV', 'The Lighthouse Keepers (2021)', 'tvshow.nfo'))).toBe(true);

    const finished = await server.stop('SIGTERM');
    expect(finished.code).toBe(0);
    // A clean close checkpoints the write-ahead log into the database file and removes it.
    expect(existsSync(join(data, 'antenna.db-wal'))).toBe(false);
    const db = new Database(join(data, 'antenna.db'), { readonly: true });
    expect(db.prepare('SELECT count(*) FROM shows').pluck().get()).toBe(1);
    db.close();
  });

  it('stores the configured import roots and drops the sample library once a root is given', async () => {
    const base = freshDir();
    const data = join(base, 'data');
    const first = await startAntennaServer(['--data', data]);
    servers.push(first);
    await sampleImported(first.url);
    await first.stop();

    const tv = join(base, 'tv');
    mkdirSync(tv);
    const second = await startAntennaServer(['--data', data, '--tv', tv, '--movies', join(base, 'movies')]);
    servers.push(second);
    const status = (await (await fetch(`${second.url}/status`)).json()) as { library: Record<string, number> };
    expect(status.library).toMatchObject({
      shows: 0,
      episodes: 0,
      movies: 0,
      videos: 0,
      video_groups: 0,
      collections: 0,
    });
    expect((await second.stop()).code).toBe(0);

    const db = new Database(join(data, 'antenna.db'), { readonly: true });
    expect(db.prepare('SELECT kind, path FROM import_roots ORDER BY kind').all()).toEqual([
      { kind: 'movies', path: join(base, 'movies') },
      { kind: 'tv', path: tv },
    ]);
    db.close();
  });

  it('refuses a corrupt database with a clear message and leaves the file untouched', async () => {
    const data = freshDir();
    const file = join(data, 'antenna.db');
    writeFileSync(file, Buffer.from('this is not a database, but it is the user’s file'.repeat(200)));
    const before = sha256(file);

    const { done } = runAntenna(['server', '--data', data, '--port', '0']);
    const finished = await done;
    expect(finished.code).toBe(1);
    expect(finished.stderr).toMatch(/antenna: Database .*antenna\.db cannot be read .*left untouched/);
    expect(sha256(file)).toBe(before);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('refuses a data directory that cannot be used', async () => {
    const file = join(freshDir(), 'not-a-dir');
    writeFileSync(file, 'x');
    const finished = await runAntenna(['server', '--data', file, '--port', '0']).done;
    expect(finished.code).toBe(1);
    expect(finished.stderr).toMatch(/antenna: Data directory .*not-a-dir is not a directory/);
    expect(readFileSync(file, 'utf8')).toBe('x');
  });

  it('refuses a bad setting with exit code 2 and says what is accepted', async () => {
    const finished = await runAntenna(['server', '--data', freshDir(), '--port', 'eighty']).done;
    expect(finished.code).toBe(2);
    expect(finished.stderr).toContain("Port 'eighty' is invalid: give a whole number from 0 to 65535");
  });

  it('takes settings from ANTENNA_* variables, below flags', async () => {
    // The flag's port wins over the unusable one in the environment; the environment turns the sample off.
    const server = await startAntennaServer(['--data', freshDir()], {
      ANTENNA_PORT: 'eighty',
      ANTENNA_SAMPLE: 'false',
    });
    servers.push(server);
    const status = (await (await fetch(`${server.url}/status`)).json()) as { library: Record<string, number> };
    expect(Object.values(status.library).every((count) => count === 0)).toBe(true);
    expect((await server.stop()).code).toBe(0);
  });

  it('also stops cleanly on SIGINT (Ctrl-C)', async () => {
    const server = await startAntennaServer(['--data', freshDir()]);
    servers.push(server);
    const finished = await server.stop('SIGINT');
    expect(finished, JSON.stringify(finished)).toMatchObject({ code: 0 });
  });
});
