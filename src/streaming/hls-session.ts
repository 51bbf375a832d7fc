/**
 * What every HLS session shares: an id, what it plays, who asked, when it was last
 * asked for something (a session nobody asks for in 30 s ends), its folder of
 * segments (deleted when it ends) and the variants its master playlist offered.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { NotFoundError, UnavailableError } from '../common/errors.js';
import type { HlsEncoder } from './hls-ffmpeg-args.js';
import type { Variant } from './hls-variants.js';

/** What the sessions service gives each session. */
export interface SessionContext {
  id: string;
  dir: string;
  client: string;
  ffmpeg: string;
  logger?: Logger | undefined;
  now: () => number;
  /** The encoder transcodes use now (software after a hardware one failed). */
  encoder(): HlsEncoder;
  hardwareFailed(encoder: HlsEncoder, reason: string): void;
  /** Throws a 503 when this session may not start a transcode now (too many run). */
  admitTranscode(session: HlsSession): void;
}

export abstract class HlsSession {
  abstract readonly kind: 'file' | 'live';
  readonly startedAt: number;
  lastSeen: number;
  protected closed = false;

  constructor(
    protected readonly context: SessionContext,
    protected offered: readonly Variant[],
  ) {
    this.startedAt = context.now();
    this.lastSeen = this.startedAt;
  }

  get id(): string {
    return this.context.id;
  }

  /** The variants its master playlist offered. */
  get variants(): readonly Variant[] {
    return this.offered;
  }

  get client(): string {
    return this.context.client;
  }

  /** 'remux', the encoder of a running transcode, or 'none' before the first segment. */
  abstract get encoderInUse(): string;
  /** True while an ffmpeg of this session transcodes. */
  abstract get transcoding(): boolean;

  touch(): void {
    this.lastSeen = this.context.now();
  }

  protected variantNamed(name: string): Variant {
    const variant = this.offered.find((v) => v.name === name);
    if (!variant) throw new NotFoundError('variant', name);
    return variant;
  }

  protected variantDir(variant: Variant): string {
    return join(this.context.dir, variant.name);
  }

  /** Stops its ffmpeg (subclasses) and deletes its segments. */
  async end(reason: string): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.context.logger?.info({ session: this.id, reason }, 'HLS session ended');
    rmSync(this.context.dir, { recursive: true, force: true });
  }
}

/**
 * Resolves once `file` exists; rejects with a 503 when `failed` says it never will, or
 * after `timeoutMs`. Polls: a few stat calls a second per waiting request cost less than
 * a watcher per folder, and work the same on every file system.
 */
export async function waitForFile(file: string, timeoutMs: number, failed: () => string | undefined): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 20; ; wait = Math.min(wait * 2, 200)) {
    if (existsSync(file)) return;
    const reason = failed();
    if (reason !== undefined) {
      // ffmpeg may have renamed the segment into place just before it ended.
      if (existsSync(file)) return;
      throw new UnavailableError(502, 'stream_failed', `The stream could not be made: ${reason}.`);
    }
    if (Date.now() > deadline) throw new UnavailableError(503, 'stream_not_ready', 'The stream is not ready yet: ask again in a few seconds.');
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
