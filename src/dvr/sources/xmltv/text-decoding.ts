/**
 * An XMLTV document's bytes -> text, chunk by chunk: gunzipped when its first bytes say
 * gzip, decoded as its byte order mark or XML declaration says (UTF-8 otherwise).
 */
import { Readable } from 'node:stream';
import { TextDecoder } from 'node:util';
import { gunzipStream, isGzip } from '../gzip-bytes.js';
import { closeQuietly } from './abortable-input.js';
import { XmltvDocumentError } from './document-error.js';

/** Bytes gathered before deciding on gzip and the declared encoding. */
const HEAD_BYTES = 1024;

/** Decodes the input to text: gunzips it if needed and honours the declared encoding. */
export async function* decodeXmltv(chunks: AsyncIterator<Buffer | string>): AsyncGenerator<string> {
  try {
    const head = await readHead(chunks);
    if (head === undefined) return;
    if (typeof head === 'string') {
      if (head !== '') yield head;
      yield* decodeRest(chunks, new TextDecoder());
    } else if (isGzip(head)) {
      yield* decodeXmltv(gunzip(head, chunks)[Symbol.asyncIterator]());
    } else {
      const decoder = decoderFor(head);
      const text = decoder.decode(head, { stream: true });
      if (text !== '') yield text;
      yield* decodeRest(chunks, decoder);
    }
  } finally {
    closeQuietly(chunks);
  }
}

/** The first chunk if it is text, else the first HEAD_BYTES bytes (or all, if fewer). */
async function readHead(chunks: AsyncIterator<Buffer | string>): Promise<Buffer | string | undefined> {
  const buffers: Buffer[] = [];
  let size = 0;
  while (size < HEAD_BYTES) {
    const next = await chunks.next();
    if (next.done === true) break;
    if (typeof next.value === 'string' && buffers.length === 0) return next.value;
    const buffer = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    buffers.push(buffer);
    size += buffer.length;
  }
  return buffers.length === 0 ? undefined : Buffer.concat(buffers);
}

async function* decodeRest(chunks: AsyncIterator<Buffer | string>, decoder: TextDecoder): AsyncGenerator<string> {
  for (;;) {
    const next = await chunks.next();
    if (next.done === true) break;
    const text = typeof next.value === 'string' ? next.value : decoder.decode(next.value, { stream: true });
    if (text !== '') yield text;
  }
  const tail = decoder.decode();
  if (tail !== '') yield tail;
}

const DECLARED_ENCODING = /^(?:\uFEFF|\xEF\xBB\xBF)?\s*<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z][\w.:-]*)["']/;

function decoderFor(head: Buffer): TextDecoder {
  // A UTF-16 byte order mark says more than a declaration we could not read as ASCII.
  if (head[0] === 0xff && head[1] === 0xfe) return new TextDecoder('utf-16le');
  if (head[0] === 0xfe && head[1] === 0xff) return new TextDecoder('utf-16be');
  const declared = DECLARED_ENCODING.exec(head.toString('latin1'))?.[1];
  if (declared === undefined) return new TextDecoder();
  try {
    return new TextDecoder(declared);
  } catch {
    throw new XmltvDocumentError(`XMLTV document refused: unsupported encoding "${declared}"`, 'refused');
  }
}

function gunzip(head: Buffer, rest: AsyncIterator<Buffer | string>): AsyncIterable<Buffer> {
  async function* compressed(): AsyncGenerator<Buffer> {
    yield head;
    for (;;) {
      const next = await rest.next();
      if (next.done === true) return;
      yield typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    }
  }
  return gunzipStream(Readable.from(compressed()));
}
