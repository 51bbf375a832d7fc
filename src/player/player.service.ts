/**
 * THE player: takes interface B's commands one at a time (a queue, so presses that
 * arrive together never interleave), applies them through the backend, and answers
 * with the status read back after the command. A command that takes longer than a
 * remote's patience (tuning, loading) answers with the state as it stands and goes
 * on in the background. Watch progress goes to the server every 10 s while playing
 * and on pause, stop and end.
 */
import type { Logger } from 'pino';
import { SerialQueue } from '../common/concurrency.js';
import { ConflictError, NotFoundError, UnavailableError } from '../common/errors.js';
import { redactUrl } from '../common/url-redaction.js';
import { LivePlayback } from './live-playback.js';
import { NoEffect } from './no-effect.js';
import type { AntennaServerClient, Programme, ServerChannel, ServerItem } from './antenna-server.client.js';
import { MpvCommandError } from './mpv/mpv-ipc.js';
import {
  type Ended,
  MediaLoadError,
  type MediaRef,
  type MediaState,
  type Played,
  type PlayerBackend,
} from './player-backend.js';
import {
  type NowPlaying,
  type PlayerState,
  type PlayerStatus,
  type PlayingChannel,
  type PlayingItem,
  type TunedChannel,
  afterLeaving,
  bufferReaches,
  afterTuning,
  chapterMarks,
  neighbourChannel,
  nextMark,
  previousMark,
  recordingStartOver,
  progressReport,
  resumePoint,
  seekTarget,
  statusBody,
} from './player-state.js';
import { ProgressReporter, type ProgressReporterOptions } from './progress-reporter.js';
import { CommercialWatch } from './commercial-watch.js';
import { type CommercialSkipMode, DEFAULT_COMMERCIAL_SKIP } from '../model/players/commercial-skip-modes.js';
import type { Section } from './sections.js';

export interface PlayerServiceOptions {
  backend: PlayerBackend;
  server: AntennaServerClient;
  logger: Logger;
  seekForwardSeconds: number;
  seekBackwardSeconds: number;
  /** How long a notification stays on screen. */
  notifySeconds?: number;
  /** Between progress reports while playing; default 10 s. */
  progressIntervalMs?: number;
  /**
   * A command still running after this long is answered with the state as it stands; default 850 ms (clients wait 1 s).
   */
  answerWithinMs?: number;
  reporter?: ProgressReporterOptions;
}

export interface FavoriteChannel {
  number: string;
  call_sign?: string;
  name: string;
  image_url?: string;
  hd: boolean;
}

export const DEFAULT_NOTIFY_SECONDS = 5;
const DEFAULT_ANSWER_WITHIN_MS = 850;
/** The read-back after a load needs a moment of the answer window too. */
const READ_BACK_MARGIN_MS = 200;
/** setTimeout cannot wait longer than about 24.8 days; a programme end further off is looked at again later. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class PlayerService {
  private state: PlayerState = {};
  private readonly queue = new SerialQueue();
  readonly reporter: ProgressReporter;
  private progressTimer: NodeJS.Timeout | undefined;
  private programmeTimer: NodeJS.Timeout | undefined;
  private nextTag = 1;
  private stopped = false;
  private pauseReported = false;
  private readonly answerWithinMs: number;
  private readonly onEnded = (ended: Ended) => this.inQueue('playback end', () => this.ended(ended));
  private readonly onDown = (_reason: string, position: number | undefined) =>
    this.inQueue('player restart', () => this.backendDown(position));
  private readonly onPlayed = (played: Played) =>
    this.inQueue('play started on the device', () => this.playedOnDevice(played));

  private readonly live: LivePlayback;
  /** Auto-skip where the backend does not do it itself (mpv; the app on a TV skips in its own player view). */
  private readonly commercials: CommercialWatch | undefined;
  /** Undefined until the server says: the first mode it says is passed on to the backend, whatever it is. */
  private commercialSkip: CommercialSkipMode | undefined;

  constructor(private readonly options: PlayerServiceOptions) {
    this.answerWithinMs = options.answerWithinMs ?? DEFAULT_ANSWER_WITHIN_MS;
    this.live = new LivePlayback({
      backend: options.backend,
      server: options.server,
      logger: options.logger,
      load: (url, media, tag, loadOptions) => this.load(url, media, tag, loadOptions),
      current: (playing) => this.state.current === playing,
      newTag: () => this.nextTag++,
    });
    this.reporter = new ProgressReporter(options.server, options.logger, options.reporter);
    this.commercials = options.backend.skipsCommercials
      ? undefined
      : new CommercialWatch({
          backend: options.backend,
          logger: options.logger,
          mode: () => this.commercialSkipMode,
          run: (what, action) => this.inQueue(what, action),
          fetchItem: (id) => this.server.file(id),
          marksChanged: (item) => {
            const current = this.state.current;
            if (current?.kind === 'item' && current.id === item.id)
              current.marks = playingItem(item, current.tag).marks;
          },
        });
    options.backend.on('ended', this.onEnded);
    options.backend.on('down', this.onDown);
    options.backend.on('played', this.onPlayed);
  }

  private get backend(): PlayerBackend {
    return this.options.backend;
  }

  private get server(): AntennaServerClient {
    return this.options.server;
  }

  start(): void {
    this.progressTimer = setInterval(() => this.progressTick(), this.options.progressIntervalMs ?? 10_000);
  }

  /** While playing, the position; once after a pause made on the device (a command's pause reports at once). */
  private progressTick(): void {
    const media = this.backend.state();
    if (!media.loaded || !media.paused) this.pauseReported = false;
    if (!media.loaded) return;
    if (!media.paused) this.reportProgress(media);
    else if (!this.pauseReported) {
      this.pauseReported = true;
      this.reportProgress(media);
    }
  }

  /** Reports where the current item is and stops the timers; the backend is stopped by its owner. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.progressTimer);
    this.commercials?.stop();
    clearTimeout(this.programmeTimer);
    this.backend.off('ended', this.onEnded);
    this.backend.off('down', this.onDown);
    this.backend.off('played', this.onPlayed);
    await this.queue.idle();
    this.reportProgress(this.backend.state());
    await this.reporter.stop();
  }

  status(): PlayerStatus {
    return statusBody(this.state, this.backend.state());
  }

  /** What to do at a commercial break, as the server says at each heartbeat (the player's own, else household's). */
  setCommercialSkip(mode: CommercialSkipMode): void {
    if (mode === this.commercialSkip) return;
    this.commercialSkip = mode;
    this.options.logger.info({ mode }, 'commercial skip mode changed');
    this.backend.setCommercialSkip?.(mode);
  }

  get commercialSkipMode(): CommercialSkipMode {
    return this.commercialSkip ?? DEFAULT_COMMERCIAL_SKIP;
  }

  async favoriteChannels(): Promise<FavoriteChannel[]> {
    return (await this.server.channels())
      .filter((channel) => channel.favorited === true)
      .map((channel) => ({
        number: channel.number,
        ...(channel.call_sign ? { call_sign: channel.call_sign } : {}),
        name: channel.name,
        ...(channel.image_url ? { image_url: channel.image_url } : {}),
        hd: channel.hd === true,
      }));
  }

  // ---------------------------------------------------------------- the command machinery

  /**
   * Queues `action`, then reads the state back from the backend. Answers with that, or,
   * if the command is still running when the answer window closes, with the state as it
   * stands (the command finishes in the background; its failure is logged).
   */
  private async perform(name: string, action: () => Promise<void>): Promise<PlayerStatus> {
    const run = this.queue.run(async () => {
      try {
        await action();
      } catch (error) {
        const unchanged = asNoEffect(error, name);
        if (!unchanged) throw commandError(error);
        this.options.logger.debug(
          { command: name, reason: unchanged.code },
          `${name} had nothing to do: ${unchanged.message}`,
        );
      }
      return this.readBackStatus();
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, this.answerWithinMs, undefined)));
    try {
      const answered = await Promise.race([run, late]);
      if (answered) return answered;
      run.catch((error: unknown) =>
        this.options.logger.warn(
          { err: error, command: name },
          'a command failed after it was answered; send it again (the error says why)',
        ),
      );
      return this.status();
    } finally {
      clearTimeout(timer);
    }
  }

  private inQueue(what: string, action: () => Promise<void> | void): void {
    this.queue
      .run(async () => action())
      .catch((error: unknown) => this.options.logger.error({ err: error }, `handling the ${what} failed`));
  }

  private async readBackStatus(): Promise<PlayerStatus> {
    let media: MediaState;
    try {
      media = await this.backend.readBack();
    } catch (error) {
      // The backend went away after the command: the mirror says so (stopped).
      if (!(error instanceof UnavailableError)) throw error;
      media = this.backend.state();
    }
    return statusBody(this.state, media);
  }

  private requireAvailable(): MediaState {
    const media = this.backend.state();
    if (!media.available)
      throw new UnavailableError(
        503,
        'player_unavailable',
        `${this.backend.name} is not ready (starting, restarting after a crash, or waiting for the server); try again in a moment.`,
      );
    return media;
  }

  private requireLoaded(): MediaState {
    const media = this.requireAvailable();
    if (!media.loaded) {
      throw new NoEffect(
        'nothing_playing',
        'Nothing is playing: start something with /api/play/recording/{id} or /api/play/channel/{number}.',
      );
    }
    return media;
  }

  // ---------------------------------------------------------------- progress

  private reportProgress(media: MediaState, atEnd = false): void {
    const current = this.state.current;
    if (current?.kind !== 'item' || current.watchedReported) return;
    if (!atEnd && !media.loaded) return;
    const report = progressReport(media.position, current.nowPlaying.duration ?? media.duration, atEnd);
    if (!report) return;
    if (report.watched) current.watchedReported = true;
    this.reporter.report(current.id, report);
  }

  /** Leaves what is current (reporting an item's position first). */
  private leave(media: MediaState = this.backend.state()): void {
    this.reportProgress(media);
    this.commercials?.stop();
    clearTimeout(this.programmeTimer);
    this.state = afterLeaving(this.state);
  }

  private ended(ended: Ended): void {
    const current = this.state.current;
    // An end that arrives after something else was loaded is not about what plays now.
    if (!current || ended.tag !== current.tag) return;
    const media = this.backend.state();
    const position = ended.position ?? media.position;
    const atEnd = { ...media, loaded: true, ...(position !== undefined ? { position } : {}) };
    // Stopped at the device (Back on the remote): its position is the resume point.
    if (ended.reason === 'stopped') this.reportProgress(atEnd);
    else if (ended.reason === 'eof') {
      // mpv calls a stream cut short an end too: only the last 5 % (or an item of unknown length) counts as watched.
      const duration = current.kind === 'item' ? (current.nowPlaying.duration ?? media.duration) : undefined;
      this.reportProgress(atEnd, position === undefined || duration === undefined);
    } else
      this.options.logger.warn(
        { error: ended.error, playing: current.kind === 'item' ? current.id : current.channel.number },
        "playback stopped: the media failed; the error says why: check that the server still has the file, or that the channel's source works",
      );
    clearTimeout(this.programmeTimer);
    this.commercials?.stop();
    this.state = afterLeaving(this.state);
  }

  private backendDown(position: number | undefined): void {
    this.leave({ ...this.backend.state(), loaded: true, ...(position !== undefined ? { position } : {}) });
  }

  // ---------------------------------------------------------------- playback

  private async load(
    url: string,
    media: MediaRef,
    tag: number,
    options: { start?: number | undefined; title: string; fromFirstSegment?: boolean },
  ): Promise<void> {
    try {
      await this.backend.load(url, {
        media,
        tag,
        title: options.title,
        ...(options.fromFirstSegment ? { fromFirstSegment: true } : {}),
        waitMs: Math.max(100, this.answerWithinMs - READ_BACK_MARGIN_MS),
        ...(options.start !== undefined ? { start: options.start } : {}),
      });
    } catch (error) {
      if (this.state.current?.tag === tag) {
        this.commercials?.stop();
        this.state = afterLeaving(this.state);
      }
      // The answer names the stream's URL, without credentials a --server URL may carry.
      throw error instanceof MediaLoadError
        ? new UnavailableError(502, 'media_unavailable', `${error.message} (${redactUrl(url)})`)
        : error;
    }
  }

  playRecording(id: string): Promise<PlayerStatus> {
    return this.perform('play/recording', () => this.startItem(id));
  }

  /** Plays item `id` from `start` seconds (default: its resume point). */
  private async startItem(id: string, start?: number): Promise<void> {
    this.requireAvailable();
    const item = await this.server.file(id);
    if (!item.file.available)
      throw new ConflictError(
        'file_unavailable',
        `The file of '${id}' is not on the server's disk now, so it cannot be played.`,
      );
    const playing = playingItem(item, this.nextTag++);
    this.leave();
    this.state = { ...this.state, current: playing };
    const title = [playing.nowPlaying.title, playing.nowPlaying.episode_title].filter(Boolean).join(': ');
    const media = { kind: 'item', id: item.id } as const;
    const from = start ?? resumePoint(item.playback_time, item.duration);
    await this.load(this.server.itemStreamUrl(item.id), media, playing.tag, { start: from, title });
    if (this.state.current === playing) this.commercials?.watch(item, playing.tag, from ?? 0);
  }

  /**
   * The person at the device started something there (the app's library or guide): it
   * becomes what is current, as if a command had started it, so the status, progress
   * reports and channel keys follow it. What played before was ended by the device first.
   */
  private async playedOnDevice({ media, tag }: Played): Promise<void> {
    if (media.kind === 'item') {
      const item = await this.server.file(media.id);
      clearTimeout(this.programmeTimer);
      this.state = { ...afterLeaving(this.state), current: playingItem(item, tag) };
      return;
    }
    const channel = (await this.server.channels()).find((c) => c.number === media.number);
    if (!channel) throw new NotFoundError('channel', media.number);
    // Left without a report: the device's position is the new channel's by now.
    this.commercials?.stop();
    this.state = afterLeaving(this.state);
    await this.tuneState(channel, tag);
  }

  playChannel(number: string): Promise<PlayerStatus> {
    return this.perform('play/channel', async () => {
      this.requireAvailable();
      const wanted = number.replace('-', '.');
      const channel = (await this.server.channels()).find((c) => c.number === wanted);
      if (!channel) throw new NotFoundError('channel', number);
      await this.tune(channel);
    });
  }

  channelUp(): Promise<PlayerStatus> {
    return this.perform('channel_up', () => this.walkChannels('up'));
  }

  channelDown(): Promise<PlayerStatus> {
    return this.perform('channel_down', () => this.walkChannels('down'));
  }

  private async walkChannels(direction: 'up' | 'down'): Promise<void> {
    this.requireAvailable();
    const current = this.state.current;
    const from = current?.kind === 'channel' ? current.channel.number : this.state.previousChannel?.number;
    const next = neighbourChannel(await this.server.channels(), from, direction);
    if (!next)
      throw new NoEffect('no_channels', 'The server has no channels: add an M3U playlist or an HDHomeRun tuner to it.');
    await this.tune(next);
  }

  previousChannel(): Promise<PlayerStatus> {
    return this.perform('previous_channel', async () => {
      this.requireAvailable();
      const previous = this.state.previousChannel;
      if (!previous) throw new NoEffect('no_previous_channel', 'No other channel was watched before this one.');
      const channel = (await this.server.channels()).find((c) => c.number === previous.number);
      if (!channel) throw new NotFoundError('channel', previous.number);
      await this.tune(channel);
    });
  }

  private async tune(channel: ServerChannel): Promise<void> {
    await this.live.play(await this.tuneState(channel, this.nextTag++), 'live');
  }

  /** The channel becomes current (what played before is left); the backend is not told. */
  private async tuneState(channel: ServerChannel, tag: number): Promise<PlayingChannel> {
    // The guide is a nicety: without it, now_playing is the channel's name.
    const programme = await this.server
      .programmeAt(channel.number, Math.floor(Date.now() / 1000))
      .catch(() => undefined);
    const playing: PlayingChannel = {
      kind: 'channel',
      channel: tunedChannel(channel),
      nowPlaying: liveNowPlaying(channel, programme),
      tag,
      ...(programme ? { programmeEnds: programme.end_time, programmeStarts: programme.start_time } : {}),
    };
    this.reportProgress(this.backend.state());
    clearTimeout(this.programmeTimer);
    this.commercials?.stop();
    this.state = afterTuning(this.state, playing);
    this.followGuide(playing, channel);
    return playing;
  }

  /** When the programme ends, what follows becomes now_playing (for as long as the channel is current). */
  private followGuide(playing: PlayingChannel, channel: ServerChannel): void {
    if (playing.programmeEnds === undefined) return;
    const wait = Math.min(MAX_TIMER_MS, Math.max(1000, playing.programmeEnds * 1000 - Date.now() + 500));
    this.programmeTimer = setTimeout(() => {
      this.server
        .programmeAt(channel.number, Math.floor(Date.now() / 1000))
        .catch(() => undefined)
        .then(
          (programme) => {
            if (this.stopped || this.state.current !== playing) return;
            playing.nowPlaying = liveNowPlaying(channel, programme);
            if (programme)
              [playing.programmeEnds, playing.programmeStarts] = [programme.end_time, programme.start_time];
            else [playing.programmeEnds, playing.programmeStarts] = [undefined, undefined];
            this.followGuide(playing, channel);
          },
          () => undefined,
        );
    }, wait);
  }

  stopPlayback(): Promise<PlayerStatus> {
    return this.perform('stop', async () => {
      const media = this.requireAvailable();
      if (!media.loaded) {
        this.state = afterLeaving(this.state);
        // Whatever is still on screen (a failed stream's message) goes too.
        await this.backend.unload();
        return;
      }
      // The exact position before it goes: the resume point.
      this.leave(await this.backend.readBack());
      await this.backend.unload();
    });
  }

  togglePause(): Promise<PlayerStatus> {
    return this.perform('toggle_pause', () => this.setPaused(!this.requireLoaded().paused));
  }

  pause(): Promise<PlayerStatus> {
    return this.perform('pause', () => this.setPaused(true));
  }

  resume(): Promise<PlayerStatus> {
    return this.perform('resume', () => this.setPaused(false));
  }

  private async setPaused(paused: boolean): Promise<void> {
    this.requireLoaded();
    await this.backend.setPaused(paused);
    if (paused) this.reportProgress(await this.backend.readBack());
  }

  toggleMute(): Promise<PlayerStatus> {
    return this.perform('toggle_mute', () => this.backend.setMuted(!this.requireAvailable().muted));
  }

  toggleCaptions(): Promise<PlayerStatus> {
    return this.perform('toggle_cc', async () => {
      this.requireLoaded();
      await this.backend.toggleCaptions();
    });
  }

  togglePip(): Promise<PlayerStatus> {
    return this.perform('toggle_pip', () => this.backend.setPip(!this.requireAvailable().pip));
  }

  seekBy(seconds: number): Promise<PlayerStatus> {
    return this.perform('seek', () => this.seekRelative(seconds));
  }

  seekForward(): Promise<PlayerStatus> {
    return this.perform('seek_forward', () => this.seekRelative(this.options.seekForwardSeconds));
  }

  seekBackward(): Promise<PlayerStatus> {
    return this.perform('seek_backward', () => this.seekRelative(-this.options.seekBackwardSeconds));
  }

  private async seekRelative(delta: number): Promise<void> {
    const media = this.requireLoaded();
    const current = this.state.current;
    // Live TV: a moment in the channel's buffer (a new load from it when mpv does not hold it).
    if (current?.kind === 'channel' && (await this.live.seekBy(current, media, delta))) return;
    await this.seekItem(seekTarget(media.position ?? 0, delta, this.duration(media)));
  }

  /** A seek by command: a commercial break it lands in was chosen by hand, so it is never skipped. */
  private async seekItem(seconds: number): Promise<void> {
    // Before and after: a look at the position while the seek lands must not take it for playback running on.
    this.commercials?.seeked(seconds);
    await this.backend.seekTo(seconds);
    this.commercials?.seeked(seconds);
  }

  /** Live TV from the current programme's start (as far back as the channel's buffer holds). */
  startOver(): Promise<PlayerStatus> {
    return this.perform('start_over', async () => {
      const { playing, media } = this.requireLive('start_over');
      if (playing.programmeStarts === undefined)
        throw new NoEffect('no_programme', "The guide does not say when this channel's programme began.");
      const from = await this.startOverFromRecording(playing.channel.number, playing.programmeStarts);
      if (from) await this.startItem(from.id, from.start);
      else await this.live.seekTo(playing, media, playing.programmeStarts * 1000);
    });
  }

  /** Where start over plays instead of the channel's buffer: its recording under way, when only that reaches back. */
  private async startOverFromRecording(
    number: string,
    programmeStarts: number,
  ): Promise<{ id: string; start: number } | undefined> {
    const heldFrom = await this.server.liveOrigin(number, programmeStarts * 1000);
    // The buffer reaches back: no need to ask after a recording.
    if (heldFrom === undefined || bufferReaches(programmeStarts, heldFrom)) return undefined;
    return recordingStartOver(
      programmeStarts,
      heldFrom,
      await this.server.recordingFileOn(number).catch(() => undefined),
    );
  }

  /** Live TV at live again, after a pause or a seek back. */
  jumpToLive(): Promise<PlayerStatus> {
    return this.perform('jump_to_live', async () => {
      const { playing, media } = this.requireLive('jump_to_live');
      await this.live.seekTo(playing, media, 'live');
    });
  }

  private requireLive(command: string): { playing: PlayingChannel; media: MediaState } {
    const media = this.requireLoaded();
    const current = this.state.current;
    if (current?.kind !== 'channel')
      throw new NoEffect(
        'not_live',
        `${command} is for live TV: tune a channel first with /api/play/channel/{number}.`,
      );
    return { playing: current, media };
  }

  private duration(media: MediaState): number | undefined {
    const current = this.state.current;
    return current?.kind === 'item' ? (current.nowPlaying.duration ?? media.duration) : undefined;
  }

  skipForward(): Promise<PlayerStatus> {
    return this.perform('skip_forward', async () => {
      const media = this.requireLoaded();
      const marks = this.marks();
      if (marks.length === 0) return this.seekRelative(this.options.seekForwardSeconds);
      const target = nextMark(marks, media.position ?? 0, this.duration(media));
      if (target !== undefined) await this.seekItem(target);
    });
  }

  skipBackward(): Promise<PlayerStatus> {
    return this.perform('skip_backward', async () => {
      const media = this.requireLoaded();
      const marks = this.marks();
      if (marks.length === 0) return this.seekRelative(-this.options.seekBackwardSeconds);
      // Just after an auto-skip (its message is on screen), back is Undo: the skipped break's start.
      await this.seekItem(this.commercials?.undoTarget() ?? previousMark(marks, media.position ?? 0));
    });
  }

  private marks(): number[] {
    const current = this.state.current;
    return current?.kind === 'item' ? current.marks : [];
  }

  toggleRecord(): Promise<PlayerStatus> {
    return this.perform('toggle_record', async () => {
      const media = this.requireAvailable();
      const current = this.state.current;
      if (current?.kind !== 'channel' || !media.loaded) {
        throw new NoEffect(
          'not_on_a_channel',
          'toggle_record records the channel being watched: tune one first with /api/play/channel/{number}.',
        );
      }
      const number = current.channel.number;
      if (await this.server.isRecording(number)) await this.server.stopRecording(number);
      else await this.server.startRecording(number);
    });
  }

  notify(title: string, message: string): Promise<PlayerStatus> {
    return this.perform('notify', async () => {
      this.requireAvailable();
      await this.backend.showMessage(title, message, (this.options.notifySeconds ?? DEFAULT_NOTIFY_SECONDS) * 1000);
    });
  }

  navigate(section: Section): Promise<PlayerStatus> {
    return this.perform('navigate', () => this.backend.navigate(section));
  }
}

/**
 * A command that changed nothing: ours (NoEffect), or one mpv refused in its current state (a seek past what it can
 * reach).
 */
function asNoEffect(error: unknown, command: string): NoEffect | undefined {
  if (error instanceof NoEffect) return error;
  // A play command mpv refuses did not play what was asked: that stays an error (commandError).
  if (error instanceof MpvCommandError && !command.startsWith('play/'))
    return new NoEffect('player_refused', `the player could not do that now: ${error.reason}`);
  return undefined;
}

/** mpv's refusal of a play command, as an answer the client can act on. */
function commandError(error: unknown): unknown {
  if (error instanceof MpvCommandError)
    return new ConflictError('player_refused', `The player could not do that now: ${error.reason}.`);
  return error;
}

function playingItem(item: ServerItem, tag: number): PlayingItem {
  return {
    kind: 'item',
    id: item.id,
    nowPlaying: itemNowPlaying(item),
    marks: chapterMarks(
      item.commercials,
      item.file.chapters.map((chapter) => chapter.start),
    ),
    tag,
    watchedReported: false,
  };
}

function tunedChannel(channel: ServerChannel): TunedChannel {
  return { number: channel.number, name: channel.name, ...(channel.image_url ? { image_url: channel.image_url } : {}) };
}

function itemNowPlaying(item: ServerItem): NowPlaying {
  const type = item.show_id !== undefined ? 'episode' : item.video_group_id !== undefined ? 'video' : 'movie';
  const episodeTitle = type === 'video' ? item.video_title : item.episode_title;
  return dropUndefined({
    title: item.title,
    episode_title: episodeTitle,
    season_number: item.season_number,
    episode_number: item.episode_number,
    summary: item.summary,
    image_url: item.image_url,
    duration: item.duration,
    type,
  });
}

function liveNowPlaying(channel: ServerChannel, programme: Programme | undefined): NowPlaying {
  if (!programme) return dropUndefined({ title: channel.name, image_url: channel.image_url, type: 'live' });
  return dropUndefined({
    title: programme.title,
    episode_title: programme.episode_title,
    season_number: programme.season_number,
    episode_number: programme.episode_number,
    summary: programme.summary,
    image_url: programme.image_url ?? channel.image_url,
    duration: programme.end_time - programme.start_time,
    type: 'live',
  });
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
