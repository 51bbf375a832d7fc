/**
 * Sends a file the library knows with @fastify/send, which does what media players
 * rely on: Content-Type by extension, Accept-Ranges, single byte ranges (206),
 * If-Range, conditional GETs (ETag, Last-Modified), HEAD and 416. The path comes
 * from the database; the request only chooses which item.
 */
import send from '@fastify/send';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ReadStream, fstatSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { CORS_HEADERS } from '../http/cors.js';
import { sendError } from '../http/error-reply.js';

/**
 * Bytes per read: 1 MiB rather than the stream default of 64 KiB. Each read is a
 * thread-pool round trip and each chunk a socket write; with 64 KiB, streaming a
 * large file ran at a fifth of a bare server's speed in `npm run bench`.
 */
const STREAM_CHUNK_BYTES = 1024 * 1024;

/** Types @fastify/send's table lacks or gets wrong for video containers. */
const VIDEO_TYPES: Record<string, string> = {
  mkv: 'video/x-matroska',
  ts: 'video/mp2t',
  m2ts: 'video/mp2t',
  mts: 'video/mp2t',
  m4v: 'video/x-m4v',
  webm: 'video/webm',
};

/** A Range of one suffix (`bytes=-500`, the last 500 bytes) with a length above zero. */
const SUFFIX_RANGE = /^bytes=\s*-\s*0*[1-9]\d*\s*$/i;

type SendResult = Awaited<ReturnType<typeof send>>;

function sendFile(request: Pick<FastifyRequest['raw'], 'method' | 'headers'>, path: string): Promise<SendResult> {
  // send() takes a URL path under `root`: hand it the file's own name, encoded, under its folder.
  return send(request as FastifyRequest['raw'], `/${encodeURIComponent(basename(path))}`, {
    root: dirname(path),
    dotfiles: 'allow',
    // The type comes from the name the library knows, not the file's real name (sendKnownFile).
    contentType: false,
    cacheControl: false,
    etag: true,
    lastModified: true,
    highWaterMark: STREAM_CHUNK_BYTES,
  });
}

/**
 * send()'s range parser refuses a suffix longer than the file (416), but RFC 9110
 * (14.1.1) says such a suffix selects the whole representation: asked again for
 * `bytes=0-`, the whole file as a 206. Only this rare case costs a second call.
 */
async function sendWithSuffixRule(request: FastifyRequest, path: string): Promise<SendResult> {
  const result = await sendFile(request.raw, path);
  const range = request.headers.range;
  if (result.type !== 'error' || result.statusCode !== 416 || range === undefined || !SUFFIX_RANGE.test(range))
    return result;
  return sendFile({ method: request.raw.method, headers: { ...request.raw.headers, range: 'bytes=0-' } }, path);
}

/** The Content-Type for a file the library knows by this name. */
export function contentTypeOf(name: string): string {
  const extension = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  return VIDEO_TYPES[extension] ?? send.mime.getType(name) ?? 'application/octet-stream';
}

/**
 * Headers on every file answer. A file is never a page: a browser must not guess
 * another type (nosniff), and one opened directly runs no script and has no origin of
 * its own (sandbox), whatever bytes it holds.
 */
const FILE_SAFETY_HEADERS = { 'x-content-type-options': 'nosniff', 'content-security-policy': 'sandbox' } as const;

/**
 * send() opens the file again by its path, a moment after the caller checked it: a
 * link swapped in meanwhile would be followed. The stream's descriptor is compared with
 * the file checked (device and inode) as soon as it is open, before the first read, and
 * the answer is cut off when they differ: nothing of another file is sent.
 */
function readOnlyTheFileChecked(stream: SendResult['stream'], identity: string): void {
  if (!(stream instanceof ReadStream)) return;
  stream.once('open', (fd: number) => {
    const opened = fstatSync(fd, { bigint: true });
    if (`${opened.dev}:${opened.ino}` !== identity)
      stream.destroy(new Error('the file changed after it was checked; nothing of it is sent'));
  });
}

/**
 * Sends `path` (a real path the caller has checked), typed by `knownAs`, the name the
 * library knows it by: a link named poster.jpg that leads to page.html is still sent as
 * an image, never as HTML. `missing` is the 404 message when the file is not on disk
 * (send() checks; no stat of our own first).
 */
export async function sendKnownFile(
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
  cacheControl: string,
  missing: string,
  knownAs: string = path,
  identity?: string,
): Promise<FastifyReply> {
  const result = await sendWithSuffixRule(request, path);
  if (result.type === 'file' && identity !== undefined) readOnlyTheFileChecked(result.stream, identity);
  if (result.type !== 'file') {
    // send() says 500 for a file it may not read (EACCES): that is the file's state, not a server fault.
    const sent = result.type === 'error' ? result.statusCode : 404;
    const status = sent >= 500 ? 403 : sent;
    const range = result.headers['Content-Range'] ?? result.headers['content-range'];
    if (range !== undefined) reply.header('content-range', String(range));
    return sendError(reply, {
      status,
      code:
        status === 416
          ? 'range_not_satisfiable'
          : status === 404
            ? 'not_found'
            : status === 412
              ? 'precondition_failed'
              : 'file_unreadable',
      message:
        status === 416
          ? "The Range asked for is outside the file; ask for bytes within Content-Range's length."
          : status === 404
            ? missing
            : status === 412
              ? 'The file has changed since the If-Match or If-Unmodified-Since validator was taken; fetch it again.'
              : 'The file could not be read; check that it is readable by the server.',
    });
  }
  const headers: Record<string, string | number> = {
    ...CORS_HEADERS,
    ...result.headers,
    ...FILE_SAFETY_HEADERS,
    'content-type': contentTypeOf(knownAs),
    'cache-control': cacheControl,
  };
  reply.code(result.statusCode).headers(headers);
  return reply.send(result.stream);
}
