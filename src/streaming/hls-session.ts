/**
 * What every HLS session shares: an id, what it plays, who asked, when it was last
 * asked for something (a session nobody asks for in 30 s ends), its folder of
 * segments (deleted when it ends) and the variants its master playlist offered.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { NotFoundError, UnavailableError } from '../common/errors.js';
import type { ProgramRunner } from '../common/external-program.js';
import type { HlsEncoder } from './hls-ffmpeg-args.js';
import type { Variant } from './hls-variants.js';

/** What the sessions service gives each session. */
export interface SessionContext {
  id: string;
  dir: string;
  client: string;
  ffmpeg: string;
  /** Runs a program to its end (ffmpeg making a file's WebVTT subtitles). */
  runner: ProgramRunner;
  logger?: Logger | undefined;
  now: () => number;
  /** The encoder transcodes use now (software after a hardware one failed). */
  encoder(): HlsEncoder;
  hardwareFailed(encoder: HlsEncoder, reason: string): void;
  /** Throws a 503 when this session may not start a transcode now (too many run). */
  admitTranscode(session: HlsSession): void;
  /** Segments a file's ffmpeg may get ahead of the player before it is paused. */
  aheadSegments: number;
}

export abstract class HlsSession {
  abstract readonly kind: 'file' | 'live';
  readonly startedAt: number;
  lastSeen: number;
  /** Set the moment ending begins, before anything is stopped: exits from then on are ours. */
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

  /** A request that comes after the session began ending: the stream is gone. */
  protected assertOpen(): void {
    if (this.closed) throw new NotFoundError('session', this.id);
  }

  /** Marks the session ended, stops its programs (stopPrograms), deletes its segments. */
  async end(reason: string): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.context.logger?.info({ session: this.id, reason }, 'HLS session ended');
    await this.stopPrograms();
    try {
      rmSync(this.context.dir, { recursive: true, force: true, maxRetries: 3 });
    } catch (error) {
      this.context.logger?.warn(
        { session: this.id, err: error },
        'could not delete the segments of an HLS session; they are removed at the next start (check the permissions of DATA/hls)',
      );
    }
  }

  protected abstract stopPrograms(): Promise<void>;
}

/** What a wait for a segment may hear while it waits. */
export type WaitCheck = undefined | 'again' | Error;

/**
 * Resolves 'ready' once `file` exists, or 'again' when `check` says the situation
 * changed (the run was replaced or killed: decide anew); throws what `check` returns
 * as an error, and a 503 after `timeoutMs`. Polls: a few stat calls a second per
 * waiting request cost less than a watcher per folder, and work the same everywhere.
 */
export async function waitForFile(file: string, timeoutMs: number, check: () => WaitCheck): Promise<'ready' | 'again'> {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 20; ; wait = Math.min(wait * 2, 200)) {
    if (existsSync(file)) return 'ready';
    const heard = check();
    if (heard !== undefined) {
      // ffmpeg may have renamed the segment into place just before it ended.
      if (existsSync(file)) return 'ready';
      if (heard === 'again') return 'again';
      throw heard;
    }
    if (Date.now() > deadline)
      throw new UnavailableError(503, 'stream_not_ready', 'The stream is not ready yet: ask again in a few seconds.');
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** A stream that stopped: what the player is told (the log has ffmpeg's own words). */
export function streamFailed(): UnavailableError {
  return new UnavailableError(
    502,
    'stream_failed',
    'The stream stopped: the server could not go on making it (its log says why); start playing again.',
  );
}
