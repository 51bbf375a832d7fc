/**
 * MPEG-TS integrity while recording: `TsIntegrity` looks at every byte the recorder
 * writes and counts what a viewer would see as damage (continuity errors, lost sync,
 * reconnects). It runs on the hot path of every recording, so it parses headers in
 * place, keeps its state in preallocated typed arrays and never allocates per packet.
 */

export const TS_PACKET_SIZE = 188;
const SYNC_BYTE = 0x47;
const NULL_PID = 0x1fff;
const PID_COUNT = 0x2000;
/** Packets that must line up before we believe we found the packet boundary again. */
const SYNC_PACKETS = 3;
const SYNC_SPAN = (SYNC_PACKETS - 1) * TS_PACKET_SIZE;
/**
 * Room for the bytes kept between chunks (a partial packet, or a sync candidate still unconfirmed) plus enough of the
 * next chunk to get past them.
 */
const SCRATCH_SIZE = 4 * TS_PACKET_SIZE;

/**
 * True when the bytes look like MPEG-TS: a sync byte at every 188-byte step of the head
 * from some offset within its first packet (a stream may start mid-packet), so at least
 * three when the head holds three packets. A head shorter than a packet is not enough to tell.
 */
export function looksLikeMpegTs(head: Buffer): boolean {
  if (head.length < TS_PACKET_SIZE) return false;
  for (let offset = 0; offset < TS_PACKET_SIZE; offset++) {
    let position = offset;
    while (position < head.length && head[position] === SYNC_BYTE) position += TS_PACKET_SIZE;
    if (position >= head.length) return true;
  }
  return false;
}

export class TsIntegrity {
  private packetCount = 0;
  private errorCount = 0;
  private lossCount = 0;
  private gapCount = 0;
  private byteCount = 0;

  /** Last continuity counter per PID; -1 until a packet of that PID is seen (again). */
  private readonly lastCounter = new Int8Array(PID_COUNT).fill(-1);
  /** Whether the last packet of the PID was already a duplicate: only one in a row is allowed. */
  private readonly duplicated = new Uint8Array(PID_COUNT);
  /** Bytes carried over to the next chunk, followed by the head of that chunk while we look at both. */
  private readonly scratch = Buffer.alloc(SCRATCH_SIZE);
  private pending = 0;
  private synced = false;

  get packets(): number {
    return this.packetCount;
  }
  get continuityErrors(): number {
    return this.errorCount;
  }
  get syncLosses(): number {
    return this.lossCount;
  }
  get gaps(): number {
    return this.gapCount;
  }
  get bytes(): number {
    return this.byteCount;
  }

  /** Any continuity error, sync loss or gap. */
  get damaged(): boolean {
    return this.errorCount > 0 || this.lossCount > 0 || this.gapCount > 0;
  }

  push(chunk: Buffer): void {
    this.byteCount += chunk.length;
    const offset = this.pending > 0 ? this.drainPending(chunk) : 0;
    if (offset >= chunk.length) return;
    const stop = this.scan(chunk, offset, chunk.length);
    this.keep(chunk, stop, chunk.length);
  }

  /** A reconnect: what comes next continues no packet and no counter of what came before. */
  markGap(): void {
    this.gapCount++;
    this.lastCounter.fill(-1);
    this.duplicated.fill(0);
    this.pending = 0;
    // Finding the boundary again after a gap is not a sync loss: the gap already counts.
    this.synced = false;
  }

  /** Finishes the bytes kept from the last chunk with the head of this one; returns where to go on in `chunk`. */
  private drainPending(chunk: Buffer): number {
    const kept = this.pending;
    const taken = Math.min(chunk.length, SCRATCH_SIZE - kept);
    chunk.copy(this.scratch, kept, 0, taken);
    const total = kept + taken;
    const stop = this.scan(this.scratch, 0, total);
    if (stop >= kept) {
      this.pending = 0;
      return stop - kept;
    }
    // Only possible when the whole chunk fit in the scratch and still was not enough.
    this.scratch.copyWithin(0, stop, total);
    this.pending = total - stop;
    return chunk.length;
  }

  private keep(source: Buffer, from: number, end: number): void {
    source.copy(this.scratch, 0, from, end);
    this.pending = end - from;
  }

  /** Reads whole packets from `from`; returns the first byte it could not use yet. */
  private scan(buf: Buffer, from: number, end: number): number {
    let position = from;
    for (;;) {
      if (!this.synced) {
        position = this.findSync(buf, position, end);
        if (!this.synced) return position;
      }
      while (position + TS_PACKET_SIZE <= end && buf[position] === SYNC_BYTE) {
        this.packet(buf, position);
        position += TS_PACKET_SIZE;
      }
      if (position + TS_PACKET_SIZE > end) return position;
      this.lossCount++;
      this.synced = false;
    }
  }

  /**
   * Looks for SYNC_PACKETS sync bytes a packet apart. Returns the boundary found (and
   * sets `synced`), or the first byte worth keeping when the chunk ends too soon to tell.
   */
  private findSync(buf: Buffer, from: number, end: number): number {
    for (
      let candidate = buf.indexOf(SYNC_BYTE, from);
      candidate !== -1 && candidate < end;
      candidate = buf.indexOf(SYNC_BYTE, candidate + 1)
    ) {
      let next = candidate + TS_PACKET_SIZE;
      while (next < end && next <= candidate + SYNC_SPAN && buf[next] === SYNC_BYTE) next += TS_PACKET_SIZE;
      if (next > candidate + SYNC_SPAN) {
        this.synced = true;
        return candidate;
      }
      if (next >= end) return candidate;
    }
    return end;
  }

  private packet(buf: Buffer, at: number): void {
    this.packetCount++;
    const flags = buf[at + 1]!;
    const pid = ((flags & 0x1f) << 8) | buf[at + 2]!;
    if (pid === NULL_PID) return;
    if (flags & 0x80) {
      // transport_error_indicator: the demodulator already knows this packet is bad. Its
      // header is probably right, so let the PID's next packet start afresh rather than
      // count the same damage twice.
      this.errorCount++;
      this.lastCounter[pid] = -1;
      return;
    }
    const control = buf[at + 3]!;
    const adaptation = (control >> 4) & 3;
    if (adaptation === 0) return; // reserved: decoders discard such packets
    const counter = control & 0x0f;
    // discontinuity_indicator: the counter may restart (splices, channel changes).
    if (adaptation & 2 && buf[at + 4]! > 0 && buf[at + 5]! & 0x80) this.lastCounter[pid] = -1;
    this.checkCounter(pid, counter, (adaptation & 1) === 1);
  }

  private checkCounter(pid: number, counter: number, hasPayload: boolean): void {
    const last = this.lastCounter[pid]!;
    this.lastCounter[pid] = counter;
    if (last < 0) {
      this.duplicated[pid] = 0;
      return;
    }
    // Packets without payload repeat the counter; with payload it steps by one (mod 16).
    if (hasPayload && counter === ((last + 1) & 0x0f)) {
      this.duplicated[pid] = 0;
      return;
    }
    if (counter === last && (!hasPayload || this.duplicated[pid] === 0)) {
      // ISO 13818-1 allows one duplicate of a payload packet in a row.
      if (hasPayload) this.duplicated[pid] = 1;
      return;
    }
    this.errorCount++;
    this.duplicated[pid] = 0;
  }
}
