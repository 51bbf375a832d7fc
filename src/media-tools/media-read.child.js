// @ts-check
/**
 * Reads media files' headers in a Node process of its own: no process start per file,
 * a file on a dead share blocks this process only (it is killed and started again), and
 * its CPU is not the server's event loop. Four readers:
 * - MP4/MOV: mp4box.js (GPAC) parses the boxes, skipping `mdat`: the `moov` index only;
 * - Matroska/WebM: ts-ebml decodes the elements before the first Cluster (and the
 *   Chapters element where the SeekHead puts it), never a frame;
 * - MPEG-TS (188-byte packets): no kept library reads one in Node (mpeg-ts.parser.ts says
 *   which were weighed), so readMpegTs walks the packets itself: the PAT and PMT, and of
 *   each stream the timestamps and first payload bytes of the head (until the tables,
 *   a payload of every audio and video stream and a video sequence header came: 256 KB
 *   to 1 MB as a rule) and the timestamps of the last 256 KB;
 * - anything else, or what those could not read: MediaInfo (mediainfo.js, MediaArea's
 *   library compiled to WebAssembly, started on first use: it costs about 3 ms a file
 *   and 0.2 s to start, where the others take a fraction of a millisecond to a few).
 * This file only reads and picks fields; what they mean (and whether ffprobe should read
 * the file instead) is decided by pure functions in the server (media-header.ts).
 *
 * Reads requests `{ id, path, reader?, identity? }`, one JSON line each, on stdin (`reader:
 * 'mediainfo'` skips the first three; `identity`, "dev:ino", is the file the server
 * checked, and any other file at that path is refused); answers `{ id, mp4 }`, `{ id, matroska }`,
 * `{ id, ts }`, `{ id, tracks }` (MediaInfo's) or `{ id, error }` on stdout, in order.
 * Files are opened read-only.
 *
 * Plain JavaScript for the reason folder-walk.child.js gives.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { MP4BoxBuffer, createFile } from 'mp4box';
import { Decoder } from 'ts-ebml';
import { readMpegTs, TS_PACKET, tsSync } from './mpeg-ts.read.js';

const CHUNK = 64 * 1024;
/** An index bigger than this (a very long MP4's moov, a head without a Cluster) is left to MediaInfo. */
const MAX_HEADER_BYTES = 32 * 1024 * 1024;
/**
 * More samples in a track than this (PCM audio, a crafted file) and mp4box is not given the file (see
 * largestSampleCount).
 */
const MAX_MP4_SAMPLES = 2_000_000;
const MEDIAINFO_FIELDS = [
  '@type',
  'Format',
  'Format_Profile',
  'Format_Version',
  'Format_Commercial_IfAny',
  'CodecID',
  'Duration',
  'Width',
  'Height',
  'Channels',
  'Language',
  'FrameRate',
  'HDR_Format',
  'transfer_characteristics',
  'Forced',
  'Default',
  'MenuCount',
  'IsTruncated',
];
/** Matroska elements the server reads (media-header.ts); the rest of the head is skipped. */
const MATROSKA_NAMES = new Set([
  'EBML',
  'DocType',
  'Segment',
  'SeekHead',
  'Seek',
  'SeekID',
  'SeekPosition',
  'Info',
  'TimestampScale',
  'Duration',
  'Tracks',
  'TrackEntry',
  'TrackNumber',
  'TrackType',
  'CodecID',
  'Language',
  'LanguageBCP47',
  'Name',
  'FlagDefault',
  'FlagForced',
  'FlagEnabled',
  'DefaultDuration',
  'Video',
  'PixelWidth',
  'PixelHeight',
  'Colour',
  'TransferCharacteristics',
  'BlockAdditionMapping',
  'BlockAddIDType',
  'Audio',
  'Channels',
  'ContentEncoding',
  'Chapters',
  'EditionEntry',
  'EditionFlagDefault',
  'EditionFlagHidden',
  'ChapterAtom',
  'ChapterUID',
  'ChapterTimeStart',
  'ChapterTimeEnd',
  'ChapterFlagHidden',
  'ChapterFlagEnabled',
  'ChapterDisplay',
  'ChapString',
]);
const CHAPTERS_ID = '1043a770';

/** @type {Promise<import('mediainfo.js').MediaInfo<'object'>> | undefined} */
let mediaInfo;

/**
 * @param {number} fd
 * @param {number} position
 * @param {number} length
 */
function readAt(fd, position, length) {
  const buffer = Buffer.allocUnsafe(length);
  const read = readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, read);
}

/** @param {Buffer} buffer */
const arrayBufferOf = (buffer) =>
  /** @type {ArrayBuffer} */ (buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.length));

/**
 * Where the moov box is, from the top-level box headers (size, type; a 64-bit size when
 * the size field is 1); undefined when there is none (a copy cut short, a file still
 * being written).
 * @param {number} fd
 * @param {number} size
 */
function findMoov(fd, size) {
  for (let position = 0, boxes = 0; position + 8 <= size && boxes < 1000; boxes++) {
    const header = readAt(fd, position, 16);
    if (header.length < 8) return undefined;
    let boxSize = header.readUInt32BE(0);
    if (boxSize === 1 && header.length === 16) boxSize = Number(header.readBigUInt64BE(8));
    else if (boxSize === 0) boxSize = size - position;
    if (header.toString('latin1', 4, 8) === 'moov') return { start: position, size: boxSize };
    if (boxSize < 8) return undefined;
    position += boxSize;
  }
  return undefined;
}

/**
 * The largest sample count in a moov's sample size boxes (stsz, stz2: the count is 12
 * bytes after the type in both). mp4box builds an object per sample: PCM audio counts
 * every audio frame (28.8 million in ten minutes at 48 kHz), which would take gigabytes.
 * @param {Buffer} moov
 */
function largestSampleCount(moov) {
  let largest = 0;
  for (const type of ['stsz', 'stz2']) {
    for (let at = moov.indexOf(type); at >= 4 && at + 16 <= moov.length; at = moov.indexOf(type, at + 4))
      largest = Math.max(largest, moov.readUInt32BE(at + 12));
  }
  return largest;
}

/**
 * The moov of an MP4/MOV file, mdat skipped; undefined when there is none (a copy cut
 * short) or when it is too large for mp4box (MediaInfo reads it then).
 * @param {number} fd
 * @param {number} size
 */
function readMp4(fd, size) {
  const moov = findMoov(fd, size);
  if (
    !moov ||
    moov.size > MAX_HEADER_BYTES ||
    largestSampleCount(readAt(fd, moov.start, Math.min(moov.size, size - moov.start))) > MAX_MP4_SAMPLES
  )
    return undefined;
  const file = createFile(false);
  /** @type {any} */
  let info;
  file.onReady = (ready) => (info = ready);
  file.onError = () => undefined;
  for (let position = 0, total = 0; !info && position < size && total < MAX_HEADER_BYTES; ) {
    const chunk = readAt(fd, position, Math.min(CHUNK, size - position));
    if (chunk.length === 0) break;
    total += chunk.length;
    const next = file.appendBuffer(MP4BoxBuffer.fromArrayBuffer(arrayBufferOf(chunk), position));
    position = next > position ? next : position + chunk.length;
  }
  if (!info) return undefined;
  const chapterTrack = (/** @type {any} */ track) =>
    (track.references ?? []).some((/** @type {any} */ reference) => reference.type === 'chap');
  return {
    size,
    brands: info.brands,
    duration: info.duration,
    timescale: info.timescale,
    boxes: file.boxes.map((/** @type {any} */ box) => ({ type: box.type, start: box.start, size: box.size })),
    chapters:
      (file.moov?.udta?.boxes ?? []).some((/** @type {any} */ box) => box.type === 'chpl') ||
      info.tracks.some(chapterTrack),
    tracks: info.tracks.map((/** @type {any} */ track) => {
      const entry = file.getTrackById(track.id)?.mdia?.minf?.stbl?.stsd?.entries?.[0];
      const boxes = /** @type {any[]} */ (entry?.boxes ?? []);
      const colour = boxes.find((box) => box.type === 'colr' && box.colour_type === 'nclx');
      const boxTypes = boxes.map((box) => box.type);
      // The sample entry's channel count is always 2 in an MP4: the codec's own configuration says how many.
      const ac3 = boxes.find((box) => box.type === 'dac3') ?? boxes.find((box) => box.type === 'dec3')?.ind_subs?.[0];
      // A QuickTime file keeps the esds inside a 'wave' box.
      const esds =
        entry?.esds ??
        boxes.find((box) => box.type === 'wave')?.boxes?.find((/** @type {any} */ box) => box.type === 'esds');
      const audioSpecificConfig = esds?.esd?.descs?.[0]?.descs?.[0]?.data;
      return {
        id: track.id,
        type: track.type,
        handler: file.getTrackById(track.id)?.mdia?.hdlr?.handler,
        codec: track.codec,
        language: track.language,
        duration: track.duration,
        timescale: track.timescale,
        samples: track.nb_samples,
        width: track.video?.width,
        height: track.video?.height,
        channels: track.audio?.channel_count,
        ac3: ac3 ? { acmod: ac3.acmod, lfeon: ac3.lfeon, dependent: ac3.num_dep_sub ?? 0 } : undefined,
        opusChannels: boxes.find((box) => box.type === 'dOps')?.OutputChannelCount,
        aacConfig: audioSpecificConfig ? Buffer.from(audioSpecificConfig).toString('hex') : undefined,
        transfer: colour?.transfer_characteristics,
        dolbyVision: boxTypes.includes('dvcC') || boxTypes.includes('dvvC') || boxTypes.includes('dvwC'),
      };
    }),
  };
}

/**
 * Matroska elements (names in MATROSKA_NAMES, binary values as hex) from `position` until
 * the first Cluster, or until the master element that started there ends.
 * @param {number} fd
 * @param {number} size
 * @param {number} position
 */
function matroskaElements(fd, size, position) {
  const decoder = new Decoder();
  /** @type {unknown[][]} */
  const elements = [];
  let depth = 0;
  for (let offset = position; offset < size && offset - position < MAX_HEADER_BYTES; ) {
    const chunk = readAt(fd, offset, Math.min(CHUNK, size - offset));
    if (chunk.length === 0) break;
    for (const element of decoder.decode(arrayBufferOf(chunk))) {
      if (element.name === 'Cluster') return { elements, clusterAt: position + /** @type {any} */ (element).tagStart };
      if (element.type === 'm') depth += element.isEnd ? -1 : 1;
      if (MATROSKA_NAMES.has(element.name)) {
        const detail = /** @type {any} */ (element);
        if (element.type === 'm')
          elements.push(
            element.isEnd
              ? [element.name, 'end']
              : [element.name, 'start', position + detail.dataStart, position + detail.sizeStart],
          );
        else
          elements.push([
            element.name,
            element.type === 'b' ? detail.value.toString('hex') : element.type === 'd' ? null : detail.value,
          ]);
      }
      if (depth === 0 && position > 0) return { elements, clusterAt: undefined };
    }
    offset += chunk.length;
  }
  return { elements, clusterAt: undefined };
}

/**
 * The head of a Matroska/WebM file, with the Chapters element where the SeekHead says it is.
 * @param {number} fd
 * @param {number} size
 */
function readMatroska(fd, size) {
  const head = matroskaElements(fd, size, 0);
  const segment = head.elements.find((element) => element[0] === 'Segment' && element[1] === 'start');
  // ts-ebml reports every 8-byte size as unknown (its vint reader stops at 7 bytes): the raw field goes to the server.
  const segmentSizeField = segment ? readAt(fd, Number(segment[3]), 8).toString('hex') : undefined;
  const seekIds = head.elements.filter((element) => element[0] === 'SeekID').map((element) => element[1]);
  const seekPositions = head.elements.filter((element) => element[0] === 'SeekPosition').map((element) => element[1]);
  const chaptersAt = seekPositions[seekIds.indexOf(CHAPTERS_ID)];
  const hasChapters = head.elements.some((element) => element[0] === 'Chapters');
  let chapters;
  if (segment && !hasChapters && typeof chaptersAt === 'number') {
    const position = Number(segment[2]) + chaptersAt;
    chapters = position < size ? matroskaElements(fd, size, position).elements : [];
  }
  return {
    size,
    segmentSizeField,
    clusterAt: head.clusterAt,
    elements: chapters ? [...head.elements, ...chapters] : head.elements,
  };
}

/**
 * @param {number} fd
 * @param {number} size
 */
async function readWithMediaInfo(fd, size) {
  mediaInfo ??= import('mediainfo.js').then(({ default: factory }) => factory({ format: 'object', full: false }));
  /** @type {unknown} */
  let result;
  try {
    result = await (await mediaInfo).analyzeData(size, (length, offset) =>
      readAt(fd, offset, Math.max(0, Math.min(length, size - offset))),
    );
  } catch (error) {
    // An aborted WebAssembly instance would fail every later read: the next one starts afresh.
    mediaInfo = undefined;
    throw error;
  }
  const tracks = /** @type {{ media?: { track?: Record<string, unknown>[] } }} */ (result).media?.track ?? [];
  return tracks.map((track) => {
    const picked = Object.fromEntries(
      MEDIAINFO_FIELDS.filter((field) => track[field] !== undefined).map((field) => [field, track[field]]),
    );
    // Of MediaInfo's extra fields only this one is read (the rest can be kilobytes of conformance notes).
    const extra = /** @type {Record<string, unknown> | undefined} */ (track.extra);
    return { ...picked, extra: extra?.IsTruncated === undefined ? undefined : { IsTruncated: extra.IsTruncated } };
  });
}

/**
 * @param {string} path
 * @param {string | undefined} reader
 * @param {string | undefined} identity
 */
async function read(path, reader, identity) {
  // Without blocking: a named pipe swapped in at the path is refused below (not the file checked), never waited on.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd, { bigint: true });
    // The server checked the file it opened against the library's boundary: read that file, not another swapped in at
    // its path since.
    if (identity !== undefined && `${stat.dev}:${stat.ino}` !== identity)
      throw new Error('the file changed since it was checked');
    const size = Number(stat.size);
    if (size === 0) throw new Error('empty file');
    if (reader !== 'mediainfo') {
      const start = readAt(fd, 0, 12);
      try {
        if (start.subarray(0, 4).toString('hex') === '1a45dfa3') return { matroska: readMatroska(fd, size) };
        if (tsSync(readAt(fd, 0, 4 * TS_PACKET)) >= 0)
          return { ts: readMpegTs((position, length) => readAt(fd, position, length), size) };
        if (/^(ftyp|moov|mdat|free|wide|skip)$/.test(start.subarray(4, 8).toString('latin1'))) {
          const mp4 = readMp4(fd, size);
          if (mp4) return { mp4 };
        }
      } catch {
        // A header the library could not parse: MediaInfo may still read it.
      }
    }
    return { tracks: await readWithMediaInfo(fd, size) };
  } finally {
    closeSync(fd);
  }
}

/** @param {string} line */
async function answer(line) {
  /** @type {{ id?: number; path?: string; reader?: string; identity?: string }} */
  let request = {};
  try {
    request = JSON.parse(line);
    process.stdout.write(
      `${JSON.stringify({ id: request.id, ...(await read(String(request.path), request.reader, request.identity)) })}\n`,
    );
  } catch (error) {
    const code = /** @type {NodeJS.ErrnoException} */ (error).code;
    process.stdout.write(
      `${JSON.stringify({ id: request.id, error: code ?? (error instanceof Error ? error.message : String(error)) })}\n`,
    );
  }
}

// Requests are split on "\n" only: readline would also split on U+2028/2029, which JSON leaves unescaped in a file
// name.
let pending = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) {
  const lines = (pending + chunk).split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) if (line !== '') await answer(line);
}
(await mediaInfo)?.close();
