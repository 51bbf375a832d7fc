/**
 * The mpv backend: starts mpv idle with a JSON IPC socket, supervises it (a crash is
 * noticed and mpv restarted with backoff), mirrors the properties the status needs
 * through observe_property, and turns the player's orders into mpv commands.
 */
import { type ChildProcess, startProgram, stopProgram } from '../../common/external-program.js';
import { EventEmitter } from 'node:events';
import { lstatSync, mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { UnavailableError } from '../../common/errors.js';
import { NoEffect } from '../no-effect.js';
import { demuxerOptions, mpvArguments } from './mpv-args.js';
import { Restarts } from '../restarts.js';
import { MpvCommandError, MpvGoneError, MpvIpc, type MpvMessage } from './mpv-ipc.js';
import {
  type BackendEvents,
  IDLE_STATE,
  type LoadOptions,
  MediaLoadError,
  type MediaState,
  type PlayerBackend,
} from '../player-backend.js';
import type { Section } from '../sections.js';

export interface MpvBackendOptions {
  /** The mpv program; default 'mpv' from PATH. */
  mpvPath?: string;
  /** Where mpv's IPC socket goes; default a fresh private folder under the system's temp folder. */
  socketPath?: string | undefined;
  display: boolean;
  /** Extra mpv options, `name=value`. */
  options?: readonly string[];
  logger: Logger;
  /** Wait before restart number `attempt` (1, 2, ...) after mpv died; default 0.5 s doubling to 30 s. */
  restartDelayMs?: (attempt: number) => number;
}

/** mpv could not be started at all (not installed, bad option). */
export class MpvStartError extends Error {
  override readonly name = 'MpvStartError';
}

/** Properties mirrored for the status: observed, and read back after every command. */
const MIRRORED = ['idle-active', 'pause', 'mute', 'time-pos', 'duration', 'ontop'] as const;
type Mirrored = (typeof MIRRORED)[number];

const SOCKET_WAIT_MS = 10_000;
const QUIT_WAIT_MS = 3000;
/** Picture-in-picture: a window a quarter of the screen's size, 32 pixels from the lower right corner. */
export const PIP_GEOMETRY = '25%x25%-32-32';
/** A seek normally lands within a few frames; a stream that stalls is not waited for longer. */
const SEEK_SETTLE_MS = 1500;

export class MpvBackend extends EventEmitter<BackendEvents> implements PlayerBackend {
  readonly name = 'mpv';
  readonly liveByUrl = true;
  private child: ChildProcess | undefined;
  private ipc: MpvIpc | undefined;
  private readonly values = new Map<Mirrored, unknown>();
  /** The message number of each mirrored value: an older answer never overwrites a newer one. */
  private readonly valueSeq = new Map<Mirrored, number>();
  private mirror: MediaState = { ...IDLE_STATE };
  /** The playlist entry of the latest loadfile: end-file events of older ones are stale. */
  private currentEntry: number | undefined;
  private currentTag: number | undefined;
  /** The last position mpv reported for what is loaded: it reports none any more by the time it says the file ended. */
  private lastPosition: number | undefined;
  private stopping = false;
  private userDemuxerOptions: Record<string, string> = {};
  private readonly socketPath: string;
  private readonly ownSocketDir: string | undefined;
  private stderrTail: () => string = () => '';
  private readonly restarts: Restarts;

  constructor(private readonly options: MpvBackendOptions) {
    super();
    this.restarts = new Restarts({
      what: 'mpv',
      logger: options.logger,
      delayMs: options.restartDelayMs,
      stopping: () => this.stopping,
    });
    if (options.socketPath) {
      this.socketPath = options.socketPath;
    } else {
      this.ownSocketDir = mkdtempSync(join(tmpdir(), 'antenna-mpv-'));
      this.socketPath = join(this.ownSocketDir, 'ipc.sock');
    }
  }

  /** The running mpv's process id, if one runs. */
  get pid(): number | undefined {
    return this.child?.exitCode === null ? this.child.pid : undefined;
  }

  async start(): Promise<void> {
    this.stopping = false;
    this.clearStaleSocket();
    // However Node ends (an uncaught error included), an idle mpv must not outlive it.
    process.once('exit', this.killOnExit);
    await this.launch();
  }

  private readonly killOnExit = () => this.child?.kill('SIGKILL');

  /** A socket left by a crashed mpv is removed; anything else at that path is not ours to delete. */
  private clearStaleSocket(): void {
    try {
      if (!lstatSync(this.socketPath).isSocket()) {
        throw new MpvStartError(
          `${this.socketPath} exists and is not a socket: give --mpv-ipc a path where the player may create one.`,
        );
      }
      unlinkSync(this.socketPath);
    } catch (error) {
      if (error instanceof MpvStartError) throw error;
      // nothing there
    }
  }

  private async launch(): Promise<void> {
    const args = mpvArguments({
      socketPath: this.socketPath,
      display: this.options.display,
      options: this.options.options ?? [],
    });
    const started = startProgram(this.options.mpvPath ?? 'mpv', args, { stderrTailBytes: 2000 });
    const child = started.child;
    this.child = child;
    this.stderrTail = started.stderrTail;
    const failed = new Promise<never>((_resolve, reject) => {
      child.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          new MpvStartError(
            error.code === 'ENOENT'
              ? `mpv is not installed (${this.options.mpvPath ?? 'mpv'} not found): install it with \`sudo apt-get install mpv\`.`
              : `mpv could not be started: ${error.message}`,
          ),
        ),
      );
      child.once('exit', (code, signal) =>
        reject(
          new MpvStartError(
            `mpv exited at start (${signal ?? `code ${code}`}): ${this.stderrTail().trim() || 'no message'}`,
          ),
        ),
      );
    });
    failed.catch(() => undefined);
    let ipc: MpvIpc | undefined;
    try {
      ipc = await Promise.race([this.connectWhenListening(child), failed]);
      const connected = ipc;
      connected.on('property', (name, value, seq) => this.observed(name as Mirrored, value, seq));
      connected.on('event', (message) => this.event(message));
      this.values.clear();
      this.valueSeq.clear();
      await Promise.race([Promise.all(MIRRORED.map((name) => connected.observe(name))), failed]);
      // The user's own demuxer options (--mpv-option=demuxer-lavf-o=...), kept under the ones each load sets.
      const demuxer = await Promise.race([connected.command(['get_property', 'demuxer-lavf-o']), failed]);
      this.userDemuxerOptions = demuxer && typeof demuxer === 'object' ? (demuxer as Record<string, string>) : {};
    } catch (error) {
      // Whatever got this far goes: one mpv at a time, and the caller decides about retrying.
      ipc?.close();
      child.kill('SIGKILL');
      throw error;
    }
    // From here on an exit is a crash to recover from, not a failed start.
    child.removeAllListeners('exit');
    child.removeAllListeners('error');
    child.on('error', () => undefined);
    child.once('exit', (code, signal) => this.exited(child, code, signal));
    this.ipc = ipc;
    this.restarts.started();
    this.recompute();
    this.options.logger.info({ pid: child.pid, socket: this.socketPath }, 'mpv started');
  }

  private async connectWhenListening(child: ChildProcess): Promise<MpvIpc> {
    const deadline = Date.now() + SOCKET_WAIT_MS;
    for (;;) {
      try {
        return await MpvIpc.connect(this.socketPath);
      } catch (error) {
        if (child.exitCode !== null || Date.now() > deadline) {
          child.kill('SIGKILL');
          throw new MpvStartError(
            `mpv did not open its IPC socket at ${this.socketPath}: ${error instanceof Error ? error.message : error}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
  }

  private exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    const lastPosition = this.lastPosition;
    this.ipc?.close();
    this.ipc = undefined;
    this.child = undefined;
    this.mirror = { ...IDLE_STATE };
    this.currentEntry = undefined;
    if (this.stopping) return;
    const reason = `mpv exited (${signal ?? `code ${code}`})`;
    this.options.logger.warn(
      { reason, stderr: this.stderrTail().trim() || undefined },
      'mpv went away; restarting it (if it repeats, its stderr says why: check --mpv and --mpv-option)',
    );
    this.emit('down', reason, lastPosition);
    this.restarts.afterExit(() => this.launch());
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.restarts.cancel();
    process.off('exit', this.killOnExit);
    const child = this.child;
    if (child) {
      // mpv's own quit over IPC, then SIGKILL if it has not gone by then.
      await stopProgram(child, {
        graceMs: QUIT_WAIT_MS,
        ask: () => void this.ipc?.command(['quit'], QUIT_WAIT_MS).catch(() => undefined),
      });
    }
    this.ipc?.close();
    this.ipc = undefined;
    if (this.ownSocketDir) rmSync(this.ownSocketDir, { recursive: true, force: true });
  }

  // ---------------------------------------------------------------- state

  state(): MediaState {
    return this.mirror;
  }

  async readBack(): Promise<MediaState> {
    const ipc = this.requireIpc();
    const replies = await Promise.all(
      MIRRORED.map((name) =>
        ipc.ordered(['get_property', name]).catch((error: unknown) => {
          // "property unavailable" (time-pos while idle) is an answer: no value.
          if (error instanceof MpvCommandError && error.seq !== undefined) return { data: null, seq: error.seq };
          throw this.unavailable(error);
        }),
      ),
    );
    // A change observed after a reply arrived is newer than the reply: it stays.
    MIRRORED.forEach((name, index) => {
      const reply = replies[index];
      if (reply) this.record(name, reply.data, reply.seq);
    });
    this.recompute();
    return this.mirror;
  }

  private record(name: Mirrored, value: unknown, seq: number): void {
    if ((this.valueSeq.get(name) ?? -1) > seq) return;
    this.values.set(name, value);
    this.valueSeq.set(name, seq);
  }

  private observed(name: Mirrored, value: unknown, seq: number): void {
    this.record(name, value, seq);
    this.recompute();
  }

  private recompute(): void {
    const v = (name: Mirrored) => this.values.get(name);
    const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
    const loaded = v('idle-active') === false;
    this.mirror = {
      available: this.ipc !== undefined,
      loaded,
      paused: v('pause') === true,
      muted: v('mute') === true,
      ...(loaded && number(v('time-pos')) !== undefined ? { position: number(v('time-pos')) } : {}),
      ...(loaded && number(v('duration')) !== undefined ? { duration: number(v('duration')) } : {}),
      pip: v('ontop') === true,
    };
    if (this.mirror.position !== undefined) this.lastPosition = this.mirror.position;
  }

  private event(message: MpvMessage): void {
    if (message.event === 'start-file') this.lastPosition = undefined;
    if (message.event !== 'end-file') return;
    // Only the latest load counts: replacing a file ends the old one with reason 'stop'.
    if (this.currentEntry !== undefined && message.playlist_entry_id !== this.currentEntry) return;
    if (message.reason === 'eof' || message.reason === 'error') {
      const position = this.lastPosition;
      this.emit('ended', {
        reason: message.reason,
        tag: this.currentTag,
        ...(message.file_error ? { error: message.file_error } : {}),
        ...(position !== undefined ? { position } : {}),
      });
    }
  }

  // ---------------------------------------------------------------- commands

  private requireIpc(): MpvIpc {
    if (!this.ipc?.isOpen) {
      throw new UnavailableError(
        503,
        'player_unavailable',
        'mpv is restarting after it stopped unexpectedly; try again in a moment.',
      );
    }
    return this.ipc;
  }

  private unavailable(error: unknown): unknown {
    return error instanceof MpvGoneError
      ? new UnavailableError(503, 'player_unavailable', 'mpv went away during the command; it is being restarted.')
      : error;
  }

  private async run(command: readonly unknown[]): Promise<unknown> {
    try {
      return await this.requireIpc().command(command);
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  private async set(name: string, value: unknown): Promise<void> {
    await this.run(['set_property', name, value]);
  }

  async load(url: string, options: LoadOptions): Promise<void> {
    const ipc = this.requireIpc();
    // Global options read by the next loadfile (mpv 0.35 has no per-file options argument before the index one).
    await this.set('start', options.start !== undefined && options.start > 0 ? String(options.start) : 'none');
    await this.set('force-media-title', options.title ?? '');
    // A `?from=` playlist begins where it should be played from (ffmpeg's HLS reader starts three segments from the end
    // of a live one unless told), and live TV starts without measuring its frame rate first.
    await this.set('demuxer-lavf-o', demuxerOptions(this.userDemuxerOptions, options.fromFirstSegment === true));
    // Pause is a player-wide property in mpv: what is asked to play plays, even after a pause.
    await this.set('pause', false);
    const early: MpvMessage[] = [];
    let handle: ((message: MpvMessage) => void) | undefined;
    let gone: (() => void) | undefined;
    const listener = (message: MpvMessage) => (handle ? handle(message) : early.push(message));
    const closed = () => gone?.();
    ipc.on('event', listener);
    ipc.once('close', closed);
    try {
      // The reply can come in the same read as start-file, so events are held until the entry is known.
      const reply = (await this.run(['loadfile', url, 'replace'])) as { playlist_entry_id?: number } | null;
      const entry = reply?.playlist_entry_id;
      this.currentEntry = entry;
      this.currentTag = options.tag;
      await new Promise<void>((resolve, reject) => {
        let started = false;
        // Still opening (a slow stream): the caller answers now; the load goes on.
        const timer = setTimeout(resolve, options.waitMs);
        const settle = (outcome: () => void) => {
          clearTimeout(timer);
          outcome();
        };
        handle = (message) => {
          const ours = entry === undefined || message.playlist_entry_id === entry;
          if (message.event === 'start-file' && ours) started = true;
          // Playing at its start position (after the resume seek), not merely opened.
          else if (message.event === 'playback-restart' && started) settle(resolve);
          else if (message.event === 'end-file' && ours) {
            settle(() =>
              message.reason === 'error'
                ? reject(new MediaLoadError(`mpv could not open the media: ${message.file_error ?? 'unknown error'}`))
                : resolve(),
            );
          }
        };
        gone = () => settle(() => reject(this.unavailable(new MpvGoneError('mpv went away'))));
        if (!ipc.isOpen) gone();
        for (const message of early.splice(0)) handle(message);
      });
    } finally {
      ipc.off('event', listener);
      ipc.off('close', closed);
    }
  }

  async unload(): Promise<void> {
    await this.run(['stop']);
  }

  async setPaused(paused: boolean): Promise<void> {
    await this.set('pause', paused);
  }

  async setMuted(muted: boolean): Promise<void> {
    await this.set('mute', muted);
  }

  async seekTo(seconds: number): Promise<void> {
    const settled = this.settled(this.requireIpc());
    await this.run(['seek', seconds, 'absolute+exact']);
    // mpv seeks asynchronously: what is read back before it lands is the old position.
    await settled;
  }

  /** Seeks to `seconds` when mpv's cache holds it (a live stream cannot be seeked outside it); whether it did. */
  async seekWithinHeld(seconds: number): Promise<boolean> {
    const cache = (await this.run(['get_property', 'demuxer-cache-state']).catch(() => undefined)) as
      | { 'seekable-ranges'?: { start?: number; end?: number }[] }
      | undefined;
    const ranges = cache?.['seekable-ranges'] ?? [];
    const held = ranges.some(
      (range) =>
        typeof range.start === 'number' &&
        typeof range.end === 'number' &&
        seconds >= range.start &&
        seconds <= range.end,
    );
    if (!held) return false;
    await this.seekTo(seconds);
    return true;
  }

  /** Resolves when playback has restarted after a seek, or ended (a seek past the end), or after a short wait. */
  private settled(ipc: MpvIpc): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        ipc.off('event', listener);
        ipc.off('close', done);
        resolve();
      };
      const listener = (message: MpvMessage) => {
        if (message.event === 'playback-restart' || message.event === 'end-file' || message.event === 'idle') done();
      };
      const timer = setTimeout(done, SEEK_SETTLE_MS);
      ipc.on('event', listener);
      ipc.once('close', done);
    });
  }

  async toggleCaptions(): Promise<void> {
    const sid = await this.run(['get_property', 'sid']);
    if (typeof sid !== 'number') {
      const tracks = (await this.run(['get_property', 'track-list'])) as { id: number; type: string }[];
      const first = tracks.find((track) => track.type === 'sub');
      if (!first) throw new NoEffect('no_captions', 'What is playing has no caption or subtitle track.');
      await this.set('sid', first.id);
      await this.set('sub-visibility', true);
      return;
    }
    await this.set('sub-visibility', (await this.run(['get_property', 'sub-visibility'])) !== true);
  }

  async setPip(on: boolean): Promise<void> {
    if (on) {
      await this.set('fullscreen', false);
      await this.set('ontop', true);
      // A quarter of the screen in the lower right corner.
      await this.set('geometry', PIP_GEOMETRY);
    } else {
      await this.set('ontop', false);
      await this.set('geometry', '');
      await this.set('fullscreen', this.options.display);
    }
    await this.applyGeometry();
  }

  /**
   * mpv before 0.36 sizes and places its window only when the video (re)starts, so the
   * video track is selected again to apply a new geometry now (a frame's flicker).
   */
  private async applyGeometry(): Promise<void> {
    const vid = await this.run(['get_property', 'vid']);
    if (typeof vid !== 'number') return;
    await this.set('vid', 'no');
    await this.set('vid', vid);
  }

  async showMessage(title: string, message: string, durationMs: number): Promise<void> {
    // Commands sent as JSON arrays are raw: "${...}" in a message is shown as written, never expanded.
    await this.run(['show-text', title === '' ? message : `${title}\n${message}`, durationMs]);
  }

  navigate(_section: Section): Promise<void> {
    return Promise.reject(
      new UnavailableError(
        501,
        'navigation_unsupported',
        'The mpv backend has no app sections to show: run the player with --backend browser (the Antenna app on the TV) to navigate.',
      ),
    );
  }
}
