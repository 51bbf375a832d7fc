/**
 * A cached answer's bytes and their compressed variants: the identity bytes in pieces
 * (a list, cut at item ends so a patch copies one piece), their strong ETag, gzip made
 * piece by piece off the event loop (each piece deflated once, whatever bodies share
 * it), brotli streamed; and the negotiation of the encoding a client is answered in.
 */
import { createHash } from 'node:crypto';
import type { ChunkedBody } from '../common/body-segments.js';
import { type DeflatedPiece, deflatePieceAsync, gzipParts } from '../common/gzip-pieces.js';
import { promisify } from 'node:util';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { brotliCompress, constants as zlibConstants, createBrotliCompress, createGzip, gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

export type Encoding = 'br' | 'gzip' | 'identity';

/**
 * An answer's bytes as buffers sent one after another, and their total: a list kept in
 * pieces is sent as its pieces (and its gzip as each piece's deflate data), never joined.
 */
export interface Payload {
  readonly parts: readonly Buffer[];
  readonly length: number;
}

function whole(bytes: Buffer): Payload {
  return { parts: [bytes], length: bytes.length };
}

/** Bodies smaller than this are sent as they are: compressing them saves nothing. */
const MIN_COMPRESSIBLE = 1024;

export class CachedBody {
  private readonly variants = new Map<Exclude<Encoding, 'identity'>, Promise<Payload>>();
  /** Compressed variants already made, for answers that must not wait. */
  private readonly ready = new Map<Exclude<Encoding, 'identity'>, Payload>();
  /** The identity bytes in pieces (one for most bodies; cut at item ends for bodies that may be patched). */
  readonly chunks: readonly Buffer[];
  readonly offsets: readonly number[];
  /** Bytes of the identity body. */
  readonly length: number;
  /** performance.now() when it was made. */
  readonly madeAt = performance.now();
  private joined: Buffer | undefined;

  constructor(
    content: Buffer | ChunkedBody,
    /** The strong validator of the identity bytes, quoted. */
    readonly etag: string,
    /** Made by patching a cached body (see ResponseCache): answered as it is until a compressed variant is ready. */
    readonly patched = false,
  ) {
    const chunked = Buffer.isBuffer(content) ? { chunks: [content], offsets: [0], length: content.length } : content;
    this.chunks = chunked.chunks;
    this.offsets = chunked.offsets;
    this.length = chunked.length;
    this.identityPayload = { parts: this.chunks, length: this.length };
  }

  /** The identity bytes as they are kept (one buffer, or the pieces). */
  readonly identityPayload: Payload;

  /** The bytes to send in `encoding` if they are made (identity always is). */
  payloadNow(encoding: Encoding): Payload | undefined {
    return encoding === 'identity' ? this.identityPayload : this.encodedNow(encoding);
  }

  /** Gzipped piece by piece (see deflatedPieces): a body in pieces. */
  get piecewise(): boolean {
    return this.chunks.length > 1;
  }

  /** The identity bytes in one buffer (joined once, on first demand, when in pieces). */
  get identity(): Buffer {
    if (this.chunks.length === 1) return this.chunks[0] as Buffer;
    return (this.joined ??= Buffer.concat(this.chunks as Buffer[], this.length));
  }

  /** The ETag of one encoding: a compressed body is a different representation. */
  etagFor(encoding: Encoding): string {
    return encoding === 'identity' ? this.etag : `${this.etag.slice(0, -1)}-${encoding}"`;
  }

  /** True when one of the client's validators names any representation of this body. */
  matches(ifNoneMatch: string): boolean {
    const base = this.etag.slice(1, -1);
    return ifNoneMatch.split(',').some((raw) => {
      const tag = raw.trim().replace(/^W\//, '');
      return tag === '*' || tag === this.etag || (tag.startsWith(`"${base}-`) && tag.endsWith('"'));
    });
  }

  compressible(): boolean {
    return this.length >= MIN_COMPRESSIBLE;
  }

  encoded(encoding: Exclude<Encoding, 'identity'>): Promise<Payload> {
    let variant = this.variants.get(encoding);
    if (!variant) {
      // In pieces: gzip piece by piece, brotli streamed through the compressor (joining a patched 50 MB list first
      // would block the event loop).
      variant =
        this.chunks.length === 1
          ? compress(encoding, this.identity, this.length)
          : encoding === 'gzip'
            ? this.gzipInPieces()
            : compressChunks(encoding, this.chunks, this.length);
      this.variants.set(encoding, variant);
      variant.then(
        (bytes) => this.ready.set(encoding, bytes),
        () => this.variants.delete(encoding),
      );
    }
    return variant;
  }

  /** The variant if it is already made; undefined while it is being made or before it is asked for. */
  encodedNow(encoding: Exclude<Encoding, 'identity'>): Payload | undefined {
    return this.ready.get(encoding);
  }

  /**
   * Whether its gzip is made, or is a few milliseconds away: a body in pieces all but a
   * few of whose pieces are deflated already (a patched list: the pieces it changed).
   * Those are deflated off the event loop (encoded), and its readers wait for them.
   */
  gzipSoon(): boolean {
    if (this.ready.has('gzip')) return true;
    // Its pieces would wait behind whatever zlib's pool is deflating (a fresh list's hundreds: 178 ms instead of 4).
    if (!this.piecewise || piecesDeflating > DEFLATE_SOON_MAX) return false;
    let missing = 0;
    for (const chunk of this.chunks) if (!deflatedPieces.has(chunk) && ++missing > DEFLATE_SOON_MAX) return false;
    return true;
  }

  /**
   * Every piece deflated off the event loop (zlib's thread pool; each piece once, whatever bodies share it), then the
   * gzip member of them.
   */
  private async gzipInPieces(): Promise<Payload> {
    return gzipParts(await Promise.all(this.chunks.map(deflatedLater)));
  }

  /** Bytes held: the identity body plus an allowance for compressed variants (JSON packs to well under a quarter). */
  size(): number {
    return this.length + Math.ceil(this.length / 4);
  }
}

/**
 * The deflate data of the pieces of bodies (common/gzip-pieces.ts), by piece: a patched
 * body shares its unchanged pieces (the same buffers) with the body it was patched from,
 * so their deflate data are made once, and go with the pieces.
 */
const deflatedPieces = new WeakMap<Buffer, DeflatedPiece>();
const deflating = new WeakMap<Buffer, Promise<DeflatedPiece>>();
/**
 * Pieces left to deflate for a gzip its readers wait for: about 3 ms each, in zlib's
 * thread pool (so nothing else waits: deflated on the event loop, the piece a write
 * changed stalled every answer under way). A list held under progress reports (see
 * ResponseCache.holdsForProgress) moves with a second's reports at once, about ten
 * pieces: with 4, its gzip readers were sent the 56 MB as they are instead (reads up
 * to 1 s where 16 kept them under 300 ms, bench/reads-under-writes.mjs).
 */
const DEFLATE_SOON_MAX = 16;
/** Pieces being deflated in zlib's pool now, whatever body asked: a gzip is soon only when few are ahead of its own. */
let piecesDeflating = 0;

function deflatedLater(chunk: Buffer): DeflatedPiece | Promise<DeflatedPiece> {
  const done = deflatedPieces.get(chunk);
  if (done) return done;
  let pending = deflating.get(chunk);
  if (!pending) {
    piecesDeflating++;
    pending = deflatePieceAsync(chunk).then(
      (piece) => {
        piecesDeflating--;
        deflatedPieces.set(chunk, piece);
        deflating.delete(chunk);
        return piece;
      },
      (error: unknown) => {
        // Tried again by the next body that asks, not failed for good.
        piecesDeflating--;
        deflating.delete(chunk);
        throw error;
      },
    );
    deflating.set(chunk, pending);
  }
  return pending;
}

// Quality 5 compresses within a few percent of the maximum at a tenth of its cost.
const brotliOptions = (length: number) => ({
  params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: length },
});

async function compress(encoding: Exclude<Encoding, 'identity'>, bytes: Buffer, length: number): Promise<Payload> {
  return whole(await (encoding === 'gzip' ? gzipAsync(bytes) : brotliAsync(bytes, brotliOptions(length))));
}

async function compressChunks(
  encoding: Exclude<Encoding, 'identity'>,
  chunks: readonly Buffer[],
  length: number,
): Promise<Payload> {
  const out: Buffer[] = [];
  let bytes = 0;
  // Its output in pieces of 64 KB rather than 16 KB: fewer buffers to send (see Payload).
  const options = { chunkSize: 64 * 1024 };
  const compressor =
    encoding === 'gzip' ? createGzip(options) : createBrotliCompress({ ...options, ...brotliOptions(length) });
  // Collected by a sink at the end of the pipeline: it ends only after the compressor's last bytes.
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      out.push(chunk);
      bytes += chunk.length;
      done();
    },
  });
  await pipeline(Readable.from(chunks, { objectMode: false }), compressor, sink);
  // Sent as the compressor gave it, in pieces (see Payload).
  return { parts: out, length: bytes };
}

export function strongEtag(body: Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/**
 * The best encoding the client accepts: brotli, then gzip, then the bytes as they
 * are. Honours q-values, including q=0 refusals and `*`.
 */
export function negotiateEncoding(acceptEncoding: string | undefined): Encoding {
  if (!acceptEncoding) return 'identity';
  const weightOf = weights(acceptEncoding);
  const br = weightOf('br');
  const gz = weightOf('gzip');
  if (br > 0 && br >= gz) return 'br';
  if (gz > 0) return 'gzip';
  return 'identity';
}

/** Whether the client accepts `encoding` at all (a q-value above 0, named or through `*`). */
export function accepts(acceptEncoding: string | undefined, encoding: Exclude<Encoding, 'identity'>): boolean {
  return acceptEncoding !== undefined && weights(acceptEncoding)(encoding) > 0;
}

function weights(acceptEncoding: string): (name: string) => number {
  const byName = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name = '', ...parameters] = part.trim().toLowerCase().split(';');
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    byName.set(name.trim(), Number.isFinite(weight) ? weight : 0);
  }
  return (name) => byName.get(name) ?? byName.get('*') ?? 0;
}
