/** The Search section's pure parts: the `?q=` parameter, result groups, and guide programmes described and recorded. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GuideMatch, SearchResults } from '../src/api/server-types';
import {
  MAX_QUERY_LENGTH,
  RECORDING_LABELS,
  airingWhen,
  canRecord,
  foundNothing,
  programRuleFor,
  programmeSubtitle,
  recordingState,
  resultGroups,
  searchParam,
} from '../src/sections/search/search-view';

const none: SearchResults = {
  query: 'x',
  shows: [],
  video_groups: [],
  episodes: [],
  movies: [],
  videos: [],
  programmes: [],
};
const airing = (fields: Partial<GuideMatch> = {}): GuideMatch => ({
  start_time: 1000,
  end_time: 2800,
  title: 'Harbour Watch',
  new: false,
  channel: '5',
  on_now: false,
  ...fields,
});

describe('the ?q= parameter', () => {
  it('keeps text, turns a value the router parsed as JSON back into text, and drops blanks and the rest', () => {
    expect(searchParam({ q: 'Northern Lights' })).toEqual({ q: 'Northern Lights' });
    expect(searchParam({ q: 24 })).toEqual({ q: '24' });
    expect(searchParam({ q: '   ' })).toEqual({});
    expect(searchParam({ q: ['a'] })).toEqual({});
    expect(searchParam({})).toEqual({});
  });

  it('always gives text the server accepts (1 to 200 characters, not blank), or nothing', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const { q } = searchParam({ q: value });
        if (q === undefined) return;
        expect(typeof q).toBe('string');
        expect(q.length).toBeGreaterThanOrEqual(1);
        expect(q.length).toBeLessThanOrEqual(MAX_QUERY_LENGTH);
        expect(q.trim()).not.toBe('');
      }),
    );
  });
});

describe('result groups', () => {
  it('lists only groups that found something, in order, each as cards opening the item or parent', () => {
    const results: SearchResults = {
      ...none,
      shows: [{ id: 's1', name: 'The Lighthouse Keepers', episode_count: 3 }],
      movies: [{ id: 'm1', program_id: 'p', title: 'Northern Lights', duration: 60, playback_time: 0 }],
      episodes: [
        {
          id: 'e1',
          show_id: 's1',
          program_id: 'p',
          title: 'The Lighthouse Keepers',
          episode_title: 'Fog',
          season_number: 1,
          episode_number: 2,
          duration: 60,
          playback_time: 0,
        },
      ],
    };
    const groups = resultGroups(results);
    expect(groups.map((g) => g.key)).toEqual(['shows', 'movies', 'episodes']);
    expect(groups[0]?.cards[0]?.target).toEqual({ to: '/{-$mode}/library/shows/$id', params: { id: 's1' } });
    expect(groups[1]?.cards[0]).toMatchObject({
      title: 'Northern Lights',
      shape: 'poster',
      target: { to: '/{-$mode}/library/items/$id', params: { id: 'm1' } },
    });
    expect(groups[2]?.cards[0]).toMatchObject({ subtitle: 'S01E02 · Fog · 1 min', shape: 'wide' });
    expect(foundNothing(results)).toBe(false);
  });

  it('finds nothing only when every group, the guide included, is empty', () => {
    expect(resultGroups(none)).toEqual([]);
    expect(foundNothing(none)).toBe(true);
    expect(foundNothing({ ...none, programmes: [airing()] })).toBe(false);
  });
});

describe('guide programmes', () => {
  const at = (day: number, hour: number, minute = 0) => new Date(2030, 0, day, hour, minute).getTime() / 1000;

  it('say when they air: now, today, tomorrow, or the date', () => {
    const now = at(10, 20, 15);
    expect(airingWhen(at(10, 20), at(10, 21), now)).toMatch(/^Now, until /);
    expect(airingWhen(at(10, 22), at(10, 23), now)).toMatch(/^Today /);
    expect(airingWhen(at(11, 8), at(11, 9), now)).toMatch(/^Tomorrow /);
    expect(airingWhen(at(14, 8), at(14, 9), now)).not.toMatch(/^(Today|Tomorrow|Now)/);
    expect(airingWhen(at(10, 21), at(10, 22), at(10, 21))).toMatch(/^Now/);
    expect(airingWhen(at(10, 20), at(10, 21), at(10, 21))).not.toMatch(/^Now/);
  });

  it('show their episode, and whether and how a job records them', () => {
    expect(programmeSubtitle(airing({ season_number: 2, episode_number: 5, episode_title: 'Fog' }))).toBe(
      'S02E05 · Fog',
    );
    expect(programmeSubtitle(airing())).toBe('');
    expect(recordingState(airing())).toBe('none');
    expect(recordingState(airing({ job: { id: '1-1', state: 'scheduled', skipped: false } }))).toBe('scheduled');
    expect(recordingState(airing({ job: { id: '1-1', state: 'recording', skipped: false } }))).toBe('recording');
    expect(recordingState(airing({ job: { id: '1-1', state: 'scheduled', skipped: true } }))).toBe('skipped');
    expect(RECORDING_LABELS.scheduled).toBe('Will record');
    expect(canRecord(airing())).toBe(true);
    expect(canRecord(airing({ job: { id: '1-1', state: 'scheduled', skipped: false } }))).toBe(false);
    expect(canRecord(airing({ job: { id: '1-1', state: 'scheduled', skipped: true } }))).toBe(true);
  });

  it('are recorded by a program rule for their channel and start, named within the limit the server sets', () => {
    expect(programRuleFor(airing())).toEqual({
      type: 'program',
      channel: '5',
      start_time: 1000,
      name: 'Harbour Watch',
    });
    expect(programRuleFor(airing({ title: 'x'.repeat(300) })).name).toHaveLength(200);
    expect(programRuleFor(airing({ title: '  ' }))).toEqual({ type: 'program', channel: '5', start_time: 1000 });
  });
});
