/**
 * Where each item's JSON sits in a rendered answer (a list, or one item), so that a
 * cached answer can have one item's bytes written again after a state write instead of
 * the whole answer rendered again (see common/item-state-log.ts, api/response-cache.ts).
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
export function describedArray(rows: Iterable<readonly [string, Buffer]>, how: Pick<BodySegments, 'patchable' | 'render'>): Buffer {
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
 * `body` with the items in `changed` rendered again: the new pieces (only those holding
 * a changed item are new), where each item now sits, and the rewritten items' new bytes in
 * body order; the same objects when it holds
 * none of them; undefined when an item cannot be rendered (gone: build the answer again).
 */
export function patchSegments(
  body: ChunkedBody,
  segments: BodySegments,
  changed: ReadonlySet<string>,
): { body: ChunkedBody; segments: BodySegments; rewritten: readonly Buffer[] } | undefined {
  const touched: number[] = [];
  for (let i = 0; i < segments.ids.length; i++) if (changed.has(segments.ids[i] as string)) touched.push(i);
  // Most writes are to items this answer does not hold: it stays as it is, ETag and all.
  if (touched.length === 0) return { body, segments, rewritten: [] };
  const fresh = new Map<number, Buffer>();
  for (const i of touched) {
    const bytes = segments.render(segments.ids[i] as string);
    if (!bytes) return undefined;
    fresh.set(i, bytes);
  }
  const chunks = [...body.chunks];
  const offsets = [...body.offsets];
  const starts = [...segments.starts];
  const ends = [...segments.ends];
  // Each touched chunk rebuilt once from its pieces; every later offset moves by what it grew.
  let t = 0;
  let shift = 0;
  while (t < touched.length) {
    const c = chunkOf(body.offsets, segments.starts[touched[t] as number] as number);
    const base = body.offsets[c] as number;
    const old = body.chunks[c] as Buffer;
    const pieces: Buffer[] = [];
    let from = 0;
    const shiftBefore = shift;
    for (; t < touched.length && chunkOf(body.offsets, segments.starts[touched[t] as number] as number) === c; t++) {
      const i = touched[t] as number;
      const start = (segments.starts[i] as number) - base;
      const end = (segments.ends[i] as number) - base;
      const bytes = fresh.get(i) as Buffer;
      pieces.push(old.subarray(from, start), bytes);
      from = end;
      shift += bytes.length - (end - start);
      // Items after this one move by the growth so far.
      for (let j = i + 1; j < (touched[t + 1] ?? starts.length); j++) {
        starts[j] = (segments.starts[j] as number) + shift;
        ends[j] = (segments.ends[j] as number) + shift;
      }
      starts[i] = (segments.starts[i] as number) + shift - (bytes.length - (end - start));
      ends[i] = (starts[i] as number) + bytes.length;
    }
    pieces.push(old.subarray(from));
    chunks[c] = Buffer.concat(pieces);
    offsets[c] = base + shiftBefore;
    for (let k = c + 1; k < offsets.length; k++) offsets[k] = (body.offsets[k] as number) + shift;
  }
  return { body: { chunks, offsets, length: body.length + shift }, segments: { ...segments, starts, ends }, rewritten: [...fresh.values()] };
}

/** The chunk holding byte `at`: the last whose offset is at or before it. */
function chunkOf(offsets: readonly number[], at: number): number {
  let low = 0;
  let high = offsets.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((offsets[mid] as number) <= at) low = mid;
    else high = mid - 1;
  }
  return low;
}
