/**
 * The one place Antenna decides that bytes are gzip: by their first two bytes (the
 * magic 1f 8b), whatever a file name or Content-Type claimed. Sources and guides are
 * often served as `.gz` with a generic type, or gzipped twice over (Content-Encoding
 * undone by fetch, the file itself still compressed).
 */
import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

const GZIP_MAGIC = [0x1f, 0x8b] as const;
/** Bytes needed to tell. */
export const GZIP_SNIFF_BYTES = GZIP_MAGIC.length;

export function isGzip(head: Uint8Array): boolean {
  return head.length >= GZIP_SNIFF_BYTES && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
}

/** The decompressed bytes of a gzip stream; an error on either side reaches whoever reads the result. */
export function gunzipStream(compressed: Readable): Readable {
  return pipeline(compressed, createGunzip(), () => undefined);
}
