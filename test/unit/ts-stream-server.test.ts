import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makeTsClip,
  startStreamServer,
  tsByteRate,
  type StreamServer,
  type TsClip,
} from '../support/ts-stream-server.js';

const RATE = 2_000_000 / 8; // the clip's 2 Mbit/s in bytes per second

interface Reader {
  response: IncomingMessage;
  /** Bytes received so far (live). */
  bytes(): number;
  body(): Buffer;
  /** Settles when the response ends: 'end' for a complete response, 'aborted' when the connection was cut. */
  finished: Promise<'end' | 'aborted'>;
  stop(): void;
}

function read(url: string): Promise<Reader> {
  return new Promise((resolve, reject) => {
    const request = get(url, (response) => {
      const chunks: Buffer[] = [];
      let count = 0;
      const finished = new Promise<'end' | 'aborted'>((settle) => {
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          count += chunk.length;
        });
        response.on('end', () => settle(response.complete ? 'end' : 'aborted'));
        response.on('error', () => settle('aborted'));
        response.on('aborted', () => settle('aborted'));
      });
      resolve({
        response,
        bytes: () => count,
        body: () => Buffer.concat(chunks),
        finished,
        stop: () => request.destroy(),
      });
    });
    request.on('error', reject);
  });
}

function isTs(bytes: Buffer): boolean {
  if (bytes.length === 0) return false;
  for (let at = 0; at < bytes.length; at += 188) if (bytes[at] !== 0x47) return false;
  return true;
}

async function until(check: () => boolean, ms = 2000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) throw new Error('timed out waiting');
    await sleep(10);
  }
}

describe('ts-stream-server', () => {
  let dir: string;
  let clip: TsClip;
  let server: StreamServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'antenna-ts-stream-'));
    clip = await makeTsClip(join(dir, 'clip.ts'), { seconds: 2, muxrateKbps: 2000 });
    server = await startStreamServer(clip.path);
  });

  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes a constant-rate clip that starts with a packet and holds whole packets', () => {
    const bytes = readFileSync(clip.path);
    expect(clip.bytes).toBe(bytes.length);
    expect(bytes.length % 188).toBe(0);
    expect(isTs(bytes)).toBe(true);
    expect(clip.seconds).toBeGreaterThan(1.9);
    expect(clip.seconds).toBeLessThan(2.2);
    expect(tsByteRate(bytes) / RATE).toBeCloseTo(1, 2);
    expect(server.byteRate / RATE).toBeCloseTo(1, 2);
  });

  it('streams the looped clip in real time, as valid TS, counting what it sent', async () => {
    const url = server.url('paced');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/stream\/paced$/);
    const reader = await read(url);
    expect(reader.response.statusCode).toBe(200);
    expect(reader.response.headers['content-type']).toBe('video/mp2t');
    const started = performance.now();
    await until(() => server.connections('paced') === 1);
    await sleep(3000);
    const seconds = (performance.now() - started) / 1000;
    const received = reader.bytes();
    expect(received / (seconds * RATE)).toBeGreaterThan(0.85);
    expect(received / (seconds * RATE)).toBeLessThan(1.15);

    server.dropAll('paced');
    expect(await reader.finished).toBe('aborted');
    const body = reader.body();
    expect(body.length).toBeGreaterThan(clip.bytes); // it looped ...
    expect(body.length % 188).toBe(0);
    expect(isTs(body)).toBe(true);
    const file = readFileSync(clip.path);
    expect(body.subarray(0, 188 * 50).equals(file.subarray(0, 188 * 50))).toBe(true);
    // ... from byte 0
    expect(body.subarray(file.length, file.length + 188 * 50).equals(file.subarray(0, 188 * 50))).toBe(true);
    await until(() => server.connections('paced') === 0);
    await until(() => server.bytesSent('paced') === body.length);
    expect(server.bytesSent('paced')).toBe(body.length);
    expect(server.totalConnections('paced')).toBe(1);
  });

  it('drops the stream after dropAfterBytes', async () => {
    server.set('drop', { dropAfterBytes: 100_000 });
    const reader = await read(server.url('drop'));
    expect(reader.response.statusCode).toBe(200);
    const started = performance.now();
    expect(await reader.finished).toBe('aborted');
    const seconds = (performance.now() - started) / 1000;
    expect(reader.bytes()).toBe(100_000);
    expect(seconds).toBeGreaterThan(0.3); // paced: 100 000 bytes at 250 000 B/s
    await until(() => server.bytesSent('drop') === 100_000);
  });

  it('answers 503 to the first failConnections connections, then streams', async () => {
    server.set('flaky', { failConnections: 2 });
    for (let i = 0; i < 2; i += 1) {
      const reader = await read(server.url('flaky'));
      expect(reader.response.statusCode).toBe(503);
      expect(await reader.finished).toBe('end');
    }
    const reader = await read(server.url('flaky'));
    expect(reader.response.statusCode).toBe(200);
    expect(reader.response.headers['content-type']).toBe('video/mp2t');
    await until(() => reader.bytes() >= 188 * 10);
    expect(isTs(reader.body().subarray(0, 188 * 10))).toBe(true);
    expect(server.totalConnections('flaky')).toBe(3);
    expect(server.connections('flaky')).toBe(1);
    reader.stop();
    await until(() => server.connections('flaky') === 0);
  });

  it('answers an HTML page for kind html', async () => {
    server.set('portal', { kind: 'html' });
    const reader = await read(server.url('portal'));
    expect(reader.response.statusCode).toBe(200);
    expect(reader.response.headers['content-type']).toMatch(/^text\/html/);
    expect(await reader.finished).toBe('end');
    expect(reader.body().toString()).toMatch(/<html/i);
    expect(server.bytesSent('portal')).toBe(0);
  });

  it('answers the status for kind status', async () => {
    server.set('missing', { kind: 'status', status: 404 });
    const reader = await read(server.url('missing'));
    expect(reader.response.statusCode).toBe(404);
    expect(await reader.finished).toBe('end');
    expect(reader.body().length).toBeGreaterThan(0);
  });

  it('streams paced random non-TS bytes for kind garbage', async () => {
    server.set('noise', { kind: 'garbage' });
    const reader = await read(server.url('noise'));
    expect(reader.response.statusCode).toBe(200);
    expect(reader.response.headers['content-type']).toBe('video/mp2t');
    const started = performance.now();
    await sleep(1000);
    const seconds = (performance.now() - started) / 1000;
    expect(reader.bytes() / (seconds * RATE)).toBeGreaterThan(0.8);
    expect(reader.bytes() / (seconds * RATE)).toBeLessThan(1.2);
    expect(reader.body().includes(0x47)).toBe(false);
    reader.stop();
  });

  it('cuts every connection of a channel with dropAll, leaving other channels alone', async () => {
    const a = await read(server.url('many'));
    const b = await read(server.url('many'));
    const other = await read(server.url('other'));
    await until(() => server.connections('many') === 2 && server.connections('other') === 1);
    server.dropAll('many');
    expect(await a.finished).toBe('aborted');
    expect(await b.finished).toBe('aborted');
    await until(() => server.connections('many') === 0);
    expect(server.connections('other')).toBe(1);
    const before = other.bytes();
    await until(() => other.bytes() > before);
    other.stop();
  });

  it('sends as fast as the reader takes without pacing, and honours backpressure', async () => {
    server.set('fast', { pace: false });
    const reader = await read(server.url('fast'));
    reader.response.pause();
    // A paused reader: the server must stop writing (not loop or buffer forever) and keep the event loop free.
    await sleep(300);
    const stalled = server.bytesSent('fast');
    expect(stalled).toBeLessThan(64 * 1024 * 1024);
    await sleep(200);
    expect(server.bytesSent('fast') - stalled).toBeLessThan(1024 * 1024);
    reader.response.resume();
    await until(() => reader.bytes() >= 20 * clip.bytes, 5000); // 20 loops, far faster than real time
    reader.stop();
    await reader.finished;
    const body = reader.body();
    expect(isTs(body.subarray(0, body.length - (body.length % 188)))).toBe(true);
  });
});
