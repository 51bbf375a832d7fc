/**
 * A gzip member made of pieces compressed one by one, so that a body kept in pieces (a
 * list of 50,000 items under a stream of position writes: common/body-segments.ts) is
 * compressed again only where it changed. Each piece is raw deflate ending in a sync
 * flush (byte-aligned, not final), so the pieces' deflate data laid end to end, closed by
 * an empty final block, is one valid deflate stream (as pigz makes its blocks); the gzip
 * trailer's CRC-32 is the pieces' CRCs combined (crc32Combine), never a pass over the body.
 * zlib offers no such thing to Node (its crc32_combine is not exposed): hence this file.
 */
import { promisify } from 'node:util';
import { constants, crc32, deflateRaw, deflateRawSync } from 'node:zlib';

const deflateRawAsync = promisify(deflateRaw);

/** One piece: its deflate data (sync-flushed), and the CRC-32 and length of what it holds. */
export interface DeflatedPiece {
  deflated: Buffer;
  crc: number;
  length: number;
}

const OPTIONS = { finishFlush: constants.Z_SYNC_FLUSH };
/** ID1 ID2, deflate, no flags, no time, no extra flags, OS unknown (RFC 1952). */
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]);
/** An empty final block with fixed codes: BFINAL 1, BTYPE 01, end of block. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/** A piece deflated here and now (a patched piece: a few milliseconds). */
export function deflatePiece(piece: Buffer): DeflatedPiece {
  return { deflated: deflateRawSync(piece, OPTIONS), crc: crc32(piece), length: piece.length };
}

/** A piece deflated off the event loop (zlib's thread pool). */
export async function deflatePieceAsync(piece: Buffer): Promise<DeflatedPiece> {
  return { deflated: await deflateRawAsync(piece, OPTIONS), crc: crc32(piece), length: piece.length };
}

/** The gzip member of the pieces, in one buffer (a tenth of the body, as JSON packs). */
export function gzipOf(pieces: readonly DeflatedPiece[]): Buffer {
  let crc = 0;
  let length = 0;
  for (const piece of pieces) {
    crc = crc32Combine(crc, piece.crc, piece.length);
    length += piece.length;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(length % 2 ** 32, 4);
  return Buffer.concat([HEADER, ...pieces.map((piece) => piece.deflated), FINAL_BLOCK, trailer]);
}

// CRC-32 combination (zlib's crc32_combine, by powers of x modulo the CRC polynomial, reflected).
const POLY = 0xedb88320;

/** a(x) b(x) modulo p(x), reflected. */
function multModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) modulo p(x), k = 0..31. */
const X2N: number[] = [];
X2N[0] = 0x40000000;
for (let k = 1; k < 32; k++) X2N[k] = multModP(X2N[k - 1] as number, X2N[k - 1] as number);

/** x^(n 2^k) modulo p(x). */
function x2nModP(n: number, k: number): number {
  let p = 0x80000000;
  while (n > 0) {
    if (n % 2 === 1) p = multModP(X2N[k & 31] as number, p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}

/** The CRC-32 of A followed by B, from A's CRC, B's CRC and B's length. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return (multModP(x2nModP(lengthB, 3), crcA >>> 0) ^ (crcB >>> 0)) >>> 0;
}
