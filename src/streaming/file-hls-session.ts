/**
 * One HLS session of a file: its VOD playlist lists every segment up front; a segment
 * is served from the session's folder once ffmpeg has written it. A request for one not
 * written yet, and not coming soon from the running ffmpeg, restarts ffmpeg at that
 * segment (a seek), as the open media servers do. A recording still being written
 * plays as ffmpeg's own EVENT playlist, which grows (one variant: no restarts at all).
 *
 * An ffmpeg that gets far ahead of the player is paused (SIGSTOP) and continued
 * (SIGCONT) when the player nears it, as Jellyfin throttles its transcodes: a remux
 * runs at a hundred times real time, and would otherwise copy a whole film into
 * DATA/hls (and a transcode keep a core busy) for a viewer who stops after a minute.
 *
 * A file of known length offers its text subtitle streams too, each a WebVTT rendition
 * of one segment (hls-subtitles.ts); an EVENT playlist offers none (its cues are not all
 * there yet).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NotFoundError, UnavailableError } from '../common/errors.js';
import { lastLine, startProgram, stopProgram, type StartedProgram } from '../common/external-program.js';
import type { OpenedFile } from '../common/path-boundary.js';
import { INPUT_PATH } from '../media-tools/library-input.js';
import type { StreamInfo, SubtitleStreamInfo } from '../media-tools/stream-info.js';
import { fileHlsArgs, type HlsEncoder } from './hls-ffmpeg-args.js';
import { SEGMENT_SECONDS, segmentCount, segmentName, subtitlePlaylist, vodPlaylist } from './hls-playlists.js';
import { HlsSession, type SessionContext, streamFailed, waitForFile, type WaitCheck } from './hls-session.js';
import { SubtitleFiles } from './hls-subtitles.js';
import type { Variant } from './hls-variants.js';

/**
 * A segment this close ahead of what ffmpeg has written is waited for, not restarted
 * for: a remux runs at many times real time, a software transcode at one to two.
 */
const LOOKAHEAD_SEGMENTS = { remux: 40, transcode: 4 } as const;
/** How long a request waits for its segment before it is a 503. */
const SEGMENT_WAIT_MS = 25_000;
/** How often a file session checks whether its ffmpeg is too far ahead. */
const THROTTLE_CHECK_MS = 1000;
/** Restarts one request may cause (its run replaced by another request's, or killed) before it gives up. */
const MAX_ATTEMPTS = 4;

interface Run {
  variant: Variant;
  startSegment: number;
  program: StartedProgram;
  encoder: HlsEncoder;
  /** The first segment index from startSegment on that this run has not written yet. */
  next: number;
  /** Set before we stop it: its exit is then ours, not a failure. */
  stoppedByUs: boolean;
  /** Paused with SIGSTOP, being far ahead of the player. */
  paused: boolean;
  exit?: { code: number | null; signal: NodeJS.Signals | null; reason: string } | undefined;
}

export interface FileSessionSetup {
  itemId: string;
  /**
   * The file, opened once after the boundary's check: every ffmpeg the session starts
   * (a seek's restart, subtitles) reads this descriptor, never the path again, so a
   * link swapped in mid-session is never followed. Closed when the session ends.
   */
  file: OpenedFile;
  info: StreamInfo;
  variants: readonly Variant[];
  /** A recording still being written. */
  growing: boolean;
}

/**
 * Whether a file plays as an EVENT playlist of what exists so far: a growing recording, or a file of unknown length.
 */
export function playsAsEvent(setup: Pick<FileSessionSetup, 'growing' | 'info'>): boolean {
  return setup.growing || setup.info.duration === null;
}

export class FileHlsSession extends HlsSession {
  readonly kind = 'file';
  private run: Run | undefined;
  /** Runs asked to stop and not yet exited (their segments may still land). */
  private readonly stopping = new Set<Run>();
  private readonly count: number;
  /** The highest segment the player asked for, which throttling measures ffmpeg's lead from. */
  private lastAsked = 0;
  private throttle: NodeJS.Timeout | undefined;
  /** Listed as it is made (EVENT), not up front (VOD): its length is not known yet. */
  private readonly event: boolean;
  /** The text subtitle streams its master playlist offers (none for an EVENT playlist). */
  readonly subtitles: readonly SubtitleStreamInfo[];
  private readonly subtitleFiles: SubtitleFiles;

  constructor(
    context: SessionContext,
    private readonly setup: FileSessionSetup,
  ) {
    super(context, setup.variants);
    this.count = segmentCount(setup.info.duration ?? SEGMENT_SECONDS);
    this.event = playsAsEvent(setup);
    this.subtitles = this.event ? [] : (setup.info.subtitles ?? []);
    this.subtitleFiles = new SubtitleFiles({
      sessionId: context.id,
      input: setup.file,
      dir: context.dir,
      ffmpeg: context.ffmpeg,
      runner: context.runner,
      logger: context.logger,
    });
  }

  get itemId(): string {
    return this.setup.itemId;
  }

  override get encoderInUse(): string {
    return this.run ? (this.run.variant.kind === 'remux' ? 'remux' : this.run.encoder) : 'none';
  }

  override get transcoding(): boolean {
    const running = (run: Run | undefined) =>
      run !== undefined && run.exit === undefined && run.variant.kind === 'transcode';
    return running(this.run) || [...this.stopping].some(running);
  }

  async playlist(variantName: string): Promise<string> {
    this.assertOpen();
    const variant = this.variantNamed(variantName);
    this.touch();
    if (!this.event) {
      // A remux cuts at the source's keyframes: allow for segments somewhat longer than asked.
      return vodPlaylist(this.setup.info.duration ?? SEGMENT_SECONDS, {
        targetSeconds: variant.kind === 'remux' ? SEGMENT_SECONDS * 2 : SEGMENT_SECONDS,
      });
    }
    // A growing recording or a file of unknown length: one ffmpeg from the start, started again (from the start) only
    // if it died.
    if (!this.run || (this.run.exit && this.run.exit.code !== 0)) this.restart(variant, 0);
    const run = this.run;
    const file = join(this.variantDir(variant), 'ffmpeg.m3u8');
    await waitForFile(file, SEGMENT_WAIT_MS, () => (run?.exit && run.exit.code !== 0 ? streamFailed() : undefined));
    return readFileSync(file, 'utf8');
  }

  /** The path of segment `index` of a variant, once written. */
  async segment(variantName: string, index: number): Promise<string> {
    this.assertOpen();
    const variant = this.variantNamed(variantName);
    this.touch();
    if (!this.event && index >= this.count) throw new NotFoundError('segment', segmentName(index));
    this.lastAsked = index;
    this.resumeIfNeeded();
    const file = join(this.variantDir(variant), segmentName(index));
    for (let attempt = 1; ; attempt++) {
      if (existsSync(file)) return file;
      this.assertOpen();
      // An EVENT playlist whose ffmpeg finished cleanly has every segment it will ever have: past them is nothing to
      // make.
      if (this.event && this.run?.variant === variant && this.run.exit?.code === 0)
        throw new NotFoundError('segment', segmentName(index));
      if (!this.coming(variant, index)) {
        // An EVENT playlist lists only what exists: a missing segment is not one to make.
        if (this.event && this.run && !this.run.exit) throw new NotFoundError('segment', segmentName(index));
        if (attempt > MAX_ATTEMPTS)
          throw new UnavailableError(
            503,
            'stream_not_ready',
            'The stream is busy moving to another point: ask again in a moment.',
          );
        this.restart(variant, this.event ? 0 : index);
      }
      const run = this.run as Run;
      if ((await waitForFile(file, SEGMENT_WAIT_MS, () => this.heard(run, index))) === 'ready') return file;
    }
  }

  /**
   * A subtitle rendition's playlist (one segment: the whole file). Asking for it starts
   * making its WebVTT, which the segment's request then needs to wait less for.
   */
  subtitlePlaylist(index: number): string {
    const subtitle = this.subtitleNumbered(index);
    this.subtitleFiles.prepare(subtitle);
    return subtitlePlaylist(this.setup.info.duration ?? SEGMENT_SECONDS);
  }

  /** The path of a subtitle rendition's WebVTT, once made (one ffmpeg run however many ask). */
  async subtitleFile(index: number): Promise<string> {
    const path = await this.subtitleFiles.vtt(this.subtitleNumbered(index));
    this.assertOpen();
    return path;
  }

  /** Checks a HEAD request's subtitle rendition without making anything. */
  checkSubtitle(index: number): void {
    this.subtitleNumbered(index);
  }

  private subtitleNumbered(index: number): SubtitleStreamInfo {
    this.assertOpen();
    this.touch();
    const subtitle = this.subtitles.find((s) => s.index === index);
    if (!subtitle) throw new NotFoundError('subtitle rendition', String(index));
    return subtitle;
  }

  /** While waiting on `run` for segment `index`: go on, decide again, or fail. */
  private heard(run: Run, index: number): WaitCheck {
    if (this.closed) return new NotFoundError('session', this.id);
    if (this.run !== run) return 'again';
    const exit = run.exit;
    if (!exit) return undefined;
    // Killed from outside: start it again. Ended cleanly without the segment: the file has no such part.
    if (exit.signal !== null && !run.stoppedByUs) {
      this.context.logger?.warn(
        { session: this.id, signal: exit.signal },
        'ffmpeg for HLS was killed; starting it again (if this repeats, look for the out-of-memory killer in the system log and lower --max-transcodes)',
      );
      this.run = undefined;
      return 'again';
    }
    if (exit.code === 0) return new NotFoundError('segment', segmentName(index));
    return streamFailed();
  }

  protected override async stopPrograms(): Promise<void> {
    clearInterval(this.throttle);
    const runs = [...this.stopping, ...(this.run ? [this.run] : [])];
    await Promise.all([...runs.map((run) => this.stopRun(run)), this.subtitleFiles.stop()]);
    await this.setup.file.handle.close().catch(() => undefined);
  }

  /** Whether the running ffmpeg will write segment `index` of `variant` soon. */
  private coming(variant: Variant, index: number): boolean {
    const run = this.run;
    if (!run || run.variant !== variant || run.exit || index < run.startSegment) return false;
    while (existsSync(join(this.variantDir(variant), segmentName(run.next)))) run.next++;
    return index <= run.next + LOOKAHEAD_SEGMENTS[variant.kind];
  }

  private restart(variant: Variant, startSegment: number): void {
    // Refused before anything stops: a 503 for a transcode must not end the stream that plays.
    if (variant.kind === 'transcode') this.context.admitTranscode(this);
    if (this.run) void this.stopRun(this.run);
    const encoder = variant.kind === 'transcode' ? this.context.encoder() : 'software';
    const dir = this.variantDir(variant);
    mkdirSync(dir, { recursive: true });
    const args = fileHlsArgs({
      input: INPUT_PATH,
      variant,
      startSegment,
      segmentSeconds: SEGMENT_SECONDS,
      outDir: dir,
      encoder,
      growing: this.setup.growing,
      event: this.event,
    });
    const program = startProgram(this.context.ffmpeg, args, { inputFd: this.setup.file.fd });
    const run: Run = { variant, startSegment, program, encoder, next: startSegment, stoppedByUs: false, paused: false };
    this.run = run;
    this.lastAsked = startSegment;
    if (!this.setup.growing && !this.throttle) {
      this.throttle = setInterval(() => this.pace(), THROTTLE_CHECK_MS);
      this.throttle.unref();
    }
    this.context.logger?.debug(
      { session: this.id, variant: variant.name, segment: startSegment, encoder },
      'ffmpeg started for HLS',
    );
    program.child.once('error', (error) => this.ended(run, { code: null, signal: null, reason: error.message }));
    program.child.once('exit', (code, signal) =>
      this.ended(run, {
        code,
        signal,
        reason: lastLine(program.stderrTail()) || (signal ? `killed by ${signal}` : `exit code ${code}`),
      }),
    );
  }

  private async stopRun(run: Run): Promise<void> {
    if (run.exit) return;
    run.stoppedByUs = true;
    this.stopping.add(run);
    // A paused process would not act on SIGTERM until continued.
    await stopProgram(run.program.child, {
      graceMs: 1000,
      ask: () => this.signal(run, 'SIGCONT') && this.signal(run, 'SIGTERM'),
    });
  }

  /** Pauses the running ffmpeg when it is far ahead of the player, continues it when the player nears it. */
  private pace(): void {
    const run = this.run;
    if (!run || run.exit) return;
    while (existsSync(join(this.variantDir(run.variant), segmentName(run.next)))) run.next++;
    const lead = run.next - this.lastAsked;
    if (!run.paused && lead > this.context.aheadSegments) {
      if (this.signal(run, 'SIGSTOP')) run.paused = true;
    } else if (run.paused && lead <= this.context.aheadSegments / 2) {
      this.resumeIfNeeded();
    }
  }

  private resumeIfNeeded(): void {
    const run = this.run;
    if (run?.paused && !run.exit && this.signal(run, 'SIGCONT')) run.paused = false;
  }

  /** Sends a signal; false when the process is gone (it exited between the check and the kill). */
  private signal(run: Run, signal: NodeJS.Signals): boolean {
    try {
      return run.program.child.kill(signal);
    } catch {
      return false;
    }
  }

  private ended(run: Run, exit: NonNullable<Run['exit']>): void {
    if (run.exit) return;
    run.exit = exit;
    this.stopping.delete(run);
    if (exit.code === 0 || run.stoppedByUs || this.closed) return;
    this.context.logger?.warn(
      { session: this.id, variant: run.variant.name, reason: exit.reason },
      'ffmpeg for HLS ended early; playback asks again and restarts it (if it repeats for this file, the reason says why: check the file with ffprobe)',
    );
    // A hardware encoder that fails on its own before writing anything: say why, and use software from now on.
    const wroteNothing = !existsSync(join(this.variantDir(run.variant), segmentName(run.startSegment)));
    if (
      this.run === run &&
      exit.signal === null &&
      run.encoder !== 'software' &&
      run.variant.kind === 'transcode' &&
      wroteNothing
    ) {
      this.context.hardwareFailed(run.encoder, exit.reason);
      try {
        this.restart(run.variant, run.startSegment);
      } catch (error) {
        this.context.logger?.warn(
          { session: this.id, err: error },
          'could not restart HLS in software; start playback again, and if this repeats check that ffmpeg (--ffmpeg-path) runs',
        );
      }
    }
  }
}
