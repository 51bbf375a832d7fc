import { describe, expect, it } from 'vitest';
import type { Ended, Played } from '../../src/player/player-backend.js';
import type { TvPageState } from '../../src/player/tv-page-protocol.js';
import { TvPageTracker } from '../../src/player/tv/tv-page-tracker.js';

function tracked() {
  const tracker = new TvPageTracker();
  const ended: Ended[] = [];
  const played: Played[] = [];
  tracker.on('ended', (e) => ended.push(e));
  tracker.on('played', (p) => played.push(p));
  tracker.setReady(true);
  return { tracker, ended, played };
}

const item = (id: string) => ({ kind: 'item', id }) as const;
const state = (seq: number, playId: number | undefined, extra: Partial<TvPageState> = {}): TvPageState => ({
  seq,
  path: '/tv/watch/x',
  ...(playId !== undefined ? { playing: { kind: 'item', id: 'a', playId } } : {}),
  loaded: playId !== undefined,
  paused: false,
  muted: false,
  ...(playId !== undefined ? { position: 10 } : {}),
  captions: false,
  pip: false,
  ...extra,
});

describe('TvPageTracker', () => {
  it("binds a command's play by its ticket and reports its end with the command's tag", () => {
    const { tracker, ended, played } = tracked();
    tracker.commandStarts(item('a'), 5);
    tracker.event({ type: 'started', playId: 1, media: item('a'), ticket: 5 });
    tracker.event({ type: 'state', state: state(1, 1) });
    expect(tracker.state()).toMatchObject({ loaded: true, position: 10 });
    tracker.event({ type: 'ended', playId: 1, reason: 'stopped', position: 42 });
    expect(ended).toEqual([{ reason: 'stopped', tag: 5, position: 42 }]);
    expect(played).toEqual([]);
  });

  it("takes a play without a ticket as the person's, with a tag of its own", () => {
    const { tracker, played, ended } = tracked();
    tracker.event({ type: 'started', playId: 3, media: item('b') });
    tracker.event({ type: 'started', playId: 4, media: { kind: 'channel', number: '7' } });
    expect(played).toEqual([
      { media: item('b'), tag: -1 },
      { media: { kind: 'channel', number: '7' }, tag: -2 },
    ]);
    tracker.event({ type: 'ended', playId: 3, reason: 'stopped' });
    expect(ended).toEqual([]);
  });

  it("ignores a superseded command's play and its end, and never shows its state", () => {
    const { tracker, ended, played } = tracked();
    tracker.commandStarts(item('b'), 6);
    // Command 5's view mounts late, after command 6 was given.
    tracker.event({ type: 'started', playId: 1, media: item('a'), ticket: 5 });
    tracker.event({ type: 'state', state: state(1, 1) });
    expect(tracker.state().loaded).toBe(false);
    tracker.event({ type: 'ended', playId: 1, reason: 'stopped', position: 3 });
    expect(ended).toEqual([]);
    expect(played).toEqual([]);
  });

  it('keeps the later state whichever arrives last, and keeps the last position past the end', () => {
    const { tracker, ended } = tracked();
    tracker.commandStarts(item('a'), 1);
    tracker.event({ type: 'started', playId: 1, media: item('a'), ticket: 1 });
    tracker.takeState(state(20, 1, { paused: true, position: 30 }));
    tracker.takeState(state(19, 1, { paused: false, position: 29 }));
    expect(tracker.state()).toMatchObject({ paused: true, position: 30 });
    tracker.event({ type: 'ended', playId: 1, reason: 'stopped' });
    expect(ended[0]?.position).toBe(30);
  });

  it('follows a play of a failed command that went on anyway as the person sees it, and forgets an unloaded one', () => {
    const { tracker, ended, played } = tracked();
    tracker.commandStarts(item('a'), 1);
    tracker.commandFailed(1);
    tracker.event({ type: 'started', playId: 1, media: item('a'), ticket: 1 });
    expect(played).toEqual([{ media: item('a'), tag: -1 }]);
    tracker.event({ type: 'ended', playId: 1, reason: 'error', error: 'gone' });
    expect(ended).toEqual([{ reason: 'error', tag: -1, error: 'gone' }]);
    ended.length = 0;
    tracker.commandStarts(item('a'), 2);
    tracker.event({ type: 'started', playId: 2, media: item('a'), ticket: 2 });
    tracker.unloaded();
    tracker.event({ type: 'ended', playId: 2, reason: 'stopped' });
    expect(ended).toEqual([]);
    tracker.commandStarts(item('a'), 3);
    tracker.event({ type: 'started', playId: 3, media: item('a'), ticket: 3 });
    expect(tracker.reset()).toBe(true);
    expect(tracker.state()).toMatchObject({ available: false, loaded: false });
  });
});
