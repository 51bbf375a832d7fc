/**
 * An MPEG-TS as media-read.child.js reads it (the PAT and PMT, of each stream the head's
 * first timestamps and payload bytes, the tail's last timestamps: a few hundred kilobytes
 * of the head and the tail, where ffprobe takes a process and about 70 ms) read as
 * ffprobe would say it. Undefined when it cannot vouch, and ffprobe reads the file:
 * - the tables are missing, damaged (CRC) or list more than one program;
 * - a stream is of a type this does not read: subtitles and teletext, DTS, LATM AAC,
 *   private data ffprobe would probe, MPEG-4 Part 2 video...;
 * - an audio or video stream has no header in the head (scrambled, listed but not sent,
 *   a recording whose video sequence header never came), an AAC header below 32 kHz
 *   (maybe HE-AAC v2, which ffprobe counts as two channels), E-AC-3 with a dependent
 *   substream, a Dolby Vision descriptor, H.265 coded as fields;
 * - the frame rate the header declares and the timestamps' cadence disagree (fields
 *   sent as pictures), the cadence is irregular (soft telecine), or neither gives one;
 * - the video (or the first audio) has no timestamp in the tail, the timestamps of the
 *   head or the tail jump (back more than a second, ahead more than ten: a source that
 *   restarted or looped, where ffprobe's reading and this one differ and neither is
 *   right), or the duration is not between 0 and 24 hours.
 * The duration is ffprobe's: from the earliest first PTS of the streams to the latest
 * last PTS plus that stream's frame duration (33-bit clock wraps unwound).
 *
 * Written here because no kept library reads a TS's tables and timestamps in Node: mux.js
 * (videojs) knows H.264, ADTS and ID3 streams only, skips descriptors (no languages) and
 * reads a PMT only within one packet; mpegts.js and hls.js demux inside browser players,
 * not as public API. MediaInfo (mediainfo.js 0.3.8) cannot be told to read less (no
 * ParseSpeed: its factory sets only output, cover and full options) and reads about half
 * a broadcast TS (17 of 34 MB measured), with no AVC frame rate and two-letter languages.
 */
import { type AudioFamily, type AudioHeader, readAudioHeader } from './audio-frame.parser.js';
import { type VideoCodec, type VideoHeader, hasCaptions, readVideoHeader } from './elementary-stream.parser.js';
import {
  type AudioDetails,
  type HeaderReading,
  type MediaDetails,
  type VideoDetails,
  hdrOf,
  languageOf,
  roundTo,
} from './media-details.js';

/** A PES stream as media-read.child.js picks it: PTS in 90 kHz ticks, payload bytes in base64. */
export interface MpegTsStream {
  pts: number[];
  lastPts: number[];
  /** The payload bytes of each PES of lastPts, as far as the file goes. */
  lastBytes: number[];
  prefixes: string[];
  /** The first payload that starts a video sequence (MPEG-2 sequence header, H.264 SPS, H.265 VPS/SPS). */
  sequence?: string;
}

export interface MpegTsSummary {
  size: number;
  /** Bytes the reading process read (head and tail). */
  bytesRead: number;
  /** The first PAT and PMT sections (base64), by PID. */
  sections: Record<string, string>;
  streams: Record<string, MpegTsStream>;
}

const CLOCK = 90_000;
const WRAP = 2 ** 33;
const MAX_SECONDS = 24 * 3600;

/** CRC-32/MPEG-2 (ISO/IEC 13818-1 annex A): 0 over a whole intact section, its CRC included. */
export function crc32Mpeg(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte << 24;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
  }
  return crc >>> 0;
}

/** A long-form PSI section of the table: intact, current (not the next version), within its length. */
function sectionOf(base64: string | undefined, table: number): Uint8Array | undefined {
  if (base64 === undefined) return undefined;
  const bytes = Buffer.from(base64, 'base64');
  const length = 3 + ((((bytes[1] ?? 0) & 0x0f) << 8) | (bytes[2] ?? 0));
  if (bytes[0] !== table || length !== bytes.length || length < 16 || !((bytes[5] ?? 0) & 1) || crc32Mpeg(bytes) !== 0)
    return undefined;
  return bytes;
}

const u16 = (bytes: Uint8Array, at: number) => (((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0)) & 0x1fff;

/** The PMT PIDs of the PAT's programs (program 0, the network PID, left out). */
export function readPat(section: Uint8Array): number[] {
  const pids: number[] = [];
  for (let at = 8; at + 4 <= section.length - 4; at += 4)
    if ((((section[at] ?? 0) << 8) | (section[at + 1] ?? 0)) !== 0) pids.push(u16(section, at + 2));
  return pids;
}

export interface PmtStream {
  pid: number;
  type: number;
  /** Descriptors by tag (ISO/IEC 13818-1 2.6), their bodies. */
  descriptors: Map<number, Uint8Array>;
}

/** The program's registration (format_identifier of its program descriptor 0x05) and streams, in PMT order. */
export function readPmt(section: Uint8Array): { registration?: string; streams: PmtStream[] } {
  const end = section.length - 4;
  const infoLength = u16(section, 10) & 0x0fff;
  const registration = descriptorsOf(section.subarray(12, 12 + infoLength)).get(0x05);
  const streams: PmtStream[] = [];
  for (let at = 12 + infoLength; at + 5 <= end; ) {
    const length = u16(section, at + 3) & 0x0fff;
    streams.push({
      type: section[at] ?? 0,
      pid: u16(section, at + 1),
      descriptors: descriptorsOf(section.subarray(at + 5, Math.min(end, at + 5 + length))),
    });
    at += 5 + length;
  }
  return {
    ...(registration ? { registration: Buffer.from(registration.subarray(0, 4)).toString('latin1') } : {}),
    streams,
  };
}

/** Descriptors by tag; the first of a tag is kept (ffmpeg does not overwrite a language either). */
function descriptorsOf(bytes: Uint8Array): Map<number, Uint8Array> {
  const descriptors = new Map<number, Uint8Array>();
  for (let at = 0; at + 2 <= bytes.length; at += 2 + (bytes[at + 1] ?? 0)) {
    const tag = bytes[at] ?? 0;
    if (!descriptors.has(tag)) descriptors.set(tag, bytes.subarray(at + 2, at + 2 + (bytes[at + 1] ?? 0)));
  }
  return descriptors;
}

/**
 * ffmpeg's language: the ISO 639 descriptor's codes joined by commas (which languageOf then drops, as it does
 * ffprobe's).
 */
function languageOfStream(stream: PmtStream): string | undefined {
  const body = stream.descriptors.get(0x0a);
  if (!body || body.length < 4 || body[0] === 0) return undefined;
  const codes: string[] = [];
  for (let at = 0; at + 4 <= body.length; at += 4)
    codes.push(Buffer.from(body.subarray(at, at + 3)).toString('latin1'));
  return languageOf(codes.join(','));
}

type StreamKind = { video: VideoCodec } | { audio: AudioFamily; eac3?: boolean } | 'data' | 'unknown';

/** What ffprobe makes of a PMT entry, as far as this reader goes (ffmpeg's mpegts.c stream type tables). */
export function kindOf(stream: PmtStream, registration: string | undefined): StreamKind {
  const video: Record<number, VideoCodec> = { 0x01: 'mpeg2video', 0x02: 'mpeg2video', 0x1b: 'h264', 0x24: 'hevc' };
  const audio: Record<number, AudioFamily> = { 0x03: 'mpeg', 0x04: 'mpeg', 0x0f: 'aac', 0x81: 'ac3' };
  if (stream.descriptors.has(0xb0)) return 'unknown'; // Dolby Vision: ffprobe reads its configuration record
  const videoCodec = video[stream.type];
  if (videoCodec) return { video: videoCodec };
  const family = audio[stream.type];
  if (family) return { audio: family };
  if (stream.type === 0x87) return { audio: 'ac3', eac3: true };
  if (stream.type === 0x06) {
    const format = stream.descriptors.get(0x05);
    const formatName = format ? Buffer.from(format.subarray(0, 4)).toString('latin1') : undefined;
    if (stream.descriptors.has(0x7a) || formatName === 'EAC3') return { audio: 'ac3', eac3: true };
    if (stream.descriptors.has(0x6a) || formatName === 'AC-3') return { audio: 'ac3' };
    return 'unknown';
  }
  // Sections and data ffprobe lists as data streams: private sections, DSM-CC, ID3, SCTE-35 (0x86 is DTS-HD on
  // Blu-ray).
  if ([0x05, 0x0b, 0x0c, 0x0d, 0x15].includes(stream.type) || (stream.type === 0x86 && registration !== 'HDMV'))
    return 'data';
  return 'unknown';
}

const bytesOf = (base64: string) => Buffer.from(base64, 'base64');

/** b − a in 90 kHz ticks, the 33-bit clock's wrap unwound: in [−2^32, 2^32). */
function ticksBetween(a: number, b: number): number {
  const d = (((b - a) % WRAP) + WRAP) % WRAP;
  return d >= WRAP / 2 ? d - WRAP : d;
}

/**
 * The commonest step between the sorted timestamps, when most steps are it (±2 ticks: 59.94 Hz alternates 1501 and
 * 1502).
 */
export function cadenceOf(pts: readonly number[]): number | undefined {
  if (pts.length < 2) return undefined;
  const times = [...new Set(pts.map((p) => ticksBetween(pts[0] as number, p)))].sort((a, b) => a - b);
  const steps = times.slice(1).map((time, i) => time - (times[i] as number));
  const counts = new Map<number, number>();
  for (const step of steps) counts.set(step, (counts.get(step) ?? 0) + 1);
  const [step] = [...counts].reduce((best, entry) => (entry[1] > best[1] ? entry : best), [0, 0]);
  const near = steps.filter((s) => Math.abs(s - step) <= 2);
  return step > 0 && near.length >= steps.length * 0.8 ? near.reduce((sum, s) => sum + s, 0) / near.length : undefined;
}

/**
 * How long the last PES of an audio stream plays, in ticks: its bytes at the stream's ticks per byte over the tail
 * (audio's rate is about constant; a PES holds several frames when ffmpeg muxed it, and ffprobe counts them all).
 */
function lastAudioTicks(stream: MpegTsStream): number | undefined {
  const [pts, bytes] = [stream.lastPts, stream.lastBytes];
  let [ticks, length] = [0, 0];
  for (let i = 0; i + 1 < pts.length; i++) {
    ticks += ticksBetween(pts[i] as number, pts[i + 1] as number);
    length += bytes[i] ?? 0;
  }
  return ticks > 0 && length > 0 && bytes.length === pts.length ? ((bytes.at(-1) ?? 0) * ticks) / length : undefined;
}

/**
 * The stream's first PTS and its end (last PTS and how long that picture or those samples play), as ticks; undefined
 * without timestamps at both ends.
 */
function spanOf(stream: MpegTsStream, audio: boolean): { first: number; end: number } | undefined {
  const [head, last] = [stream.pts[0], stream.lastPts.at(-1)];
  if (head === undefined || last === undefined) return undefined;
  // B-frames come before the picture they follow in display: the earliest and latest of a few, not the first and last
  // sent.
  const first = head + Math.min(...stream.pts.slice(0, 32).map((p) => ticksBetween(head, p)));
  const lastSteps = stream.lastPts.slice(-32);
  const lasting = audio ? lastAudioTicks(stream) : (cadenceOf(lastSteps) ?? cadenceOf(stream.pts));
  if (lasting === undefined) return undefined;
  return { first, end: last + Math.max(...lastSteps.map((p) => ticksBetween(last, p))) + lasting };
}

/** Timestamps in the order sent that step back at most a second (B-frames: less) and ahead at most ten (a gap). */
function continuous(pts: readonly number[]): boolean {
  return pts.every(
    (p, i) =>
      i === 0 ||
      (ticksBetween(pts[i - 1] as number, p) >= -CLOCK && ticksBetween(pts[i - 1] as number, p) <= 10 * CLOCK),
  );
}

/**
 * The frame rate ffprobe gives: the header's when the timestamps' cadence agrees (within 1 %) or there are too few of
 * them, the cadence's when the header has none; none when the cadence is irregular (soft telecine) or disagrees.
 */
function frameRateOf(header: VideoHeader, pts: readonly number[]): number | undefined {
  if (pts.length < 8) return header.frameRate;
  const step = cadenceOf(pts);
  if (step === undefined) return undefined;
  if (header.frameRate === undefined) return CLOCK / step;
  return Math.abs(header.frameRate - CLOCK / step) <= header.frameRate * 0.01 ? header.frameRate : undefined;
}

interface Read {
  details: MediaDetails;
  /** The streams read, for the duration (the main one first: the video, else the first audio). */
  spans: { stream: MpegTsStream; audio: boolean }[];
}

function readVideo(codec: VideoCodec, stream: MpegTsStream): VideoDetails | undefined {
  const header = [stream.sequence, ...stream.prefixes]
    .flatMap((bytes) => (bytes ? [readVideoHeader(codec, bytesOf(bytes))] : []))
    .find(Boolean);
  if (!header || header.fields) return undefined;
  const frameRate = frameRateOf(header, stream.pts);
  if (frameRate === undefined) return undefined;
  const hdr = hdrOf(header.transfer, false);
  return {
    codec: codec === 'mpeg2video' && header.mpeg1 ? 'mpeg1video' : codec,
    width: header.width,
    height: header.height,
    frameRate: roundTo(frameRate, 3),
    ...(hdr ? { hdr } : {}),
  };
}

function readAudio(
  kind: { audio: AudioFamily; eac3?: boolean },
  stream: MpegTsStream,
  language: string | undefined,
): AudioDetails | undefined {
  const header: AudioHeader | undefined = stream.prefixes
    .map((bytes) => readAudioHeader(kind.audio, bytesOf(bytes)))
    .find(Boolean);
  // ffmpeg names AC-3 by the frame (its parser turns ac3 into eac3), but an AC-3 frame under an E-AC-3 type is not
  // checked here.
  if (
    !header ||
    header.dependent ||
    (kind.eac3 && header.codec !== 'eac3') ||
    (header.codec === 'aac' && (header.sampleRate ?? 0) < 32_000)
  )
    return undefined;
  return { codec: header.codec, channels: header.channels, ...(language ? { language } : {}) };
}

/** The program's streams as MediaDetails; undefined when one of them is not vouched for. */
function readStreams(summary: MpegTsSummary): Read | undefined {
  const patPids = readPat(sectionOf(summary.sections['0'], 0x00) ?? new Uint8Array());
  if (patPids.length !== 1) return undefined;
  const pmt = sectionOf(summary.sections[String(patPids[0])], 0x02);
  if (!pmt) return undefined;
  const program = readPmt(pmt);
  const details: MediaDetails = { container: 'mpegts', audio: [], subtitles: [], closedCaptions: false };
  const spans: Read['spans'] = [];
  for (const entry of program.streams) {
    const kind = kindOf(entry, program.registration);
    if (kind === 'data') continue;
    const stream = summary.streams[String(entry.pid)];
    // No payload in the head: scrambled (those packets are skipped), listed but not sent, or beyond what was read.
    if (kind === 'unknown' || !stream) return undefined;
    if ('video' in kind) {
      const video = readVideo(kind.video, stream);
      if (!video) return undefined;
      if (!details.video) {
        details.video = video;
        details.closedCaptions = [stream.sequence, ...stream.prefixes].some(
          (bytes) => bytes !== undefined && hasCaptions(kind.video, bytesOf(bytes)),
        );
        spans.unshift({ stream, audio: false });
        continue;
      }
    } else {
      const audio = readAudio(kind, stream, languageOfStream(entry));
      if (!audio) return undefined;
      details.audio.push(audio);
    }
    spans.push({ stream, audio: !('video' in kind) });
  }
  return details.video || details.audio.length > 0 ? { details, spans } : undefined;
}

/**
 * What the TS holds, as ffprobe's reading would say it; undefined when ffprobe should read it instead (see the top of
 * this file).
 */
export function readMpegTsHeader(summary: MpegTsSummary): HeaderReading | undefined {
  const read = readStreams(summary);
  if (!read || !read.spans.every(({ stream }) => continuous(stream.pts) && continuous(stream.lastPts)))
    return undefined;
  const spans = read.spans.map(({ stream, audio }) => spanOf(stream, audio));
  const main = spans[0];
  if (!main) return undefined;
  const start = main.first + Math.min(...spans.flatMap((span) => (span ? [ticksBetween(main.first, span.first)] : [])));
  // From the start: the clock may have wrapped once in between (it does every 26.5 hours).
  const ticks = Math.max(...spans.flatMap((span) => (span ? [(((span.end - start) % WRAP) + WRAP) % WRAP] : [])));
  const seconds = ticks / CLOCK;
  if (!(seconds > 0 && seconds < MAX_SECONDS)) return undefined;
  return { duration: roundTo(seconds, 3), details: read.details, chapters: [] };
}

/** The video carries CEA-608/708 captions (for ffprobe's reading of a TS this reader could not vouch for). */
export function tsSeesCaptions(summary: MpegTsSummary): boolean {
  const pmtPid = readPat(sectionOf(summary.sections['0'], 0x00) ?? new Uint8Array())[0];
  const pmt = sectionOf(summary.sections[String(pmtPid)], 0x02);
  if (!pmt) return false;
  const program = readPmt(pmt);
  return program.streams.some((entry) => {
    const kind = kindOf(entry, program.registration);
    const stream = summary.streams[String(entry.pid)];
    if (typeof kind !== 'object' || !('video' in kind) || !stream) return false;
    return [stream.sequence, ...stream.prefixes].some(
      (bytes) => bytes !== undefined && hasCaptions(kind.video, bytesOf(bytes)),
    );
  });
}
