/**
 * Upstream channel streams, shared. Recordings and live viewers of one channel read
 * one connection to its source, which counts once against the source's stream limit.
 * The hub opens a connection when the first consumer joins and closes it when the
 * last one leaves; when the source drops it, every consumer hears why and decides
 * for itself whether to come back (the recorder retries, a viewer's answer ends).
 *
 * A recording outranks viewers: when a source is full and a recording needs a
 * stream, a connection that only viewers use is closed to make room. A recording goes
 * to the source the planner chose, and to another only when that one fails (logged).
 */
import http from 'node:http';
import https from 'node:https';
import type { Logger } from 'pino';
import { looksLikeMpegTs, TS_PACKET_SIZE } from './ts-packets.js';

/** One way to receive a channel: a source's stream URL for it. */
export interface StreamTarget {
  sourceId: string;
  number: string;
  url: string;
}

export type ConsumerKind = 'recording' | 'viewer';

export interface StreamConsumer {
  readonly kind: ConsumerKind;
  data(chunk: Buffer): void;
  /** The upstream ended; `error` says why when it was not the consumer's own leaving. */
  ended(error: string): void;
}

export interface Subscription {
  readonly target: StreamTarget;
  leave(): void;
}

/** No stream could be had: the source is full, or it answered with something other than video. */
export class StreamUnavailableError extends Error {
  override readonly name = 'StreamUnavailableError';
  constructor(
    message: string,
    readonly reason: 'no_tuner' | 'unreachable' | 'not_video' | 'http_status' | 'timeout',
  ) {
    super(message);
  }
}

export interface StreamHubOptions {
  /** Simultaneous streams a source allows. */
  limitOf(sourceId: string): number;
  logger?: Logger;
  /** Time allowed for the source to answer and send its first packets (default 10 s). */
  connectTimeoutMs?: number;
  /** A flowing stream that sends nothing for this long is closed as dropped (default 15 s). */
  idleTimeoutMs?: number;
}

/** Redirects followed for one stream. */
const MAX_REDIRECTS = 5;

/** Bytes needed to tell MPEG-TS from anything else: a few packets. */
const SNIFF_BYTES = TS_PACKET_SIZE * 4;

class Upstream {
  readonly consumers = new Set<StreamConsumer>();
  request: http.ClientRequest | undefined;
  ready: Promise<void>;
  closed = false;
  /** Video has begun to flow; before that, a failure reaches joiners through `ready` instead. */
  live = false;
  bytes = 0;

  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly target: StreamTarget,
    private readonly onClose: (upstream: Upstream) => void,
    timeoutMs: number,
    private readonly idleTimeoutMs: number,
  ) {
    this.ready = this.open(timeoutMs);
  }

  /**
   * A source that keeps the connection open but stops sending (a tuner that lost its
   * signal) would otherwise look like a recording that went well: after the idle time
   * the stream counts as dropped, so the recorder reconnects and counts the gap.
   */
  private armIdleTimer(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(
      () => this.close(`${describe(this.target)} sent nothing for ${this.idleTimeoutMs / 1000} s`),
      this.idleTimeoutMs,
    );
    this.idleTimer.unref();
  }

  get onlyViewers(): boolean {
    for (const consumer of this.consumers) if (consumer.kind === 'recording') return false;
    return true;
  }

  private open(timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (error: StreamUnavailableError) => {
        if (!settled) {
          settled = true;
          reject(error);
        }
        this.close(error.message);
      };
      const timer = setTimeout(
        () =>
          fail(
            new StreamUnavailableError(
              `${describe(this.target)} sent no video within ${timeoutMs / 1000} s`,
              'timeout',
            ),
          ),
        timeoutMs,
      );
      // IPTV providers often answer a stream URL with a redirect to an edge server.
      const get = (url: string, hops: number): void => {
        let request: http.ClientRequest;
        try {
          const client = url.startsWith('https:') ? https : http;
          request = client.get(url, { headers: { 'user-agent': 'Antenna DVR' } });
        } catch (error) {
          clearTimeout(timer);
          fail(new StreamUnavailableError(`${describe(this.target)}: ${(error as Error).message}`, 'unreachable'));
          return;
        }
        this.request = request;
        request.on('error', (error) => {
          clearTimeout(timer);
          fail(
            new StreamUnavailableError(
              `${describe(this.target)} could not be reached: ${error.message}`,
              'unreachable',
            ),
          );
        });
        request.on('response', (response) => {
          const status = response.statusCode ?? 0;
          const type = String(response.headers['content-type'] ?? '');
          const location = response.headers.location;
          if (status >= 300 && status < 400 && location && hops < MAX_REDIRECTS && !this.closed) {
            response.resume();
            let next: string;
            try {
              next = new URL(location, url).href;
            } catch {
              next = '';
            }
            if (/^https?:/.test(next)) {
              get(next, hops + 1);
              return;
            }
          }
          if (status >= 400 || status < 200 || status >= 300) {
            clearTimeout(timer);
            response.resume();
            const hint = status === 503 ? ' (the source may have no free tuner)' : '';
            fail(new StreamUnavailableError(`${describe(this.target)} answered HTTP ${status}${hint}`, 'http_status'));
            return;
          }
          if (/^text\/html|^application\/(json|xml)/i.test(type)) {
            clearTimeout(timer);
            response.resume();
            fail(
              new StreamUnavailableError(
                `${describe(this.target)} answered a web page (${type.split(';')[0]}), not a video stream`,
                'not_video',
              ),
            );
            return;
          }
          let head: Buffer[] = [];
          let headBytes = 0;
          response.on('data', (chunk: Buffer) => {
            if (this.closed) return;
            if (!settled) {
              head.push(chunk);
              headBytes += chunk.length;
              if (headBytes < SNIFF_BYTES) return;
              clearTimeout(timer);
              const joined = Buffer.concat(head);
              head = [];
              if (!looksLikeMpegTs(joined)) {
                fail(
                  new StreamUnavailableError(
                    `${describe(this.target)} sent data that is not an MPEG-TS video stream`,
                    'not_video',
                  ),
                );
                return;
              }
              settled = true;
              this.live = true;
              resolve();
              this.deliver(joined);
              return;
            }
            this.deliver(chunk);
          });
          response.on('end', () => {
            clearTimeout(timer);
            if (!settled)
              fail(
                new StreamUnavailableError(
                  `${describe(this.target)} ended its answer before sending video`,
                  'not_video',
                ),
              );
            else this.close(`${describe(this.target)} ended the stream`);
          });
          response.on('error', (error) => {
            clearTimeout(timer);
            fail(
              new StreamUnavailableError(
                `${describe(this.target)} dropped the stream: ${error.message}`,
                'unreachable',
              ),
            );
          });
          response.on('close', () => {
            if (settled && !this.closed) this.close(`${describe(this.target)} dropped the stream`);
          });
        });
      };
      get(this.target.url, 0);
    });
  }

  private deliver(chunk: Buffer): void {
    this.bytes += chunk.length;
    // Re-armed at most every second: a timer per chunk would cost more than the copy.
    const now = Date.now();
    if (now - this.lastArmed >= 1000) {
      this.lastArmed = now;
      this.armIdleTimer();
    }
    for (const consumer of this.consumers) consumer.data(chunk);
  }

  private lastArmed = 0;

  /** Ends the connection and tells every consumer still here. */
  close(error: string): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.idleTimer);
    this.request?.destroy();
    this.onClose(this);
    const consumers = [...this.consumers];
    this.consumers.clear();
    if (this.live) for (const consumer of consumers) consumer.ended(error);
  }
}

const describe = (target: StreamTarget) => `channel ${target.number} (${target.sourceId})`;

export class StreamHub {
  private readonly upstreams = new Map<string, Upstream>();
  private stopped = false;

  constructor(private readonly options: StreamHubOptions) {}

  /** Upstream connections open now, per source. */
  usage(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const upstream of this.upstreams.values())
      if (!upstream.closed) counts.set(upstream.target.sourceId, (counts.get(upstream.target.sourceId) ?? 0) + 1);
    return counts;
  }

  /** Open connections with their consumers, for /status. */
  describe(): { channel: string; source: string; recordings: number; viewers: number; bytes: number }[] {
    return [...this.upstreams.values()].map((u) => ({
      channel: u.target.number,
      source: u.target.sourceId,
      recordings: [...u.consumers].filter((c) => c.kind === 'recording').length,
      viewers: [...u.consumers].filter((c) => c.kind === 'viewer').length,
      bytes: u.bytes,
    }));
  }

  /**
   * Joins a channel through `targets` (the sources that carry it; for a recording, the
   * one the planner chose first). A connection already open to the channel is shared.
   * Resolves once video flows.
   */
  async join(targets: readonly StreamTarget[], consumer: StreamConsumer): Promise<Subscription> {
    if (this.stopped) throw new StreamUnavailableError('Antenna is shutting down', 'unreachable');
    if (targets.length === 0) throw new StreamUnavailableError('no source carries this channel', 'unreachable');
    const shared = this.existing(targets);
    if (shared) return this.attach(shared, consumer);
    if (consumer.kind === 'recording') return this.joinAsRecording(targets, consumer);
    const usage = this.usage();
    const target = targets.find((t) => (usage.get(t.sourceId) ?? 0) < this.options.limitOf(t.sourceId));
    if (!target) throw noTuner(targets);
    return this.attach(this.open(target), consumer);
  }

  /**
   * A recording goes where the planner placed it, `targets[0]`: when that source is full,
   * a connection there that only viewers use is closed to make room. Only when that is
   * not possible, or the connection fails, does it go on to the next target (the channel
   * on another source), and the log says so and why: a tuner the planner promised to
   * another job is never taken first.
   */
  private async joinAsRecording(targets: readonly StreamTarget[], consumer: StreamConsumer): Promise<Subscription> {
    const reasons: string[] = [];
    let lastError: StreamUnavailableError | undefined;
    for (const [index, target] of targets.entries()) {
      const open = this.upstreams.get(key(target));
      const upstream =
        open && !open.closed
          ? open
          : this.hasRoom(target.sourceId) || this.makeRoomOn(target.sourceId)
            ? this.open(target)
            : undefined;
      if (!upstream) {
        reasons.push(`${target.sourceId} had no free stream (every one it allows is recording)`);
        continue;
      }
      try {
        const subscription = await this.attach(upstream, consumer);
        if (index > 0) {
          const message = `recording channel ${target.number} on ${target.sourceId}, not on ${targets[0]!.sourceId} as planned: ${reasons.join('; ')}; the recording goes on: check ${targets[0]!.sourceId} if this repeats`;
          this.options.logger?.warn(
            { channel: target.number, planned: targets[0]!.sourceId, used: target.sourceId },
            message,
          );
        }
        return subscription;
      } catch (error) {
        if (!(error instanceof StreamUnavailableError)) throw error;
        lastError = error;
        reasons.push(error.message);
      }
    }
    if (!lastError) throw noTuner(targets);
    throw new StreamUnavailableError(reasons.join('; '), lastError.reason);
  }

  /** Waits for `upstream`'s video with `consumer` on it; the consumer is taken off again if it never comes. */
  private async attach(upstream: Upstream, consumer: StreamConsumer): Promise<Subscription> {
    upstream.consumers.add(consumer);
    try {
      await upstream.ready;
    } catch (error) {
      upstream.consumers.delete(consumer);
      throw error;
    }
    if (upstream.closed)
      throw new StreamUnavailableError(`${describe(upstream.target)} closed before video arrived`, 'unreachable');
    return {
      target: upstream.target,
      leave: () => {
        if (!upstream.consumers.delete(consumer)) return;
        if (upstream.consumers.size === 0) upstream.close('no one is watching or recording');
      },
    };
  }

  private existing(targets: readonly StreamTarget[]): Upstream | undefined {
    for (const target of targets) {
      const upstream = this.upstreams.get(key(target));
      if (upstream && !upstream.closed) return upstream;
    }
    return undefined;
  }

  private hasRoom(sourceId: string): boolean {
    return (this.usage().get(sourceId) ?? 0) < this.options.limitOf(sourceId);
  }

  private open(target: StreamTarget): Upstream {
    const upstream = new Upstream(
      target,
      (closed) => this.forget(closed),
      this.options.connectTimeoutMs ?? 10_000,
      this.options.idleTimeoutMs ?? 15_000,
    );
    // An upstream that failed while being made (a URL http cannot open) must not hold a tuner slot.
    if (!upstream.closed) this.upstreams.set(key(target), upstream);
    // A failed open is reported to whoever awaits `ready`; this keeps it from counting as unhandled.
    upstream.ready.catch(() => undefined);
    return upstream;
  }

  /** Closes one viewers-only connection on `sourceId`, so a recording can have its stream; false when there is none. */
  private makeRoomOn(sourceId: string): boolean {
    const victim = [...this.upstreams.values()].find(
      (u) => !u.closed && u.target.sourceId === sourceId && u.onlyViewers,
    );
    if (!victim) return false;
    this.options.logger?.info(
      { channel: victim.target.number, source: sourceId },
      'closing live TV to free a tuner for a recording',
    );
    victim.close('the tuner was needed for a recording');
    return true;
  }

  private forget(upstream: Upstream): void {
    if (this.upstreams.get(key(upstream.target)) === upstream) this.upstreams.delete(key(upstream.target));
  }

  /** Closes every connection; consumers hear that Antenna is stopping. */
  stop(): void {
    this.stopped = true;
    for (const upstream of [...this.upstreams.values()]) upstream.close('Antenna is shutting down');
  }
}

const key = (target: StreamTarget) => `${target.sourceId}\t${target.number}`;

function noTuner(targets: readonly StreamTarget[]): StreamUnavailableError {
  const sources = [...new Set(targets.map((t) => t.sourceId))].join(', ');
  return new StreamUnavailableError(`no free tuner on ${sources}: every stream it allows is in use`, 'no_tuner');
}
