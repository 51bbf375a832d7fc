/**
 * What a file's first bytes say it is. Artwork is served only when its bytes are an
 * image: a file named poster.jpg that holds anything else (a link to a text file the
 * walk missed, a renamed document) is not one.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

const JPEG = [0xff, 0xd8, 0xff];
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(bytes: Uint8Array, signature: readonly number[]): boolean {
  return bytes.length >= signature.length && signature.every((byte, index) => bytes[index] === byte);
}

/** The image type of these leading bytes (JPEG or PNG, the artwork the importer looks for), if any. */
export function imageTypeOf(bytes: Uint8Array): 'image/jpeg' | 'image/png' | undefined {
  if (startsWith(bytes, JPEG)) return 'image/jpeg';
  if (startsWith(bytes, PNG)) return 'image/png';
  return undefined;
}

/**
 * The first `count` bytes of a regular file (fewer when it is shorter); throws what
 * open or read throws, and for anything but a regular file. Opened without blocking,
 * so a named pipe swapped in for the file cannot stall the server.
 */
export function readLeadingBytes(path: string, count: number): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`${path} is not a regular file`);
    const buffer = Buffer.alloc(count);
    return buffer.subarray(0, readSync(fd, buffer, 0, count, 0));
  } finally {
    closeSync(fd);
  }
}
