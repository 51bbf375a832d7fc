/**
 * A real MPEG-TS stream source for DVR tests: an ffmpeg-made clip served over HTTP, looped
 * forever and paced in real time, on any number of channels, each of which can be told to
 * misbehave. The implementation is bench/ts-stream-server.mjs (plain JS, so the benchmark
 * runs it without a build); this module gives it types. allowJs is off, hence the
 * expect-error on the import and the declarations below.
 */
// @ts-expect-error -- plain JS without a declaration file (allowJs is off); typed by this module
import * as impl from '../../bench/ts-stream-server.mjs';

export interface TsClipOptions {
  /** Clip length, default 2. */
  seconds?: number;
  /** Constant mux rate in kbit/s (ffmpeg -muxrate), default 2000. */
  muxrateKbps?: number;
  /** Video size, default '320x240'. */
  size?: string;
  /** 'h264' (H.264 + AAC, the default) or 'broadcast' (MPEG-2 + AC-3, which browsers play only transcoded). */
  codecs?: 'h264' | 'broadcast';
}

export interface TsClip {
  path: string;
  bytes: number;
  /** Playing time of the file's bytes at its mux rate: bytes * 8 / (muxrateKbps * 1000). */
  seconds: number;
}

export interface StreamBehaviour {
  /** 'ts' (default): the clip, looped forever, paced in real time at the clip's mux rate. */
  kind?: 'ts' | 'html' | 'garbage' | 'status';
  /** For kind 'status' (e.g. 404, 503; default 503): answer that status with a short text body. */
  status?: number;
  /** Destroy the socket after sending exactly this many body bytes (a dropped stream). */
  dropAfterBytes?: number;
  /** Stop sending after this many body bytes but keep the connection open (a stalled source). */
  stallAfterBytes?: number;
  /** The first N connections after this `set` answer 503 (then the channel behaves as set). */
  failConnections?: number;
  /** Default true; false = as fast as the reader takes it. */
  pace?: boolean;
}

export interface StreamServer {
  /** http://127.0.0.1:PORT/stream/<name> */
  url(name: string): string;
  /** Change what a channel does; open connections keep their behaviour, new connections use this. */
  set(name: string, behaviour: StreamBehaviour): void;
  /** Currently open streaming ('ts' / 'garbage') connections. */
  connections(name: string): number;
  /** Requests ever made to the channel, whatever they were answered (503s, html, status included). */
  totalConnections(name: string): number;
  /** Body bytes of the channel's streams whose socket write completed (handed to the kernel). */
  bytesSent(name: string): number;
  /** Cut every open connection of the channel now. */
  dropAll(name: string): void;
  close(): Promise<void>;
  /** Bytes per second the streams are paced at, read from the clip's PCRs (= mux rate / 8). */
  readonly byteRate: number;
}

/**
 * Makes a real MPEG-TS clip with ffmpeg: test pattern + tone, constant mux rate so pacing by bytes == pacing by time.
 */
export function makeTsClip(path: string, options?: TsClipOptions): Promise<TsClip> {
  return impl.makeTsClip(path, options);
}

/** Serves `clipPath` on 127.0.0.1 (or `host`) at a free port. Every channel not `set` behaves as 'ts'. */
export function startStreamServer(clipPath: string, options?: { host?: string }): Promise<StreamServer> {
  return impl.startStreamServer(clipPath, options);
}

/** Bytes per second of a constant-rate transport stream, from its PCRs. */
export function tsByteRate(clip: Uint8Array): number {
  return impl.tsByteRate(clip);
}
