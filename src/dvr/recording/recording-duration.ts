/**
 * A recording's duration as it plays, measured over the whole file at post-processing.
 * The probe (media-tools/media-header.ts: the TS reader, else ffprobe) takes a TS's
 * duration from the timestamps of its head and tail; a recording Antenna resumed after a
 * restart, or one whose source reconnected, has timestamps that reset or jump in between,
 * and is then reported short (a 27 s recording as 12 s) or long (as 1012 s). This walks
 * every packet once, in large reads, looking only at the PES headers that begin a unit of
 * the first video stream (else the first audio stream), and sums the continuous runs of
 * their timestamps (timestamp-runs.ts). It runs for every recording, as its cost is one
 * read of the file: 0.15-0.3 s a GB from the page cache (0.2 s of one core), 2.4 s a GB
 * from this machine's disk (measured on a 1 GB recording of 10 runs; comskip then reads
 * the whole file again, and decodes it). Memory stays at one 4 MiB buffer.
 */
import { type FileHandle, open } from 'node:fs/promises';
import { CLOCK_HZ, TimestampRuns } from './timestamp-runs.js';
import { TS_PACKET_SIZE } from './ts-packets.js';

const SYNC_BYTE = 0x47;
/**
 * Bytes read at a time: whole packets, about 4 MiB (fewer reads; each is scanned in a few milliseconds, so the event
 * loop still turns).
 */
const READ_SIZE = 22_310 * TS_PACKET_SIZE;
/**
 * What a scan may leave unread for the next: a packet whose next one is not read yet, or a sync not yet confirmed by
 * the packets after it.
 */
const KEPT_MAX = 3 * TS_PACKET_SIZE;
/**
 * PES of another PID of the followed kind, with none of the followed PID's between, after
 * which that PID is followed instead: the source changed its PIDs on a reconnect (another
 * source of the channel). In a TS of several programs the followed PID keeps coming, so
 * this never happens there.
 */
const SWITCH_AFTER = 50;

export interface WalkedDuration {
  /** The stream whose timestamps were measured. */
  stream: 'video' | 'audio';
  seconds: number;
  /** Continuous runs of its timestamps: more than one when they reset or jumped. */
  runs: number;
}

/** The timestamps of one kind of stream (video or audio), of the first PID that carried it. */
class FollowedStream {
  pid = -1;
  readonly runs = new TimestampRuns();
  /** Another PID of this kind seen since the followed PID's last PES: how many of its PES, and its first timestamp. */
  private other = -1;
  private otherCount = 0;
  private otherFirst = 0;

  seen(pid: number, timestamp: number): void {
    if (this.pid < 0) this.pid = pid;
    if (pid === this.pid) {
      this.other = -1;
      this.runs.add(timestamp);
      return;
    }
    if (pid !== this.other) [this.other, this.otherCount, this.otherFirst] = [pid, 0, timestamp];
    if (++this.otherCount < SWITCH_AFTER) return;
    // The followed PID went quiet and this one goes on: follow it, from its first PES.
    this.pid = pid;
    this.other = -1;
    this.runs.cut();
    this.runs.add(this.otherFirst);
    this.runs.add(timestamp);
  }
}

/** A 33-bit PTS or DTS field at `at` (ISO/IEC 13818-1 2.4.3.7). */
function timestampAt(bytes: Buffer, at: number): number {
  const low =
    ((bytes[at + 1]! << 22) | ((bytes[at + 2]! & 0xfe) << 14) | (bytes[at + 3]! << 7) | (bytes[at + 4]! >> 1)) >>> 0;
  return (bytes[at]! & 0x0e) * 0x20000000 + low;
}

/**
 * The first position from `from` where packets start again: three sync bytes a packet
 * apart, or one whose packets after it are not all there yet (the caller keeps it, to look
 * again with more bytes); `end` when there is none.
 */
function resync(bytes: Buffer, from: number, end: number): number {
  const view = bytes.subarray(0, end);
  for (let at = view.indexOf(SYNC_BYTE, from); at >= 0; at = view.indexOf(SYNC_BYTE, at + 1)) {
    let next = at + TS_PACKET_SIZE;
    while (next < end && next <= at + 2 * TS_PACKET_SIZE && bytes[next] === SYNC_BYTE) next += TS_PACKET_SIZE;
    if (next > at + 2 * TS_PACKET_SIZE || next >= end) return at;
  }
  return end;
}

/**
 * The decoding order's timestamps of the first video stream and the first audio stream of a TS, fed its bytes in any
 * pieces.
 */
export class PesTimestampWalk {
  private readonly video = new FollowedStream();
  private readonly audio = new FollowedStream();
  /** Packets are out of step: the next ones are looked for before anything is read. */
  private lost = false;

  /**
   * Reads the whole packets of bytes[0, end) and returns where the bytes it left for the
   * next call start (at most KEPT_MAX before `end`): the caller puts them first.
   */
  scan(bytes: Buffer, end: number): number {
    let at = 0;
    for (;;) {
      if (this.lost) {
        at = resync(bytes, at, end);
        // Not confirmed yet: looked at again, from there, with the next bytes (so the answer does not depend on how the
        // file was read).
        if (at + 2 * TS_PACKET_SIZE >= end) return at;
        this.lost = false;
      }
      // A packet is read once the next one is seen to start where it ends: a packet cut short (where an earlier run of
      // the recording stopped) is not read with the next one's bytes as its own. The file's last packet is left unread.
      while (at + TS_PACKET_SIZE < end && bytes[at] === SYNC_BYTE && bytes[at + TS_PACKET_SIZE] === SYNC_BYTE) {
        this.packet(bytes, at);
        at += TS_PACKET_SIZE;
      }
      if (at + TS_PACKET_SIZE >= end) return at;
      this.lost = true;
    }
  }

  /** The video's played time, else the audio's; undefined when neither had timestamps. */
  get result(): WalkedDuration | undefined {
    const [stream, followed] =
      this.video.pid >= 0 ? (['video', this.video] as const) : (['audio', this.audio] as const);
    if (followed.pid < 0) return undefined;
    const { ticks, runs } = followed.runs.played;
    return { stream, seconds: Math.round((ticks / CLOCK_HZ) * 1000) / 1000, runs };
  }

  private packet(bytes: Buffer, at: number): void {
    const flags = bytes[at + 1]!;
    // Only a packet that starts a unit can hold a PES header; an erroneous one is not believed.
    if (!(flags & 0x40) || flags & 0x80) return;
    const control = bytes[at + 3]!;
    if (control & 0xc0 || !(control & 0x10)) return; // scrambled, or no payload
    const start = control & 0x20 ? at + 5 + bytes[at + 4]! : at + 4;
    const end = at + TS_PACKET_SIZE;
    if (start + 14 > end || bytes[start] !== 0 || bytes[start + 1] !== 0 || bytes[start + 2] !== 1) return;
    const id = bytes[start + 3]!;
    // MPEG video stream ids, and MPEG/AAC audio ones (private stream 1 also carries subtitles, which are sparse).
    const followed = id >= 0xe0 && id <= 0xef ? this.video : id >= 0xc0 && id <= 0xdf ? this.audio : undefined;
    const timestamps = bytes[start + 7]! >> 6;
    if (!followed || timestamps < 2) return;
    // DTS when there is one: decoding order is monotonic, presentation order is not (B-frames).
    const field = timestamps === 3 && start + 19 <= end ? start + 14 : start + 9;
    followed.seen(((flags & 0x1f) << 8) | bytes[at + 2]!, timestampAt(bytes, field));
  }
}

/** Reads bytes into `into` at `offset`, at most `length`, from the reader's position on; 0 at the end. */
export type ReadNext = (into: Buffer, offset: number, length: number) => Promise<number>;

/** Walks everything `read` gives; undefined when aborted or without timestamps. */
export async function walkTimestamps(read: ReadNext, signal?: AbortSignal): Promise<WalkedDuration | undefined> {
  const walk = new PesTimestampWalk();
  const buffer = Buffer.allocUnsafe(READ_SIZE + KEPT_MAX);
  let kept = 0;
  for (;;) {
    if (signal?.aborted) return undefined;
    const length = await read(buffer, kept, READ_SIZE);
    if (length === 0) break;
    const end = kept + length;
    const used = walk.scan(buffer, end);
    buffer.copyWithin(0, used, end);
    kept = end - used;
  }
  return walk.result;
}

/**
 * The played duration of a recording's file (its path, or a handle already open: it is
 * read from its start, positionally); undefined when it could not be read, the walk was
 * aborted, or it has no video or audio timestamps.
 */
export async function measureRecordingDuration(
  file: string | FileHandle,
  signal?: AbortSignal,
): Promise<WalkedDuration | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = typeof file === 'string' ? await open(file, 'r') : file;
    const opened = handle;
    let position = 0;
    return await walkTimestamps(async (into, offset, length) => {
      const { bytesRead } = await opened.read(into, offset, length, position);
      position += bytesRead;
      return bytesRead;
    }, signal);
  } catch {
    // Gone or unreadable since it was recorded: the probe's duration stands.
    return undefined;
  } finally {
    if (typeof file === 'string') await handle?.close();
  }
}

/**
 * The duration a recording keeps: the probe's (ffprobe's reckoning, audio that ends after
 * the video included) when the walk found its timestamps in one continuous run, where the
 * two agree; the walk's when they reset or jumped, where the probe spans the jump; the
 * walk's too when the probe had none.
 */
export function recordingDuration(probed: number | null, walked: WalkedDuration | undefined): number | null {
  if (walked && walked.seconds > 0 && (walked.runs > 1 || probed === null)) return walked.seconds;
  return probed;
}
