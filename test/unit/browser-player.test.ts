import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chromiumArguments } from '../../src/player/tv/chromium-args.js';
import { DevToolsPipe } from '../../src/player/tv/devtools-pipe.js';
import { SECTIONS, matchSection } from '../../src/player/sections.js';
import {
  type TvPageState,
  SECTION_PATHS,
  isPageState,
  isTvPageEvent,
  isTvResult,
  mediaStateOf,
  sameMedia,
  sectionOfPath,
  watchPath,
} from '../../src/player/tv-page-protocol.js';

describe('chromiumArguments', () => {
  const base = { userDataDir: '/tmp/antenna-chromium-x', headless: false, noSandbox: false };

  it('opens a kiosk window driven over the DevTools pipe, with a private profile, playing without a click', () => {
    const args = chromiumArguments(base);
    expect(args).toContain('--remote-debugging-pipe');
    expect(args).toContain('--kiosk');
    expect(args).toContain('--user-data-dir=/tmp/antenna-chromium-x');
    expect(args).toContain('--autoplay-policy=no-user-gesture-required');
    expect(args.some((arg) => arg.startsWith('--remote-debugging-port'))).toBe(false);
    expect(args).not.toContain('--no-sandbox');
    expect(args.at(-1)).toBe('about:blank');
  });

  it('downloads nothing of its own and is never throttled as a background window', () => {
    const args = chromiumArguments(base);
    for (const flag of [
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-renderer-backgrounding',
      '--disable-background-timer-throttling',
    ]) {
      expect(args).toContain(flag);
    }
  });

  it('takes the screen size when it cannot go full screen by itself, runs headless without a display, and without its sandbox as root', () => {
    expect(chromiumArguments({ ...base, windowSize: { width: 1920, height: 1080 } })).toContain(
      '--window-size=1920,1080',
    );
    const headless = chromiumArguments({ ...base, headless: true });
    expect(headless).toContain('--headless=new');
    expect(headless).not.toContain('--kiosk');
    expect(chromiumArguments({ ...base, noSandbox: true })).toContain('--no-sandbox');
  });
});

describe('DevToolsPipe', () => {
  it('sends each message ended by a NUL byte', () => {
    const toBrowser = new PassThrough();
    const pipe = new DevToolsPipe(toBrowser, new PassThrough());
    pipe.send('{"id":1}');
    pipe.send('{"id":2}');
    expect(toBrowser.read().toString()).toBe('{"id":1}\0{"id":2}\0');
  });

  it('gives back every message whole, however the bytes are cut into chunks', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme' }).map((text) => JSON.stringify({ text })),
          { maxLength: 8 },
        ),
        fc.array(fc.nat(40), { maxLength: 10 }),
        (messages, cuts) => {
          const fromBrowser = new PassThrough();
          const pipe = new DevToolsPipe(new PassThrough(), fromBrowser);
          const received: string[] = [];
          pipe.onmessage = (message) => received.push(message);
          const bytes = Buffer.from(messages.map((message) => `${message}\0`).join(''));
          let at = 0;
          for (const cut of cuts) {
            fromBrowser.emit('data', bytes.subarray(at, Math.min(bytes.length, at + cut)));
            at = Math.min(bytes.length, at + cut);
          }
          fromBrowser.emit('data', bytes.subarray(at));
          expect(received).toEqual(messages);
        },
      ),
    );
  });

  it('tells puppeteer once when Chromium closes the pipe', () => {
    const fromBrowser = new PassThrough();
    const pipe = new DevToolsPipe(new PassThrough(), fromBrowser);
    let closes = 0;
    pipe.onclose = () => closes++;
    fromBrowser.emit('close');
    pipe.close();
    expect(closes).toBe(1);
  });
});

describe('the TV page protocol', () => {
  it('knows each section by its TV path, and any path under it', () => {
    for (const section of SECTIONS) {
      expect(sectionOfPath(SECTION_PATHS[section])).toBe(section);
      expect(matchSection(section)).toBe(section);
    }
    expect(sectionOfPath('/tv/library/shows/abc')).toBe('Library');
    expect(sectionOfPath('/guide')).toBe('Guide');
    expect(sectionOfPath('/tv/watch/abc')).toBeUndefined();
    expect(sectionOfPath('/tv/livestream')).toBeUndefined();
    expect(sectionOfPath('/tv/schedule/upcoming')).toBeUndefined();
  });

  it('addresses a play in TV mode, with its start and the command ticket', () => {
    expect(watchPath({ kind: 'item', id: 'a b/c' }, { start: 61.7, ticket: 4 })).toBe(
      '/tv/watch/a%20b%2Fc?start=61&t=4',
    );
    expect(watchPath({ kind: 'item', id: 'x' })).toBe('/tv/watch/x');
    expect(watchPath({ kind: 'channel', number: '7.1' }, { start: 30, ticket: 2 })).toBe('/tv/watch/channel/7.1?t=2');
  });

  const state: TvPageState = {
    seq: 7,
    path: '/tv/watch/x',
    playing: { kind: 'item', id: 'x', playId: 1 },
    loaded: true,
    paused: true,
    muted: true,
    position: 12,
    duration: 60,
    captions: false,
    pip: false,
  };

  it('reports the media state as every backend does: nothing loaded while unavailable, no position when idle', () => {
    expect(mediaStateOf(state, true)).toEqual({
      available: true,
      loaded: true,
      paused: true,
      muted: true,
      position: 12,
      duration: 60,
      pip: false,
    });
    expect(mediaStateOf(state, false)).toMatchObject({ available: false, loaded: false });
    const idle = mediaStateOf({ ...state, playing: undefined, loaded: false } as TvPageState, true);
    expect(idle).toEqual({ available: true, loaded: false, paused: false, muted: true, pip: false });
    expect(mediaStateOf(undefined, true).loaded).toBe(false);
  });

  it('compares what is played by kind and id', () => {
    expect(sameMedia({ kind: 'item', id: '1' }, { kind: 'item', id: '1' })).toBe(true);
    expect(sameMedia({ kind: 'item', id: '1' }, { kind: 'channel', number: '1' })).toBe(false);
    expect(sameMedia({ kind: 'channel', number: '5' }, { kind: 'channel', number: '5' })).toBe(true);
  });

  it('accepts the events the app sends and nothing else a page could send', () => {
    expect(isTvPageEvent({ type: 'state', state })).toBe(true);
    expect(isTvPageEvent({ type: 'started', playId: 2, media: { kind: 'channel', number: '5' }, ticket: 3 })).toBe(
      true,
    );
    expect(isTvPageEvent({ type: 'ended', playId: 2, reason: 'stopped', position: 3.5 })).toBe(true);
    expect(isTvPageEvent({ type: 'ended', playId: 2, reason: 'exploded' })).toBe(false);
    expect(isTvPageEvent({ type: 'started', playId: '2', media: { kind: 'item', id: 'x' } })).toBe(false);
    expect(isTvPageEvent({ type: 'state', state: { ...state, section: 'Kitchen' } })).toBe(false);
    expect(isTvPageEvent({ type: 'state', state: { ...state, seq: undefined } })).toBe(false);
    expect(isTvPageEvent({ type: 'shown', playId: 2, afterMs: 180 })).toBe(true);
    expect(isTvResult({ ok: true })).toBe(true);
    expect(isTvResult({ ok: false, code: 'no_captions', message: 'No captions.' })).toBe(true);
    expect(isTvResult({ ok: false })).toBe(false);
    expect(isTvResult(undefined)).toBe(false);
    expect(isPageState({ ...state, muted: 'yes' })).toBe(false);
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(typeof isTvPageEvent(value)).toBe('boolean');
      }),
    );
    fc.assert(
      fc.property(
        fc.record({
          type: fc.constantFrom('state', 'started', 'ended'),
          playId: fc.anything(),
          media: fc.anything(),
          state: fc.anything(),
          reason: fc.anything(),
        }),
        (value) => {
          expect(typeof isTvPageEvent(value)).toBe('boolean');
        },
      ),
    );
  });
});
