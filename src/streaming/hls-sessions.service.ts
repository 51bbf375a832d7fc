/**
 * HLS sessions: made by a master playlist request (a file's or a channel's), found by
 * the id in their URLs, listed and ended through /api/v1/sessions, and ended by
 * themselves after 30 s without a request (ffmpeg stopped, segments deleted, the tuner
 * let go). Transcodes are counted: past the limit, a new one is a 503.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { NotFoundError, UnavailableError } from '../common/errors.js';
import { type ProgramRunner, spawnRunner } from '../common/external-program.js';
import type { OpenedFile } from '../common/path-boundary.js';
import { probeStreams, type StreamInfo } from '../media-tools/stream-info.js';
import { FileHlsSession, playsAsEvent } from './file-hls-session.js';
import type { HlsEncoder } from './hls-ffmpeg-args.js';
import { masterPlaylist } from './hls-playlists.js';
import type { HlsSession, SessionContext } from './hls-session.js';
import { chooseVariants, type Variant, type VariantRequest } from './hls-variants.js';
import { BufferHlsSession, type LiveBufferAccess } from './buffer-hls-session.js';

export const SESSION_IDLE_MS = 30_000;
/** What a channel is taken to carry when its first bytes say nothing: broadcast HD (MPEG-2, AC-3). */
const BROADCAST_GUESS: StreamInfo = {
  duration: null,
  video: { codec: 'mpeg2video', width: 1280, height: 720 },
  audio: { codec: 'ac3' },
};

export interface HlsServiceOptions {
  /** Where sessions keep their segments (emptied at start). */
  dir: string;
  ffmpeg: string;
  ffprobe: string;
  /** What runs ffmpeg to its end (a file's subtitles as WebVTT); tests stand in for it. Default: spawned. */
  runner?: ProgramRunner;
  encoder: HlsEncoder;
  maxTranscodes: number;
  idleMs?: number;
  /** Segments a file's ffmpeg may get ahead of the last one asked for before it is paused (default 20: two minutes). */
  aheadSegments?: number;
  logger?: Logger | undefined;
  now?: () => number;
  /** Throws the 404/403/409 the stream route would answer for an item; opens nothing (HEAD). */
  checkItem(id: string): void;
  /**
   * A playable item's file, opened after the boundary's check (the session reads that
   * descriptor and nothing else, restarts included), whether it is still being recorded,
   * and how far a damaged file plays; throws 404/403/409 as the stream route does.
   */
  openItem(id: string): Promise<{ file: OpenedFile; growing: boolean; playableSeconds?: number }>;
  /** A channel number's id; throws a 404 for a number no source carries ('ANY'), or the named source does not. */
  resolveChannel(number: string, source: string): { number: string; id: string };
  /** The channels' live buffers (the DVR's): a channel's sessions play from its buffer. */
  liveBuffer: LiveBufferAccess;
}

/** A session as GET /api/v1/sessions lists it (the PascalCase clients read). */
export interface SessionView {
  ID: string;
  Channel?: { Number: string; ID: string };
  FileID?: string;
  ClientAddress: string;
  StartedAt: string;
  Encoder: string;
}

export class HlsService {
  private readonly sessions = new Map<string, HlsSession>();
  private readonly probed = new Map<string, { key: string; info: StreamInfo }>();
  private encoder: HlsEncoder;
  private sweeper: NodeJS.Timeout | undefined;
  private stopping = false;

  constructor(private readonly options: HlsServiceOptions) {
    this.encoder = options.encoder;
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  start(): void {
    rmSync(this.options.dir, { recursive: true, force: true });
    mkdirSync(this.options.dir, { recursive: true });
    this.sweeper = setInterval(() => this.sweep(), 5000);
    this.sweeper.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweeper);
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    // One session that fails to end must not keep the others (or the rest of shutdown) from theirs.
    await Promise.allSettled(sessions.map((session) => session.end('the server is stopping')));
  }

  /** Ends sessions nobody asked anything of for the idle time. */
  sweep(): void {
    const limit = this.now() - (this.options.idleMs ?? SESSION_IDLE_MS);
    for (const session of this.sessions.values())
      if (session.lastSeen < limit) this.endQuietly(session.id, 'no request for 30 s');
  }

  /** Ends a session from a timer or an event: a failure is logged, never thrown into the event loop. */
  private endQuietly(id: string, reason: string): void {
    this.endSession(id, reason).catch((error: unknown) => {
      if (!(error instanceof NotFoundError))
        this.options.logger?.warn(
          { session: id, err: error },
          'ending an HLS session failed; its files in DATA/hls are removed at the next start (the error says why)',
        );
    });
  }

  /** New sessions are refused once the server is stopping (their ffmpeg would outlive it). */
  private assertRunning(): void {
    if (this.stopping) throw new UnavailableError(503, 'stopping', 'The server is stopping.');
  }

  /** Throws the 404 (or 403, 409) a master playlist of this item would answer; starts nothing (HEAD). */
  checkItem(itemId: string): void {
    this.options.checkItem(itemId);
  }

  /** Throws the 404 a master playlist of this channel would answer; joins nothing (HEAD). */
  checkChannel(number: string, source: string): void {
    this.options.resolveChannel(number, source);
  }

  /** A new session of an item, and its master playlist. */
  async fileMaster(itemId: string, request: VariantRequest, client: string): Promise<string> {
    this.assertRunning();
    const { file, growing, playableSeconds } = await this.options.openItem(itemId);
    try {
      const probed = await this.info(file, growing);
      // A damaged file plays as far as its data goes, not the length its container declares.
      const info =
        playableSeconds !== undefined && probed.duration !== null
          ? { ...probed, duration: Math.min(probed.duration, playableSeconds) }
          : probed;
      this.assertRunning();
      const offered = chooseVariants(info, request);
      // A recording still being written (or a file of unknown length) plays one rendition: switching would restart its
      // EVENT playlist.
      const variants = playsAsEvent({ growing, info }) ? offered.slice(0, 1) : offered;
      if (variants.length === 0)
        throw new UnavailableError(
          503,
          'remux_unavailable',
          `The streams of '${itemId}' cannot be sent without transcoding; ask without encoder=remux.`,
        );
      const context = this.context(client);
      const session = new FileHlsSession(context, { itemId, file, info, variants, growing });
      this.sessions.set(context.id, session);
      return masterPlaylist(variants, `s/${context.id}/`, session.subtitles);
    } catch (error) {
      await file.handle.close().catch(() => undefined);
      throw error;
    }
  }

  /**
   * A new session of a live channel, played from its live buffer (tuned now when nobody watches it), and its master
   * playlist: the buffer as received when players can take its codecs, and transcodes of it. `viewer`: the device, as
   * the buffer counts its viewers (a device that tunes another channel has left this one).
   */
  async liveMaster(
    number: string,
    source: string,
    request: VariantRequest,
    client: string,
    viewer = client,
  ): Promise<string> {
    this.assertRunning();
    const channel = this.options.resolveChannel(number, source);
    const bytes = await this.options.liveBuffer.open(channel.number, viewer);
    this.assertRunning();
    const context = this.context(client);
    mkdirSync(context.dir, { recursive: true });
    const sample = join(context.dir, 'sample.ts');
    let variants: Variant[];
    try {
      writeFileSync(sample, bytes);
      const handle = await open(sample, 'r');
      const probed = await probeStreams(handle, this.options.ffprobe).finally(() => handle.close());
      variants = chooseVariants(probed.ok ? probed.info : BROADCAST_GUESS, {
        ...request,
        maxHeight: Math.min(request.maxHeight ?? 720, 720),
      });
    } catch (error) {
      rmSync(context.dir, { recursive: true, force: true });
      this.options.liveBuffer.leave(channel.number, viewer);
      throw error;
    } finally {
      rmSync(sample, { force: true });
    }
    if (variants.length === 0) {
      rmSync(context.dir, { recursive: true, force: true });
      this.options.liveBuffer.leave(channel.number, viewer);
      throw new UnavailableError(
        503,
        'remux_unavailable',
        `Channel ${number} cannot be sent without transcoding; ask without encoder=remux.`,
      );
    }
    // One device plays one channel at a time, as its buffers count it: a new live session ends the device's others (a
    // channel change in the app leaves its old session behind; its transcode would hold a place for 30 s).
    // Its sessions of the same channel are left to end by themselves (ending one would tell the buffer it left).
    for (const other of this.sessions.values())
      if (other instanceof BufferHlsSession && other.viewer === viewer && other.channel.number !== channel.number)
        this.endQuietly(other.id, 'its device tuned another channel');
    const session = new BufferHlsSession(context, variants, channel, this.options.liveBuffer, viewer);
    this.sessions.set(context.id, session);
    return masterPlaylist(variants, `s/${context.id}/`);
  }

  /** The session `id` of that item or channel; 404 when it ended or names something else. */
  session(id: string, target: { itemId: string }): FileHlsSession;
  session(id: string, target: { number: string }): BufferHlsSession;
  session(id: string, target: { itemId: string } | { number: string }): FileHlsSession | BufferHlsSession;
  session(id: string, target: { itemId: string } | { number: string }): FileHlsSession | BufferHlsSession {
    const session = this.sessions.get(id);
    if (session instanceof FileHlsSession && 'itemId' in target && session.itemId === target.itemId) return session;
    if (session instanceof BufferHlsSession && 'number' in target && session.channel.number === target.number)
      return session;
    throw new NotFoundError('session', id);
  }

  /** The file session `id` of that item (its subtitle renditions); 404 when it ended or names something else. */
  fileSession(id: string, itemId: string): FileHlsSession {
    const session = this.session(id, { itemId });
    if (session instanceof FileHlsSession) return session;
    throw new NotFoundError('session', id);
  }

  list(): SessionView[] {
    return [...this.sessions.values()].map((session) => {
      const view: SessionView = {
        ID: session.id,
        ClientAddress: session.client,
        StartedAt: new Date(session.startedAt).toISOString(),
        Encoder: session.encoderInUse,
      };
      if (session instanceof BufferHlsSession)
        view.Channel = { Number: session.channel.number, ID: session.channel.id };
      if (session instanceof FileHlsSession) view.FileID = session.itemId;
      return view;
    });
  }

  /** Sessions open by kind, and the transcodes running as --max-transcodes counts them (for /metrics). */
  usage(): { file: number; live: number; transcoding: number; maxTranscodes: number } {
    let file = 0;
    let live = 0;
    let transcoding = 0;
    for (const session of this.sessions.values()) {
      if (session.kind === 'file') file++;
      else live++;
      if (session.transcoding) transcoding++;
    }
    return { file, live, transcoding, maxTranscodes: this.options.maxTranscodes };
  }

  async endSession(id: string, reason = 'ended by request'): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) throw new NotFoundError('session', id);
    this.sessions.delete(id);
    await session.end(reason);
  }

  private context(client: string): SessionContext {
    const id = randomBytes(9).toString('base64url');
    return {
      id,
      dir: join(this.options.dir, id),
      client,
      ffmpeg: this.options.ffmpeg,
      runner: this.options.runner ?? spawnRunner,
      aheadSegments: this.options.aheadSegments ?? 20,
      logger: this.options.logger,
      now: () => this.now(),
      encoder: () => this.encoder,
      hardwareFailed: (encoder, reason) => {
        if (this.encoder === 'software') return;
        this.options.logger?.warn(
          { encoder, reason },
          'the hardware encoder failed: transcoding in software from now on; the reason says why: check its driver and device, or set --hls-encoder software',
        );
        this.encoder = 'software';
      },
      admitTranscode: (session) => {
        const running = [...this.sessions.values()].filter((s) => s !== session && s.transcoding).length;
        if (running >= this.options.maxTranscodes) {
          throw new UnavailableError(
            503,
            'too_many_transcodes',
            `${running} transcodes are running, the most this server allows (--max-transcodes); stop one, or ask for encoder=remux.`,
          );
        }
      },
    };
  }

  /**
   * The streams of a file, remembered while it is the same file of the same size and time (a growing recording is read
   * each time).
   */
  private async info(file: OpenedFile, growing: boolean): Promise<StreamInfo> {
    const key = `${file.identity}:${file.size}:${file.mtimeMs}`;
    const known = this.probed.get(file.realPath);
    if (!growing && known?.key === key) return known.info;
    const probed = await probeStreams(file, this.options.ffprobe);
    if (!probed.ok) throw new UnavailableError(502, 'not_playable', `The file cannot be streamed: ${probed.reason}.`);
    if (this.probed.size > 500) this.probed.clear();
    this.probed.set(file.realPath, { key, info: probed.info });
    return probed.info;
  }
}
