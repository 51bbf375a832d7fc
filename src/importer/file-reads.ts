/**
 * The importer's reads of a user's files: a media file's fingerprint and the text of
 * an NFO file. Asynchronous on purpose: they run on libuv's thread pool, so a file on a
 * dead network share keeps one pool thread waiting, never the server's event loop. The
 * importer reads what a batch needs first, then writes the batch in one synchronous
 * transaction.
 *
 * Only reads: files are opened read-only.
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';

const FINGERPRINT_BYTES = 64 * 1024;

/** Why a read failed, in words for the scan's problems. */
export function readProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'vanished during the scan';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
}

/**
 * Size plus the first and last 64 KiB: the same file under another name has the same
 * one, so a file moved across disks is recognised. An empty file's is its size alone.
 */
export async function readFingerprint(path: string, size: number): Promise<string> {
  const hash = createHash('sha1').update(String(size));
  if (size === 0) return hash.digest('hex');
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(Math.min(FINGERPRINT_BYTES, size));
    const first = await file.read(buffer, 0, buffer.length, 0);
    hash.update(buffer.subarray(0, first.bytesRead));
    if (size > FINGERPRINT_BYTES * 2) {
      const last = await file.read(buffer, 0, buffer.length, size - buffer.length);
      hash.update(buffer.subarray(0, last.bytesRead));
    }
    return hash.digest('hex');
  } finally {
    await file.close();
  }
}

/** At most `max` bytes of a file as UTF-8, or undefined when it is larger: a huge NFO is never read whole. */
export async function readSmallText(path: string, max: number): Promise<string | undefined> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    if (size > max) return undefined;
    // Sized by the file (real NFO files are a few KB), plus a byte to notice one that grew past the limit.
    const buffer = Buffer.alloc(Math.min(size, max) + 1);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    return bytesRead > max ? undefined : buffer.toString('utf8', 0, bytesRead);
  } finally {
    await file.close();
  }
}
