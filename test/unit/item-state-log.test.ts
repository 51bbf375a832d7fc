/**
 * The item state log (common/item-state-log.ts) and the patching of answers made of
 * items (common/body-segments.ts): what a cached answer needs to be brought up to date
 * after position, watched and favorite writes, without being built again.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BodySegments, chunkAtItems, patchSegments } from '../../src/common/body-segments.js';
import { ItemStateLog } from '../../src/common/item-state-log.js';

describe('the item state log', () => {
  it('counts the rows a tracked write changed, and says which items changed since a point', () => {
    const log = new ItemStateLog(3);
    let total = 10;
    const changes = () => total;
    expect(log.track(['a'], changes, () => (total += 2))).toBe(12);
    log.track(['b'], changes, () => (total += 1));
    expect(log.rowsChanged).toBe(3);
    expect(log.seq).toBe(2);
    expect([...(log.idsSince(0) ?? [])].sort()).toEqual(['a', 'b']);
    expect([...(log.idsSince(1) ?? [])]).toEqual(['b']);
    expect(log.idsSince(2)).toEqual(new Set());
    // A write that changed nothing (an unknown id) is not a change.
    log.track(['c'], changes, () => false);
    expect(log.seq).toBe(2);
    // Beyond its capacity it forgets the oldest: an answer from before is built again.
    for (const id of ['d', 'e', 'f']) log.track([id], changes, () => (total += 1));
    expect(log.idsSince(1)).toBeUndefined();
    expect([...(log.idsSince(2) ?? [])].sort()).toEqual(['d', 'e', 'f']);
    expect(log.idsSince(99)).toBeUndefined();
  });

  it('says whether every write since a point was a progress report', () => {
    const log = new ItemStateLog(3);
    let total = 0;
    const write = (progress: boolean) =>
      log.track(
        ['a'],
        () => total,
        () => (total += 1),
        progress,
      );
    write(true);
    write(true);
    expect(log.onlyProgressSince(0)).toBe(true);
    expect(log.onlyProgressSince(2)).toBe(true);
    write(false);
    expect(log.onlyProgressSince(0)).toBe(false);
    expect(log.onlyProgressSince(3)).toBe(true);
    write(true);
    expect(log.onlyProgressSince(3)).toBe(true);
    expect(log.onlyProgressSince(2)).toBe(false);
    // Beyond what it remembers, or ahead of it: not known to be progress alone.
    write(true);
    expect(log.onlyProgressSince(0)).toBe(false);
    expect(log.onlyProgressSince(99)).toBe(false);
  });

  it('does not log a write that throws: what it did counts as any other change', () => {
    const log = new ItemStateLog();
    let total = 0;
    expect(() =>
      log.track(
        ['a'],
        () => total,
        () => {
          total += 1;
          throw new Error('constraint');
        },
      ),
    ).toThrow('constraint');
    expect(log.rowsChanged).toBe(0);
    expect(log.seq).toBe(0);
  });
});

/** A JSON array of `{"id":…,"v":…}` objects with its segments, rendering from `values`. */
function arrayOf(ids: readonly string[], values: Map<string, string>): { body: Buffer; segments: BodySegments } {
  const fragment = (id: string) => Buffer.from(JSON.stringify({ id, v: values.get(id) ?? '' }));
  const parts = ids.map(fragment);
  const starts: number[] = [];
  const ends: number[] = [];
  let at = 1;
  parts.forEach((part, i) => {
    if (i > 0) at += 1;
    starts.push(at);
    at += part.length;
    ends.push(at);
  });
  const body = Buffer.from(`[${parts.map(String).join(',')}]`);
  return {
    body,
    segments: { ids, starts, ends, patchable: true, render: (id) => (values.has(id) ? fragment(id) : undefined) },
  };
}

describe('patching an answer made of items', () => {
  it('gives the bytes a fresh render gives, with every item where it now is', () => {
    const id = fc.constantFrom('a', 'b', 'c', 'd', 'e');
    fc.assert(
      fc.property(
        fc.uniqueArray(id),
        fc.dictionary(id, fc.string({ maxLength: 6 })),
        fc.array(fc.dictionary(id, fc.string({ maxLength: 12 })), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 40 }),
        (ids, before, rounds, chunkBytes) => {
          const values = new Map(Object.entries(before));
          const first = arrayOf(ids, values);
          // Cut into small pieces, so items land in several and patches cross them.
          let body = chunkAtItems(first.body, first.segments, chunkBytes);
          let segments = first.segments;
          expect(Buffer.concat([...body.chunks]).toString()).toBe(first.body.toString());
          for (const after of rounds) {
            for (const [key, value] of Object.entries(after)) values.set(key, value);
            const changed = new Set(Object.keys(after));
            const patched = patchSegments(body, segments, changed);
            const fresh = arrayOf(ids, values);
            expect(Buffer.concat([...(patched?.body.chunks ?? [])]).toString()).toBe(fresh.body.toString());
            expect(patched?.body.length).toBe(fresh.body.length);
            expect(patched?.segments.starts).toEqual(fresh.segments.starts);
            expect(patched?.segments.ends).toEqual(fresh.segments.ends);
            // Each piece sits where its offset says.
            patched?.body.chunks.forEach((chunk, c) =>
              expect(
                fresh.body
                  .subarray(patched.body.offsets[c], (patched.body.offsets[c] as number) + chunk.length)
                  .equals(chunk),
              ).toBe(true),
            );
            // Nothing it holds changed: the very same pieces (and so the same ETag).
            if (!ids.some((i) => changed.has(i))) expect(patched?.body).toBe(body);
            body = patched?.body ?? body;
            segments = patched?.segments ?? segments;
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('gives up when an item can no longer be rendered', () => {
    const values = new Map([['a', '1']]);
    const { body, segments } = arrayOf(['a'], values);
    values.delete('a');
    expect(patchSegments(chunkAtItems(body, segments), segments, new Set(['a']))).toBeUndefined();
  });
});
