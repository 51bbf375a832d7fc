import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { looksLikeMpegTs, TS_PACKET_SIZE, TsIntegrity } from '../../src/dvr/recording/ts-packets.js';

let dir: string;
/** Three seconds of MPEG-2 video and MP2 audio in MPEG-TS, as ffmpeg muxes it. */
let ts: Buffer;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'antenna-ts-'));
  const path = join(dir, 'clip.ts');
  execFileSync('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=320x240:rate=25',
    '-f',
    'lavfi',
    '-i',
    'sine',
    '-t',
    '3',
    '-c:v',
    'mpeg2video',
    '-c:a',
    'mp2',
    '-f',
    'mpegts',
    path,
  ]);
  ts = readFileSync(path);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function check(...chunks: Buffer[]): TsIntegrity {
  const integrity = new TsIntegrity();
  for (const chunk of chunks) integrity.push(chunk);
  return integrity;
}

function counts(integrity: TsIntegrity) {
  const { packets, continuityErrors, syncLosses, gaps, bytes, damaged } = integrity;
  return { packets, continuityErrors, syncLosses, gaps, bytes, damaged };
}

const packetAt = (buffer: Buffer, index: number) =>
  buffer.subarray(index * TS_PACKET_SIZE, (index + 1) * TS_PACKET_SIZE);
const pidOf = (packet: Buffer) => ((packet[1]! & 0x1f) << 8) | packet[2]!;
const hasPayload = (packet: Buffer) => (packet[3]! & 0x10) !== 0;

/** The index of a payload packet of the first elementary stream (PID 0x100), past the middle. */
function middleVideoPacket(): number {
  const total = ts.length / TS_PACKET_SIZE;
  for (let i = Math.floor(total / 2); i < total; i++) {
    const packet = packetAt(ts, i);
    if (pidOf(packet) === 0x100 && hasPayload(packet)) return i;
  }
  throw new Error('no video packet');
}

function withoutPacket(index: number): Buffer {
  return Buffer.concat([ts.subarray(0, index * TS_PACKET_SIZE), ts.subarray((index + 1) * TS_PACKET_SIZE)]);
}

function withRepeats(index: number, times: number): Buffer {
  const packet = packetAt(ts, index);
  return Buffer.concat([
    ts.subarray(0, (index + 1) * TS_PACKET_SIZE),
    ...Array<Buffer>(times).fill(packet),
    ts.subarray((index + 1) * TS_PACKET_SIZE),
  ]);
}

interface PacketOptions {
  payload?: boolean;
  adaptation?: boolean;
  discontinuity?: boolean;
  transportError?: boolean;
}

/** A synthetic packet; its filler (0xff) never looks like a sync byte. */
function packet(pid: number, counter: number, options: PacketOptions = {}): Buffer {
  const { payload = true, adaptation = false, discontinuity = false, transportError = false } = options;
  const bytes = Buffer.alloc(TS_PACKET_SIZE, 0xff);
  bytes[0] = 0x47;
  bytes[1] = (transportError ? 0x80 : 0) | ((pid >> 8) & 0x1f);
  bytes[2] = pid & 0xff;
  bytes[3] = (((adaptation ? 2 : 0) | (payload ? 1 : 0)) << 4) | (counter & 0x0f);
  if (adaptation) {
    bytes[4] = payload ? 7 : TS_PACKET_SIZE - 5;
    bytes[5] = discontinuity ? 0x80 : 0;
  }
  return bytes;
}

/** Payload packets of one PID with counters from..to (inclusive, mod 16). */
function run(pid: number, from: number, count: number): Buffer[] {
  return Array.from({ length: count }, (_, i) => packet(pid, from + i));
}

describe("TsIntegrity on ffmpeg's MPEG-TS", () => {
  it('counts every packet and finds nothing wrong', () => {
    expect(counts(check(ts))).toEqual({
      packets: ts.length / TS_PACKET_SIZE,
      continuityErrors: 0,
      syncLosses: 0,
      gaps: 0,
      bytes: ts.length,
      damaged: false,
    });
  });

  it('gives the same answer however the bytes are chunked', () => {
    const whole = counts(check(ts));
    const splits = fc
      .uniqueArray(fc.integer({ min: 1, max: ts.length - 1 }), { maxLength: 200 })
      .map((points) => points.sort((a, b) => a - b));
    fc.assert(
      fc.property(splits, (points) => {
        const edges = [0, ...points, ts.length];
        const chunks = edges.slice(1).map((end, i) => ts.subarray(edges[i]!, end));
        expect(counts(check(...chunks))).toEqual(whole);
      }),
      { numRuns: 200 },
    );
  });

  it('gives the same answer byte by byte', () => {
    const integrity = new TsIntegrity();
    for (let i = 0; i < ts.length; i++) integrity.push(ts.subarray(i, i + 1));
    expect(counts(integrity)).toEqual(counts(check(ts)));
  });

  it('accepts a stream that starts mid-packet', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: TS_PACKET_SIZE * 3 }),
        fc.integer({ min: 1, max: 5000 }),
        (skip, chunkSize) => {
          const integrity = new TsIntegrity();
          const tail = ts.subarray(skip);
          for (let i = 0; i < tail.length; i += chunkSize) integrity.push(tail.subarray(i, i + chunkSize));
          expect(integrity.packets).toBe(Math.floor(tail.length / TS_PACKET_SIZE));
          expect(integrity.damaged).toBe(false);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('counts one continuity error when a packet is lost', () => {
    const broken = withoutPacket(middleVideoPacket());
    expect(counts(check(broken))).toMatchObject({
      packets: broken.length / TS_PACKET_SIZE,
      continuityErrors: 1,
      syncLosses: 0,
      damaged: true,
    });
  });

  it('allows one duplicate of a packet, not two', () => {
    const index = middleVideoPacket();
    expect(check(withRepeats(index, 1)).continuityErrors).toBe(0);
    expect(check(withRepeats(index, 2)).continuityErrors).toBe(1);
  });

  it('counts one sync loss for a damaged sync byte and for bytes lost mid-packet, and finds the packets again', () => {
    const index = middleVideoPacket();
    const badSync = Buffer.from(ts);
    badSync[index * TS_PACKET_SIZE] = 0x00;
    const damaged = check(badSync);
    expect(damaged.syncLosses).toBe(1);
    expect(damaged.damaged).toBe(true);
    // Everything after the damaged packet is read again.
    expect(damaged.packets).toBeGreaterThanOrEqual(ts.length / TS_PACKET_SIZE - 2);

    const cut = Buffer.concat([ts.subarray(0, index * TS_PACKET_SIZE + 50), ts.subarray((index + 1) * TS_PACKET_SIZE)]);
    const resynced = check(cut);
    expect(resynced.syncLosses).toBe(1);
    expect(resynced.packets).toBe(ts.length / TS_PACKET_SIZE - 1);
    expect(resynced.continuityErrors).toBe(1);
  });

  it('counts one sync loss for a burst of garbage, whatever the chunking', () => {
    const index = middleVideoPacket() * TS_PACKET_SIZE;
    // Noise with sync bytes every 97 bytes, never 188 apart. (A sync byte where a packet is
    // due, or exactly one packet before the stream resumes, would rightly pass for a packet.)
    const noise = (i: number) => (i * 31 + 7) % 251;
    const garbage = Buffer.from(
      Array.from({ length: 1500 }, (_, i) => (i % 97 === 50 ? 0x47 : noise(i) === 0x47 ? 0 : noise(i))),
    );
    const noisy = Buffer.concat([ts.subarray(0, index), garbage, ts.subarray(index)]);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4000 }), (chunkSize) => {
        const integrity = new TsIntegrity();
        for (let i = 0; i < noisy.length; i += chunkSize) integrity.push(noisy.subarray(i, i + chunkSize));
        expect(integrity.syncLosses).toBe(1);
        expect(integrity.continuityErrors).toBe(0);
        expect(integrity.packets).toBe(ts.length / TS_PACKET_SIZE);
      }),
      { numRuns: 30 },
    );
  });

  it('counts a reconnect as a gap, and the jump in counters after it as nothing more', () => {
    const integrity = new TsIntegrity();
    const cutAt = Math.floor(ts.length / 3);
    integrity.push(ts.subarray(0, cutAt));
    integrity.markGap();
    // The new connection starts somewhere else, mid-packet.
    integrity.push(ts.subarray(2 * cutAt + 77));
    expect(counts(integrity)).toMatchObject({ gaps: 1, continuityErrors: 0, syncLosses: 0, damaged: true });
  });
});

describe('TsIntegrity continuity rules', () => {
  it('steps counters only on payload packets, wrapping at 16', () => {
    const adaptationOnly = packet(0x100, 3, { payload: false, adaptation: true });
    const stream = [...run(0x100, 0, 4), adaptationOnly, adaptationOnly, ...run(0x100, 4, 20)];
    expect(counts(check(...stream))).toMatchObject({ packets: 26, continuityErrors: 0 });
    expect(
      check(...run(0x100, 0, 4), packet(0x100, 4, { payload: false, adaptation: true }), ...run(0x100, 4, 3))
        .continuityErrors,
    ).toBe(1);
  });

  it("keeps each PID's counter apart and ignores null packets", () => {
    const stream = [
      ...run(0x100, 0, 3),
      ...run(0x101, 9, 3),
      packet(0x1fff, 7),
      packet(0x1fff, 2),
      ...run(0x100, 3, 3),
      ...run(0x101, 12, 3),
    ];
    expect(check(...stream).continuityErrors).toBe(0);
    expect(check(...run(0x100, 0, 3), ...run(0x100, 5, 3)).continuityErrors).toBe(1);
  });

  it('lets the discontinuity indicator restart a counter', () => {
    const restart = packet(0x100, 9, { adaptation: true, discontinuity: true });
    expect(check(...run(0x100, 0, 3), restart, ...run(0x100, 10, 3)).continuityErrors).toBe(0);
    const noFlag = packet(0x100, 9, { adaptation: true });
    expect(check(...run(0x100, 0, 3), noFlag, ...run(0x100, 10, 3)).continuityErrors).toBe(1);
  });

  it('counts a packet flagged with a transport error, once', () => {
    const flagged = packet(0x100, 3, { transportError: true });
    expect(counts(check(...run(0x100, 0, 3), flagged, ...run(0x100, 4, 3)))).toMatchObject({
      continuityErrors: 1,
      damaged: true,
    });
  });
});

describe('looksLikeMpegTs', () => {
  it('recognises the head of a transport stream, from any byte of its first packet', () => {
    expect(looksLikeMpegTs(ts.subarray(0, 4096))).toBe(true);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: ts.length - 600 }), fc.integer({ min: 188, max: 4096 }), (from, length) => {
        expect(looksLikeMpegTs(ts.subarray(from, from + length))).toBe(true);
      }),
    );
  });

  it('refuses an error page, other containers, noise and heads too short to judge', () => {
    const html = Buffer.from(
      '<!DOCTYPE html><html><head><title>503 Service Unavailable</title></head><body>GGGG Try again later.</body></html>\n'.repeat(
        40,
      ),
    );
    expect(looksLikeMpegTs(html)).toBe(false);
    expect(looksLikeMpegTs(Buffer.from('{"error":"tuner busy"}'))).toBe(false);
    expect(looksLikeMpegTs(Buffer.alloc(0))).toBe(false);
    expect(looksLikeMpegTs(ts.subarray(0, 100))).toBe(false);
    const broken = Buffer.from(ts.subarray(0, 2048));
    broken[TS_PACKET_SIZE * 2] = 0;
    expect(looksLikeMpegTs(broken)).toBe(false);
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 600, maxLength: 4096 }), (bytes) => {
        expect(looksLikeMpegTs(Buffer.from(bytes))).toBe(false);
      }),
    );
  });
});
