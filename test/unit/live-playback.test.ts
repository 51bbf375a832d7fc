/**
 * LivePlayback with stand-in backends and server: the app's backend seeks within the
 * buffer by its own clock; mpv's seeks within its cache when it holds the moment and
 * otherwise loads the buffer from it, learning where that load begins from the server.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { type AntennaServerClient, serverClockOffset } from '../../src/player/antenna-server.client.js';
import { LIVE_EDGE_MS, LivePlayback } from '../../src/player/live-playback.js';
import type { MediaState, PlayerBackend } from '../../src/player/player-backend.js';
import type { PlayingChannel } from '../../src/player/player-state.js';

const now = 1_800_000_000_000;
const media = (position: number, clock?: number): MediaState => ({
  available: true,
  loaded: true,
  paused: false,
  muted: false,
  pip: false,
  position,
  ...(clock !== undefined ? { clock } : {}),
});
const channel = (): PlayingChannel => ({
  kind: 'channel',
  channel: { number: '2', name: 'Two' },
  nowPlaying: { title: 'Two', type: 'live' },
  tag: 1,
});

function setUp(backend: Partial<PlayerBackend>, origin: number | undefined = undefined) {
  const loads: { url: string; tag: number; fromFirstSegment?: boolean }[] = [];
  const seeks: number[] = [];
  let tag = 10;
  const server = {
    liveStreamUrl: (number: string, from?: number) => `/ch/${number}${from !== undefined ? `?from=${from}` : ''}`,
    liveOrigin: async () => origin,
  } as unknown as AntennaServerClient;
  const full = {
    seekTo: async (seconds: number) => void seeks.push(seconds),
    ...backend,
  } as PlayerBackend;
  let current: PlayingChannel | undefined;
  const live = new LivePlayback({
    backend: full,
    server,
    logger: pino({ level: 'silent' }),
    load: async (url, _media, loadTag, options) => void loads.push({ url, tag: loadTag, ...options }),
    current: (playing) => playing === current,
    newTag: () => tag++,
    now: () => now,
  });
  return { live, loads, seeks, setCurrent: (playing: PlayingChannel) => (current = playing) };
}

describe('LivePlayback', () => {
  it('on the app, plays the channel’s buffer and seeks by the app’s clock', async () => {
    const { live, loads, seeks } = setUp({});
    const playing = channel();
    await live.play(playing, 'live');
    expect(loads).toEqual([{ url: '/ch/2', tag: 1, title: 'Two' }]);
    // On screen: 100 s into the buffer, showing now - 40 s.
    expect(await live.seekBy(playing, media(100, now - 40_000), -30)).toBe(true);
    expect(seeks).toEqual([70]);
    await live.seekTo(playing, media(100, now - 40_000), 'live');
    expect(seeks[1]).toBeCloseTo(100 + (40_000 - LIVE_EDGE_MS) / 1000);
    expect(await live.seekBy(playing, media(100), -30)).toBe(false);
  });

  it('on mpv, plays from a moment, learns where it begins, and loads anew for a moment its cache does not hold', async () => {
    const held: number[] = [];
    const { live, loads, seeks, setCurrent } = setUp(
      {
        liveByUrl: true,
        seekWithinHeld: async (seconds) => {
          held.push(seconds);
          return seconds >= 0;
        },
      },
      now - 60_000,
    );
    const playing = channel();
    setCurrent(playing);
    await live.play(playing, 'live');
    expect(loads[0]).toEqual({ url: `/ch/2?from=${now - LIVE_EDGE_MS}`, tag: 1, title: 'Two', fromFirstSegment: true });
    await new Promise((resolve) => setImmediate(resolve));
    // The server began the playlist a minute back (the buffer's start, say).
    expect(playing.live).toEqual({ from: now - LIVE_EDGE_MS, origin: now - 60_000 });
    // Position 40: showing now - 20 s. Back 10 s is held; back 50 s is before it.
    expect(live.clock(playing, media(40))).toBe(now - 20_000);
    await live.seekBy(playing, media(40), -10);
    expect(held).toEqual([30]);
    expect(loads).toHaveLength(1);
    await live.seekBy(playing, media(40), -50);
    expect(held).toEqual([30, -10]);
    expect(loads[1]).toEqual({ url: `/ch/2?from=${now - 70_000}`, tag: 10, title: 'Two', fromFirstSegment: true });
    expect(playing.tag).toBe(10);
    expect(seeks).toEqual([]);
  });
});

describe("the server's clock, from its answers' Date headers", () => {
  const sent = Date.parse('2026-12-07T12:00:00.000Z');
  it('is this clock when the two agree within a couple of seconds (NTP does better than a whole-second header)', () => {
    expect(serverClockOffset('Mon, 07 Dec 2026 12:00:00 GMT', sent, sent + 40)).toBe(0);
    expect(serverClockOffset('Mon, 07 Dec 2026 12:00:01 GMT', sent, sent + 40)).toBe(0);
    expect(serverClockOffset('Mon, 07 Dec 2026 11:59:59 GMT', sent, sent + 40)).toBe(0);
  });

  it('is the server’s when this machine is minutes off, either way, to within a second', () => {
    const ahead = serverClockOffset('Mon, 07 Dec 2026 12:05:00 GMT', sent, sent + 40);
    expect(Math.abs(ahead - 300_000)).toBeLessThanOrEqual(1000);
    const behind = serverClockOffset('Mon, 07 Dec 2026 11:50:00 GMT', sent, sent + 40);
    expect(Math.abs(behind + 600_000)).toBeLessThanOrEqual(1000);
  });

  it('is 0 without a header, or with one that is no date', () => {
    expect(serverClockOffset(null, sent, sent)).toBe(0);
    expect(serverClockOffset('yesterday', sent, sent)).toBe(0);
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0, max: 2 ** 41 }), (text, at) =>
        Number.isFinite(serverClockOffset(text, at, at + 10)),
      ),
    );
  });

  it('places live on the server’s clock: a player 5 minutes behind still tunes 6 s behind the server’s live', async () => {
    const serverNow = now + 300_000;
    const loads: string[] = [];
    const server = {
      liveStreamUrl: (number: string, from?: number) => `/ch/${number}?from=${from}`,
      liveOrigin: async () => undefined,
      serverNow: () => serverNow,
    } as unknown as AntennaServerClient;
    const live = new LivePlayback({
      backend: { liveByUrl: true } as unknown as PlayerBackend,
      server,
      logger: pino({ level: 'silent' }),
      load: async (url) => void loads.push(url),
      current: () => true,
      newTag: () => 1,
    });
    await live.play(channel(), 'live');
    expect(loads).toEqual([`/ch/2?from=${serverNow - LIVE_EDGE_MS}`]);
  });
});
