// @ts-check
/**
 * Reads media files' headers in-process with MediaInfo (mediainfo.js: MediaArea's
 * library compiled to WebAssembly), in a Node process of its own: one library instance
 * reads one file after another with no process start per file, a file on a dead share
 * blocks this process only (it is killed and started again), and its CPU is not the
 * server's event loop.
 *
 * Reads requests `{ id, path }`, one JSON line each, on stdin; answers
 * `{ id, tracks }` or `{ id, error }` on stdout, in order. Only the fields Antenna uses
 * are sent. Files are opened read-only; MediaInfo asks for the ranges it needs (the
 * headers and index of an MP4 or Matroska file, not its frames).
 *
 * Plain JavaScript for the reason folder-walk.child.js gives.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { createInterface } from 'node:readline';
import mediaInfoFactory from 'mediainfo.js';

const FIELDS = ['@type', 'Format', 'Format_Commercial_IfAny', 'CodecID', 'Duration', 'Width', 'Height', 'Channels', 'Language', 'FrameRate', 'HDR_Format', 'MenuCount', 'IsTruncated', 'extra'];

const mediaInfo = await mediaInfoFactory({ format: 'object', full: false });

/** @param {string} path */
async function read(path) {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) throw new Error('empty file');
    const result = await mediaInfo.analyzeData(size, (length, offset) => {
      const buffer = Buffer.alloc(Math.max(0, Math.min(length, size - offset)));
      const read = readSync(fd, buffer, 0, buffer.length, offset);
      return buffer.subarray(0, read);
    });
    const tracks = /** @type {{ media?: { track?: Record<string, unknown>[] } }} */ (result).media?.track ?? [];
    return tracks.map((track) => Object.fromEntries(FIELDS.filter((field) => track[field] !== undefined).map((field) => [field, track[field]])));
  } finally {
    closeSync(fd);
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  /** @type {{ id: number; path: string }} */
  const request = JSON.parse(line);
  try {
    process.stdout.write(`${JSON.stringify({ id: request.id, tracks: await read(request.path) })}\n`);
  } catch (error) {
    const code = /** @type {NodeJS.ErrnoException} */ (error).code;
    process.stdout.write(`${JSON.stringify({ id: request.id, error: code ?? (error instanceof Error ? error.message : String(error)) })}\n`);
  }
}
mediaInfo.close();
