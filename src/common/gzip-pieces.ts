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
import { constants, crc32, deflateRaw } from 'node:zlib';

const deflateRawAsync = promisify(deflateRaw);

/** One piece: its deflate data (sync-flushed), and the CRC-32 and length of what it holds. */
export interface DeflatedPiece {
  deflated: Buffer;
  crc: number;
  length: number;
  /**
   * x^(8 length) modulo the CRC polynomial, which combining a CRC with this piece's takes
   * (crc32Combine): made once per piece, not at every gzip of a list holding it (it was
   * 18 multiplications a piece, half a millisecond a 50,000-episode list).
   */
  shift: number;
}

const OPTIONS = { finishFlush: constants.Z_SYNC_FLUSH };
/** ID1 ID2, deflate, no flags, no time, no extra flags, OS unknown (RFC 1952). */
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]);
/** An empty final block with fixed codes: BFINAL 1, BTYPE 01, end of block. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/** A piece deflated off the event loop (zlib's thread pool). */
export async function deflatePieceAsync(piece: Buffer): Promise<DeflatedPiece> {
  return {
    deflated: await deflateRawAsync(piece, OPTIONS),
    crc: crc32(piece),
    length: piece.length,
    shift: x2nModP(piece.length, 3),
  };
}

/**
 * The gzip member of the pieces as the buffers to send one after another (the header,
 * each piece's deflate data, the end), never joined: a 50,000-episode list's gzip is
 * 10 MB, and joining it again at every write cost more than deflating what changed.
 */
export function gzipParts(pieces: readonly DeflatedPiece[]): { parts: Buffer[]; length: number } {
  let crc = 0;
  let length = 0;
  let bytes = HEADER.length + FINAL_BLOCK.length + 8;
  const parts: Buffer[] = [HEADER];
  for (const piece of pieces) {
    crc = combineShifted(crc, piece.crc, piece.shift);
    length += piece.length;
    bytes += piece.deflated.length;
    parts.push(piece.deflated);
  }
  const end = Buffer.alloc(FINAL_BLOCK.length + 8);
  FINAL_BLOCK.copy(end);
  end.writeUInt32LE(crc >>> 0, FINAL_BLOCK.length);
  end.writeUInt32LE(length % 2 ** 32, FINAL_BLOCK.length + 4);
  parts.push(end);
  return { parts, length: bytes };
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
  return combineShifted(crcA, crcB, x2nModP(lengthB, 3));
}

/** crc32Combine with B's length given as its shift (DeflatedPiece.shift). */
function combineShifted(crcA: number, crcB: number, shift: number): number {
  return (multModP(shift, crcA >>> 0) ^ (crcB >>> 0)) >>> 0;
}
