/**
 * `antenna backup` and `antenna restore` through the real CLI, beside a real
 * `antenna server` process on the same data directory.
 */
import { closeSync, existsSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { newestBackup } from '../../src/db/backup-names.js';
import { databasePath, openDatabase, prepareDataDir } from '../../src/db/database.js';
import { upsertCollection } from '../../src/repositories/library/collections.repository.js';
import { until } from '../support/dvr-app.js';
import { runAntenna, type StartedServer, startAntennaServer } from '../support/server-process.js';
import { tempDir } from '../support/temp-library.js';

const dirs: string[] = [];
const servers: StartedServer[] = [];

afterEach(async () => {
  for (const server of servers.splice(0))
    if (server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function freshData(): string {
  const dir = tempDir('antenna-e2e-backup-');
  dirs.push(dir);
  return join(dir, 'data');
}

async function start(data: string): Promise<StartedServer> {
  const server = await startAntennaServer(['--data', data, '--no-sample']);
  servers.push(server);
  return server;
}

async function addCollection(url: string, name: string): Promise<void> {
  const response = await fetch(`${url}/dvr/collections`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, collection_type: 'movies' }),
  });
  expect(response.status).toBe(201);
}

async function collectionNames(url: string): Promise<string[]> {
  return ((await (await fetch(`${url}/api/v1/collections`)).json()) as { name: string }[]).map((c) => c.name).sort();
}

const backupsIn = (data: string) =>
  existsSync(join(data, 'backups')) ? readdirSync(join(data, 'backups')).filter((name) => name.endsWith('Z.db')) : [];

describe('antenna backup and restore', () => {
  it('backs up a running server, refuses to restore under it, restores once it is gone (even killed), and the restored data is served', async () => {
    const data = freshData();
    const server = await start(data);
    const pid = server.child.pid;
    // The automatic backup at start: none was there.
    await until(
      () => backupsIn(data),
      (names) => names.length === 1,
      10_000,
      'the first automatic backup',
      25,
    );
    await addCollection(server.url, 'Before the backup');

    const backup = await runAntenna(['backup', '--data', data]).done;
    expect(backup, JSON.stringify(backup)).toMatchObject({ code: 0, stderr: '' });
    const match =
      /^Backed up (\S+)antenna\.db to (\S+\/backups\/antenna-[\dT-]+Z(?:-\d+)?\.db) \(\d+\.\d (?:kB|MB), checked, \d+\.\d s\)\.\n$/.exec(
        backup.stdout,
      );
    expect(match, backup.stdout).not.toBeNull();
    const file = match![2]!;
    const copy = new Database(file, { readonly: true });
    expect(copy.prepare('SELECT name FROM collections').pluck().all()).toEqual(['Before the backup']);
    copy.close();
    await addCollection(server.url, 'After the backup');

    // Neither a second server nor a restore while it runs.
    const [second, refused] = await Promise.all([
      runAntenna(['server', '--data', data, '--port', '0', '--no-sample']).done,
      runAntenna(['restore', file, '--data', data]).done,
    ]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      `antenna: Another Antenna process (pid ${pid}) is using the data directory ${data} (a server, or antenna restore): stop it first`,
    );
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toBe(
      `antenna: An Antenna server (pid ${pid}) is running on ${data}: stop it, then run antenna restore again (a running server's database cannot be replaced).\n`,
    );
    expect(await collectionNames(server.url)).toEqual(['After the backup', 'Before the backup']);

    // Killed hard: its lock ends with it; its -wal (with the last collection) stays behind.
    await server.stop('SIGKILL');
    expect(existsSync(join(data, 'antenna.db-wal'))).toBe(true);
    const restored = await runAntenna(['restore', file, '--data', data]).done;
    expect(restored, JSON.stringify(restored)).toMatchObject({ code: 0, stderr: '' });
    const kept =
      /The database it replaced is kept as (\S+\.before-restore\.db); to go back to it: antenna restore (\S+) --data (\S+)\n$/.exec(
        restored.stdout,
      );
    expect(kept?.[2]).toBe(kept?.[1]);
    expect(kept?.[3]).toBe(data);
    expect(restored.stdout).toMatch(new RegExp(`^Restored ${file} into ${data}/antenna\\.db \\(schema \\d+\\)\\.\\n`));
    expect(readdirSync(data).filter((name) => name.startsWith('antenna.db'))).toEqual(['antenna.db']);
    // What the killed server wrote last is in the kept copy: the restore can be undone.
    const replaced = new Database(kept![1]!, { readonly: true });
    expect(replaced.prepare('SELECT name FROM collections ORDER BY name').pluck().all()).toEqual([
      'After the backup',
      'Before the backup',
    ]);
    replaced.close();

    const again = await start(data);
    expect(await collectionNames(again.url)).toEqual(['Before the backup']);
    expect((await again.stop()).code).toBe(0);
  });

  it('a damaged database stops the server with the command that restores the newest backup', async () => {
    const data = freshData();
    prepareDataDir(data);
    const library = openDatabase(databasePath(data));
    upsertCollection(library, { id: 'kept', collection_type: 'movies', name: 'Kept safe' });
    library.close();
    const backup = await runAntenna(['backup', '--data', data]).done;
    expect(backup.code, backup.stderr).toBe(0);
    const newest = newestBackup(backupsIn(data))!.name;

    // The collections table's page, overwritten: a disk's bad sector, say.
    const db = new Database(join(data, 'antenna.db'), { readonly: true });
    const page = db.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'collections'").pluck().get() as number;
    const size = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const fd = openSync(join(data, 'antenna.db'), 'r+');
    writeSync(fd, Buffer.alloc(64, 0xa5), 0, 64, (page - 1) * size);
    closeSync(fd);

    const refused = await runAntenna(['server', '--data', data, '--port', '0', '--no-sample']).done;
    expect(refused.code).toBe(1);
    const command = `antenna restore ${join(data, 'backups', newest)} --data ${data}`;
    expect(refused.stderr).toMatch(
      /^antenna: Database \S+antenna\.db is damaged \(quick_check: .+\)\. It was left untouched: the newest backup is /,
    );
    expect(refused.stderr).toContain(`restore it with: ${command} `);

    const restored = await runAntenna(command.split(' ').slice(1)).done;
    expect(restored.code, restored.stderr).toBe(0);
    const again = await start(data);
    expect(await collectionNames(again.url)).toEqual(['Kept safe']);
    expect((await again.stop()).code).toBe(0);
  });
});
