/**
 * Migration 016 on a real SQLite file made by the migrations before it: episodes
 * remembered before it get the key airings with a programme id look up, so no episode
 * recorded before the change is planned again for it (job-item.ts, episodeLookupKeys).
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMigrations, migrate, type Db } from '../../src/db/database.js';
import { episodeKeys, episodeLookupKeys } from '../../src/dvr/recording/job-item.js';
import { tempDir } from '../support/temp-library.js';

describe('migration 016: episode keys without a programme id', () => {
  it('gives every remembered season/episode key its nsxe twin, keeps the rest, and an airing with an id then finds it', () => {
    const db = new Database(join(tempDir('antenna-migration-'), 'antenna.db')) as unknown as Db;
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
    for (const migration of loadMigrations().filter((m) => m.version <= 15)) {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(migration.version, migration.name, 0);
    }
    const insert = db.prepare('INSERT INTO recorded_episodes (episode_key, recorded_at) VALUES (?, ?)');
    for (const [key, at] of [['pid:EP1', 10], ['sxe:show|1|4', 10], ['sxe:other|2|1', 20]] as const) insert.run(key, at);

    expect(migrate(db)).toContain(16);
    const rows = db.prepare('SELECT episode_key, recorded_at FROM recorded_episodes ORDER BY episode_key').all();
    expect(rows).toEqual([
      { episode_key: 'nsxe:other|2|1', recorded_at: 20 },
      { episode_key: 'nsxe:show|1|4', recorded_at: 10 },
      { episode_key: 'pid:EP1', recorded_at: 10 },
      { episode_key: 'sxe:other|2|1', recorded_at: 20 },
      { episode_key: 'sxe:show|1|4', recorded_at: 10 },
    ]);
    const keys = new Set((rows as { episode_key: string }[]).map((row) => row.episode_key));
    expect(episodeLookupKeys({ title: 'Show', season: 1, episode: 4, programId: 'EP2' }).some((key) => keys.has(key))).toBe(true);
    // From now on, an episode recorded with an id is not taken for another with a different id.
    expect(episodeKeys({ title: 'Show', season: 5, episode: 1, programId: 'EP7' })).not.toContain('nsxe:show|5|1');
    db.close();
  });
});
