/**
 * Interface A's answers are cached as serialized bytes, keyed by request and
 * stamped with the library generation they were built from. A hit costs no query
 * and no serialization; a conditional GET whose ETag still matches answers 304
 * from the cache alone. Compressed variants are made once per body, off the event
 * loop, on first demand (cached-body.ts). Item state writes patch the answers holding
 * those items; under a stream of progress reports a list moves at most once per
 * hold. Memory is bounded: least recently used entries go first.
 */
import { createHash } from 'node:crypto';
import {
  type BodySegments,
  CHUNK_BYTES,
  type ChunkedBody,
  chunkAtItems,
  patchSegments,
  segmentsOf,
  segmentsPerPiece,
} from '../common/body-segments.js';
import type { ItemStateLog } from '../common/item-state-log.js';
import { CachedBody, strongEtag } from './cached-body.js';

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
 * come (see ResponseCache.holdsForProgress). Kept no longer than answer-front.ts's
 * COMPRESS_PATCHED_AFTER_MS: a held body living longer would have its whole brotli
 * made at every hold (56 MB each second) for the clients taking brotli alone.
 */
export const PROGRESS_HOLD_MS = 1000;

/**
 * What the cache tells /metrics, per route pattern: the cache knows no metrics library
 * (metrics/http-metrics.ts counts). A miss is always the router's: the answer front hands
 * its misses on without counting them.
 */
export interface CacheCounts {
  hit(route: string, answeredBy: 'front' | 'router'): void;
  miss(route: string): void;
}

export interface ResponseCacheOptions {
  /** Told of hits and misses, for /metrics. */
  counts?: CacheCounts | undefined;
  /**
   * Item state writes (positions, watched, favorites): the bodies holding those items are patched (see
   * common/item-state-log.ts).
   */
  stateLog?: ItemStateLog | undefined;
  /** Size of the pieces a list is kept in (default CHUNK_BYTES). */
  chunkBytes?: number | undefined;
  /**
   * How long a list patched for progress reports is answered as it is while more come (default PROGRESS_HOLD_MS; 0
   * holds none).
   */
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

  /**
   * The cached body for `key` if it was built from this generation of the library; `route` (its pattern) is what
   * /metrics counts it under.
   */
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
    if (log && entry.seq !== log.seq && !this.holdsForProgress(entry, log) && !this.patch(key, entry, log))
      return undefined;
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
   * never held; single items are never held; a report more than progressHoldMs after
   * the list last changed is seen at once (one player's reports, every 10 s, always are).
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
      // The body stays, ETag and all; its items' positions per piece are kept, worked out once rather than at every
      // later write.
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
    const body = new CachedBody(
      segments?.patchable ? chunkAtItems(identity, segments, this.chunkBytes) : identity,
      strongEtag(identity),
    );
    this.delete(key);
    if (body.size() <= this.maxBytes) {
      this.entries.set(key, {
        generation,
        body,
        seq: this.stateLog?.seq ?? 0,
        segments,
        patchedAt: Number.NEGATIVE_INFINITY,
      });
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
    return {
      entries: this.entries.size,
      bytes: this.bytes,
      hits: this.hits,
      misses: this.misses,
      front_hits: this.frontHits,
    };
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
