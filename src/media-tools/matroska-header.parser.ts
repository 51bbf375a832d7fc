/**
 * A Matroska/WebM file's head (ts-ebml's elements before the first Cluster, picked by
 * media-read.child.js) as MediaDetails. Undefined when it cannot vouch for the file: no
 * Cluster or no Duration (a file still being written), a Segment longer than the file (a
 * copy cut short), chapters in a shape ffprobe reads differently (several editions,
 * nested, hidden or unordered chapters, or ones without a ChapterUID), a codec it does
 * not know; the next reader then tries.
 */
import type { Chapter } from './media-probe.js';
import {
  type HeaderReading,
  type MediaDetails,
  type SubtitleDetails,
  type VideoDetails,
  hdrOf,
  languageOf,
  positiveNumber,
  roundTo,
} from './media-details.js';

/** `[name, 'start', dataStart, sizeStart]`, `[name, 'end']` for a master element; `[name, value]` for the others. */
export type MatroskaElement = [string, ...unknown[]];

export interface MatroskaSummary {
  size: number;
  /** The Segment's 8 size bytes in hex, read raw (ts-ebml takes every 8-byte size for "unknown"). */
  segmentSizeField?: string;
  /** Where the first Cluster starts; absent when the head holds none. */
  clusterAt?: number;
  elements: MatroskaElement[];
}

const CODECS: [RegExp, string][] = [
  [/^V_MPEG4\/ISO\/AVC$/, 'h264'],
  [/^V_MPEGH\/ISO\/HEVC$/, 'hevc'],
  [/^V_AV1$/, 'av1'],
  [/^V_VP9$/, 'vp9'],
  [/^V_VP8$/, 'vp8'],
  [/^V_MPEG4\/ISO\/(ASP|SP|AP)$/, 'mpeg4'],
  [/^V_MPEG1$/, 'mpeg1video'],
  [/^V_MPEG2$/, 'mpeg2video'],
  [/^A_AAC/, 'aac'],
  [/^A_AC3$/, 'ac3'],
  [/^A_EAC3$/, 'eac3'],
  [/^A_DTS/, 'dts'],
  [/^A_TRUEHD$/, 'truehd'],
  [/^A_OPUS$/, 'opus'],
  [/^A_VORBIS$/, 'vorbis'],
  [/^A_FLAC$/, 'flac'],
  [/^A_MPEG\/L3$/, 'mp3'],
  [/^A_MPEG\/L2$/, 'mp2'],
  [/^S_TEXT\/UTF8$/, 'subrip'],
  [/^S_TEXT\/(ASS|SSA)$/, 'ass'],
  [/^S_TEXT\/WEBVTT$/, 'webvtt'],
  [/^D_WEBVTT\/(SUBTITLES|CAPTIONS)$/, 'webvtt'],
  [/^S_HDMV\/PGS$/, 'hdmv_pgs_subtitle'],
  [/^S_VOBSUB$/, 'dvd_subtitle'],
  [/^S_DVBSUB$/, 'dvb_subtitle'],
];
/** BlockAddIDType of a Dolby Vision configuration record: 'dvcC', 'dvvC', 'dvwC'. */
const DOLBY_VISION_TYPES = new Set([0x64766343, 0x64767643, 0x64767743]);
const NANOSECONDS = 1e9;

export function matroskaCodecName(codecId: string): string | undefined {
  return CODECS.find(([pattern]) => pattern.test(codecId))?.[1];
}

/**
 * The value of an 8-byte EBML size field given in hex; undefined for "unknown" (all value bits set) or a malformed
 * field.
 */
export function ebmlSizeValue(hex: string): number | undefined {
  if (!/^[0-9a-f]{2,16}$/i.test(hex)) return undefined;
  const bytes = Buffer.from(hex, 'hex');
  const first = bytes[0] ?? 0;
  const length = first === 0 ? 0 : 8 - Math.floor(Math.log2(first));
  if (length === 0 || length > bytes.length) return undefined;
  let value = BigInt(first & (0xff >> length));
  for (let index = 1; index < length; index++) value = (value << 8n) | BigInt(bytes[index] ?? 0);
  return value === (1n << BigInt(7 * length)) - 1n || value > BigInt(Number.MAX_SAFE_INTEGER)
    ? undefined
    : Number(value);
}

interface TrackEntry {
  type?: number;
  codecId?: string;
  language?: string;
  forced?: boolean;
  width?: number;
  height?: number;
  defaultDuration?: number;
  transfer?: number;
  dolbyVision?: boolean;
  channels?: number;
}

interface ChapterAtom {
  uid?: boolean;
  start?: number;
  end?: number;
  title?: string;
  hidden?: boolean;
}

interface Head {
  docType?: string;
  segment?: { dataStart: number };
  timestampScale: number;
  duration?: number;
  tracks: TrackEntry[];
  editions: number;
  chapters: ChapterAtom[];
  /** A ChapterAtom inside another, a hidden edition, or a chapter flag ffprobe reads differently. */
  oddChapters: boolean;
}

/** Gathers the elements into tracks and chapters; the summary's list is flat, in file order. */
function gather(elements: readonly MatroskaElement[]): Head {
  const head: Head = { timestampScale: 1_000_000, tracks: [], editions: 0, chapters: [], oddChapters: false };
  const open: string[] = [];
  let track: TrackEntry | undefined;
  let atom: ChapterAtom | undefined;
  for (const [name, first, second] of elements) {
    if (first === 'start' || first === 'end') {
      if (first === 'end') {
        open.pop();
        continue;
      }
      if (name === 'Segment' && typeof second === 'number') head.segment ??= { dataStart: second };
      if (name === 'TrackEntry') head.tracks.push((track = {}));
      if (name === 'EditionEntry') head.editions++;
      if (name === 'ChapterAtom') {
        if (open.includes('ChapterAtom')) head.oddChapters = true;
        else head.chapters.push((atom = {}));
      }
      open.push(name);
      continue;
    }
    const parent = open.at(-1);
    if (name === 'DocType') head.docType = String(first);
    else if (name === 'TimestampScale' && parent === 'Info')
      head.timestampScale = positiveNumber(first) ?? head.timestampScale;
    else if (name === 'Duration' && parent === 'Info') head.duration = positiveNumber(first);
    else if (open.includes('TrackEntry') && track) readTrackField(track, name, first, parent);
    else if (parent === 'ChapterAtom' && atom) readChapterField(atom, name, first);
    else if (parent === 'ChapterDisplay' && name === 'ChapString' && atom) atom.title ??= String(first);
    else if (name === 'EditionFlagHidden' && first === 1) head.oddChapters = true;
  }
  return head;
}

function readTrackField(track: TrackEntry, name: string, value: unknown, parent: string | undefined): void {
  if (name === 'TrackType') track.type = positiveNumber(value);
  else if (name === 'CodecID') track.codecId = String(value);
  else if (name === 'Language' && parent === 'TrackEntry') track.language = String(value);
  else if (name === 'FlagForced') track.forced = value === 1;
  else if (name === 'DefaultDuration') track.defaultDuration = positiveNumber(value);
  else if (name === 'PixelWidth') track.width = positiveNumber(value);
  else if (name === 'PixelHeight') track.height = positiveNumber(value);
  else if (name === 'TransferCharacteristics') track.transfer = positiveNumber(value);
  else if (name === 'BlockAddIDType' && DOLBY_VISION_TYPES.has(Number(value))) track.dolbyVision = true;
  else if (name === 'Channels') track.channels = positiveNumber(value);
}

function readChapterField(atom: ChapterAtom, name: string, value: unknown): void {
  if (name === 'ChapterUID') atom.uid = true;
  else if (name === 'ChapterTimeStart') atom.start = typeof value === 'number' && value >= 0 ? value : undefined;
  else if (name === 'ChapterTimeEnd') atom.end = positiveNumber(value);
  else if ((name === 'ChapterFlagHidden' && value === 1) || (name === 'ChapterFlagEnabled' && value === 0))
    atom.hidden = true;
}

/**
 * The chapters as ffprobe gives them (seconds; a chapter without an end ends where the next starts, the last at the
 * end); undefined when they are odd.
 */
function chaptersOf(head: Head, duration: number): Chapter[] | undefined {
  if (head.chapters.length === 0) return [];
  // ffmpeg leaves out a chapter without a ChapterUID, or not after the one before: such files go to the next reader.
  if (
    head.oddChapters ||
    head.editions > 1 ||
    head.chapters.some((chapter) => chapter.hidden || !chapter.uid || chapter.start === undefined)
  )
    return undefined;
  const chapters: Chapter[] = [];
  for (const [index, atom] of head.chapters.entries()) {
    const start = (atom.start ?? 0) / NANOSECONDS;
    const next = head.chapters[index + 1]?.start;
    const end = atom.end !== undefined ? atom.end / NANOSECONDS : next !== undefined ? next / NANOSECONDS : duration;
    if (end < start || (index > 0 && start <= (chapters.at(-1)?.start ?? 0))) return undefined;
    chapters.push({ start: roundTo(start, 3), end: roundTo(end, 3), ...(atom.title ? { title: atom.title } : {}) });
  }
  return chapters;
}

function videoOf(track: TrackEntry, codec: string): VideoDetails {
  const video: VideoDetails = { codec, width: track.width ?? 0, height: track.height ?? 0 };
  const rate = track.defaultDuration ? positiveNumber(NANOSECONDS / track.defaultDuration) : undefined;
  if (rate !== undefined) video.frameRate = roundTo(rate, 3);
  const hdr = hdrOf(track.transfer, track.dolbyVision === true);
  if (hdr) video.hdr = hdr;
  return video;
}

/** True when the Segment claims bytes the file does not have (a copy that stopped, a file still being written). */
export function matroskaCutShort(summary: MatroskaSummary): boolean {
  const segment = gather(summary.elements).segment;
  const segmentSize = ebmlSizeValue(summary.segmentSizeField ?? '');
  return segment !== undefined && segmentSize !== undefined && segment.dataStart + segmentSize > summary.size;
}

export function readMatroskaHeader(summary: MatroskaSummary): HeaderReading | undefined {
  if (summary.clusterAt === undefined) return undefined;
  const head = gather(summary.elements);
  if (!head.segment || head.duration === undefined) return undefined;
  if (matroskaCutShort(summary)) return undefined;
  const details: MediaDetails = {
    container: head.docType === 'webm' ? 'webm' : 'matroska',
    audio: [],
    subtitles: [],
    closedCaptions: false,
  };
  for (const track of head.tracks) {
    const kind = track.type === 1 ? 'video' : track.type === 2 ? 'audio' : track.type === 17 ? 'subtitle' : undefined;
    if (!kind) continue;
    const codec = matroskaCodecName(track.codecId ?? '');
    if (!codec) return undefined;
    // Matroska's default language is English: an absent element means "eng", as ffprobe says.
    const language = languageOf(track.language ?? 'eng');
    if (kind === 'video') details.video ??= videoOf(track, codec);
    else if (kind === 'audio')
      details.audio.push({
        codec,
        ...(track.channels ? { channels: track.channels } : {}),
        ...(language ? { language } : {}),
      });
    else
      details.subtitles.push({
        codec,
        forced: track.forced === true,
        ...(language ? { language } : {}),
      } as SubtitleDetails);
  }
  if (!details.video && details.audio.length === 0) return undefined;
  const seconds = positiveNumber((head.duration * head.timestampScale) / NANOSECONDS);
  if (seconds === undefined) return undefined;
  const duration = roundTo(seconds, 3);
  const chapters = chaptersOf(head, duration);
  if (!chapters) return undefined;
  return { duration, details, chapters };
}
