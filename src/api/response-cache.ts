/**
 * Interface A's answers are cached as serialized bytes, keyed by request and
 * stamped with the library generation they were built from. A hit costs no query
 * and no serialization; a conditional GET whose ETag still matches answers 304
 * from the cache alone. Compressed variants are made once per body, off the event
 * loop, on first demand. Memory is bounded: least recently used entries go first.
 */
import { createHash } from 'node:crypto';
import { type BodySegments, CHUNK_BYTES, type ChunkedBody, chunkAtItems, patchSegments, segmentsOf, segmentsPerPiece } from '../common/body-segments.js';
import { type DeflatedPiece, deflatePieceAsync, gzipParts } from '../common/gzip-pieces.js';
import type { ItemStateLog } from '../common/item-state-log.js';
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
      // In pieces: gzip piece by piece, brotli streamed through the compressor (joining a patched 50 MB list first would block the event loop).
      variant =
        this.chunks.length === 1 ? compress(encoding, this.identity, this.length) : encoding === 'gzip' ? this.gzipInPieces() : compressChunks(encoding, this.chunks, this.length);
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

  /** Every piece deflated off the event loop (zlib's thread pool; each piece once, whatever bodies share it), then the gzip member of them. */
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
const brotliOptions = (length: number) => ({ params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: length } });

async function compress(encoding: Exclude<Encoding, 'identity'>, bytes: Buffer, length: number): Promise<Payload> {
  return whole(await (encoding === 'gzip' ? gzipAsync(bytes) : brotliAsync(bytes, brotliOptions(length))));
}

async function compressChunks(encoding: Exclude<Encoding, 'identity'>, chunks: readonly Buffer[], length: number): Promise<Payload> {
  const out: Buffer[] = [];
  let bytes = 0;
  // Its output in pieces of 64 KB rather than 16 KB: fewer buffers to send (see Payload).
  const options = { chunkSize: 64 * 1024 };
  const compressor = encoding === 'gzip' ? createGzip(options) : createBrotliCompress({ ...options, ...brotliOptions(length) });
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

/**
 * Whether a patch wrote every item again as it was (a show's entry when one of its
 * episodes' positions moved: its bytes hold no position). Such a body keeps its ETag, so
 * its holders are still answered 304; only the pieces the patch made are compared.
 */
function sameBytes(before: CachedBody, after: ChunkedBody): boolean {
  if (before.length !== after.length) return false;
  for (let i = 0; i < after.chunks.length; i++) {
    const chunk = after.chunks[i] as Buffer;
    if (chunk !== before.chunks[i] && !chunk.equals(before.chunks[i] as Buffer)) return false;
  }
  return true;
}

export function strongEtag(body: Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

interface Entry {
  generation: string;
  body: CachedBody;
  /** The item state log's seq the body reflects. */
  seq: number;
  /** Where its items sit, when it is made of items (lists and single items). */
  segments: BodySegments | undefined;
  /** performance.now() when a patch last changed its bytes; -Infinity for a body as rendered. */
  patchedAt: number;
}

/**
 * How long a list patched for progress reports is answered as it is while more reports
 * come (see ResponseCache.holdsForProgress).
 */
export const PROGRESS_HOLD_MS = 1000;

/**
 * What the cache tells /metrics, per route pattern: the cache knows no metrics library
 * (api/http-metrics.ts counts). A miss is always the router's: the answer front hands
 * its misses on without counting them.
 */
export interface CacheCounts {
  hit(route: string, answeredBy: 'front' | 'router'): void;
  miss(route: string): void;
}

export interface ResponseCacheOptions {
  /** Told of hits and misses, for /metrics. */
  counts?: CacheCounts | undefined;
  /** Item state writes (positions, watched, favorites): the bodies holding those items are patched (see common/item-state-log.ts). */
  stateLog?: ItemStateLog | undefined;
  /** Size of the pieces a list is kept in (default CHUNK_BYTES). */
  chunkBytes?: number | undefined;
  /** How long a list patched for progress reports is answered as it is while more come (default PROGRESS_HOLD_MS; 0 holds none). */
  progressHoldMs?: number | undefined;
  /** The clock of the hold, in ms (performance.now by default). */
  now?: (() => number) | undefined;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  hits = 0;
  misses = 0;
  /** Hits the answer front served before routing (counted in `hits` too). */
  frontHits = 0;

  private readonly counts: CacheCounts | undefined;
  private readonly stateLog: ItemStateLog | undefined;
  private readonly chunkBytes: number;
  private readonly progressHoldMs: number;
  private readonly now: () => number;

  constructor(
    private readonly maxBytes: number,
    options: ResponseCacheOptions = {},
  ) {
    this.counts = options.counts;
    this.stateLog = options.stateLog;
    this.chunkBytes = options.chunkBytes ?? CHUNK_BYTES;
    this.progressHoldMs = options.progressHoldMs ?? PROGRESS_HOLD_MS;
    this.now = options.now ?? (() => performance.now());
  }

  /** The cached body for `key` if it was built from this generation of the library; `route` (its pattern) is what /metrics counts it under. */
  get(key: string, generation: string, route = ''): CachedBody | undefined {
    const body = this.peek(key, generation);
    if (body) {
      this.hits++;
      this.counts?.hit(route, 'router');
    } else {
      this.misses++;
      this.counts?.miss(route);
    }
    return body;
  }

  /**
   * Like get, without counting: the answer front counts a hit only once it has
   * answered, and leaves a miss to the route it hands the request to.
   */
  peek(key: string, generation: string): CachedBody | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.generation !== generation) return undefined;
    const log = this.stateLog;
    if (log && entry.seq !== log.seq && !this.holdsForProgress(entry, log) && !this.patch(key, entry, log)) return undefined;
    // Re-insert to mark it most recently used (Map keeps insertion order).
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.body;
  }

  /**
   * Whether a list is answered as it is although progress reports (a player's resume
   * position) changed items in it: only while it was patched less than progressHoldMs
   * ago, and only when nothing but progress was written since. A player reports every
   * few seconds; a list re-sent at each report sends its every conditional reader the
   * whole list again (a 50,000-episode list: 56 MB) where a 304 would do, so under a
   * stream of reports a list moves at most once a second. A mark (watched, favorite) is
   * never held; single items are never held; an isolated report is seen at once.
   */
  private holdsForProgress(entry: Entry, log: ItemStateLog): boolean {
    if (!entry.segments || entry.segments.ids.length < 2) return false;
    return this.now() - entry.patchedAt < this.progressHoldMs && log.onlyProgressSince(entry.seq);
  }

  /**
   * Brings an entry up to the item state log: the items written since it was made get
   * their bytes written again (a new ETag chained from the old one and what changed:
   * hashing a 50 MB list again would cost more than the patch); an entry that is not
   * made of items, or whose list depends on item state, is dropped to be built again.
   */
  private patch(key: string, entry: Entry, log: ItemStateLog): boolean {
    const changed = entry.segments?.patchable ? log.idsSince(entry.seq) : undefined;
    // A cached body is its own ChunkedBody (pieces, offsets, length).
    const patched = changed && entry.segments && patchSegments(entry.body, entry.segments, changed);
    if (!patched) {
      this.delete(key);
      return false;
    }
    entry.seq = log.seq;
    if (patched.body === entry.body) return true;
    if (sameBytes(entry.body, patched.body)) {
      // The body stays, ETag and all; its items' positions per piece are kept, worked out once rather than at every later write.
      entry.segments = segmentsPerPiece(entry.body, entry.segments as BodySegments);
      return true;
    }
    // The old tag and each rewritten item's new bytes: the same tag again means the same bytes again.
    const tag = createHash('sha1').update(entry.body.etag);
    for (const bytes of patched.rewritten) tag.update(bytes);
    const chained = new CachedBody(patched.body, `"${tag.digest('base64url')}"`, true);
    this.bytes += chained.size() - entry.body.size();
    entry.body = chained;
    entry.patchedAt = this.now();
    entry.segments = patched.segments;
    this.evict();
    return this.entries.get(key) === entry;
  }

  set(key: string, generation: string, identity: Buffer): CachedBody {
    const segments = segmentsOf(identity);
    // A body of items is kept in pieces cut at item ends (views, no copy), so a patch copies one piece.
    const body = new CachedBody(segments?.patchable ? chunkAtItems(identity, segments, this.chunkBytes) : identity, strongEtag(identity));
    this.delete(key);
    if (body.size() <= this.maxBytes) {
      this.entries.set(key, { generation, body, seq: this.stateLog?.seq ?? 0, segments, patchedAt: Number.NEGATIVE_INFINITY });
      this.bytes += body.size();
      this.evict();
    }
    return body;
  }

  /** The answer front answered from a body it peeked. */
  countFrontHit(route = ''): void {
    this.hits++;
    this.frontHits++;
    this.counts?.hit(route, 'front');
  }

  stats(): { entries: number; bytes: number; hits: number; misses: number; front_hits: number } {
    return { entries: this.entries.size, bytes: this.bytes, hits: this.hits, misses: this.misses, front_hits: this.frontHits };
  }

  private delete(key: string): void {
    const old = this.entries.get(key);
    if (old) {
      this.bytes -= old.body.size();
      this.entries.delete(key);
    }
  }

  private evict(): void {
    for (const key of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(key);
    }
  }
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
