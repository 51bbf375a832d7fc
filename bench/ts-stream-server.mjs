/**
 * A real MPEG-TS stream source for DVR tests and benchmarks: a node:http server that
 * plays one ffmpeg-made clip, looped forever and paced in real time, on any number of
 * channels (http://127.0.0.1:PORT/stream/<name>). Channels can be told to misbehave
 * (HTML page, garbage, an error status, failing first connections, dropping mid-stream).
 *
 * Plain JS so `npm run bench` can use it without a build; test/support/ts-stream-server.ts
 * re-exports it with types (see there for the API documentation).
 *
 * Pacing: the clip is made with a constant mux rate (ffmpeg -muxrate), so bytes are time.
 * The server reads that rate from the clip's own PCRs and, every TICK_MS, sends whatever is
 * due since the connection began (whole 188-byte packets), so it never drifts. A slow reader
 * gets backpressure (the server stops writing until 'drain', then catches up to the clock).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { STATUS_CODES, createServer } from 'node:http';
import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';

const PACKET = 188;
const SYNC = 0x47;
const TICK_MS = 20;
const MAX_WRITE = 64 * 1024;
const PCR_HZ = 27_000_000;
const HTML =
  '<!doctype html>\n<html><head><title>Sign in</title></head><body><h1>Sign in to continue</h1><p>This network requires you to sign in.</p></body></html>\n';

/**
 * Makes a real MPEG-TS clip with ffmpeg: test pattern + tone, constant mux rate so pacing by bytes == pacing by time.
 */
export async function makeTsClip(path, options = {}) {
  const { seconds = 2, muxrateKbps = 2000, size = '320x240', codecs = 'h264' } = options;
  const audioKbps = codecs === 'broadcast' ? 192 : 64;
  // Leave room under the mux rate for audio and TS/PES overhead; the muxer pads the rest with null packets.
  const videoKbps = Math.max(50, Math.floor((muxrateKbps - audioKbps - 32) * 0.6));
  const rate = ['-b:v', `${videoKbps}k`, '-maxrate', `${videoKbps}k`, '-bufsize', `${videoKbps}k`];
  // 'broadcast': MPEG-2 video and AC-3 audio, what antennas bring in (no browser decodes either).
  const video =
    codecs === 'broadcast'
      ? ['-c:v', 'mpeg2video', '-g', '25', ...rate]
      : ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', '25', ...rate];
  const audio = ['-c:a', codecs === 'broadcast' ? 'ac3' : 'aac', '-b:a', `${audioKbps}k`, '-ac', '2'];
  const args = [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', `testsrc=size=${size}:rate=25:duration=${seconds}`],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`],
    ...video,
    ...audio,
    ...['-shortest', '-f', 'mpegts', '-muxrate', `${muxrateKbps}k`, path],
  ];
  await mkdir(dirname(path), { recursive: true });
  await new Promise((resolve, reject) => {
    execFile('ffmpeg', args, (error, _stdout, stderr) =>
      error ? reject(new Error(`ffmpeg failed: ${stderr || error.message}`)) : resolve(),
    );
  });
  const { size: bytes } = await stat(path);
  return { path, bytes, seconds: (bytes * 8) / (muxrateKbps * 1000) };
}

/** Bytes per second of a constant-rate TS, from the first and last PCR of the first PCR PID. */
export function tsByteRate(clip) {
  let pid = -1;
  let first = null;
  let last = null;
  for (let at = 0; at + PACKET <= clip.length; at += PACKET) {
    const p = clip.subarray(at, at + PACKET);
    if (p[0] !== SYNC || !(p[3] & 0x20) || p[4] < 7 || !(p[5] & 0x10)) continue;
    const packetPid = ((p[1] & 0x1f) << 8) | p[2];
    if (pid === -1) pid = packetPid;
    if (packetPid !== pid) continue;
    const base = p[6] * 2 ** 25 + p[7] * 2 ** 17 + p[8] * 2 ** 9 + p[9] * 2 + (p[10] >> 7);
    const pcr = { at, ticks: base * 300 + (((p[10] & 1) << 8) | p[11]) };
    if (!first) first = pcr;
    last = pcr;
  }
  if (!first || !last || last.ticks <= first.ticks)
    throw new Error('clip has fewer than two PCRs; cannot tell its mux rate');
  return ((last.at - first.at) * PCR_HZ) / (last.ticks - first.ticks);
}

function answer(response, status, type, body) {
  response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

export async function startStreamServer(clipPath, options = {}) {
  const host = options.host ?? '127.0.0.1';
  const file = await readFile(clipPath);
  const clip = file.subarray(0, file.length - (file.length % PACKET));
  if (clip.length === 0 || clip[0] !== SYNC) throw new Error(`${clipPath} is not an MPEG-TS clip`);
  const rate = tsByteRate(clip);
  const garbage = randomBytes(clip.length);
  for (let i = 0; i < garbage.length; i += 1) if (garbage[i] === SYNC) garbage[i] = 0;

  const channels = new Map();
  const channel = (name) => {
    let state = channels.get(name);
    if (!state) {
      state = { behaviour: {}, failed: 0, open: new Set(), total: 0, bytes: 0 };
      channels.set(name, state);
    }
    return state;
  };

  function stream(state, response, source, behaviour) {
    const pace = behaviour.pace ?? true;
    // stallAfterBytes: stop sending there but keep the connection open (a tuner that lost its signal).
    const limit = behaviour.dropAfterBytes ?? behaviour.stallAfterBytes ?? Infinity;
    const cut = behaviour.dropAfterBytes !== undefined;
    const started = performance.now();
    let written = 0; // bytes given to response.write, also the position in the looped source
    let blocked = false;
    let done = false;
    let timer;
    state.open.add(response);
    response.on('close', () => {
      done = true;
      clearTimeout(timer);
      state.open.delete(response);
    });
    response.on('error', () => {});
    response.writeHead(200, { 'content-type': 'video/mp2t', 'cache-control': 'no-cache' });
    response.flushHeaders();
    const due = () => {
      if (!pace) return limit;
      const packets = Math.floor((((performance.now() - started) / 1000) * rate) / PACKET);
      return Math.min(packets * PACKET, limit);
    };
    const pump = () => {
      if (done) return;
      const target = due();
      while (!blocked && written < target) {
        const at = written % source.length;
        const length = Math.min(target - written, source.length - at, MAX_WRITE);
        written += length;
        const last = written >= limit;
        blocked = !response.write(source.subarray(at, at + length), (error) => {
          if (error) return;
          state.bytes += length; // handed to the socket
          if (last && cut) response.destroy(); // dropAfterBytes: cut once the last byte left
        });
      }
      if (done || written >= limit) return;
      if (blocked) {
        response.once('drain', () => {
          blocked = false;
          pump();
        });
      } else timer = setTimeout(pump, pace ? TICK_MS : 0);
    };
    pump();
  }

  const server = createServer((request, response) => {
    const match = /^\/stream\/([^/?#]+)/.exec(request.url ?? '');
    let name;
    try {
      name = match ? decodeURIComponent(match[1]) : null;
    } catch {
      name = null;
    }
    if (name === null) return answer(response, 404, 'text/plain', 'no such stream\n');
    const state = channel(name);
    state.total += 1;
    const behaviour = state.behaviour;
    if (state.failed < (behaviour.failConnections ?? 0)) {
      state.failed += 1;
      return answer(response, 503, 'text/plain', 'tuner busy\n');
    }
    const kind = behaviour.kind ?? 'ts';
    if (kind === 'status') {
      const status = behaviour.status ?? 503;
      return answer(response, status, 'text/plain', `${status} ${STATUS_CODES[status] ?? 'Status'}\n`);
    }
    if (kind === 'html') return answer(response, 200, 'text/html; charset=utf-8', HTML);
    stream(state, response, kind === 'garbage' ? garbage : clip, behaviour);
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address();
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const dropAll = (name) => {
    for (const response of channels.get(name)?.open ?? []) response.destroy();
  };

  return {
    url: (name) => `http://${urlHost}:${port}/stream/${encodeURIComponent(name)}`,
    set: (name, behaviour) => {
      const state = channel(name);
      state.behaviour = { ...behaviour };
      state.failed = 0;
    },
    connections: (name) => channels.get(name)?.open.size ?? 0,
    totalConnections: (name) => channels.get(name)?.total ?? 0,
    bytesSent: (name) => channels.get(name)?.bytes ?? 0,
    dropAll,
    close: async () => {
      for (const name of channels.keys()) dropAll(name);
      const closed = new Promise((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
    /** Bytes per second the 'ts' and 'garbage' channels are paced at (read from the clip's PCRs). */
    byteRate: rate,
  };
}
