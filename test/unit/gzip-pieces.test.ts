/**
 * A gzip member of pieces compressed one by one (common/gzip-pieces.ts): it inflates to
 * the pieces joined, after any piece is replaced; CRC-32s combine as one over the whole.
 */
import fc from 'fast-check';
import { crc32, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { type DeflatedPiece, crc32Combine, deflatePieceAsync, gzipParts } from '../../src/common/gzip-pieces.js';

/** The member's parts joined, checking the length they say they add up to. */
function gzipOf(pieces: readonly DeflatedPiece[]): Buffer {
  const { parts, length } = gzipParts(pieces);
  const member = Buffer.concat(parts);
  expect(member.length).toBe(length);
  return member;
}

const piece = fc.oneof(
  fc.uint8Array({ maxLength: 3000 }).map((bytes) => Buffer.from(bytes)),
  fc.string({ maxLength: 2000 }).map((text) => Buffer.from(JSON.stringify({ text, repeated: text.repeat(3) }))),
);

describe('gzip in pieces', () => {
  it('combines CRC-32s as the CRC of the bytes joined', () => {
    fc.assert(
      fc.property(piece, piece, (a, b) => {
        expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(Buffer.concat([a, b])));
      }),
      { numRuns: 500 },
    );
  });

  it('inflates to the pieces joined, and again after pieces are replaced', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 8 }),
        fc.array(fc.tuple(fc.nat(), piece), { maxLength: 4 }),
        async (pieces, replacements) => {
          const deflated = await Promise.all(pieces.map(deflatePieceAsync));
          expect(gunzipSync(gzipOf(deflated))).toEqual(Buffer.concat(pieces));
          for (const [at, bytes] of replacements) {
            if (pieces.length === 0) break;
            pieces[at % pieces.length] = bytes;
            deflated[at % pieces.length] = await deflatePieceAsync(bytes);
          }
          expect(gunzipSync(gzipOf(deflated))).toEqual(Buffer.concat(pieces));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('gives a gzip member other tools read: the size and CRC in its trailer', async () => {
    const pieces = [Buffer.from('{"a":1},'), Buffer.alloc(70_000, 'x'), Buffer.from('{"b":2}')];
    const member = gzipOf(await Promise.all(pieces.map(deflatePieceAsync)));
    expect(member.subarray(0, 3)).toEqual(Buffer.from([0x1f, 0x8b, 0x08]));
    expect(member.readUInt32LE(member.length - 4)).toBe(70_015);
    expect(member.readUInt32LE(member.length - 8)).toBe(crc32(Buffer.concat(pieces)));
  });
});
