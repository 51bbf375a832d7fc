import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CommercialSkipMode,
  type SkipAction,
  type SkipState,
  type Span,
  breakSpans,
  marksMayChange,
  onPosition,
  spanLength,
  startSkipState,
} from '../../src/player/commercial-skip.js';

const BREAKS: Span[] = [
  [60, 150],
  [400, 520],
];

/** Plays from `from` to `to` in steps of `step` seconds; every action on the way. */
function play(state: SkipState, from: number, to: number, mode: CommercialSkipMode, step = 0.5, spans = BREAKS) {
  const actions: SkipAction[] = [];
  let current = state;
  for (let t = from; t <= to; t += step) {
    const seen = onPosition(current, spans, { position: t }, mode);
    current = seen.state;
    if (seen.action.kind !== 'none') actions.push(seen.action);
  }
  return { state: current, actions };
}

describe('breakSpans', () => {
  it('pairs marks, drops a dangling start and empty or reversed spans, and sorts', () => {
    expect(breakSpans([400, 520, 60, 150, 10, 10, 30, 20, 900])).toEqual([
      [60, 150],
      [400, 520],
    ]);
    expect(breakSpans(undefined)).toEqual([]);
    expect(breakSpans([Number.NaN, 5])).toEqual([]);
  });
});

describe('onPosition', () => {
  it('skips a break once when playback runs into it in auto mode', () => {
    const { actions } = play(startSkipState(0), 0, 200, 'auto');
    expect(actions).toEqual([{ kind: 'skip', span: [60, 150] }]);
  });

  it('asks instead of skipping in ask mode, and does nothing in off mode', () => {
    expect(play(startSkipState(0), 0, 200, 'ask').actions).toEqual([{ kind: 'ask', span: [60, 150] }]);
    expect(play(startSkipState(0), 0, 600, 'off').actions).toEqual([]);
  });

  it('never skips a break entered by a seek, and never again once it was skipped and undone', () => {
    let state = play(startSkipState(0), 0, 50, 'auto').state;
    // A seek to the middle of the second break.
    let seen = onPosition(state, BREAKS, { position: 450, seeked: true }, 'auto');
    expect(seen.action).toEqual({ kind: 'none' });
    state = play(seen.state, 450.5, 460, 'auto').state;
    expect(play(state, 460, 530, 'auto').actions).toEqual([]);

    // Auto-skip of the first break, then Undo: back to its start, played through.
    state = play(startSkipState(0), 55, 61, 'auto').state;
    seen = onPosition(state, BREAKS, { position: 150, seeked: true }, 'auto');
    seen = onPosition(seen.state, BREAKS, { position: 60, seeked: true }, 'auto');
    expect(play(seen.state, 60.5, 160, 'auto').actions).toEqual([]);
  });

  it('takes a jump of the position it did not hear about as a seek', () => {
    const state = play(startSkipState(0), 0, 30, 'auto').state;
    expect(onPosition(state, BREAKS, { position: 100 }, 'auto').action).toEqual({ kind: 'none' });
  });

  it('does not skip a break when playback resumed inside it, but skips one at the very start', () => {
    expect(play(startSkipState(100), 100, 200, 'auto').actions).toEqual([]);
    expect(play(startSkipState(0), 0, 10, 'auto', 0.5, [[0, 90]]).actions).toEqual([{ kind: 'skip', span: [0, 90] }]);
  });

  it('skips a break whose marks arrive while playback is already in it', () => {
    const before = play(startSkipState(0), 0, 80, 'auto', 0.5, []).state;
    const seen = onPosition(before, BREAKS, { position: 80.5 }, 'auto');
    expect(seen.action).toEqual({ kind: 'skip', span: [60, 150] });
  });

  it('keeps a refined break handled when its marks move a little', () => {
    const skipped = play(startSkipState(0), 55, 61, 'auto').state;
    const back = onPosition(skipped, BREAKS, { position: 58, seeked: true }, 'auto').state;
    const refined: Span[] = [[59, 151]];
    expect(play(back, 58.5, 70, 'auto', 0.5, refined).actions).toEqual([]);
  });

  it('never skips whatever the positions when seeks land only inside breaks (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ position: fc.double({ min: 0, max: 700, noNaN: true }), seeked: fc.boolean() })),
        (looks) => {
          let state = startSkipState(200);
          for (const look of looks) {
            // Every look is a seek: playback never runs into anything.
            const seen = onPosition(state, BREAKS, { position: look.position, seeked: true }, 'auto');
            expect(seen.action.kind).toBe('none');
            state = seen.state;
          }
        },
      ),
    );
  });

  it('acts on each break at most once per play (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 700, noNaN: true }), { maxLength: 60 }),
        fc.constantFrom<CommercialSkipMode>('off', 'ask', 'auto'),
        (positions, mode) => {
          let state = startSkipState(0);
          const acted: Span[] = [];
          for (const position of positions) {
            const seen = onPosition(state, BREAKS, { position }, mode);
            state = seen.state;
            if (seen.action.kind !== 'none') acted.push(seen.action.span);
          }
          expect(new Set(acted.map((span) => span[0])).size).toBe(acted.length);
          if (mode === 'off') expect(acted).toEqual([]);
        },
      ),
    );
  });
});

describe('spanLength', () => {
  it('says minutes and seconds', () => {
    expect(spanLength([60, 210])).toBe('2:30');
    expect(spanLength([0, 9.6])).toBe('0:10');
  });
});

describe('marksMayChange', () => {
  it('reads marks again only while detection is unfinished, never for an import', () => {
    for (const state of ['pending', 'live', 'live_failed', 'final'])
      expect(marksMayChange({ file: { commercial_detection: { state } } })).toBe(true);
    for (const state of ['done', 'failed', 'off'])
      expect(marksMayChange({ file: { commercial_detection: { state } } })).toBe(false);
    expect(marksMayChange({ file: {} })).toBe(false);
    expect(marksMayChange({})).toBe(false);
  });
});
