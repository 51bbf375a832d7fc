import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  demuxerOptions,
  LIVE_DEMUXER_OPTIONS,
  mpvArguments,
  mpvOptionProblem,
  RESERVED_MPV_OPTIONS,
} from '../../src/player/mpv/mpv-args.js';
import { type MpvMessage, takeMessages } from '../../src/player/mpv/mpv-ipc.js';

describe('mpvArguments', () => {
  const socketPath = '/tmp/antenna-player/mpv.sock';

  it('always runs mpv without its config, idle, listening on the IPC socket', () => {
    for (const display of [false, true]) {
      const args = mpvArguments({ socketPath, display, options: [] });
      expect(args).toContain('--no-config');
      expect(args).toContain('--idle=yes');
      expect(args).toContain(`--input-ipc-server=${socketPath}`);
    }
  });

  it('outputs nothing without a display', () => {
    const args = mpvArguments({ socketPath, display: false, options: [] });
    expect(args).toContain('--vo=null');
    expect(args).toContain('--ao=null');
    expect(args).not.toContain('--fullscreen=yes');
    expect(args.some((arg) => arg.startsWith('--fullscreen'))).toBe(false);
    expect(args).not.toContain('--force-window=yes');
  });

  it('keeps one fullscreen window without controls on a display', () => {
    const args = mpvArguments({ socketPath, display: true, options: [] });
    expect(args).toContain('--force-window=yes');
    expect(args).toContain('--fullscreen=yes');
    expect(args).toContain('--osc=no');
    expect(args).not.toContain('--vo=null');
    expect(args).not.toContain('--ao=null');
  });

  it("appends the user's options last, as --name=value or --flag", () => {
    for (const display of [false, true]) {
      const plain = mpvArguments({ socketPath, display, options: [] });
      const args = mpvArguments({ socketPath, display, options: ['hwdec=auto', 'volume=50', 'no-border'] });
      expect(args.slice(0, plain.length)).toEqual(plain);
      expect(args.slice(plain.length)).toEqual(['--hwdec=auto', '--volume=50', '--no-border']);
    }
  });

  it('puts the socket path in one argument even with spaces in it', () => {
    const args = mpvArguments({ socketPath: '/tmp/my player/mpv.sock', display: false, options: [] });
    expect(args).toContain('--input-ipc-server=/tmp/my player/mpv.sock');
  });
});

describe('mpvOptionProblem', () => {
  it.each([
    'hwdec=auto',
    'volume=50',
    'no-border',
    'sub-font-size=40',
    'ytdl-format=best[height<=720]',
    'af=lavfi=[loudnorm]',
  ])('accepts %j', (option) => {
    expect(mpvOptionProblem(option)).toBeUndefined();
  });

  it.each([
    'input-ipc-server=/x',
    'idle=no',
    'no-config',
    'config=yes',
    'keep-open=yes',
    'no-terminal',
    'force-window=no',
  ])('refuses the reserved %j', (option) => {
    expect(mpvOptionProblem(option)).toMatch(/the player sets --/);
  });

  it.each(['Bad Option', '--hwdec=auto', '', '=yes', '-x', 'hw dec=auto'])('refuses the malformed %j', (option) => {
    expect(mpvOptionProblem(option)).toMatch(/is not an mpv option/);
  });

  it('refuses every reserved option, with a value, bare or negated', () => {
    for (const name of RESERVED_MPV_OPTIONS) {
      expect(mpvOptionProblem(name)).toBeDefined();
      expect(mpvOptionProblem(`${name}=yes`)).toBeDefined();
      expect(mpvOptionProblem(`no-${name}`)).toBeDefined();
    }
  });
});

describe('takeMessages', () => {
  it('parses the complete lines and keeps the unfinished tail', () => {
    const { messages, rest } = takeMessages('{"event":"idle"}\n{"request_', 'id":1,"error":"success"}\n{"event":"se');
    expect(messages).toEqual([{ event: 'idle' }, { request_id: 1, error: 'success' }]);
    expect(rest).toBe('{"event":"se');
  });

  it('keeps everything as the rest until a line ends', () => {
    expect(takeMessages('', '{"event":"idle"}')).toEqual({ messages: [], rest: '{"event":"idle"}' });
    expect(takeMessages('{"event":', '"idle"}\n')).toEqual({ messages: [{ event: 'idle' }], rest: '' });
  });

  it('skips blank lines and lines that are not JSON objects', () => {
    const text = [
      '',
      '   ',
      '[1]',
      '42',
      'garbage',
      'null',
      '"text"',
      'true',
      '{"event":"seek"}',
      '{broken',
      '{"request_id":3,"error":"success","data":[1]}',
      '',
    ].join('\n');
    const { messages, rest } = takeMessages('', text);
    expect(messages).toEqual([{ event: 'seek' }, { request_id: 3, error: 'success', data: [1] }]);
    expect(rest).toBe('');
  });

  it('gives back exactly the objects sent, in order, however the text is cut into chunks', () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.boolean());
    const objects = fc.array(fc.dictionary(fc.string(), value, { maxKeys: 5 }), { maxLength: 12 });
    fc.assert(
      fc.property(objects, fc.array(fc.nat(), { maxLength: 20 }), (sent, cuts) => {
        const text = sent.map((object) => `${JSON.stringify(object)}\n`).join('');
        const positions = [...new Set(cuts.map((cut) => (text.length === 0 ? 0 : cut % (text.length + 1))))].sort(
          (a, b) => a - b,
        );
        const chunks: string[] = [];
        let from = 0;
        for (const position of [...positions, text.length]) {
          chunks.push(text.slice(from, position));
          from = position;
        }
        expect(chunks.join('')).toBe(text);
        const received: MpvMessage[] = [];
        let rest = '';
        for (const chunk of chunks) {
          const taken = takeMessages(rest, chunk);
          received.push(...taken.messages);
          rest = taken.rest;
        }
        expect(received).toEqual(sent);
        expect(rest).toBe('');
      }),
    );
  });
});

describe('mpvArguments: what mpv may open', () => {
  it('never hands a URL to youtube-dl', () => {
    expect(mpvArguments({ socketPath: '/tmp/s', display: false, options: [] })).toContain('--ytdl=no');
  });
});

describe('demuxerOptions', () => {
  it('starts live TV at the playlist’s first segment without measuring the frame rate first', () => {
    expect(demuxerOptions({}, true)).toEqual({ live_start_index: '0', fpsprobesize: '0' });
    expect(demuxerOptions({}, false)).toEqual({});
    expect(demuxerOptions({ probesize: '32768', fpsprobesize: '5' }, true)).toEqual({
      probesize: '32768',
      live_start_index: '0',
      fpsprobesize: '0',
    });
  });

  it('keeps the user’s own options on every load, the live ones over them', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.oneof(
            fc.constantFrom('fpsprobesize', 'live_start_index'),
            fc.stringMatching(/^[a-z]{1,12}(_[a-z]{1,8})?$/),
          ),
          fc.string(),
        ),
        fc.boolean(),
        (user, live) => {
          const merged = demuxerOptions(user, live);
          for (const [key, value] of Object.entries(user))
            expect(merged[key]).toBe(
              live && Object.hasOwn(LIVE_DEMUXER_OPTIONS, key) ? LIVE_DEMUXER_OPTIONS[key] : value,
            );
          if (live) expect(merged).toMatchObject(LIVE_DEMUXER_OPTIONS);
          else expect(Object.keys(merged).sort()).toEqual(Object.keys(user).sort());
        },
      ),
    );
  });
});
