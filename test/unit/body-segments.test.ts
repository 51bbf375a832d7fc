/**
 * Patching answers made of items (common/body-segments.ts) over many writes in a row, as
 * a cached list lives under a player reporting progress: each patch starts from the last
 * one's pieces and per-piece positions, so a slip in either would show up only later.
 * Lists are long enough to use the id index (short ones are scanned) and may hold an id twice.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BodySegments,
  type ChunkedBody,
  chunkAtItems,
  describedArray,
  patchSegments,
} from '../../src/common/body-segments.js';

/** The list rendered from scratch from `values`, as the repositories do. */
function rendered(ids: readonly string[], values: Map<string, string>): { body: Buffer; segments: BodySegments } {
  const render = (id: string) => (values.has(id) ? Buffer.from(JSON.stringify({ id, v: values.get(id) })) : undefined);
  const body = describedArray(
    ids.map((id) => [id, render(id) as Buffer] as const),
    { patchable: true, render },
  );
  const { starts, ends } = segmentsOfList(ids, values);
  return { body, segments: { ids, starts, ends, patchable: true, render } };
}

/** Where each item sits, worked out independently of the module under test. */
function segmentsOfList(ids: readonly string[], values: Map<string, string>): { starts: number[]; ends: number[] } {
  const starts: number[] = [];
  const ends: number[] = [];
  let at = 1;
  ids.forEach((id, i) => {
    if (i > 0) at += 1;
    starts.push(at);
    at += Buffer.byteLength(JSON.stringify({ id, v: values.get(id) }));
    ends.push(at);
  });
  return { starts, ends };
}

const whole = (body: ChunkedBody) => Buffer.concat([...body.chunks]);

describe('patching a list many times in a row', () => {
  const pool = Array.from({ length: 80 }, (_, i) => `item-${i}`);
  const id = fc.constantFrom(...pool);
  // Values of many lengths, multi-byte characters included: items grow and shrink.
  const value = fc.string({ maxLength: 30, unit: fc.constantFrom('a', '7', 'é', '"', '\u2028', '😀') });

  it('gives the bytes and positions of a render from scratch after each patch, and leaves the versions before it as they were', () => {
    fc.assert(
      fc.property(
        // Short lists are scanned, longer ones indexed: both, with ids held twice.
        fc.oneof(fc.array(id, { maxLength: 20 }), fc.array(id, { minLength: 32, maxLength: 160, size: 'max' })),
        fc.array(fc.tuple(fc.uniqueArray(id, { minLength: 1, maxLength: 4 }), value), {
          minLength: 1,
          maxLength: 60,
          size: 'medium',
        }),
        fc.integer({ min: 1, max: 600 }),
        (ids, writes, chunkBytes) => {
          const values = new Map(pool.map((name) => [name, name.length.toString()]));
          const first = rendered(ids, values);
          let body = chunkAtItems(first.body, first.segments, chunkBytes);
          let segments = first.segments;
          const pieceCount = body.chunks.length;
          for (const [changedIds, v] of writes) {
            const before = { body, bytes: whole(body), starts: [...segments.starts] };
            for (const changedId of changedIds) values.set(changedId, v + changedId.length);
            const changed = new Set(changedIds);
            const patched = patchSegments(body, segments, changed);
            if (!patched) throw new Error('every item can be rendered');
            const fresh = rendered(ids, values);
            expect(whole(patched.body).equals(fresh.body)).toBe(true);
            expect(patched.body.length).toBe(fresh.body.length);
            expect(patched.body.chunks.length).toBe(pieceCount);
            expect(patched.segments.starts).toEqual(fresh.segments.starts);
            expect(patched.segments.ends).toEqual(fresh.segments.ends);
            patched.body.chunks.forEach((chunk, c) => {
              const at = patched.body.offsets[c] as number;
              expect(fresh.body.subarray(at, at + chunk.length).equals(chunk)).toBe(true);
            });
            // The rewritten items' bytes, in body order (what the chained ETag hashes).
            const held = ids.filter((i) => changed.has(i));
            expect(patched.rewritten.map(String)).toEqual(held.map((i) => JSON.stringify({ id: i, v: values.get(i) })));
            if (held.length === 0) expect(patched.body).toBe(body);
            // The version it was patched from may still be being sent: untouched.
            expect(whole(before.body).equals(before.bytes)).toBe(true);
            expect(segments.starts).toEqual(before.starts);
            body = patched.body;
            segments = patched.segments;
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('gives up when an item it holds can no longer be rendered, after patches and in a list long enough to be indexed', () => {
    const values = new Map(pool.map((name) => [name, 'x']));
    const first = rendered(pool, values);
    values.set('item-3', 'longer');
    const patched = patchSegments(chunkAtItems(first.body, first.segments, 64), first.segments, new Set(['item-3']));
    expect(patched && whole(patched.body).equals(rendered(pool, values).body)).toBe(true);
    values.delete('item-70');
    expect(
      patchSegments(patched?.body as ChunkedBody, patched?.segments as BodySegments, new Set(['item-70'])),
    ).toBeUndefined();
    // An id it does not hold changes nothing, whether or not it could be rendered.
    expect(
      patchSegments(patched?.body as ChunkedBody, patched?.segments as BodySegments, new Set(['elsewhere']))?.body,
    ).toBe(patched?.body);
  });
});
