/**
 * "The lineup is the user's": DvrService on a real temp SQLite file, a playlist file
 * refreshed as a provider changes it. Edits stay across a refresh that renumbers,
 * renames and reorders; groups, guide priority, the user's guide channel, rules that
 * follow a renumber, a 409 naming both channels; placeholder hours for a channel no
 * guide describes, browsable and recordable by time, never seen by series or keyword rules.
 */
import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../src/common/errors.js';
import { loadMigrations, migrate } from '../../src/db/database.js';
import { sourceIdFor } from '../../src/dvr/sources/dvr-sources.service.js';
import type { DvrService } from '../../src/dvr/dvr.service.js';
import { listJobs } from '../../src/repositories/dvr/jobs.repository.js';
import { createDvr } from '../support/dvr-app.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

/** Epoch seconds, on the hour (2030): the clock stays an hour before. */
const T0 = 1_900_000_800;

interface Entry {
  number: string;
  name: string;
  tvgId?: string;
  group?: string;
}

let temp: TempLibrary;
let dvr: DvrService;
let playlist: string;

function writePlaylist(entries: readonly Entry[]): void {
  const lines = ['#EXTM3U'];
  for (const e of entries) {
    const attributes = [
      e.tvgId ? `tvg-id="${e.tvgId}"` : '',
      `tvg-chno="${e.number}"`,
      e.group ? `group-title="${e.group}"` : '',
    ]
      .filter(Boolean)
      .join(' ');
    lines.push(`#EXTINF:-1 ${attributes},${e.name}`, `http://127.0.0.1:9/${encodeURIComponent(e.name)}`);
  }
  writeFileSync(playlist, `${lines.join('\n')}\n`);
}

const FIRST: Entry[] = [
  { number: '1', name: 'Alpha', tvgId: 'alpha.tv', group: 'News' },
  { number: '2', name: 'Beta', tvgId: 'beta.tv', group: 'News' },
  { number: '3', name: 'Gamma', tvgId: 'gamma.tv', group: 'Sports' },
  { number: '4', name: 'Delta', group: 'Sports' },
  { number: '5', name: 'Echo' },
];

const source = () => sourceIdFor('m3u', playlist);
const channelId = (number: string) => `${source()}-${number}`;
const refresh = async (accept = true) => expect(await dvr.refreshSource(source(), accept)).not.toHaveProperty('error');
/** What a player lists: number, name, logo, favorite. */
const listed = () => dvr.live.channels().map((c) => [c.number, c.name, c.image_url, c.favorited === 1]);
const interfaceA = () => temp.library.listChannels({ baseUrl: 'http://antenna.test' }).map((c) => [c.number, c.name]);

beforeEach(async () => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  playlist = join(temp.dir, 'channels.m3u');
  writePlaylist(FIRST);
  dvr = createDvr(temp, {
    sources: [{ kind: 'm3u', location: playlist, streams: 2 }],
    guides: [],
    now: () => (T0 - 3600) * 1000,
  });
  await refresh(false);
});

afterEach(async () => {
  await dvr.stop();
  temp.close();
});

describe('edits kept across refreshes', () => {
  it('keeps every edit when the provider renumbers, renames and reorders channels with tvg-ids, and those without that keep number and name', async () => {
    dvr.rules.create({ type: 'slot', channel: '2', start_time: T0, duration: 1800, name: 'Beta slot' });
    dvr.lineupEdits.edit(channelId('1'), { name: 'My Alpha', logo: 'http://logos.test/alpha.png' });
    dvr.lineupEdits.edit(channelId('2'), { number: '102', favorite: true });
    dvr.lineupEdits.edit(channelId('3'), { hidden: true });
    dvr.lineupEdits.edit(channelId('4'), { number: '104', group: 'Mine' });
    dvr.lineupEdits.edit(channelId('5'), { name: 'Echo (mine)' });
    expect(listed()).toEqual([
      ['1', 'My Alpha', 'http://logos.test/alpha.png', false],
      ['5', 'Echo (mine)', null, false],
      ['102', 'Beta', null, true],
      ['104', 'Delta', null, false],
    ]);
    // The rule on channel 2 followed it to 102, and its job records from there.
    expect(dvr.rules.list().map((r) => r.definition)).toEqual([expect.objectContaining({ channel: '102' })]);
    expect(listJobs(temp.db).map((j) => j.channel)).toEqual(['102']);

    // The provider's next playlist: reordered, Alpha and Beta renamed and renumbered (their tvg-ids stay),
    // Gamma renumbered, Delta and Echo (no tvg-id) kept their numbers and names, a new channel on 2.
    writePlaylist([
      { number: '5', name: 'Echo' },
      { number: '2', name: 'Newcomer' },
      { number: '13', name: 'Gamma', tvgId: 'gamma.tv', group: 'Sports' },
      { number: '12', name: 'Beta 2', tvgId: 'beta.tv', group: 'News' },
      { number: '11', name: 'Alpha HD', tvgId: 'alpha.tv', group: 'News' },
      { number: '4', name: 'Delta', group: 'Sports' },
    ]);
    await refresh();
    expect(listed()).toEqual([
      ['2', 'Newcomer', null, false],
      ['5', 'Echo (mine)', null, false],
      ['11', 'My Alpha', 'http://logos.test/alpha.png', false],
      ['102', 'Beta 2', null, true],
      ['104', 'Delta', null, false],
    ]);
    expect(interfaceA()).toEqual([
      ['2', 'Newcomer'],
      ['5', 'Echo (mine)'],
      ['11', 'My Alpha'],
      ['102', 'Beta 2'],
      ['104', 'Delta'],
    ]);
    const gamma = dvr.lineupEdits.list().find((c) => c.source.name === 'Gamma');
    expect(gamma).toMatchObject({
      id: channelId('13'),
      number: '13',
      hidden: true,
      edited: ['hidden'],
      source: { number: '13', guide_id: 'gamma.tv' },
    });
    expect(dvr.lineupEdits.get(channelId('12'))).toMatchObject({
      number: '102',
      name: 'Beta 2',
      favorite: true,
      edited: ['number', 'favorite'],
      source: { number: '12', name: 'Beta 2' },
    });
    expect(dvr.lineupEdits.get(channelId('4'))).toMatchObject({
      number: '104',
      group: 'Mine',
      source: { group: 'Sports' },
    });
    // The rule still names 102: the channel kept the user's number.
    expect(listJobs(temp.db).map((j) => j.channel)).toEqual(['102']);
  });

  it('finds a channel without a tvg-id again by number and name only: renamed at the source, it comes back as the source has it', async () => {
    dvr.lineupEdits.edit(channelId('5'), { number: '55' });
    writePlaylist([...FIRST.slice(0, 4), { number: '5', name: 'Echo Plus' }]);
    await refresh();
    expect(dvr.lineupEdits.get(channelId('5'))).toMatchObject({ number: '5', name: 'Echo Plus', edited: [] });
    // The edit is kept: when the channel comes back as it was, so does the user's number.
    writePlaylist(FIRST);
    await refresh();
    expect(dvr.lineupEdits.get(channelId('5'))).toMatchObject({ number: '55', edited: ['number'] });
  });

  it('does not take a tvg-id two entries share for a stable id', async () => {
    writePlaylist([
      { number: '1', name: 'Same', tvgId: 'same.tv' },
      { number: '2', name: 'Same SD', tvgId: 'same.tv' },
    ]);
    await refresh();
    dvr.lineupEdits.edit(channelId('2'), { name: 'Kept SD' });
    writePlaylist([
      { number: '1', name: 'Same SD', tvgId: 'same.tv' },
      { number: '2', name: 'Same', tvgId: 'same.tv' },
    ]);
    await refresh();
    // Number 2 is now "Same", not the channel the user renamed: the edit waits for its channel.
    expect(dvr.live.channels().map((c) => c.name)).toEqual(['Same SD', 'Same']);
  });

  it('keeps the jobs of a channel the user hides listed, skipped, saying so; showing it plans them again', () => {
    dvr.rules.create({ type: 'slot', channel: '3', start_time: T0, duration: 1800 });
    expect(listJobs(temp.db).map((j) => [j.channel, j.skipped])).toEqual([['3', 0]]);
    dvr.lineupEdits.edit(channelId('3'), { hidden: true });
    expect(listJobs(temp.db).map((j) => [j.skipped, j.error])).toEqual([
      [1, 'you hid channel 3 in the lineup: show it again to record from it'],
    ]);
    dvr.lineupEdits.edit(channelId('3'), { hidden: false });
    expect(listJobs(temp.db).map((j) => [j.channel, j.skipped, j.error])).toEqual([['3', 0, null]]);
  });

  it('gives a field back to the source with null', () => {
    dvr.lineupEdits.edit(channelId('1'), { name: 'Mine', number: '100' });
    expect(dvr.lineupEdits.edit(channelId('1'), { name: null, number: null })).toMatchObject({
      number: '1',
      name: 'Alpha',
      edited: [],
    });
  });
});

describe('bad edits', () => {
  it('refuses a number a visible channel has with a 409 naming both, and changes nothing', () => {
    const before = dvr.lineupEdits.list();
    let error: unknown;
    try {
      dvr.lineupEdits.edit(channelId('1'), { number: '2', name: 'Renamed too' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).message).toMatch(/1 “Alpha” \(.*-1\) would be 2, which 2 “Beta” \(.*-2\) has/);
    expect(dvr.lineupEdits.list()).toEqual(before);
    // Hidden, the other channel no longer holds its number.
    dvr.lineupEdits.edit(channelId('2'), { hidden: true });
    expect(dvr.lineupEdits.edit(channelId('1'), { number: '2' }).number).toBe('2');
  });

  it('answers an unknown channel, guide or guide channel with a 404', () => {
    expect(() => dvr.lineupEdits.edit('m3u-nope-1', { hidden: true })).toThrow(NotFoundError);
    expect(() => dvr.lineupEdits.edit(channelId('1'), { guide_priority: ['xmltv-nope'] })).toThrow(NotFoundError);
    expect(() =>
      dvr.lineupEdits.edit(channelId('1'), { guide_channel: { guide_id: 'xmltv-nope', xmltv_id: 'x' } }),
    ).toThrow(NotFoundError);
    expect(() => dvr.lineupEdits.setGroupHidden('Nobody', true)).toThrow(NotFoundError);
    expect(() => dvr.lineupEdits.setFavorite('99', true)).toThrow(NotFoundError);
  });
});

describe('numbers two channels may not share', () => {
  it('refuses to show a hidden channel whose number another channel of its source took meanwhile, alone or with its group', () => {
    dvr.lineupEdits.edit(channelId('1'), { hidden: true });
    dvr.lineupEdits.edit(channelId('2'), { number: '1' });
    expect(() => dvr.lineupEdits.edit(channelId('1'), { hidden: false })).toThrow(
      /1 “Alpha” \(.*-1\) would be 1, which 1 “Beta” \(.*-2\) has/,
    );
    expect(() => dvr.lineupEdits.setGroupHidden('News', false)).toThrow(ConflictError);
    expect(listed().map(([number, name]) => `${number} ${name}`)).toEqual(['1 Beta', '3 Gamma', '4 Delta', '5 Echo']);
  });

  it('moves a channel two sources carry as one: both copies renumbered, its rule with them', async () => {
    const other = join(temp.dir, 'other.m3u');
    writeFileSync(
      other,
      '#EXTM3U\n#EXTINF:-1 tvg-chno="3",Gamma backup\nhttp://127.0.0.1:9/g2\n#EXTINF:-1 tvg-chno="50",Fifty\nhttp://127.0.0.1:9/50\n',
    );
    const second = dvr.sources.addSource({ kind: 'm3u', location: other });
    await dvr.refreshSource(second.id);
    dvr.rules.create({ type: 'slot', channel: '3', start_time: T0, duration: 600 });
    const moved = dvr.lineupEdits.edit(channelId('3'), { number: '33' });
    expect(moved.number).toBe('33');
    expect(
      dvr.lineupEdits
        .list()
        .filter((c) => c.number === '33')
        .map((c) => c.source_id)
        .sort(),
    ).toEqual([source(), second.id].sort());
    expect(dvr.rules.list().map((r) => (r.definition as { channel: string }).channel)).toEqual(['33']);
    // A number the user gives that another source's channel has from its source: refused.
    expect(() => dvr.lineupEdits.edit(channelId('1'), { number: '50' })).toThrow(/would be 50, which 50 “Fifty”/);
    // The group renumbers each number once, the other source's copy with it.
    // In number order: Delta (4) gets 300, Gamma (33, on both sources) 301.
    dvr.lineupEdits.renumberGroup('Sports', 300);
    expect(
      dvr.lineupEdits
        .list()
        .filter((c) => c.number === '301')
        .map((c) => c.source_id)
        .sort(),
    ).toEqual([source(), second.id].sort());
    expect(dvr.rules.list().map((r) => (r.definition as { channel: string }).channel)).toEqual(['301']);
  });

  it('marks a number a refresh gave another source’s channel where the user numbered one (and says so in the log)', async () => {
    dvr.lineupEdits.edit(channelId('1'), { number: '60' });
    const other = join(temp.dir, 'other.m3u');
    writeFileSync(other, '#EXTM3U\n#EXTINF:-1 tvg-chno="60",Sixty\nhttp://127.0.0.1:9/60\n');
    const second = dvr.sources.addSource({ kind: 'm3u', location: other });
    await dvr.refreshSource(second.id);
    expect(dvr.lineupEdits.get(channelId('1'))).toMatchObject({ number: '60', number_clash: `${second.id}-60` });
    expect(dvr.lineupEdits.get(`${second.id}-60`)).toMatchObject({ number_clash: channelId('1') });
    // Not one channel on two sources: editing one leaves the other as it is.
    dvr.lineupEdits.edit(channelId('1'), { name: 'Alpha Sixty' });
    expect(dvr.lineupEdits.get(`${second.id}-60`)).toMatchObject({ name: 'Sixty', edited: [] });
  });

  it('refuses a group renumber past the numbers rules can name, and takes a blank group for none', () => {
    expect(() => dvr.lineupEdits.renumberGroup('News', 99999)).toThrow(/start at 99998 at most/);
    expect(dvr.lineupEdits.edit(channelId('5'), { group: '   ' })).not.toHaveProperty('group');
  });
});

describe('groups', () => {
  it('lists the groups, hides and shows one, renumbers one from a start and refuses a start that collides', () => {
    expect(dvr.lineupEdits.groups()).toEqual([
      { name: 'News', channels: 2, hidden: 0 },
      { name: 'Sports', channels: 2, hidden: 0 },
    ]);
    expect(dvr.lineupEdits.setGroupHidden('News', true).map((c) => c.hidden)).toEqual([true, true]);
    expect(listed().map(([number]) => number)).toEqual(['3', '4', '5']);
    dvr.lineupEdits.setGroupHidden('News', false);
    dvr.rules.create({ type: 'slot', channel: '3', start_time: T0, duration: 600 });
    dvr.rules.create({ type: 'slot', channel: '4', start_time: T0 + 3600, duration: 600 });
    // From 4: Gamma would be 4 (Delta's, which moves too), Delta 5, which Echo has outside the group.
    expect(() => dvr.lineupEdits.renumberGroup('Sports', 4)).toThrow(
      /4 “Delta” \(.*\) would be 5, which 5 “Echo” \(.*\) has/,
    );
    expect(listed().map(([number]) => number)).toEqual(['1', '2', '3', '4', '5']);
    expect(dvr.lineupEdits.renumberGroup('Sports', 30).map((c) => c.number)).toEqual(['30', '31']);
    expect(listed().map(([number]) => number)).toEqual(['1', '2', '5', '30', '31']);
    expect(dvr.rules.list().map((r) => (r.definition as { channel: string }).channel)).toEqual(['30', '31']);
  });

  it('moves each rule once when a renumber shifts numbers onto each other', () => {
    dvr.rules.create({ type: 'slot', channel: '3', start_time: T0, duration: 600 });
    dvr.rules.create({ type: 'slot', channel: '4', start_time: T0 + 3600, duration: 600 });
    dvr.lineupEdits.edit(channelId('5'), { hidden: true });
    // Gamma 3 → 4 and Delta 4 → 5: the rule on 3 goes to 4, the one on 4 to 5, not both to 5.
    dvr.lineupEdits.renumberGroup('Sports', 4);
    expect(dvr.rules.list().map((r) => (r.definition as { channel: string }).channel)).toEqual(['4', '5']);
    expect(() => dvr.lineupEdits.renumberGroup('News', 4)).toThrow(/2 “Beta” \(.*\) would be 5, which 5 “Delta”/);
  });
});

describe('the migration from favorites kept by number', () => {
  it('makes each channel carrying a favorite number an edit that keeps it', () => {
    const db = new Database(':memory:');
    db.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
    );
    for (const migration of loadMigrations().filter((m) => m.version < 12)) {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(migration.version, migration.name);
    }
    db.exec(`INSERT INTO dvr_sources (id, kind, location, name, stream_limit, origin, created_at, updated_at) VALUES ('s', 'm3u', '/x.m3u', 'S', 1, 'config', 0, 0);
      INSERT INTO channels (id, number, name, source_id, stream_url, created_at, updated_at) VALUES ('s-4', '4', 'Four', 's', 'http://x/4', 0, 0), ('s-5', '5', 'Five', 's', 'http://x/5', 0, 0);
      INSERT INTO channel_favorites (number) VALUES ('4'), ('99');`);
    expect(migrate(db)).toContain(12);
    expect(
      db.prepare('SELECT id, favorited, source_number, edit_id IS NOT NULL AS edited FROM channels ORDER BY id').all(),
    ).toEqual([
      { id: 's-4', favorited: 1, source_number: '4', edited: 1 },
      { id: 's-5', favorited: 0, source_number: '5', edited: 0 },
    ]);
    expect(db.prepare('SELECT source_id, source_number, source_name, favorite FROM channel_edits').all()).toEqual([
      { source_id: 's', source_number: '4', source_name: 'Four', favorite: 1 },
    ]);
    db.close();
  });
});
