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
import {
  forgetRecordedProgramme,
  insertRecording,
  recordedEpisodeKeys,
  rememberRecordedEpisode,
} from '../../src/repositories/dvr/recordings.repository.js';
import { upsertEpisode } from '../../src/repositories/library/items.repository.js';
import { upsertShow } from '../../src/repositories/library/parents.repository.js';
import { createTempLibrary, tempDir } from '../support/temp-library.js';

describe('migration 016: episode keys without a programme id', () => {
  it('gives every remembered season/episode key its nsxe twin, keeps the rest, and an airing with an id then finds it', () => {
    const db = new Database(join(tempDir('antenna-migration-'), 'antenna.db')) as unknown as Db;
    db.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
    );
    for (const migration of loadMigrations().filter((m) => m.version <= 15)) {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(migration.version, migration.name, 0);
    }
    const insert = db.prepare('INSERT INTO recorded_episodes (episode_key, recorded_at) VALUES (?, ?)');
    for (const [key, at] of [
      ['pid:EP1', 10],
      ['sxe:show|1|4', 10],
      ['sxe:other|2|1', 20],
    ] as const)
      insert.run(key, at);

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
    expect(
      episodeLookupKeys({ title: 'Show', season: 1, episode: 4, programId: 'EP2' }).some((key) => keys.has(key)),
    ).toBe(true);
    // From now on, an episode recorded with an id is not taken for another with a different id.
    expect(episodeKeys({ title: 'Show', season: 5, episode: 1, programId: 'EP7' })).not.toContain('nsxe:show|5|1');
    db.close();
  });

  it('counts a recording under way without a programme id as its season and episode for airings with one, and forgets both keys of a programme', () => {
    const { db } = createTempLibrary();
    upsertShow(db, { id: 'show-1', name: 'Show' });
    upsertEpisode(db, {
      id: 'rec-a',
      source: 'recordings',
      show_id: 'show-1',
      season_number: 1,
      episode_number: 4,
      path: '/r/a.ts',
    });
    insertRecording(db, {
      item_id: 'rec-a',
      job_id: '100-1',
      rule_id: 1,
      channel: '5',
      source_id: null,
      episode_key: 'sxe:show|1|4',
      started_at: 0,
    });
    const keys = recordedEpisodeKeys(db);
    expect(
      episodeLookupKeys({ title: 'Show', season: 1, episode: 4, programId: 'EP9' }).some((key) => keys.has(key)),
    ).toBe(true);

    upsertEpisode(db, {
      id: 'rec-b',
      source: 'recordings',
      show_id: 'show-1',
      season_number: 2,
      episode_number: 1,
      program_id: 'EP21',
      path: '/r/b.ts',
    });
    insertRecording(db, {
      item_id: 'rec-b',
      job_id: '200-1',
      rule_id: 1,
      channel: '5',
      source_id: null,
      episode_key: 'pid:EP21',
      started_at: 0,
    });
    rememberRecordedEpisode(db, ['pid:EP21', 'sxe:show|2|1', 'nsxe:show|2|1']);
    expect(forgetRecordedProgramme(db, 'EP21')).toBe(true);
    const after = db.prepare('SELECT episode_key FROM recorded_episodes ORDER BY episode_key').pluck().all();
    expect(after).toEqual([]);
    db.close();
  });
});
