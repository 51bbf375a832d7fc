/**
 * One HLS session of a live channel: the channel's bytes, from the connection the DVR
 * shares between recordings and viewers, piped into ffmpeg, which keeps a sliding
 * window of segments and writes its own playlist. When the upstream ends, the session
 * ends and its playlist and segments go (the player sees an error, not a hang).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NotFoundError } from '../common/errors.js';
import { lastLine, startProgram, stopProgram, type StartedProgram } from '../common/external-program.js';
import { type HlsEncoder, liveHlsArgs } from './hls-ffmpeg-args.js';
import { listedSegments, segmentName } from './hls-playlists.js';
import { HlsSession, type SessionContext, streamFailed, waitForFile } from './hls-session.js';
import type { Variant } from './hls-variants.js';

export const LIVE_SEGMENT_SECONDS = 4;
const WINDOW_SEGMENTS = 6;
/** The first segment of a channel takes its tuning, the first keyframe, and one segment's length. */
const FIRST_PLAYLIST_WAIT_MS = 20_000;
/** Bytes held for a slow ffmpeg before chunks are dropped (the stream must not grow the heap). */
const MAX_PENDING_BYTES = 16 * 1024 * 1024;
/** Kept from before ffmpeg starts: a few seconds of a broadcast channel. */
const HEAD_BYTES = 4 * 1024 * 1024;
/** ffmpeg deaths (not ours) a session survives by starting it again. */
const MAX_RESTARTS = 3;

/** A live channel's bytes, as the DVR hands them (app/ joins it to the stream hub). */
export interface LiveFeed {
  data(chunk: Buffer): void;
  ended(error: string): void;
}
export type JoinChannel = (number: string, feed: LiveFeed) => Promise<{ leave(): void }>;

interface LiveRun {
  variant: Variant;
  encoder: HlsEncoder;
  program: StartedProgram;
  stoppedByUs: boolean;
  /** Why it exited, once it has. */
  exited: string | undefined;
  /** It wrote its playlist: it got as far as a segment. */
  wrote: boolean;
}

export class LiveHlsSession extends HlsSession {
  readonly kind = 'live';
  private run: LiveRun | undefined;
  /** A start in progress: concurrent playlist requests share it. */
  private starting: Promise<void> | undefined;
  private restarts = 0;
  private subscription: { leave(): void } | undefined;
  private upstreamError: string | undefined;
  private dropped = 0;
  /** What came before ffmpeg started (its first seconds, and what the master playlist was probed from). */
  private head: Buffer[] = [];
  private headBytes = 0;

  constructor(
    context: SessionContext,
    variants: readonly Variant[],
    readonly channel: { number: string; id: string },
    private readonly onUpstreamEnd: (session: LiveHlsSession, reason: string) => void,
  ) {
    super(context, variants);
  }

  override get encoderInUse(): string {
    return this.run ? (this.run.variant.kind === 'remux' ? 'remux' : this.run.encoder) : 'none';
  }

  override get transcoding(): boolean {
    return this.run !== undefined && this.run.exited === undefined && this.run.variant.kind === 'transcode';
  }

  get upstreamEnded(): boolean {
    return this.upstreamError !== undefined;
  }

  /** Sets the variants its master playlist offers (known once the channel's first bytes were probed). */
  offer(variants: readonly Variant[]): void {
    this.offered = variants;
  }

  /** Joins the channel; the DVR's refusal (no tuner, source down) reaches the caller. */
  async open(join: JoinChannel): Promise<void> {
    this.subscription = await join(this.channel.number, {
      data: (chunk) => this.feed(chunk),
      ended: (error) => {
        this.upstreamError = error || 'the channel ended';
        this.onUpstreamEnd(this, this.upstreamError);
      },
    });
  }

  /**
   * The channel's first bytes (up to `bytes`, or what came within `waitMs`), so ffprobe
   * can say what the channel carries.
   */
  async sample(bytes: number, waitMs: number): Promise<Buffer> {
    const deadline = Date.now() + waitMs;
    while (this.headBytes < bytes && Date.now() < deadline && this.upstreamError === undefined && !this.closed)
      await new Promise((resolve) => setTimeout(resolve, 50));
    return Buffer.concat(this.head);
  }

  async playlist(variantName: string): Promise<string> {
    this.assertOpen();
    const variant = this.variantNamed(variantName);
    this.touch();
    if (this.upstreamError !== undefined) throw streamFailed();
    await this.ensureRun(variant);
    const run = this.run;
    const file = join(this.variantDir(variant), 'live.m3u8');
    await waitForFile(file, FIRST_PLAYLIST_WAIT_MS, () =>
      this.closed || this.upstreamError !== undefined || (run && run.exited !== undefined) ? streamFailed() : undefined,
    );
    return readFileSync(file, 'utf8');
  }

  async segment(variantName: string, index: number): Promise<string> {
    this.assertOpen();
    const variant = this.variantNamed(variantName);
    this.touch();
    const dir = this.variantDir(variant);
    const file = join(dir, segmentName(index));
    const playlist = join(dir, 'live.m3u8');
    // Only what the window lists: an old segment has been deleted, a future one is a guess.
    if (
      !existsSync(playlist) ||
      !listedSegments(readFileSync(playlist, 'utf8')).includes(segmentName(index)) ||
      !existsSync(file)
    ) {
      throw new NotFoundError('segment', segmentName(index));
    }
    return file;
  }

  protected override async stopPrograms(): Promise<void> {
    this.subscription?.leave();
    this.subscription = undefined;
    await this.starting?.catch(() => undefined);
    if (this.run) await this.stopRun(this.run);
  }

  /** A running ffmpeg for `variant`: started (one start at a time), or started again after it died. */
  private async ensureRun(variant: Variant): Promise<void> {
    while (this.starting) await this.starting.catch(() => undefined);
    this.assertOpen();
    const run = this.run;
    if (run && run.variant === variant && run.exited === undefined) return;
    if (run && run.variant === variant && !run.stoppedByUs) {
      if (++this.restarts > MAX_RESTARTS) throw streamFailed();
      this.context.logger?.warn(
        { session: this.id, reason: run.exited },
        "ffmpeg for live HLS ended; starting it again (if it repeats, the reason says why: check the channel's stream)",
      );
    }
    this.starting = this.start(variant).finally(() => (this.starting = undefined));
    await this.starting;
  }

  private async start(variant: Variant): Promise<void> {
    if (variant.kind === 'transcode') this.context.admitTranscode(this);
    if (this.run) await this.stopRun(this.run);
    // Ended while the old one stopped: start nothing.
    this.assertOpen();
    const encoder = variant.kind === 'transcode' ? this.context.encoder() : 'software';
    const dir = this.variantDir(variant);
    mkdirSync(dir, { recursive: true });
    const program = startProgram(
      this.context.ffmpeg,
      liveHlsArgs({
        variant,
        segmentSeconds: LIVE_SEGMENT_SECONDS,
        windowSegments: WINDOW_SEGMENTS,
        outDir: dir,
        encoder,
      }),
      { stdin: 'pipe' },
    );
    const run: LiveRun = { variant, encoder, program, stoppedByUs: false, exited: undefined, wrote: false };
    this.run = run;
    // A write after ffmpeg exits fails with EPIPE: the exit handler reports why, not this.
    program.child.stdin?.on('error', () => undefined);
    // Its first seconds: what came while the player read the master playlist.
    for (const chunk of this.head) program.child.stdin?.write(chunk);
    this.head = [];
    this.headBytes = 0;
    program.child.once('error', (error) => (run.exited = error.message));
    program.child.once('exit', (code, signal) => {
      run.wrote = existsSync(join(dir, 'live.m3u8'));
      run.exited = lastLine(program.stderrTail()) || (signal ? `killed by ${signal}` : `exit code ${code}`);
      if (run.stoppedByUs || this.closed) return;
      this.context.logger?.warn(
        { session: this.id, reason: run.exited },
        "ffmpeg for live HLS ended; playback asks again and restarts it (if it repeats, the reason says why: check the channel's stream and --hls-encoder)",
      );
      // A hardware encoder that fails on its own before a segment: software from now on.
      if (run.encoder !== 'software' && code !== 0 && signal === null && !run.wrote)
        this.context.hardwareFailed(run.encoder, run.exited);
    });
  }

  private async stopRun(run: LiveRun): Promise<void> {
    if (run.exited !== undefined) return;
    run.stoppedByUs = true;
    run.program.child.stdin?.end();
    await stopProgram(run.program.child, { graceMs: 1000 });
  }

  private feed(chunk: Buffer): void {
    if (!this.run || this.starting) {
      // Before ffmpeg: keep the newest few megabytes.
      this.head.push(chunk);
      this.headBytes += chunk.length;
      while (this.headBytes > HEAD_BYTES && this.head.length > 1) this.headBytes -= this.head.shift()?.length ?? 0;
      return;
    }
    const stdin = this.run.exited === undefined ? this.run.program.child.stdin : undefined;
    if (!stdin || stdin.destroyed) return;
    if (stdin.writableLength > MAX_PENDING_BYTES) {
      if (this.dropped++ === 0)
        this.context.logger?.warn(
          { session: this.id },
          'ffmpeg falls behind the live channel: dropping data; this machine transcodes too slowly for it: use a hardware --hls-encoder or lower --max-transcodes',
        );
      return;
    }
    stdin.write(chunk);
  }
}
