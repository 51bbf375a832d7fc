/**
 * Where each item's JSON sits in a rendered answer (a list, or one item), so that a
 * cached answer can have one item's bytes written again after a state write instead of
 * the whole answer rendered again (see common/item-state-log.ts, answer-cache/response-cache.ts).
 * The repository that renders an answer describes it here; the cache reads it.
 */
export interface BodySegments {
  /** The items in body order; `starts[i]`..`ends[i]` is the byte span of `ids[i]`. */
  ids: readonly string[];
  starts: readonly number[];
  ends: readonly number[];
  /**
   * False when what the answer holds, or its order, depends on item state (a list
   * filtered by watched, favorited or verified): such an answer is built again instead.
   */
  patchable: boolean;
  /** One item's bytes as the answer renders it now; undefined when it is gone. */
  render(id: string): Buffer | undefined;
}

const described = new WeakMap<Buffer, BodySegments>();

const OPEN_BRACKET = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE_BRACKET = Buffer.from(']');

/**
 * A JSON array of items' bytes (`[id, bytes]` in order), joined once, with where each
 * item sits described (`how`: whether and how it may be patched).
 */
export function describedArray(
  rows: Iterable<readonly [string, Buffer]>,
  how: Pick<BodySegments, 'patchable' | 'render'>,
): Buffer {
  const parts: Buffer[] = [OPEN_BRACKET];
  const ids: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let at = OPEN_BRACKET.length;
  for (const [id, bytes] of rows) {
    if (ids.length > 0) {
      parts.push(COMMA);
      at += COMMA.length;
    }
    parts.push(bytes);
    ids.push(id);
    starts.push(at);
    at += bytes.length;
    ends.push(at);
  }
  parts.push(CLOSE_BRACKET);
  return describeSegments(Buffer.concat(parts, at + CLOSE_BRACKET.length), { ids, starts, ends, ...how });
}

/**
 * Says `body` holds no items (an answer built from other tables: the jobs): item state
 * writes leave it as it is, where an answer not described is built again at each.
 */
export function holdsNoItems(body: Buffer): Buffer {
  return describeSegments(body, { ids: [], starts: [], ends: [], patchable: true, render: () => undefined });
}

/** Records how `body` is made of items; returns `body`. */
export function describeSegments(body: Buffer, segments: BodySegments): Buffer {
  described.set(body, segments);
  return body;
}

export function segmentsOf(body: Buffer): BodySegments | undefined {
  return described.get(body);
}

/**
 * An answer's bytes in pieces cut at item boundaries, so that patching one item copies
 * its piece (a quarter of a megabyte) and not the whole answer (a 50,000-episode list is
 * 54 MB, and copying it took 50 to 180 ms on the machines measured).
 */
export interface ChunkedBody {
  chunks: readonly Buffer[];
  /** Byte offset of each chunk in the whole. */
  offsets: readonly number[];
  length: number;
}

/** Pieces of about CHUNK_BYTES: fewer writes to send, little to copy per patch. */
export const CHUNK_BYTES = 256 * 1024;

/** `body` cut at item ends into pieces of at least `size` bytes (views, no copy). */
export function chunkAtItems(body: Buffer, segments: BodySegments, size = CHUNK_BYTES): ChunkedBody {
  const chunks: Buffer[] = [];
  const offsets: number[] = [];
  let from = 0;
  for (const end of segments.ends) {
    if (end - from < size) continue;
    chunks.push(body.subarray(from, end));
    offsets.push(from);
    from = end;
  }
  if (from < body.length || chunks.length === 0) {
    chunks.push(body.subarray(from));
    offsets.push(from);
  }
  return { chunks, offsets, length: body.length };
}

/**
 * Where each id sits in `ids`, built once per rendered answer: every version patched
 * from it shares its `ids`, so a write finds its items without scanning 50,000 ids.
 */
interface ItemIndex {
  first: Map<string, number>;
  /** The next index holding the same id (-1: none); only when an id is held twice. */
  next: Int32Array | undefined;
}

const indexes = new WeakMap<readonly string[], ItemIndex>();

/** Below this many items a scan is cheaper than building (and keeping) an index. */
const SCAN_BELOW = 32;

function indexOf(ids: readonly string[]): ItemIndex {
  let index = indexes.get(ids);
  if (index) return index;
  const first = new Map<string, number>();
  let next: Int32Array | undefined;
  for (let i = ids.length - 1; i >= 0; i--) {
    const id = ids[i] as string;
    const later = first.get(id);
    if (later !== undefined) (next ??= new Int32Array(ids.length).fill(-1))[i] = later;
    first.set(id, i);
  }
  index = { first, next };
  indexes.set(ids, index);
  return index;
}

/** The indexes in `ids` of the items in `changed`, ascending. */
function touchedItems(ids: readonly string[], changed: ReadonlySet<string>): number[] {
  const touched: number[] = [];
  // A log that grew past the list's length (or a short list): a scan is as cheap.
  if (ids.length < SCAN_BELOW || changed.size >= ids.length) {
    for (let i = 0; i < ids.length; i++) if (changed.has(ids[i] as string)) touched.push(i);
    return touched;
  }
  const { first, next } = indexOf(ids);
  for (const id of changed) {
    for (let i = first.get(id) ?? -1; i >= 0; i = next ? (next[i] as number) : -1) touched.push(i);
  }
  return touched.length > 1 ? touched.sort((a, b) => a - b) : touched;
}

/**
 * Segments kept per piece, positions relative to their piece: a patch copies the
 * positions of the pieces it rewrote (a few hundred items) and the pieces' offsets, not
 * 50,000 starts and ends. The absolute `starts` and `ends` are worked out when asked.
 */
class PieceSegments implements BodySegments {
  private absolute: { starts: number[]; ends: number[] } | undefined;

  constructor(
    readonly ids: readonly string[],
    readonly patchable: boolean,
    readonly render: (id: string) => Buffer | undefined,
    /** The pieces (and their offsets) these positions describe. */
    readonly chunks: readonly Buffer[],
    readonly offsets: readonly number[],
    /** The first item of each piece, then `ids.length`: never changes, as pieces end at items. */
    readonly firstItem: Int32Array,
    /** Per piece, `[start, end, start, end, …]` of its items, relative to the piece. */
    readonly spans: readonly Int32Array[],
  ) {}

  get starts(): readonly number[] {
    return this.resolve().starts;
  }

  get ends(): readonly number[] {
    return this.resolve().ends;
  }

  private resolve(): { starts: number[]; ends: number[] } {
    if (this.absolute) return this.absolute;
    const starts: number[] = [];
    const ends: number[] = [];
    this.spans.forEach((span, c) => {
      const base = this.offsets[c] as number;
      for (let k = 0; k < span.length; k += 2) {
        starts.push(base + (span[k] as number));
        ends.push(base + (span[k + 1] as number));
      }
    });
    return (this.absolute = { starts, ends });
  }
}

/** `segments` per piece of `body`: as it is when a patch made both, else worked out once (O(items)). */
export function segmentsPerPiece(body: ChunkedBody, segments: BodySegments): PieceSegments {
  if (segments instanceof PieceSegments && segments.chunks === body.chunks) return segments;
  const { starts, ends } = segments;
  const count = segments.ids.length;
  const pieces = body.chunks.length;
  const firstItem = new Int32Array(pieces + 1);
  const spans: Int32Array[] = [];
  let i = 0;
  for (let c = 0; c < pieces; c++) {
    const base = body.offsets[c] as number;
    // An item belongs to the last piece starting at or before it (pieces end at item ends).
    const limit = c + 1 < pieces ? (body.offsets[c + 1] as number) : Number.POSITIVE_INFINITY;
    firstItem[c] = i;
    let j = i;
    while (j < count && (starts[j] as number) < limit) j++;
    const span = new Int32Array((j - i) * 2);
    for (let k = i; k < j; k++) {
      span[(k - i) * 2] = (starts[k] as number) - base;
      span[(k - i) * 2 + 1] = (ends[k] as number) - base;
    }
    spans.push(span);
    i = j;
  }
  firstItem[pieces] = count;
  return new PieceSegments(
    segments.ids,
    segments.patchable,
    segments.render,
    body.chunks,
    body.offsets,
    firstItem,
    spans,
  );
}

/**
 * `body` with the items in `changed` rendered again: the new pieces (only those holding
 * a changed item are new), where each item now sits, and the rewritten items' new bytes in
 * body order; the same objects when it holds none of them; undefined when an item cannot
 * be rendered (gone: build the answer again). Copies the rewritten pieces and the pieces'
 * offsets, never all the items' positions (a write to a 50,000-item list must stay cheap).
 */
export function patchSegments(
  body: ChunkedBody,
  segments: BodySegments,
  changed: ReadonlySet<string>,
): { body: ChunkedBody; segments: BodySegments; rewritten: readonly Buffer[] } | undefined {
  const touched = touchedItems(segments.ids, changed);
  // Most writes are to items this answer does not hold: it stays as it is, ETag and all.
  if (touched.length === 0) return { body, segments, rewritten: [] };
  const rewritten: Buffer[] = [];
  for (const i of touched) {
    const bytes = segments.render(segments.ids[i] as string);
    if (!bytes) return undefined;
    rewritten.push(bytes);
  }
  const layout = segmentsPerPiece(body, segments);
  const { firstItem } = layout;
  const chunks = body.chunks.slice();
  const spans = layout.spans.slice();
  const offsets = body.offsets.slice();
  // Each touched piece rebuilt once; the pieces after it move by what it grew.
  let shift = 0;
  let done = 0;
  let t = 0;
  while (t < touched.length) {
    const c = pieceOf(firstItem, touched[t] as number);
    for (; done <= c; done++) offsets[done] = (body.offsets[done] as number) + shift;
    const first = firstItem[c] as number;
    const after = firstItem[c + 1] as number;
    const old = body.chunks[c] as Buffer;
    const oldSpan = layout.spans[c] as Int32Array;
    const span = oldSpan.slice();
    const pieces: Buffer[] = [];
    let from = 0;
    let grow = 0;
    for (; t < touched.length && (touched[t] as number) < after; t++) {
      const k = (touched[t] as number) - first;
      const start = oldSpan[k * 2] as number;
      const end = oldSpan[k * 2 + 1] as number;
      const bytes = rewritten[t] as Buffer;
      pieces.push(old.subarray(from, start), bytes);
      from = end;
      span[k * 2] = start + grow;
      span[k * 2 + 1] = start + grow + bytes.length;
      grow += bytes.length - (end - start);
      // The piece's items up to the next rewritten one move by the growth so far.
      const upTo =
        t + 1 < touched.length && (touched[t + 1] as number) < after
          ? (touched[t + 1] as number) - first
          : after - first;
      if (grow !== 0) for (let j = (k + 1) * 2; j < upTo * 2; j++) span[j] = (oldSpan[j] as number) + grow;
    }
    pieces.push(old.subarray(from));
    chunks[c] = Buffer.concat(pieces, old.length + grow);
    spans[c] = span;
    shift += grow;
  }
  for (; done < offsets.length; done++) offsets[done] = (body.offsets[done] as number) + shift;
  return {
    body: { chunks, offsets, length: body.length + shift },
    segments: new PieceSegments(segments.ids, segments.patchable, segments.render, chunks, offsets, firstItem, spans),
    rewritten,
  };
}

/** The piece holding item `i`: the last whose first item is at or before it. */
function pieceOf(firstItem: Int32Array, i: number): number {
  let low = 0;
  let high = firstItem.length - 2;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((firstItem[mid] as number) <= i) low = mid;
    else high = mid - 1;
  }
  return low;
}
