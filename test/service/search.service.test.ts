/**
 * Search (migration 007's full-text indexes, search.repository.ts, LibraryService.search
 * and GuideSearchService) on a real temporary SQLite file: accents, case, several
 * words, prefixes, each kind found in its interface-A shape, the limit per kind, the
 * index kept in step by triggers as items are added, renamed and deleted, and in the
 * guide: ended airings left out, on-now marked, the channel and the job that records.
 */
import fc from 'fast-check';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DvrService } from '../../src/dvr/dvr.service.js';
import {
  deleteItem,
  upsertEpisode,
  upsertMovie,
  upsertVideo,
} from '../../src/repositories/library/items.repository.js';
import { deleteParent, upsertShow, upsertVideoGroup } from '../../src/repositories/library/parents.repository.js';
import { matchExpression, queryWords } from '../../src/repositories/library/search.repository.js';
import { createDvr, writeM3u, writeXmltv } from '../support/dvr-app.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

const ctx = { baseUrl: 'http://tv.local:8089' };
let temp: TempLibrary;

type Found = ReturnType<TempLibrary['library']['search']>;
const parse = (items: Buffer[]) => items.map((bytes) => JSON.parse(bytes.toString('utf8')) as Record<string, unknown>);
const ids = (found: Found) => ({
  shows: found.shows.map((s) => s.id),
  video_groups: found.video_groups.map((g) => g.id),
  episodes: parse(found.episodes).map((e) => e.id),
  movies: parse(found.movies).map((m) => m.id),
  videos: parse(found.videos).map((v) => v.id),
});
const search = (q: string, limit = 20) => ids(temp.library.search(q, limit, ctx));

function seed(): void {
  const db = temp.db;
  upsertShow(db, { id: 'show-light', name: 'The Lighthouse Keepers', summary: 'Keepers of a light.' });
  upsertShow(db, { id: 'show-elan', name: 'Élan Vital' });
  upsertEpisode(db, {
    id: 'ep-storm',
    show_id: 'show-light',
    source: 'imports',
    season_number: 1,
    episode_number: 1,
    episode_title: 'Storm at the Café',
    duration: 60,
  });
  upsertEpisode(db, {
    id: 'ep-calm',
    show_id: 'show-light',
    source: 'imports',
    season_number: 1,
    episode_number: 2,
    episode_title: 'Calm',
    duration: 60,
  });
  upsertEpisode(db, { id: 'ep-elan', show_id: 'show-elan', source: 'recordings', episode_title: 'Pilot' });
  upsertMovie(db, { id: 'mov-north', title: 'Northern Lights', source: 'imports', release_year: 2001, duration: 5400 });
  upsertMovie(db, { id: 'mov-cafe', title: 'CAFÉ SOCIETY', source: 'imports' });
  upsertVideoGroup(db, { id: 'grp-concerts', name: 'Concerts' });
  upsertVideo(db, {
    id: 'vid-wembley',
    video_group_id: 'grp-concerts',
    source: 'imports',
    video_title: 'Live at Wembley',
  });
}

beforeEach(() => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  seed();
});
afterEach(() => temp.close());

describe('the query', () => {
  it('is split into words as the index splits text, each a required prefix term', () => {
    expect(queryWords('  Northern   lights! ')).toEqual(['Northern', 'lights']);
    expect(queryWords("O'Brien-Smith, 24")).toEqual(['O', 'Brien', 'Smith', '24']);
    expect(queryWords('Cafe\u0301')).toEqual(['Café']);
    // A stray combining accent is no word: it must not empty the answer.
    expect(queryWords('northern \u0301')).toEqual(['northern']);
    expect(matchExpression('north lights')).toBe('"north"* AND "lights"*');
    expect(matchExpression('!!! ...')).toBeUndefined();
  });

  it('never lets FTS5 syntax through, whatever is typed', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: 'binary' }), (text) => {
        const match = matchExpression(text);
        if (match === undefined) return;
        for (const term of match.split(' AND ')) expect(term).toMatch(/^"[\p{L}\p{N}\p{M}\p{Co}]+"\*$/u);
        // And SQLite takes it: no syntax error, whatever the words.
        expect(() => temp.library.search(text, 5, ctx)).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });
});

describe('library search', () => {
  it('ignores case and accents, both ways', () => {
    expect(search('cafe').movies).toEqual(['mov-cafe']);
    expect(search('CAFÉ').episodes).toEqual(['ep-storm']);
    expect(search('café society').movies).toEqual(['mov-cafe']);
    expect(search('elan').shows).toEqual(['show-elan']);
    expect(search('ÉLAN').episodes).toEqual(['ep-elan']);
    expect(search('NORTHERN lights').movies).toEqual(['mov-north']);
  });

  it('needs every word, each anywhere in the show name or the title, and takes the starts of words', () => {
    expect(search('lighthouse storm')).toEqual({
      shows: [],
      video_groups: [],
      episodes: ['ep-storm'],
      movies: [],
      videos: [],
    });
    expect(search('storm lighthouse').episodes).toEqual(['ep-storm']);
    expect(search('lighthouse').episodes.sort()).toEqual(['ep-calm', 'ep-storm']);
    expect(search('northern storm')).toEqual({ shows: [], video_groups: [], episodes: [], movies: [], videos: [] });
    expect(search('north').movies).toEqual(['mov-north']);
    expect(search('orthern').movies).toEqual([]);
    // Summaries are not searched: a word only there finds nothing.
    expect(search('keepers of').shows).toEqual([]);
  });

  it('finds each kind, items in their interface-A shapes', () => {
    expect(search('light')).toEqual({
      shows: ['show-light'],
      video_groups: [],
      episodes: expect.arrayContaining(['ep-storm', 'ep-calm']),
      movies: ['mov-north'],
      videos: [],
    });
    expect(search('concerts')).toEqual({
      shows: [],
      video_groups: ['grp-concerts'],
      episodes: [],
      movies: [],
      videos: ['vid-wembley'],
    });
    expect(search('wembley').videos).toEqual(['vid-wembley']);
    const found = temp.library.search('storm', 20, ctx);
    expect(found.episodes[0]?.toString()).toBe(temp.library.getEpisode('ep-storm', ctx).toString());
    expect(temp.library.search('northern', 20, ctx).movies[0]?.toString()).toBe(
      temp.library.getMovie('mov-north', ctx).toString(),
    );
    expect(temp.library.search('wembley', 20, ctx).videos[0]?.toString()).toBe(
      temp.library.getVideo('vid-wembley', ctx).toString(),
    );
    expect(found.shows).toEqual([]);
    expect(temp.library.search('lighthouse', 20, ctx).shows).toEqual([temp.library.getShow('show-light', ctx)]);
    expect(temp.library.search('concerts', 20, ctx).video_groups).toEqual([
      temp.library.getVideoGroup('grp-concerts', ctx),
    ]);
  });

  it('gives at most `limit` of each kind, the closest match first', () => {
    upsertShow(temp.db, { id: 'show-bulk', name: 'Bulk' });
    for (let i = 0; i < 30; i++)
      upsertEpisode(temp.db, {
        id: `bulk-${i}`,
        show_id: 'show-bulk',
        source: 'imports',
        episode_title: `Part ${i} of a very long story told slowly`,
      });
    upsertEpisode(temp.db, { id: 'bulk-short', show_id: 'show-bulk', source: 'imports', episode_title: 'Story' });
    const found = search('bulk story', 5);
    expect(found.episodes).toHaveLength(5);
    expect(found.episodes[0]).toBe('bulk-short');
    expect(search('bulk', 1)).toEqual({
      shows: ['show-bulk'],
      video_groups: [],
      episodes: [expect.any(String)],
      movies: [],
      videos: [],
    });
    expect(search('bulk', 100).episodes).toHaveLength(31);
  });

  it('keeps the index in step: new, renamed and deleted items, renamed and deleted shows', () => {
    expect(search('zephyr').movies).toEqual([]);
    upsertMovie(temp.db, { id: 'mov-new', title: 'Zephyr', source: 'imports' });
    expect(search('zephyr').movies).toEqual(['mov-new']);
    upsertMovie(temp.db, { id: 'mov-new', title: 'Mistral', source: 'imports' });
    expect(search('zephyr').movies).toEqual([]);
    expect(search('mistral').movies).toEqual(['mov-new']);
    // Rewriting the same title (a rescan) keeps it found.
    upsertMovie(temp.db, { id: 'mov-new', title: 'Mistral', source: 'imports', duration: 10 });
    expect(search('mistral').movies).toEqual(['mov-new']);
    deleteItem(temp.db, 'mov-new');
    expect(search('mistral').movies).toEqual([]);

    upsertShow(temp.db, { id: 'show-light', name: 'Harbour Lamps' });
    expect(search('lighthouse')).toEqual({ shows: [], video_groups: [], episodes: [], movies: [], videos: [] });
    expect(search('harbour storm').episodes).toEqual(['ep-storm']);
    expect(search('harbour').shows).toEqual(['show-light']);
    upsertVideoGroup(temp.db, { id: 'grp-concerts', name: 'Gigs' });
    expect(search('gigs wembley').videos).toEqual(['vid-wembley']);
    expect(search('concerts').videos).toEqual([]);

    deleteParent(temp.db, 'show', 'show-light');
    expect(search('harbour')).toEqual({ shows: [], video_groups: [], episodes: [], movies: [], videos: [] });
    deleteParent(temp.db, 'video_group', 'grp-concerts');
    expect(search('wembley').videos).toEqual([]);
    expect(
      temp.db
        .prepare("SELECT count(*) FROM search_docs WHERE ref IN ('ep-storm', 'show-light', 'vid-wembley')")
        .pluck()
        .get(),
    ).toBe(0);
  });

  it('answers nothing for a query without a word', () => {
    expect(search('?!')).toEqual({ shows: [], video_groups: [], episodes: [], movies: [], videos: [] });
  });
});

describe('guide search', () => {
  const NOW = Math.floor(Date.now() / 60_000) * 60;
  let dvr: DvrService;

  beforeEach(async () => {
    const m3u = join(temp.dir, 'channels.m3u');
    const guide = join(temp.dir, 'guide.xml');
    // Streams are never opened: nothing here records.
    writeM3u(m3u, [
      { number: '5', name: 'Five', tvgId: 'five', url: 'http://127.0.0.1:9/five' },
      { number: '7', name: 'Seven', tvgId: 'seven', url: 'http://127.0.0.1:9/seven' },
    ]);
    writeXmltv(
      guide,
      [
        ['five', 'Five'],
        ['seven', 'Seven'],
        ['nowhere', 'No channel'],
      ],
      [
        {
          channel: 'five',
          start: NOW - 7200,
          stop: NOW - 3600,
          title: 'Harbour Watch',
          extra: '<sub-title>Over</sub-title>',
        },
        {
          channel: 'five',
          start: NOW - 600,
          stop: NOW + 1200,
          title: 'Harbour Watch',
          extra: '<sub-title>Now</sub-title>',
        },
        {
          channel: 'five',
          start: NOW + 7200,
          stop: NOW + 9000,
          title: 'Harbour Watch',
          extra: '<sub-title>Later</sub-title>',
        },
        {
          channel: 'seven',
          start: NOW + 3600,
          stop: NOW + 5400,
          title: 'Kitchen Nights',
          extra: '<sub-title>Harbour Special</sub-title>',
        },
        { channel: 'nowhere', start: NOW + 3600, stop: NOW + 5400, title: 'Harbour Watch' },
      ],
    );
    dvr = createDvr(temp, {
      sources: [{ kind: 'm3u', location: m3u, streams: 2 }],
      guides: [guide],
      now: () => NOW * 1000,
    });
    await dvr.sources.refreshAll();
  });
  afterEach(async () => {
    await dvr.stop();
  });

  it('finds airings not yet ended on channel numbers, soonest first, on-now marked', () => {
    const found = dvr.guideSearch.search('harbour', 20);
    expect(found.map((m) => [m.airing.episodeTitle, m.channel, m.channelName, m.onNow])).toEqual([
      ['Now', '5', 'Five', true],
      ['Harbour Special', '7', 'Seven', false],
      ['Later', '5', 'Five', false],
    ]);
    expect(dvr.guideSearch.search('harbour watch', 20).map((m) => m.airing.episodeTitle)).toEqual(['Now', 'Later']);
    expect(dvr.guideSearch.search('HARBOUR special', 20).map((m) => m.airing.title)).toEqual(['Kitchen Nights']);
    expect(dvr.guideSearch.search('harbour', 1)).toHaveLength(1);
    expect(dvr.guideSearch.search('over', 20)).toEqual([]);
    expect(dvr.guideSearch.search('...', 20)).toEqual([]);
  });

  it('says which job records an airing', () => {
    expect(dvr.guideSearch.search('later', 20)[0]?.job).toBeUndefined();
    const rule = dvr.rules.create({
      type: 'program',
      channel: '5',
      start_time: NOW + 7200,
      padding_before: 60,
      padding_after: 120,
    });
    const [later] = dvr.guideSearch.search('later', 20);
    expect(later?.job).toEqual({ id: `${NOW + 7200 - 60}-${rule.id}`, state: 'scheduled', skipped: false });
    // The next programme on the same channel is not recorded by this one's padding.
    expect(dvr.guideSearch.search('special', 20)[0]?.job).toBeUndefined();
    dvr.schedule.cancelJob(`${NOW + 7200 - 60}-${rule.id}`);
    expect(dvr.guideSearch.search('later', 20)[0]?.job).toMatchObject({ skipped: true });
  });

  it('follows a refreshed guide: removed programmes are no longer found', async () => {
    writeXmltv(
      join(temp.dir, 'guide.xml'),
      [['five', 'Five']],
      [{ channel: 'five', start: NOW + 600, stop: NOW + 1200, title: 'Lantern Hour' }],
    );
    // One programme where four are still to come: applied only as the user confirms it.
    const [guide] = dvr.sources.listGuides();
    expect(await dvr.sources.refreshGuide(guide!.id)).toMatchObject({ rejected: 'shrinks' });
    expect(await dvr.sources.refreshGuide(guide!.id, { accept: true })).toMatchObject({ programmes: 1 });
    expect(dvr.guideSearch.search('harbour', 20)).toEqual([]);
    expect(dvr.guideSearch.search('lantern', 20).map((m) => m.airing.title)).toEqual(['Lantern Hour']);
  });
});
