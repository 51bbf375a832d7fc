// @ts-check
/**
 * The MPEG-TS part of media-read.child.js (run in its reading process): the bytes of a
 * TS the server reads (mpeg-ts.parser.ts), picked from the head and the tail of the file.
 * No kept library reads a TS in Node (mpeg-ts.parser.ts says which were weighed).
 * Plain JavaScript, shipped beside the child (scripts/copy-assets.mjs).
 */
export const TS_PACKET = 188;
/**
 * The head is read in steps of about 256 KB until it holds what the server reads (headDone), at most 4 MB (ffprobe
 * probes 5).
 */
const TS_STEP = 1394 * TS_PACKET;
const TS_HEAD_MAX = 4 * 1024 * 1024;
/** The tail: 256 KB (where ffprobe starts too), four times more while a stream of the head has no timestamp there. */
const TS_TAIL_FIRST = 256 * 1024;
const TS_TAIL_MAX = 4 * 1024 * 1024;
/** Of each stream: the first bytes of its first payloads and of the first that starts a video sequence; timestamps. */
const ES_PREFIX_BYTES = 4096;
const ES_PREFIXES = 4;
const PTS_KEPT = 256;
/** Stream types whose video sequence header (MPEG-1/2, H.264, H.265) or audio frame header the server reads. */
const TS_VIDEO = new Set([0x01, 0x02, 0x1b, 0x24]);
const TS_AUDIO = new Set([0x03, 0x04, 0x0f, 0x81, 0x87]);
const START_CODE = Buffer.from([0, 0, 1]);

/** @param {Buffer} buffer Where packets start: the first of three sync bytes 188 apart in its first packet, or -1. */
export function tsSync(buffer) {
  for (let at = 0; at < TS_PACKET && at + 2 * TS_PACKET < buffer.length; at++) {
    if (buffer[at] === 0x47 && buffer[at + TS_PACKET] === 0x47 && buffer[at + 2 * TS_PACKET] === 0x47) return at;
  }
  return -1;
}

/**
 * Calls `visit` for each whole packet from `at` with a payload (not null, erroneous or scrambled ones), finding sync
 * again after lost bytes; returns where the packets it did not read start.
 * @param {Buffer} buffer
 * @param {number} at
 * @param {(pid: number, payload: Buffer, unitStart: boolean) => void} visit
 */
function eachPacket(buffer, at, visit) {
  for (; at + TS_PACKET <= buffer.length; at += TS_PACKET) {
    if (buffer[at] !== 0x47) {
      const next = tsSync(buffer.subarray(at + 1));
      if (next < 0) return at;
      at += 1 + next - TS_PACKET;
      continue;
    }
    const pid = ((buffer[at + 1] & 0x1f) << 8) | buffer[at + 2];
    const control = buffer[at + 3];
    const start = control & 0x20 ? at + 5 + buffer[at + 4] : at + 4;
    if (buffer[at + 1] & 0x80 || pid === 0x1fff || control & 0xc0 || !(control & 0x10) || start >= at + TS_PACKET)
      continue;
    visit(pid, buffer.subarray(start, at + TS_PACKET), (buffer[at + 1] & 0x40) !== 0);
  }
  return at;
}

/** @param {Buffer} b A PES start's PTS (90 kHz) when it has one and where its data begins; undefined when not one. */
function pesStart(b) {
  if (b.length < 9 || b[0] !== 0 || b[1] !== 0 || b[2] !== 1) return undefined;
  // Stream ids without the optional header: program stream map, padding, private 2, ECM, EMM, directory, DSM-CC,
  // H.222.1 E.
  if ([0xbc, 0xbe, 0xbf, 0xf0, 0xf1, 0xff, 0xf2, 0xf8].includes(b[3])) return { data: 6, pts: undefined };
  const pts =
    b[7] & 0x80 && b.length >= 14
      ? (b[9] & 0x0e) * 0x20000000 + ((b[10] << 22) | ((b[11] & 0xfe) << 14) | (b[12] << 7) | (b[13] >> 1))
      : undefined;
  return { data: 9 + b[8], pts };
}

/**
 * Whether the bytes hold a start code beginning a video sequence of the stream type (MPEG-2 sequence header, H.264
 * SPS, H.265 VPS or SPS; by type, as an MPEG-2 slice's start code can look like an SPS).
 * @param {number | undefined} type
 * @param {Buffer} bytes
 */
function startsSequence(type, bytes) {
  for (let at = bytes.indexOf(START_CODE); at >= 0 && at + 3 < bytes.length; at = bytes.indexOf(START_CODE, at + 3)) {
    const code = bytes[at + 3];
    if (
      type === 0x1b
        ? (code & 0x9f) === 0x07
        : type === 0x24
          ? code === 0x40 || code === 0x42
          : code === 0xb3 && TS_VIDEO.has(type ?? 0)
    )
      return true;
  }
  return false;
}

/**
 * What the server reads of an MPEG-TS (mpeg-ts.parser.ts): the first PAT and PMT sections, of each PES stream the
 * head's first timestamps and payload bytes, and the tail's last timestamps with their PES's payload lengths (how
 * long the last audio one plays is its length at the stream's bytes per tick). Nothing else of the file is read.
 * @param {(position: number, length: number) => Buffer} readAt the file's bytes at a position (fewer at its end)
 * @param {number} size
 */
export function readMpegTs(readAt, size) {
  /** @type {Record<number, string>} */
  const sections = {};
  /** @type {Map<number, Buffer>} sections being put together, by PID */
  const partial = new Map();
  /** @type {Map<number, number>} the PMT's stream types, by PID */
  const types = new Map();
  /** @type {Map<number, { pts: number[], prefixes: Buffer[], sequence?: Buffer, open?: Buffer[] }>} */
  const streams = new Map();
  const addToSection = (/** @type {number} */ pid, /** @type {Buffer} */ bytes) => {
    const section = Buffer.concat([partial.get(pid) ?? Buffer.alloc(0), bytes]);
    const length = section.length >= 3 ? 3 + (((section[1] & 0x0f) << 8) | section[2]) : Infinity;
    if (section.length < length) return void partial.set(pid, section);
    partial.delete(pid);
    sections[pid] = section.toString('base64', 0, length);
    // A PMT's stream loop, for the stream types (the server reads the rest).
    for (
      let at = 12 + (((section[10] & 0x0f) << 8) | section[11]);
      section[0] === 2 && at + 5 <= length - 4;
      at += 5 + (((section[at + 3] & 0x0f) << 8) | section[at + 4])
    ) {
      types.set(((section[at + 1] & 0x1f) << 8) | section[at + 2], section[at]);
    }
  };
  const closePayload = (
    /** @type {number} */ pid,
    /** @type {{ prefixes: Buffer[], sequence?: Buffer, open?: Buffer[] }} */ stream,
  ) => {
    const bytes = stream.open && Buffer.concat(stream.open).subarray(0, ES_PREFIX_BYTES);
    stream.open = undefined;
    if (bytes && stream.prefixes.length < ES_PREFIXES) stream.prefixes.push(bytes);
    if (bytes && !stream.sequence && startsSequence(types.get(pid), bytes)) stream.sequence = bytes;
  };
  /** @type {Parameters<typeof eachPacket>[2]} */
  const visit = (pid, payload, unitStart) => {
    const start = unitStart ? pesStart(payload) : undefined;
    if (unitStart && !start) {
      const pointer = payload[0];
      if (partial.has(pid)) addToSection(pid, payload.subarray(1, 1 + pointer));
      if (sections[pid] === undefined && [0, 2].includes(payload[1 + pointer]))
        addToSection(pid, payload.subarray(1 + pointer));
    } else if (partial.has(pid)) addToSection(pid, payload);
    else if (start) {
      const stream = streams.get(pid) ?? { pts: [], prefixes: [] };
      streams.set(pid, stream);
      closePayload(pid, stream);
      if (start.pts !== undefined && stream.pts.length < PTS_KEPT) stream.pts.push(start.pts);
      if (stream.prefixes.length < ES_PREFIXES || !stream.sequence) stream.open = [payload.subarray(start.data)];
    } else {
      const open = streams.get(pid)?.open;
      if (open && open.reduce((sum, part) => sum + part.length, 0) < ES_PREFIX_BYTES) open.push(payload);
    }
  };
  // Enough: the tables, and of each audio and video stream they list a payload (of video: a sequence, half a second).
  const headDone = () =>
    types.size > 0 &&
    [...types].every(([pid, type]) => {
      const stream = streams.get(pid);
      if (TS_VIDEO.has(type))
        return stream?.sequence !== undefined && stream.prefixes.length >= ES_PREFIXES && stream.pts.length >= 12;
      return !TS_AUDIO.has(type) || (stream?.prefixes.length ?? 0) > 0;
    });
  let bytesRead = 0;
  for (
    let position = tsSync(readAt(0, 4 * TS_PACKET)), used = 1;
    position >= 0 && used > 0 && position < Math.min(size, TS_HEAD_MAX) && !headDone();
    position += used
  ) {
    const chunk = readAt(position, Math.min(TS_STEP, size - position));
    bytesRead += chunk.length;
    used = eachPacket(chunk, 0, visit);
  }
  for (const [pid, stream] of streams) closePayload(pid, stream);
  // The tail on its own (a short file is read twice: simpler than keeping the head's last timestamps, and cached).
  /** @type {Map<number, number[][]>} [PTS, payload bytes] of the tail's PES, by PID */
  let last = new Map();
  for (let tail = TS_TAIL_FIRST, from = size; from > 0 && tail <= TS_TAIL_MAX; tail *= 4) {
    from = Math.max(0, size - tail);
    const chunk = readAt(from, size - from);
    bytesRead += chunk.length;
    const found = (last = new Map());
    eachPacket(chunk, Math.max(0, tsSync(chunk)), (pid, payload, unitStart) => {
      const start = unitStart ? pesStart(payload) : undefined;
      const units = found.get(pid) ?? [];
      if (start?.pts !== undefined)
        found
          .set(pid, units)
          .get(pid)
          ?.push([start.pts, Math.max(0, payload.length - start.data)]);
      else if (units.length > 0) (units.at(-1) ?? [0, 0])[1] += payload.length - (start?.data ?? 0);
      if (units.length > PTS_KEPT) units.shift();
    });
    if ([...streams].every(([pid, stream]) => stream.pts.length === 0 || last.has(pid))) break;
  }
  const base64 = (/** @type {Buffer} */ bytes) => bytes.toString('base64');
  const picked = [...streams].map(([pid, { pts, prefixes, sequence }]) => {
    const units = last.get(pid) ?? [];
    return [
      pid,
      {
        pts,
        lastPts: units.map(([at]) => at),
        lastBytes: units.map(([, bytes]) => bytes),
        prefixes: prefixes.map(base64),
        sequence: sequence && base64(sequence),
      },
    ];
  });
  return { size, bytesRead, sections, streams: Object.fromEntries(picked) };
}
