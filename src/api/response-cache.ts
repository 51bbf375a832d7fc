/**
 * Interface A's answers are cached as serialized bytes, keyed by request and
 * stamped with the library generation they were built from. A hit costs no query
 * and no serialization; a conditional GET whose ETag still matches answers 304
 * from the cache alone. Compressed variants are made once per body, off the event
 * loop, on first demand. Memory is bounded: least recently used entries go first.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

export type Encoding = 'br' | 'gzip' | 'identity';

/** Bodies smaller than this are sent as they are: compressing them saves nothing. */
const MIN_COMPRESSIBLE = 1024;

export class CachedBody {
  private readonly variants = new Map<Exclude<Encoding, 'identity'>, Promise<Buffer>>();
  /** Compressed variants already made, for answers that must not wait. */
  private readonly ready = new Map<Exclude<Encoding, 'identity'>, Buffer>();

  constructor(
    readonly identity: Buffer,
    /** The strong validator of the identity bytes, quoted. */
    readonly etag: string,
  ) {}

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
    return this.identity.length >= MIN_COMPRESSIBLE;
  }

  encoded(encoding: Exclude<Encoding, 'identity'>): Promise<Buffer> {
    let variant = this.variants.get(encoding);
    if (!variant) {
      variant =
        encoding === 'gzip'
          ? gzipAsync(this.identity)
          : brotliAsync(this.identity, {
              params: {
                // Quality 5 compresses within a few percent of the maximum at a tenth of its cost.
                [zlibConstants.BROTLI_PARAM_QUALITY]: 5,
                [zlibConstants.BROTLI_PARAM_SIZE_HINT]: this.identity.length,
              },
            });
      this.variants.set(encoding, variant);
      variant.then(
        (bytes) => this.ready.set(encoding, bytes),
        () => this.variants.delete(encoding),
      );
    }
    return variant;
  }

  /** The variant if it is already made; undefined while it is being made or before it is asked for. */
  encodedNow(encoding: Exclude<Encoding, 'identity'>): Buffer | undefined {
    return this.ready.get(encoding);
  }

  /** Bytes held: the identity body plus an allowance for compressed variants (JSON packs to well under a quarter). */
  size(): number {
    return this.identity.length + Math.ceil(this.identity.length / 4);
  }
}

export function strongEtag(body: Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

interface Entry {
  generation: string;
  body: CachedBody;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  hits = 0;
  misses = 0;
  /** Hits the answer front served before routing (counted in `hits` too). */
  frontHits = 0;

  constructor(private readonly maxBytes: number) {}

  /** The cached body for `key` if it was built from this generation of the library. */
  get(key: string, generation: string): CachedBody | undefined {
    const body = this.peek(key, generation);
    if (body) this.hits++;
    else this.misses++;
    return body;
  }

  /**
   * Like get, without counting: the answer front counts a hit only once it has
   * answered, and leaves a miss to the route it hands the request to.
   */
  peek(key: string, generation: string): CachedBody | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.generation !== generation) return undefined;
    // Re-insert to mark it most recently used (Map keeps insertion order).
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.body;
  }

  set(key: string, generation: string, identity: Buffer): CachedBody {
    const body = new CachedBody(identity, strongEtag(identity));
    this.delete(key);
    if (body.size() <= this.maxBytes) {
      this.entries.set(key, { generation, body });
      this.bytes += body.size();
      this.evict();
    }
    return body;
  }

  /** The answer front answered from a body it peeked. */
  countFrontHit(): void {
    this.hits++;
    this.frontHits++;
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
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name = '', ...parameters] = part.trim().toLowerCase().split(';');
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(name.trim(), Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (name: string) => weights.get(name) ?? weights.get('*') ?? 0;
  const br = weightOf('br');
  const gz = weightOf('gzip');
  if (br > 0 && br >= gz) return 'br';
  if (gz > 0) return 'gzip';
  return 'identity';
}
