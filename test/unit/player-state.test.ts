import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MediaState } from '../../src/player/player-backend.js';
import {
  afterLeaving,
  afterTuning,
  chapterMarks,
  compareChannelNumbers,
  neighbourChannel,
  nextMark,
  type PlayerState,
  type PlayingChannel,
  type PlayingItem,
  previousMark,
  progressReport,
  resumePoint,
  seekTarget,
  statusBody,
  type TunedChannel,
} from '../../src/player/player-state.js';

const media = (over: Partial<MediaState> = {}): MediaState => ({
  available: true,
  loaded: true,
  paused: false,
  muted: false,
  pip: false,
  ...over,
});

const tuned = (number: string, name = `Channel ${number}`): TunedChannel => ({ number, name });
const onChannel = (number: string, tag = 1): PlayingChannel => ({
  kind: 'channel',
  channel: tuned(number),
  nowPlaying: { title: `Show on ${number}`, type: 'live' },
  tag,
});
const onItem = (over: Partial<PlayingItem> = {}): PlayingItem => ({
  kind: 'item',
  id: 'rec-1',
  nowPlaying: { title: 'A Movie', type: 'movie' },
  marks: [],
  tag: 7,
  watchedReported: false,
  ...over,
});

describe('statusBody', () => {
  it('answers stopped with only status and muted when nothing is loaded, whatever the state says', () => {
    const body = statusBody(
      { current: onChannel('2.1') },
      media({ loaded: false, muted: true, position: 12, duration: 100 }),
    );
    expect(body).toEqual({ status: 'stopped', muted: true });
    expect(body).not.toHaveProperty('channel');
    expect(body).not.toHaveProperty('now_playing');
    expect(body).not.toHaveProperty('playback_time');
  });

  it('answers paused or playing from the backend', () => {
    expect(statusBody({ current: onItem() }, media({ paused: true })).status).toBe('paused');
    expect(statusBody({ current: onItem() }, media({ paused: false })).status).toBe('playing');
    expect(statusBody({ current: onItem() }, media({ muted: true })).muted).toBe(true);
  });

  it('names the channel only when a channel is current', () => {
    const channel = statusBody({ current: onChannel('4.1') }, media({ position: 3 }));
    expect(channel.channel).toEqual(tuned('4.1'));
    expect(channel.now_playing).toEqual({ title: 'Show on 4.1', type: 'live' });
    const item = statusBody({ current: onItem(), previousChannel: tuned('4.1') }, media({ position: 3 }));
    expect(item).not.toHaveProperty('channel');
    expect(item.now_playing?.title).toBe('A Movie');
  });

  it("takes an item's duration from the media when the item has none, and keeps the item's own otherwise", () => {
    expect(statusBody({ current: onItem() }, media({ duration: 5400 })).now_playing?.duration).toBe(5400);
    expect(
      statusBody({ current: onItem({ nowPlaying: { title: 'A', duration: 3600 } }) }, media({ duration: 5400 }))
        .now_playing?.duration,
    ).toBe(3600);
    expect(statusBody({ current: onItem() }, media({})).now_playing).not.toHaveProperty('duration');
  });

  it("never takes a channel's duration from the media (a live stream's length means nothing)", () => {
    expect(statusBody({ current: onChannel('2') }, media({ duration: 99 })).now_playing).not.toHaveProperty('duration');
  });

  it('rounds playback_time to the millisecond, 0 when the position is unknown', () => {
    expect(statusBody({ current: onItem() }, media({ position: 12.345678 })).playback_time).toBe(12.346);
    expect(statusBody({ current: onItem() }, media({ position: 0.0004 })).playback_time).toBe(0);
    expect(statusBody({ current: onItem() }, media({})).playback_time).toBe(0);
  });

  it('answers a loaded backend with no current entry without now_playing', () => {
    const body = statusBody({}, media({ position: 1.5 }));
    expect(body).toEqual({ status: 'playing', muted: false, playback_time: 1.5 });
  });
});

describe('afterTuning and afterLeaving', () => {
  it('makes the channel left the previous one when tuning another', () => {
    const next = afterTuning({ current: onChannel('2') }, onChannel('5'));
    expect(next.current).toEqual(onChannel('5'));
    expect(next.previousChannel).toEqual(tuned('2'));
  });

  it('replaces an older previous channel with the channel left', () => {
    const next = afterTuning({ current: onChannel('2'), previousChannel: tuned('9') }, onChannel('5'));
    expect(next.previousChannel?.number).toBe('2');
  });

  it('keeps the previous channel when tuning from an item', () => {
    const next = afterTuning({ current: onItem(), previousChannel: tuned('9') }, onChannel('5'));
    expect(next.current?.kind).toBe('channel');
    expect(next.previousChannel).toEqual(tuned('9'));
  });

  it('drops the previous channel when tuning from an item to that very channel', () => {
    const next = afterTuning({ current: onItem(), previousChannel: tuned('9') }, onChannel('9'));
    expect(next).not.toHaveProperty('previousChannel');
  });

  it('keeps the previous channel when the current channel is tuned again', () => {
    const next = afterTuning({ current: onChannel('2'), previousChannel: tuned('9') }, onChannel('2'));
    expect(next.previousChannel).toEqual(tuned('9'));
  });

  it('has no previous channel on the first tuning', () => {
    expect(afterTuning({}, onChannel('3'))).toEqual({ current: onChannel('3') });
  });

  it('makes a channel left the previous one, and keeps the previous one when an item is left', () => {
    expect(afterLeaving({ current: onChannel('7'), previousChannel: tuned('2') })).toEqual({
      previousChannel: tuned('7'),
    });
    expect(afterLeaving({ current: onItem(), previousChannel: tuned('2') })).toEqual({ previousChannel: tuned('2') });
    expect(afterLeaving({ current: onItem() })).toEqual({});
    expect(afterLeaving({})).toEqual({});
  });

  it('lets previous_channel go back and forth between two channels', () => {
    let state: PlayerState = afterTuning({}, onChannel('2'));
    state = afterTuning(state, onChannel('5'));
    expect(state.previousChannel?.number).toBe('2');
    state = afterTuning(state, onChannel('2'));
    expect(state.previousChannel?.number).toBe('5');
  });
});

describe('compareChannelNumbers', () => {
  it('orders by major then minor number', () => {
    expect(compareChannelNumbers('2.1', '2.10')).toBeLessThan(0);
    expect(compareChannelNumbers('2.10', '10')).toBeLessThan(0);
    expect(compareChannelNumbers('2.1', '10')).toBeLessThan(0);
    expect(compareChannelNumbers('4', '4.1')).toBeLessThan(0);
    expect(compareChannelNumbers('4.1', '4')).toBeGreaterThan(0);
    expect(compareChannelNumbers('9', '10')).toBeLessThan(0);
    expect(compareChannelNumbers('2.9', '2.10')).toBeLessThan(0);
    expect(compareChannelNumbers('12.3', '12.3')).toBe(0);
  });

  it('puts numbers that are not numbers after every number, in text order', () => {
    const sorted = ['b', '10', 'a', '2.1', '1.x'].sort(compareChannelNumbers);
    expect(sorted).toEqual(['2.1', '10', '1.x', 'a', 'b']);
  });

  it('sorts a list into viewing order', () => {
    const sorted = ['10', '2.10', '4.1', '2.1', '4', '2.2', '100'].sort(compareChannelNumbers);
    expect(sorted).toEqual(['2.1', '2.2', '2.10', '4', '4.1', '10', '100']);
  });
});

/** Channel numbers as tuners and playlists give them: "7" or "7.3". */
const channelNumber = fc
  .tuple(fc.integer({ min: 1, max: 999 }), fc.option(fc.integer({ min: 1, max: 99 }), { nil: undefined }))
  .map(([major, minor]) => (minor === undefined ? `${major}` : `${major}.${minor}`));

describe('neighbourChannel', () => {
  const channels = ['5', '2.1', '10', '2.2', '4'].map((number) => tuned(number));

  it('walks up and down in number order', () => {
    expect(neighbourChannel(channels, '2.1', 'up')?.number).toBe('2.2');
    expect(neighbourChannel(channels, '2.2', 'up')?.number).toBe('4');
    expect(neighbourChannel(channels, '5', 'up')?.number).toBe('10');
    expect(neighbourChannel(channels, '10', 'down')?.number).toBe('5');
    expect(neighbourChannel(channels, '4', 'down')?.number).toBe('2.2');
  });

  it('wraps at both ends', () => {
    expect(neighbourChannel(channels, '10', 'up')?.number).toBe('2.1');
    expect(neighbourChannel(channels, '2.1', 'down')?.number).toBe('10');
  });

  it('starts at the first (up) or the last (down) from no channel', () => {
    expect(neighbourChannel(channels, undefined, 'up')?.number).toBe('2.1');
    expect(neighbourChannel(channels, undefined, 'down')?.number).toBe('10');
  });

  it('places a number that is not listed where it would be', () => {
    expect(neighbourChannel(channels, '3', 'up')?.number).toBe('4');
    expect(neighbourChannel(channels, '3', 'down')?.number).toBe('2.2');
    expect(neighbourChannel(channels, '2.15', 'up')?.number).toBe('4');
    expect(neighbourChannel(channels, '99', 'up')?.number).toBe('2.1');
    expect(neighbourChannel(channels, '1', 'down')?.number).toBe('10');
  });

  it('answers undefined for no channels', () => {
    expect(neighbourChannel([], '2', 'up')).toBeUndefined();
    expect(neighbourChannel([], undefined, 'down')).toBeUndefined();
  });

  it('stays on the only channel', () => {
    expect(neighbourChannel([tuned('7')], '7', 'up')?.number).toBe('7');
    expect(neighbourChannel([tuned('7')], '7', 'down')?.number).toBe('7');
  });

  it('does not reorder the list it is given', () => {
    const list = channels.map((c) => c.number);
    neighbourChannel(channels, '4', 'up');
    expect(channels.map((c) => c.number)).toEqual(list);
  });

  it('visits every channel exactly once walking up n times, back at the start; down undoes up', () => {
    fc.assert(
      fc.property(fc.uniqueArray(channelNumber, { minLength: 1, maxLength: 40 }), (numbers) => {
        const list = numbers.map((number) => tuned(number));
        const first = neighbourChannel(list, undefined, 'up');
        expect(first).toBeDefined();
        const start = (first as TunedChannel).number;
        const seen: string[] = [];
        let at = start;
        for (let step = 0; step < numbers.length; step++) {
          seen.push(at);
          const next = neighbourChannel(list, at, 'up');
          expect(next).toBeDefined();
          expect(neighbourChannel(list, (next as TunedChannel).number, 'down')?.number).toBe(at);
          at = (next as TunedChannel).number;
        }
        expect(at).toBe(start);
        expect(new Set(seen).size).toBe(numbers.length);
        expect([...seen].sort()).toEqual([...numbers].sort());
      }),
    );
  });
});

describe('seekTarget', () => {
  const seconds = fc.double({ min: -1e6, max: 1e6, noNaN: true });

  it('lands inside [0, duration] when the duration is known, and never before 0 otherwise', () => {
    fc.assert(
      fc.property(
        seconds,
        seconds,
        fc.option(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { nil: undefined }),
        (position, delta, duration) => {
          const target = seekTarget(position, delta, duration);
          expect(target).toBeGreaterThanOrEqual(0);
          if (duration !== undefined && duration > 0) expect(target).toBeLessThanOrEqual(duration);
        },
      ),
    );
  });

  it('is position + delta when that is inside', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e5, noNaN: true }),
        seconds,
        fc.double({ min: 1e-3, max: 1e5, noNaN: true }),
        (position, delta, duration) => {
          const wanted = position + delta;
          fc.pre(wanted >= 0 && wanted <= duration);
          expect(seekTarget(position, delta, duration)).toBe(wanted);
        },
      ),
    );
  });

  it('clamps at the ends', () => {
    expect(seekTarget(5, -10, 100)).toBe(0);
    expect(seekTarget(95, 30, 100)).toBe(100);
    expect(seekTarget(95, 30, undefined)).toBe(125);
    expect(seekTarget(95, 30, 0)).toBe(125);
    expect(seekTarget(40, 30, 100)).toBe(70);
  });
});

describe('chapterMarks', () => {
  it('prefers commercial boundaries over chapter starts', () => {
    expect(chapterMarks([300, 420, 900, 1020], [0, 600, 1200])).toEqual([300, 420, 900, 1020]);
  });

  it('uses the chapter starts when there are no commercials', () => {
    expect(chapterMarks(undefined, [0, 600, 1200])).toEqual([600, 1200]);
    expect(chapterMarks([], [0, 600, 1200])).toEqual([600, 1200]);
  });

  it('sorts, keeps each mark once and drops 0, negative and non-finite times', () => {
    expect(chapterMarks([900, 300, 300, 0, -5, Number.NaN, Number.POSITIVE_INFINITY, 120.5, 900], [])).toEqual([
      120.5, 300, 900,
    ]);
    expect(chapterMarks(undefined, [])).toEqual([]);
  });

  it('answers ascending unique positive finite marks for any input', () => {
    fc.assert(
      fc.property(
        fc.option(fc.array(fc.double()), { nil: undefined }),
        fc.array(fc.double()),
        (commercials, chapters) => {
          const marks = chapterMarks(commercials, chapters);
          for (const [index, mark] of marks.entries()) {
            expect(Number.isFinite(mark) && mark > 0).toBe(true);
            if (index > 0) expect(mark).toBeGreaterThan(marks[index - 1] as number);
          }
        },
      ),
    );
  });
});

describe('nextMark and previousMark', () => {
  const marks = [100, 200, 300];

  it('goes to the next mark more than half a second ahead', () => {
    expect(nextMark(marks, 50, 400)).toBe(100);
    expect(nextMark(marks, 99.4, 400)).toBe(100);
    expect(nextMark(marks, 99.5, 400)).toBe(200);
    expect(nextMark(marks, 100, 400)).toBe(200);
    expect(nextMark(marks, 150, 400)).toBe(200);
  });

  it('goes to the end after the last mark, or undefined when the end is unknown', () => {
    expect(nextMark(marks, 300, 400)).toBe(400);
    expect(nextMark(marks, 350, undefined)).toBeUndefined();
    expect(nextMark([], 0, 1800)).toBe(1800);
  });

  it('goes back to the mark before, skipping one passed less than 3 seconds ago', () => {
    expect(previousMark(marks, 250)).toBe(200);
    expect(previousMark(marks, 203)).toBe(200);
    expect(previousMark(marks, 202.9)).toBe(100);
    expect(previousMark(marks, 201)).toBe(100);
    expect(previousMark(marks, 1000)).toBe(300);
  });

  it('goes back to the start when there is no mark before', () => {
    expect(previousMark(marks, 101)).toBe(0);
    expect(previousMark(marks, 50)).toBe(0);
    expect(previousMark([], 500)).toBe(0);
  });
});

describe('progressReport', () => {
  it('reports watched at the end, whatever the position', () => {
    expect(progressReport(undefined, undefined, true)).toEqual({ watched: true });
    expect(progressReport(10, 1000, true)).toEqual({ watched: true });
  });

  it('reports watched from 95 % of the duration', () => {
    expect(progressReport(95, 100, false)).toEqual({ watched: true });
    expect(progressReport(99.9, 100, false)).toEqual({ watched: true });
    expect(progressReport(94.9, 100, false)).toEqual({ watched: false, seconds: 94.9 });
  });

  it('reports the position rounded to the millisecond otherwise', () => {
    expect(progressReport(61.23456, 3600, false)).toEqual({ watched: false, seconds: 61.235 });
    expect(progressReport(5000, undefined, false)).toEqual({ watched: false, seconds: 5000 });
    expect(progressReport(5000, 0, false)).toEqual({ watched: false, seconds: 5000 });
    expect(progressReport(0, 100, false)).toEqual({ watched: false, seconds: 0 });
  });

  it('reports nothing for an unknown, negative or non-number position', () => {
    expect(progressReport(undefined, 100, false)).toBeUndefined();
    expect(progressReport(-1, 100, false)).toBeUndefined();
    expect(progressReport(Number.NaN, 100, false)).toBeUndefined();
    expect(progressReport(Number.POSITIVE_INFINITY, 100, false)).toBeUndefined();
  });
});

describe('resumePoint', () => {
  it('resumes where the item was left', () => {
    expect(resumePoint(61.5, 3600)).toBe(61.5);
    expect(resumePoint(61.5, undefined)).toBe(61.5);
    expect(resumePoint(94, 100)).toBe(94);
  });

  it('starts from the beginning with no resume point or one in the watched share', () => {
    expect(resumePoint(undefined, 3600)).toBeUndefined();
    expect(resumePoint(0, 3600)).toBeUndefined();
    expect(resumePoint(-3, 3600)).toBeUndefined();
    expect(resumePoint(95, 100)).toBeUndefined();
    expect(resumePoint(3600, 3600)).toBeUndefined();
    expect(resumePoint(Number.NaN, 3600)).toBeUndefined();
  });
});
