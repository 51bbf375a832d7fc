/**
 * One HLS session of a file: its VOD playlist lists every segment up front; a segment
 * is served from the session's folder once ffmpeg has written it. A request for one not
 * written yet, and not coming soon from the running ffmpeg, restarts ffmpeg at that
 * segment (a seek), as the open media servers do. A recording still being written
 * plays as ffmpeg's own EVENT playlist, which grows.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NotFoundError } from '../common/errors.js';
import { lastLine, startProgram, stopProgram, type StartedProgram } from '../common/external-program.js';
import type { StreamInfo } from '../media-tools/stream-info.js';
import { fileHlsArgs, type HlsEncoder } from './hls-ffmpeg-args.js';
import { SEGMENT_SECONDS, segmentCount, segmentName, vodPlaylist } from './hls-playlists.js';
import { HlsSession, type SessionContext, waitForFile } from './hls-session.js';
import type { Variant } from './hls-variants.js';

/** A segment this close ahead of what ffmpeg has written is waited for, not restarted for. */
const LOOKAHEAD_SEGMENTS = 3;
/** How long a request waits for its segment before it is a 503. */
const SEGMENT_WAIT_MS = 25_000;

interface Run {
  variant: Variant;
  startSegment: number;
  program: StartedProgram;
  encoder: HlsEncoder;
  /** The first segment index from startSegment on that is not written yet (moves forward only). */
  next: number;
  exit?: { code: number | null; signal: NodeJS.Signals | null; reason: string } | undefined;
}

export interface FileSessionSetup {
  itemId: string;
  path: string;
  info: StreamInfo;
  variants: readonly Variant[];
  /** A recording still being written. */
  growing: boolean;
}

export class FileHlsSession extends HlsSession {
  readonly kind = 'file';
  private run: Run | undefined;
  private readonly count: number;

  constructor(
    context: SessionContext,
    private readonly setup: FileSessionSetup,
  ) {
    super(context, setup.variants);
    this.count = segmentCount(setup.info.duration ?? SEGMENT_SECONDS);
  }

  get itemId(): string {
    return this.setup.itemId;
  }

  override get encoderInUse(): string {
    return this.run ? (this.run.variant.kind === 'remux' ? 'remux' : this.run.encoder) : 'none';
  }

  override get transcoding(): boolean {
    return this.run !== undefined && this.run.exit === undefined && this.run.variant.kind === 'transcode';
  }

  async playlist(variantName: string): Promise<string> {
    const variant = this.variantNamed(variantName);
    this.touch();
    if (!this.setup.growing) {
      // A remux cuts at the source's keyframes: allow for segments somewhat longer than asked.
      return vodPlaylist(this.setup.info.duration ?? SEGMENT_SECONDS, { targetSeconds: variant.kind === 'remux' ? SEGMENT_SECONDS * 2 : SEGMENT_SECONDS });
    }
    if (!this.run || this.run.variant !== variant) this.restart(variant, 0);
    const file = join(this.variantDir(variant), 'ffmpeg.m3u8');
    await waitForFile(file, SEGMENT_WAIT_MS, () => this.failure());
    return readFileSync(file, 'utf8');
  }

  /** The path of segment `index` of a variant, once written. */
  async segment(variantName: string, index: number): Promise<string> {
    const variant = this.variantNamed(variantName);
    this.touch();
    if (!this.setup.growing && index >= this.count) throw new NotFoundError('segment', segmentName(index));
    const file = join(this.variantDir(variant), segmentName(index));
    if (existsSync(file)) return file;
    if (!this.coming(variant, index)) this.restart(variant, index);
    try {
      await waitForFile(file, SEGMENT_WAIT_MS, () => this.failure(index));
    } catch (error) {
      // ffmpeg was killed from outside (not by us, not failing on its own): start it again, once.
      if (this.closed || this.run?.exit?.signal == null || this.run.variant !== variant) throw error;
      this.context.logger?.warn({ session: this.id, signal: this.run.exit.signal }, 'ffmpeg for HLS was killed; starting it again');
      this.restart(variant, index);
      await waitForFile(file, SEGMENT_WAIT_MS, () => this.failure(index));
    }
    return file;
  }

  override async end(reason: string): Promise<void> {
    await this.stopRun();
    await super.end(reason);
  }

  /** Whether the running ffmpeg will write segment `index` of `variant` soon. */
  private coming(variant: Variant, index: number): boolean {
    const run = this.run;
    if (!run || run.variant !== variant || run.exit || index < run.startSegment) return false;
    while (existsSync(join(this.variantDir(variant), segmentName(run.next)))) run.next++;
    return index <= run.next + LOOKAHEAD_SEGMENTS;
  }

  /** Why the segment cannot come, once that is certain (ffmpeg ended without writing it). */
  private failure(index?: number): string | undefined {
    const exit = this.run?.exit;
    if (!exit) return undefined;
    if (index !== undefined && this.run && index >= this.run.startSegment && exit.code === 0 && this.setup.growing) return 'the recording has no more';
    return `ffmpeg stopped (${exit.reason})`;
  }

  private restart(variant: Variant, startSegment: number): void {
    const previous = this.run;
    if (previous && !previous.exit) void stopProgram(previous.program.child, { graceMs: 1000 });
    if (variant.kind === 'transcode') this.context.admitTranscode(this);
    const encoder = variant.kind === 'transcode' ? this.context.encoder() : 'software';
    const dir = this.variantDir(variant);
    mkdirSync(dir, { recursive: true });
    const args = fileHlsArgs({ input: this.setup.path, variant, startSegment, segmentSeconds: SEGMENT_SECONDS, outDir: dir, encoder, growing: this.setup.growing });
    const program = startProgram(this.context.ffmpeg, args);
    const run: Run = { variant, startSegment, program, encoder, next: startSegment };
    this.run = run;
    this.context.logger?.debug({ session: this.id, variant: variant.name, segment: startSegment, encoder }, 'ffmpeg started for HLS');
    program.child.once('error', (error) => this.ended(run, { code: null, signal: null, reason: error.message }));
    program.child.once('exit', (code, signal) => this.ended(run, { code, signal, reason: lastLine(program.stderrTail()) || (signal ? `killed by ${signal}` : `exit code ${code}`) }));
  }

  private ended(run: Run, exit: NonNullable<Run['exit']>): void {
    if (run.exit) return;
    run.exit = exit;
    if (exit.code === 0 || this.closed) return;
    const stopped = this.run !== run;
    if (!stopped) this.context.logger?.warn({ session: this.id, variant: run.variant.name, reason: exit.reason }, 'ffmpeg for HLS ended early');
    // A hardware encoder that fails before writing anything: say why, and use software from now on.
    if (!stopped && run.encoder !== 'software' && run.variant.kind === 'transcode' && run.next === run.startSegment && !existsSync(join(this.variantDir(run.variant), segmentName(run.startSegment)))) {
      this.context.hardwareFailed(run.encoder, exit.reason);
      this.restart(run.variant, run.startSegment);
    }
  }

  private async stopRun(): Promise<void> {
    const run = this.run;
    if (run && !run.exit) await stopProgram(run.program.child, { graceMs: 1000 });
  }
}

