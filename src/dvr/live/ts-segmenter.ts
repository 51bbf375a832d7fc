/**
 * Cuts a live channel's MPEG-TS, as received, into segments a player can start at: each
 * begins with the channel's PAT and PMT and then a video random access point (a keyframe),
 * and lasts about `targetSeconds`. No bytes are changed or re-muxed: the buffer stores
 * the stream once, and H.264/AAC channels play from it as they are.
 *
 * A keyframe is the adaptation field's random_access_indicator on a packet that starts a
 * video PES (what broadcast muxers and ffmpeg set), or, for a source that never sets it,
 * the codec's own start (an H.264 IDR or SPS, an HEVC IRAP or parameter set, an MPEG-2
 * sequence header) at the start of the PES payload. A channel without video (radio) is cut
 * at its audio's units. Durations come from the first PTS of each segment; where the
 * timestamps jump (a source that loops, restarts or splices) the wall clock says how long,
 * and the segment after the jump is marked as a discontinuity.
 *
 * The first QUICK_START segments end at the next keyframe, however short: a player tuning
 * the channel has a segment to start at one GOP after the first keyframe, not a whole
 * target's length later.
 *
 * Pure: it parses in place and returns the segments it completed; the caller writes them.
 */

export const PACKET = 188;
const SYNC = 0x47;
const CLOCK_HZ = 90_000;
const TWO_POW_33 = 2 ** 33;
/** A jump in timestamps longer than this between two cuts is no duration: the wall clock is used. */
const LONGEST_BELIEVED_SECONDS = 60;
/** A segment with no keyframe in sight is cut after this many target lengths (at least 10 s)... */
export const longestOpenSeconds = (targetSeconds: number) => Math.max(10, 5 * targetSeconds);
/** ...or this many bytes (10 s of 50 Mbit/s). */
const LONGEST_OPEN_BYTES = 64 * 1024 * 1024;
/** Segments cut at every keyframe after the channel is tuned (and after each gap). */
export const QUICK_START = 3;

const VIDEO_TYPES = new Set([0x01, 0x02, 0x10, 0x1b, 0x24, 0x42, 0xea]);
const AUDIO_TYPES = new Set([0x03, 0x04, 0x0f, 0x11, 0x81, 0x87]);

export interface CutSegment {
  /** The segment's bytes: whole packets, PAT and PMT first. */
  chunks: Buffer[];
  bytes: number;
  /** Seconds it plays. */
  duration: number;
  /** Epoch milliseconds its first byte arrived: its EXT-X-PROGRAM-DATE-TIME. */
  receivedAt: number;
  /** Its timestamps do not follow the segment before (the source looped, restarted or spliced). */
  discontinuity: boolean;
}

interface Open {
  chunks: Buffer[];
  bytes: number;
  receivedAt: number;
  /** When its last bytes came (an upstream that stops is declared gone only seconds later). */
  lastAt: number;
  /** First PTS of the followed stream in this segment, when it had one. */
  pts: number | undefined;
  discontinuity: boolean;
}

/** The 33-bit timestamp of a PES header's PTS field at `at`. */
export function ptsAt(bytes: Buffer, at: number): number {
  const low =
    ((bytes[at + 1]! << 22) | ((bytes[at + 2]! & 0xfe) << 14) | (bytes[at + 3]! << 7) | (bytes[at + 4]! >> 1)) >>> 0;
  return (bytes[at]! & 0x0e) * 0x20000000 + low;
}

/** Seconds from PTS `a` to PTS `b`, the 33-bit wrap unwound; negative when `b` comes before `a`. */
export function ptsSeconds(a: number, b: number): number {
  let ticks = (b - a) % TWO_POW_33;
  if (ticks > TWO_POW_33 / 2) ticks -= TWO_POW_33;
  if (ticks < -TWO_POW_33 / 2) ticks += TWO_POW_33;
  return ticks / CLOCK_HZ;
}

/** Where a packet's payload starts, or -1 when it has none. */
function payloadStart(packet: Buffer, at: number): number {
  const control = packet[at + 3]!;
  if (!(control & 0x10)) return -1;
  const start = control & 0x20 ? at + 5 + packet[at + 4]! : at + 4;
  return start < at + PACKET ? start : -1;
}

/** True when the codec's own bytes at the start of a PES payload say a decoder can start here. */
export function startsDecodable(streamType: number, bytes: Buffer, from: number, to: number): boolean {
  for (let i = from; i + 3 < to; i++) {
    if (bytes[i] !== 0 || bytes[i + 1] !== 0 || bytes[i + 2] !== 1) continue;
    const code = bytes[i + 3]!;
    if (streamType === 0x1b) {
      const nal = code & 0x1f;
      if (nal === 5 || nal === 7) return true;
    } else if (streamType === 0x24) {
      const nal = (code >> 1) & 0x3f;
      if ((nal >= 16 && nal <= 21) || (nal >= 32 && nal <= 34)) return true;
    } else if (code === 0xb3) return true;
  }
  return false;
}

/** The first program's PMT PID in a PAT section, or -1. */
function pmtPidOf(packet: Buffer, at: number): number {
  const start = payloadStart(packet, at);
  if (start < 0) return -1;
  const section = start + 1 + packet[start]!;
  if (section + 12 > at + PACKET || packet[section] !== 0x00) return -1;
  const end = Math.min(section + 3 + (((packet[section + 1]! & 0x0f) << 8) | packet[section + 2]!) - 4, at + PACKET);
  for (let p = section + 8; p + 4 <= end; p += 4) {
    const program = (packet[p]! << 8) | packet[p + 1]!;
    if (program !== 0) return ((packet[p + 2]! & 0x1f) << 8) | packet[p + 3]!;
  }
  return -1;
}

/**
 * True when a browser plays these PMT stream types as they are (hls.js): H.264 video (or none) and AAC or MPEG audio.
 * MPEG-2 video and AC-3 audio, broadcast's usual, are not: such a channel needs the transcoding renditions.
 */
export function browserPlayable(streamTypes: readonly number[]): boolean {
  const video = streamTypes.filter((type) => VIDEO_TYPES.has(type));
  const audio = streamTypes.filter((type) => AUDIO_TYPES.has(type));
  const browserAudio = new Set([0x03, 0x04, 0x0f]);
  return (
    video.every((type) => type === 0x1b) &&
    (video.length > 0 || audio.length > 0) &&
    audio.some((type) => browserAudio.has(type))
  );
}

/** The stream types a PMT section lists, in order. */
function streamTypesOf(packet: Buffer, at: number): number[] {
  const start = payloadStart(packet, at);
  if (start < 0) return [];
  const section = start + 1 + packet[start]!;
  if (section + 12 > at + PACKET || packet[section] !== 0x02) return [];
  const end = Math.min(section + 3 + (((packet[section + 1]! & 0x0f) << 8) | packet[section + 2]!) - 4, at + PACKET);
  const types: number[] = [];
  for (let p = section + 12 + (((packet[section + 10]! & 0x0f) << 8) | packet[section + 11]!); p + 5 <= end; ) {
    types.push(packet[p]!);
    p += 5 + (((packet[p + 3]! & 0x0f) << 8) | packet[p + 4]!);
  }
  return types;
}

/** The first video stream of a PMT section, else the first audio one: its PID and stream type. */
function followedOf(packet: Buffer, at: number): { pid: number; type: number; video: boolean } | undefined {
  const start = payloadStart(packet, at);
  if (start < 0) return undefined;
  const section = start + 1 + packet[start]!;
  if (section + 12 > at + PACKET || packet[section] !== 0x02) return undefined;
  const end = Math.min(section + 3 + (((packet[section + 1]! & 0x0f) << 8) | packet[section + 2]!) - 4, at + PACKET);
  let audio: { pid: number; type: number; video: boolean } | undefined;
  for (let p = section + 12 + (((packet[section + 10]! & 0x0f) << 8) | packet[section + 11]!); p + 5 <= end; ) {
    const type = packet[p]!;
    const pid = ((packet[p + 1]! & 0x1f) << 8) | packet[p + 2]!;
    if (VIDEO_TYPES.has(type)) return { pid, type, video: true };
    if (!audio && AUDIO_TYPES.has(type)) audio = { pid, type, video: false };
    p += 5 + (((packet[p + 3]! & 0x0f) << 8) | packet[p + 4]!);
  }
  return audio;
}

/**
 * Where the packets begin again after lost sync: the next 0x47 that another follows a packet later (a lone 0x47 is as
 * likely a payload byte); one too near the end to check is taken, and checked when the next bytes come.
 */
export function resyncAt(bytes: Buffer, from: number): number {
  for (let next = bytes.indexOf(SYNC, from); next >= 0; next = bytes.indexOf(SYNC, next + 1))
    if (next + PACKET >= bytes.length || bytes[next + PACKET] === SYNC) return next;
  return bytes.length;
}

export class TsSegmenter {
  private carry: Buffer | undefined;
  private pat: Buffer | undefined;
  private pmt: Buffer | undefined;
  private pmtPid = -1;
  private followed: { pid: number; type: number; video: boolean } | undefined;
  /** The stream types of the channel's PMT, as last seen. */
  streamTypes: number[] = [];
  /** Bytes before the first random access point: nothing a player could start at. */
  private open: Open | undefined;
  /** The upstream ended before the next segment: its timestamps do not follow. */
  private nextDiscontinuity = false;
  /** Segments cut since the channel was tuned or came back: the first QUICK_START are short. */
  private cuts = 0;

  constructor(private readonly options: { targetSeconds: number; now: () => number }) {}

  /** The channel's next bytes, in any pieces; the segments they completed. */
  push(chunk: Buffer): CutSegment[] {
    const bytes = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = undefined;
    const done: CutSegment[] = [];
    const now = this.options.now();
    let at = 0;
    let runStart = -1;
    const keep = (end: number) => {
      if (runStart >= 0 && this.open && end > runStart) this.append(bytes.subarray(runStart, end));
      runStart = -1;
    };
    while (at + PACKET <= bytes.length) {
      // A packet is believed when the next begins where it ends too (when that is here to see).
      if (bytes[at] !== SYNC || (at + PACKET < bytes.length && bytes[at + PACKET] !== SYNC)) {
        keep(at);
        at = resyncAt(bytes, at + 1);
        continue;
      }
      const cut = this.inspect(bytes, at, now);
      if (cut) {
        keep(at);
        const finished = this.cut(at, bytes, now);
        if (finished) done.push(finished);
      }
      if (runStart < 0) runStart = at;
      at += PACKET;
    }
    keep(at);
    if (this.open) this.open.lastAt = now;
    if (at < bytes.length) this.carry = Buffer.from(bytes.subarray(at));
    return done;
  }

  /**
   * The bytes of the segment under way (the tables first) and of a packet not yet whole: with the channel's next
   * chunks, as received, they go on exactly where the last segment cut ends (a recording from the buffer joins here).
   */
  unfinished(): { tables: Buffer[]; rest: Buffer[]; discontinuity: boolean } {
    const chunks = this.open?.chunks ?? [];
    return {
      tables: chunks.slice(0, 2),
      rest: [...chunks.slice(2), ...(this.carry ? [this.carry] : [])],
      // Between an upstream's end and the next keyframe nothing is under way, but what comes does not follow on.
      discontinuity: this.open?.discontinuity ?? this.nextDiscontinuity,
    };
  }

  /**
   * The segment under way (from its tables and keyframe on): its chunks array grows until it is cut, and is the same
   * array in the CutSegment then. Undefined before the first keyframe and after an upstream's end.
   */
  current(): { chunks: readonly Buffer[]; receivedAt: number; discontinuity: boolean } | undefined {
    return this.open;
  }

  /**
   * The segment under way, ended where the upstream ended (its duration by the wall clock, to its last bytes: not the
   * silence before the drop was noticed, which would make it the playlist's longest segment, and the playlist's
   * target duration with it, for good); the next is marked.
   */
  end(): CutSegment | undefined {
    this.carry = undefined;
    const open = this.open;
    this.open = undefined;
    this.nextDiscontinuity = true;
    this.cuts = 0;
    if (!open || open.bytes === 0) return undefined;
    const duration = Math.max(0.1, (open.lastAt - open.receivedAt) / 1000);
    return {
      chunks: open.chunks,
      bytes: open.bytes,
      duration,
      receivedAt: open.receivedAt,
      discontinuity: open.discontinuity,
    };
  }

  private append(slice: Buffer): void {
    const open = this.open as Open;
    // Kept, not copied: a socket's chunks are fresh memory that nobody writes to again (the hub hands the same chunk
    // to every consumer, and each only reads it).
    open.chunks.push(slice);
    open.bytes += slice.length;
  }

  /** Learns the tables from the packet at `at`; true when a segment should start at it. */
  private inspect(bytes: Buffer, at: number, now: number): boolean {
    const pid = ((bytes[at + 1]! & 0x1f) << 8) | bytes[at + 2]!;
    // Only a packet that starts a table section is read as one (a section's continuation has no pointer field).
    const startsUnit = (bytes[at + 1]! & 0x40) !== 0;
    if (pid === 0) {
      const pmtPid = startsUnit ? pmtPidOf(bytes, at) : -1;
      if (pmtPid >= 0) {
        this.pat = Buffer.from(bytes.subarray(at, at + PACKET));
        this.pmtPid = pmtPid;
      }
      return false;
    }
    if (pid === this.pmtPid) {
      const followed = startsUnit ? followedOf(bytes, at) : undefined;
      if (followed) {
        this.pmt = Buffer.from(bytes.subarray(at, at + PACKET));
        this.followed = followed;
        this.streamTypes = streamTypesOf(bytes, at);
      }
      return false;
    }
    const followed = this.followed;
    if (!followed || pid !== followed.pid || !(bytes[at + 1]! & 0x40) || !this.pat || !this.pmt) return false;
    const start = payloadStart(bytes, at);
    if (start < 0 || bytes[start] !== 0 || bytes[start + 1] !== 0 || bytes[start + 2] !== 1) return false;
    const pts = bytes[start + 7]! >> 6 >= 2 && start + 14 <= at + PACKET ? ptsAt(bytes, start + 9) : undefined;
    const open = this.open;
    if (open && open.pts === undefined && pts !== undefined) open.pts = pts;
    const age = open
      ? pts !== undefined && open.pts !== undefined
        ? ptsSeconds(open.pts, pts)
        : (now - open.receivedAt) / 1000
      : 0;
    // The first cut opens the first segment: the next QUICK_START end one each.
    const target = this.cuts <= QUICK_START ? 0 : this.options.targetSeconds;
    if (open && age < target && age >= 0) return false;
    if (!followed.video) return true;
    // No keyframe for this long (a broken encoder, a still picture sent without any): the segment is cut anyway, at the
    // next unit, so it cannot grow in memory without end (a player tuning then waits for the next keyframe).
    if (open && (age >= longestOpenSeconds(this.options.targetSeconds) || open.bytes >= LONGEST_OPEN_BYTES))
      return true;
    const control = bytes[at + 3]!;
    const randomAccess = (control & 0x20) !== 0 && bytes[at + 4]! > 0 && (bytes[at + 5]! & 0x40) !== 0;
    if (randomAccess) return true;
    const payload = start + 9 + bytes[start + 8]!;
    return startsDecodable(followed.type, bytes, payload, at + PACKET);
  }

  /** Ends the open segment before the packet at `at` and opens the next with the tables; the finished one. */
  private cut(at: number, bytes: Buffer, now: number): CutSegment | undefined {
    const payload = payloadStart(bytes, at);
    const pts = bytes[payload + 7]! >> 6 >= 2 && payload + 14 <= at + PACKET ? ptsAt(bytes, payload + 9) : undefined;
    const previous = this.open;
    let finished: CutSegment | undefined;
    let discontinuity = this.nextDiscontinuity;
    if (previous && previous.bytes > 0) {
      const byPts = previous.pts !== undefined && pts !== undefined ? ptsSeconds(previous.pts, pts) : undefined;
      const believed = byPts !== undefined && byPts > 0 && byPts <= LONGEST_BELIEVED_SECONDS;
      if (byPts !== undefined && !believed) discontinuity = true;
      const duration = believed ? byPts : Math.max(0.1, (now - previous.receivedAt) / 1000);
      finished = {
        chunks: previous.chunks,
        bytes: previous.bytes,
        duration,
        receivedAt: previous.receivedAt,
        discontinuity: previous.discontinuity,
      };
    }
    this.nextDiscontinuity = false;
    this.cuts++;
    const tables = [this.pat as Buffer, this.pmt as Buffer];
    this.open = { chunks: [...tables], bytes: 2 * PACKET, receivedAt: now, lastAt: now, pts, discontinuity };
    return finished;
  }
}
