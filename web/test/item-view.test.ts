/** The app's pure naming, time and commercial-mark rules. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Episode, Movie, Video } from '../src/api/server-types';
import {
  commercialSpans,
  episodeCode,
  formatClock,
  formatDuration,
  itemSubtitle,
  itemTitle,
  jobState,
  kindOf,
  progressShare,
  skipTarget,
} from '../src/lib/item-view';
import { seasonsOf } from '../src/lib/seasons';

const episode = (fields: Partial<Episode> = {}): Episode => ({
  id: 'e1',
  show_id: 's1',
  program_id: 'p',
  duration: 1800,
  playback_time: 0,
  title: 'Show',
  ...fields,
});
const movie: Movie = { id: 'm1', program_id: 'p', duration: 5400, playback_time: 0, title: 'Film', release_year: 1999 };
const video: Video = {
  id: 'v1',
  video_group_id: 'g',
  program_id: 'p',
  duration: 60,
  playback_time: 0,
  title: 'Trips',
  video_title: 'Day one',
};

describe('naming items', () => {
  it('tells episodes, movies and videos apart, and names each as a card would', () => {
    expect([kindOf(episode()), kindOf(movie), kindOf(video)]).toEqual(['episode', 'movie', 'video']);
    expect(itemSubtitle(episode({ season_number: 2, episode_number: 5, episode_title: 'Pilot' }))).toBe(
      'S02E05 · Pilot',
    );
    expect(itemSubtitle(movie)).toBe('1999');
    expect(itemSubtitle(video)).toBe('Day one');
    expect(itemTitle({ ...video, title: undefined })).toBe('Day one');
    expect(episodeCode(undefined, 7)).toBe('E07');
    expect(episodeCode(undefined, undefined)).toBe('');
  });

  it('measures progress from the resume point, full when watched, none when the length is unknown', () => {
    expect(progressShare(episode({ playback_time: 900 }))).toBe(0.5);
    expect(progressShare(episode({ playback_time: 900, watched: true }))).toBe(1);
    expect(progressShare(episode({ playback_time: 900, duration: 0 }))).toBe(0);
    fc.assert(
      fc.property(fc.double(), fc.double(), (time, duration) => {
        const share = progressShare({ playback_time: time, duration });
        expect(share >= 0 && share <= 1).toBe(true);
      }),
    );
  });

  it('writes lengths and clocks for people', () => {
    expect(formatDuration(3900)).toBe('1 h 05 min');
    expect(formatDuration(2520)).toBe('42 min');
    expect(formatDuration(50)).toBe('50 s');
    expect(formatDuration(0)).toBe('');
    expect(formatClock(3723)).toBe('1:02:03');
    expect(formatClock(123.9)).toBe('2:03');
    expect(formatClock(Number.NaN)).toBe('0:00');
  });

  it('groups episodes by season, specials and unnumbered last', () => {
    const seasons = seasonsOf([
      episode({ id: 'a', season_number: 2 }),
      episode({ id: 'b' }),
      episode({ id: 'c', season_number: 0 }),
      episode({ id: 'd', season_number: 1 }),
      episode({ id: 'e', season_number: 2 }),
    ]);
    expect(seasons.map((s) => [s.label, s.episodes.map((e) => e.id)])).toEqual([
      ['Specials', ['c']],
      ['Season 1', ['d']],
      ['Season 2', ['a', 'e']],
      ['Other episodes', ['b']],
    ]);
  });

  it('says what a job is doing now', () => {
    expect(jobState({ start_time: 100, end_time: 200 }, 150)).toBe('recording');
    expect(jobState({ start_time: 100, end_time: 200 }, 50)).toBe('scheduled');
    expect(jobState({ start_time: 100, end_time: 200 }, 250)).toBe('done');
    expect(jobState({ start_time: 100, end_time: 200, skipped: true }, 150)).toBe('skipped');
    expect(jobState({ start_time: 100, end_time: 200, failed: true }, 150)).toBe('failed');
  });
});

describe('commercial marks', () => {
  it('pairs marks into breaks and skips to the end of the one playing', () => {
    expect(commercialSpans([10, 20, 50, 40, 60, 70, 90])).toEqual([
      [10, 20],
      [60, 70],
    ]);
    expect(skipTarget([10, 20, 60, 70], 12)).toBe(20);
    expect(skipTarget([10, 20, 60, 70], 30)).toBeUndefined();
    expect(skipTarget(undefined, 30)).toBeUndefined();
  });

  it('never gives an empty or reversed break, whatever the marks', () => {
    fc.assert(
      fc.property(fc.array(fc.double()), fc.double({ noNaN: true }), (marks, position) => {
        for (const [start, end] of commercialSpans(marks)) expect(end).toBeGreaterThan(start);
        const target = skipTarget(marks, position);
        if (target !== undefined) expect(target).toBeGreaterThan(position);
      }),
    );
  });
});

describe('commercialDetectionText', () => {
  it('says where finding the breaks stands, and why it failed', async () => {
    const { commercialDetectionText } = await import('../src/lib/item-view');
    expect(commercialDetectionText(undefined, [10, 20])).toBeUndefined();
    expect(commercialDetectionText({ state: 'done' }, [60, 150, 400, 430])).toBe('2 commercial breaks (2:00)');
    expect(commercialDetectionText({ state: 'done' }, [])).toBe('No commercial breaks found');
    expect(commercialDetectionText({ state: 'live' }, [60, 90])).toBe(
      '1 commercial break (0:30) so far; more are found as it records',
    );
    expect(commercialDetectionText({ state: 'failed', error: 'comskip failed: Can not open file' }, undefined)).toBe(
      'Commercial detection failed: comskip failed: Can not open file. The recording plays normally, without marks.',
    );
    expect(commercialDetectionText({ state: 'off' }, undefined)).toMatch(/comskip is not installed/);
  });
});
