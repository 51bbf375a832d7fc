/**
 * One HLS session of a live channel, played from the channel's live buffer (dvr/live/):
 * every rendition's media playlist is the buffer's own (every segment held since the
 * channel was tuned, each with its EXT-X-PROGRAM-DATE-TIME), so any HLS player pauses,
 * seeks back and returns to live at the path clients already use. The remux rendition's
 * segments are the buffer's as received; a transcoding rendition's are the buffer's
 * segments transcoded one by one when first asked (each begins with the tables and a
 * keyframe; `-copyts` keeps their times), kept in the session's folder while the buffer
 * holds them, and the next one made ahead while the player plays this one. The buffer
 * is stored once; a session only adds its transcodes.
 */
import { createReadStream, mkdirSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { NotFoundError } from '../common/errors.js';
import { lastLine, startProgram, stopProgram, type StartedProgram } from '../common/external-program.js';
import { bufferSegmentArgs } from './hls-ffmpeg-args.js';
import { segmentName } from './hls-playlists.js';
import { HlsSession, type SessionContext, streamFailed } from './hls-session.js';
import type { Variant } from './hls-variants.js';

/** A buffer segment is sent from its file, its bytes in memory, or (the one under way) a stream as it comes. */
export type LiveSegmentBody = { file: string } | { data: Buffer } | { stream: Readable };

/** A channel's live buffer as the sessions use it (app/ hands it the DVR's). */
export interface LiveBufferAccess {
  /**
   * Tunes channel `number` for `client` (or finds its buffer) and resolves once it has something to play, with its
   * first bytes (the tables and a keyframe on) to probe. Throws what a tune answers (503 no tuner, 404).
   */
  open(number: string, client: string): Promise<Buffer>;
  /**
   * The buffer's media playlist with segments named by `name` (`skip`: a delta update, RFC 8216bis 6.2.5.1); asking
   * it keeps `client` a viewer.
   */
  playlist(number: string, client: string, options: { name: (seq: number) => string; skip: boolean }): Promise<string>;
  /** Where segment `seq` is sent from; a 404 once it left the buffer. */
  segment(number: string, seq: number): LiveSegmentBody;
  /** `client` stopped watching `number` (its session ended): the buffer's linger begins. */
  leave(number: string, client: string): void;
}

/** No live buffers (a server without channels: the OpenAPI document's, tests of files): every channel is a 404. */
export const NO_LIVE_BUFFERS: LiveBufferAccess = {
  open: (number) => Promise.reject(new NotFoundError('channel', number)),
  playlist: (number) => Promise.reject(new NotFoundError('channel', number)),
  segment: (number) => {
    throw new NotFoundError('channel', number);
  },
  leave: () => undefined,
};

/** A transcoding session not asked for anything this long is no longer counted as transcoding. */
const TRANSCODING_QUIET_MS = 10_000;
/** A transcode slower than this is given up (a stalled source, a stuck encoder). */
const TRANSCODE_LIMIT_MS = 30_000;
/** Transcoded segments kept per rendition: the oldest go (a player seeking back has them made again). */
const KEPT_TRANSCODES = 60;

interface Transcode {
  done: Promise<string>;
  program?: StartedProgram;
}

export class BufferHlsSession extends HlsSession {
  readonly kind = 'live';
  private readonly transcodes = new Map<string, Transcode>();
  /** Transcoded segments on disk, per rendition, in the order they were made. */
  private readonly made = new Map<string, number[]>();
  private lastVariant: Variant | undefined;
  private lastSegmentAt = 0;

  constructor(
    context: SessionContext,
    variants: readonly Variant[],
    readonly channel: { number: string; id: string },
    private readonly buffer: LiveBufferAccess,
    /** Who watches, as the buffer knows its viewers (one device, one channel). */
    readonly viewer: string,
  ) {
    super(context, variants);
  }

  override get encoderInUse(): string {
    if (!this.lastVariant) return 'none';
    return this.lastVariant.kind === 'remux' ? 'remux' : this.context.encoder();
  }

  /**
   * Transcoding while a player asks for a transcoding rendition's segments: nothing runs for a session left behind (a
   * channel change that did not end it), so it does not hold a place under --max-transcodes for its idle 30 s.
   */
  override get transcoding(): boolean {
    // Segment requests, not playlist polls: a paused player polls on, and transcodes nothing.
    return this.lastVariant?.kind === 'transcode' && this.context.now() - this.lastSegmentAt < TRANSCODING_QUIET_MS;
  }

  /** `skip`: the player asked for a delta update (`_HLS_skip`). */
  async playlist(variantName: string, skip = false): Promise<string> {
    this.assertOpen();
    this.variantNamed(variantName);
    this.touch();
    return await this.buffer.playlist(this.channel.number, this.viewer, { name: segmentName, skip });
  }

  /** The remux rendition's segment as the buffer holds it; a transcode's file (made now when it is not yet). */
  async segment(variantName: string, seq: number): Promise<string | LiveSegmentBody> {
    this.assertOpen();
    const variant = this.variantNamed(variantName);
    // Counted before this request makes the session recent again.
    const counted = this.transcoding;
    this.touch();
    this.lastSegmentAt = this.context.now();
    if (variant.kind === 'remux') {
      this.lastVariant = variant;
      return this.buffer.segment(this.channel.number, seq);
    }
    if (!counted) this.context.admitTranscode(this);
    this.lastVariant = variant;
    const file = await this.transcoded(variant, seq);
    // The next one is made while the player plays this one (it may not be cut yet: then it is made when asked).
    this.transcodeAhead(variant, seq + 1);
    return file;
  }

  protected override async stopPrograms(): Promise<void> {
    this.buffer.leave(this.channel.number, this.viewer);
    const running = [...this.transcodes.values()];
    await Promise.all(
      running.map(({ program }) => (program ? stopProgram(program.child, { graceMs: 1000 }) : undefined)),
    );
    await Promise.allSettled(running.map(({ done }) => done));
  }

  private transcodeAhead(variant: Variant, seq: number): void {
    // One ahead at a time: a player seeking about does not leave a trail of runs behind it.
    if (this.closed || this.transcodes.size > 0) return;
    let source: LiveSegmentBody;
    try {
      source = this.buffer.segment(this.channel.number, seq);
    } catch {
      return;
    }
    if ('stream' in source) {
      source.stream.destroy();
      return;
    }
    this.transcoded(variant, seq, source).catch((error: unknown) =>
      this.context.logger?.debug({ session: this.id, seq, err: error }, 'a transcode made ahead failed'),
    );
  }

  /** Segment `seq` of `variant` on disk: made once (requests at once share the run). */
  private transcoded(variant: Variant, seq: number, known?: LiveSegmentBody): Promise<string> {
    const key = `${variant.name}/${seq}`;
    const running = this.transcodes.get(key);
    if (running) return running.done;
    if (this.closed) return Promise.reject(streamFailed());
    const dir = this.variantDir(variant);
    const file = join(dir, segmentName(seq));
    if (this.made.get(variant.name)?.includes(seq)) return Promise.resolve(file);
    const source = known ?? this.buffer.segment(this.channel.number, seq);
    const transcode: Transcode = { done: Promise.resolve(file) };
    transcode.done = this.runTranscode(variant, source, file, transcode).finally(() => this.transcodes.delete(key));
    this.transcodes.set(key, transcode);
    return transcode.done.then((made) => {
      this.keep(variant, seq);
      return made;
    });
  }

  private async runTranscode(
    variant: Variant,
    source: LiveSegmentBody,
    file: string,
    transcode: Transcode,
  ): Promise<string> {
    if (this.closed) throw streamFailed();
    mkdirSync(join(file, '..'), { recursive: true });
    const partial = `${file}.partial`;
    const encoder = this.context.encoder();
    const program = startProgram(this.context.ffmpeg, bufferSegmentArgs({ variant, encoder, output: partial }), {
      stdin: 'pipe',
    });
    transcode.program = program;
    const stdin = program.child.stdin;
    // A write after ffmpeg exits fails with EPIPE: its exit says why.
    stdin?.on('error', () => undefined);
    const input = 'data' in source ? undefined : 'file' in source ? createReadStream(source.file) : source.stream;
    if (input) {
      input.on('error', () => stdin?.destroy());
      if (stdin) input.pipe(stdin);
    } else stdin?.end((source as { data: Buffer }).data);
    const timer = setTimeout(() => program.child.kill('SIGKILL'), TRANSCODE_LIMIT_MS);
    let inputFailed = false;
    input?.once('error', () => (inputFailed = true));
    const code = await new Promise<number | string>((resolve) => {
      program.child.once('error', (error) => resolve(error.message));
      program.child.once('exit', (exit, signal) => resolve(exit ?? `killed by ${signal}`));
    }).finally(() => {
      clearTimeout(timer);
      // An ffmpeg that ended early (or was stopped) leaves its input unread: its file closed, its reader let go.
      input?.destroy();
    });
    if (code === 0 && !this.closed) {
      try {
        await rename(partial, file);
      } catch {
        // The session's folder went as it ended.
        throw streamFailed();
      }
      return file;
    }
    await rm(partial, { force: true });
    if (this.closed) throw streamFailed();
    const reason = lastLine(program.stderrTail()) || String(code);
    this.context.logger?.warn(
      { session: this.id, channel: this.channel.number, reason },
      "a live buffer segment could not be transcoded; the player skips it (if it repeats, the reason says why: check the channel's stream and --hls-encoder)",
    );
    // The encoder is blamed only for its own failure: an exit status, its input whole (not a kill at the time limit, a
    // segment gone from the buffer, or a stream cut short).
    if (encoder !== 'software' && typeof code === 'number' && code !== 0 && !inputFailed)
      this.context.hardwareFailed(encoder, reason);
    throw streamFailed();
  }

  /** Keeps the KEPT_TRANSCODES of a rendition made last on disk (not the lowest: a seek back made the newest). */
  private keep(variant: Variant, seq: number): void {
    const made = this.made.get(variant.name) ?? [];
    if (!made.includes(seq)) made.push(seq);
    this.made.set(variant.name, made);
    while (made.length > KEPT_TRANSCODES) {
      const gone = made.shift() as number;
      rm(join(this.variantDir(variant), segmentName(gone)), { force: true }).catch(() => undefined);
    }
  }
}
