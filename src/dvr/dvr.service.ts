/**
 * The DVR, put together: sources and guides (dvr-sources.service.ts), rules
 * (rules.service.ts), the plan and the clock that starts jobs (job-scheduler.ts), live
 * TV and "record now" (live-tv.service.ts), recordings (recordings.service.ts), over one
 * shared stream hub. It starts and stops them, and re-plans whenever a rule, a source,
 * the guide or a recording changes, and every few minutes so the plan rolls forward.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { EventSink } from '../model/events/event.schemas.js';
import type { Db } from '../db/database.js';
import {
  DvrSourcesService,
  type DvrSourcesConfig,
  type GuideRefresh,
  type GuideRow,
  type SourceRefresh,
  type SourceRow,
  type SourceSpec,
} from './sources/dvr-sources.service.js';
import type { JobWhy } from './planning/job-explanation.js';
import type { RuleDefinition, StoredRule } from './planning/rules/rule-types.js';
import { PROGRAMS_ON_PATH, type ProgramPaths } from '../common/external-program.js';
import { GuideSearchService } from './lineup/guide-search.service.js';
import { JobScheduler } from './planning/job-scheduler.js';
import { guideThreadsStopped } from './sources/guide-refresh.thread.js';
import { LineupService } from './lineup/lineup.service.js';
import { LineupEditsService } from './lineup/lineup-edits.service.js';
import { ChannelCollectionsService } from './lineup/channel-collections.service.js';
import { isPlaceholder } from './lineup/placeholder-airings.js';
import { LiveTvService } from './live/live-tv.service.js';
import type { SegmentSource } from './live/channel-buffer.js';
import type { PlaylistOptions } from './live/buffer-playlist.js';
import { LIVE_BUFFER_DEFAULTS, LiveBuffers, type LiveBufferSettings } from './live/live-buffers.service.js';
import { listSources } from '../repositories/dvr/sources.repository.js';
import { listJobsInState, nextScheduledJob } from '../repositories/dvr/jobs.repository.js';
import { RecordingsService } from './recording/recordings.service.js';
import { RulesService } from './planning/rules.service.js';
import type { GuideWrites } from './sources/source-refresh.js';
import { StreamHub } from './recording/stream-hub.js';

export interface DvrOptions {
  recordingsDir: string;
  thumbnailsDir: string;
  workDir: string;
  sources: DvrSourcesConfig;
  logger?: Logger;
  /** Where what the DVR notices is told (recordings, plans, sources, guides, the disk); default: nowhere. */
  emit?: EventSink;
  /** Epoch milliseconds. */
  now?: () => number;
  /** Minutes between refreshes of sources and guides; 0: only on request. */
  refreshInterval?: number;
  comskip?: boolean;
  connectTimeoutMs?: number;
  /** ffmpeg, ffprobe and comskip as found at start; default: their names on PATH. */
  programs?: ProgramPaths;
  /** Folders under which sources and guides added through the API may be local files (--allow-local-source). */
  localSourceDirs?: readonly string[];
  /** Longest wait for a source's or guide's answer and each chunk of it (default 30 s; tests shorten it). */
  sourceTimeoutMs?: number;
  /**
   * Told of a guide refresh's commits from its worker thread (interface A's cache keeps its lists through the unseen
   * ones).
   */
  guideWrites?: GuideWrites;
  /** The live buffers (live/live-buffers.service.ts): their folder (default: workDir/live-buffers) and limits. */
  liveBuffers?: Partial<LiveBufferSettings> & { dir?: string };
}

/** Re-planning at least this often keeps the plan rolling forward with the clock. */
const REPLAN_INTERVAL_MS = 10 * 60_000;

export class DvrService {
  readonly sources: DvrSourcesService;
  readonly hub: StreamHub;
  readonly recordings: RecordingsService;
  readonly rules: RulesService;
  readonly schedule: JobScheduler;
  readonly live: LiveTvService;
  /** Search in the guide (GET /dvr/search's programmes). */
  readonly guideSearch: GuideSearchService;
  /** The lineup and its guide as other players take them (M3U, XMLTV, an HDHomeRun tuner's face). */
  readonly lineup: LineupService;
  /** The lineup as the user shapes it: edits per channel and group, the guides' priority. */
  readonly lineupEdits: LineupEditsService;
  /** Favorites and the user's channel collections (Channels' /dvr/collections/channels). */
  readonly channelCollections: ChannelCollectionsService;
  /** Each tuned channel's buffer on disk: pause, rewind, start over. */
  private readonly liveBuffers: LiveBuffers;
  private replanTimer: NodeJS.Timeout | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private refreshing: Promise<unknown> | undefined;
  private readonly refreshAbort = new AbortController();
  /** Re-plans under way in slices (replanInSlices), waited for at stop. */
  private readonly replanning = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly options: DvrOptions,
  ) {
    const now = options.now ?? Date.now;
    const shared = {
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.now ? { now: options.now } : {}),
    };
    this.sources = new DvrSourcesService(db, {
      ...shared,
      ...(options.localSourceDirs ? { localSourceDirs: options.localSourceDirs } : {}),
      ...(options.sourceTimeoutMs ? { readTimeoutMs: options.sourceTimeoutMs } : {}),
      ...(options.guideWrites ? { guideWrites: options.guideWrites } : {}),
      ...(options.emit ? { emit: options.emit } : {}),
    });
    this.sources.applyConfig(options.sources);
    this.hub = new StreamHub({
      limitOf: (sourceId) => listSources(db).find((s) => s.id === sourceId)?.stream_limit ?? 1,
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.connectTimeoutMs ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
    });
    this.recordings = new RecordingsService(db, this.hub, {
      ...shared,
      recordingsDir: options.recordingsDir,
      thumbnailsDir: options.thumbnailsDir,
      workDir: options.workDir,
      // RecordingsService also skips comskip when `programs` says it is not installed.
      comskip: options.comskip ?? true,
      programs: options.programs ?? PROGRAMS_ON_PATH,
      onChange: () => this.replan('re-planning after a recording'),
      emit: options.emit,
      backlog: (number, fromMs, consumer) => this.liveBuffers.tap(number, fromMs, consumer),
    });
    this.rules = new RulesService(db, {
      now,
      logger: options.logger,
      changed: (ruleId) => this.schedule.replanRule(ruleId),
      // A placeholder hour is no programme to follow: a rule on one records what is at its channel and time.
      guide: (channel, start) => {
        const airing = this.schedule.airingOn(channel, start);
        return airing && !isPlaceholder(airing) ? airing : undefined;
      },
    });
    this.schedule = new JobScheduler(db, this.rules, this.recordings, {
      now,
      emit: options.emit,
      logger: options.logger,
      running: () => !this.stopped,
      safely: (what, work) => this.safely(what, work),
    });
    this.live = new LiveTvService(db, {
      hub: this.hub,
      recordings: this.recordings,
      rules: this.rules,
      replan: () => this.replan('planning a recording started now'),
      now,
      heldSince: (number) => this.liveBuffers.heldSince(number),
    });
    this.liveBuffers = new LiveBuffers({
      dir: options.liveBuffers?.dir ?? join(options.workDir, 'live-buffers'),
      watch: (number, consumer) => this.live.watch(number, consumer),
      channelNumbers: () => this.live.channels().map((channel) => channel.number),
      settings: { ...LIVE_BUFFER_DEFAULTS, ...options.liveBuffers },
      now,
      logger: options.logger,
    });
    this.guideSearch = new GuideSearchService(db, now);
    this.lineup = new LineupService(db, { now });
    this.channelCollections = new ChannelCollectionsService(db);
    this.lineupEdits = new LineupEditsService(db, {
      now,
      followRenumber: (moves) => this.rules.followRenumber(moves),
      changed: () => this.replan('re-planning after a lineup edit'),
    });
  }

  /**
   * Settles what happened while Antenna was down, resumes recordings, plans, and refreshes sources in the background.
   */
  start(): void {
    this.schedule.settleAfterDowntime();
    this.recordings.resumePostProcessing();
    this.schedule.replan();
    this.replanTimer = setInterval(() => void this.replanInSlices('periodic re-planning'), REPLAN_INTERVAL_MS);
    this.replanTimer.unref();
    const refresh = () =>
      this.refresh().catch((error: unknown) =>
        this.options.logger?.error({ err: error }, 'refreshing sources and guides failed'),
      );
    void refresh();
    const minutes = this.options.refreshInterval ?? 720;
    if (minutes > 0) {
      this.refreshTimer = setInterval(() => void refresh(), minutes * 60_000);
      this.refreshTimer.unref();
    }
  }

  // ------------------------------------------------------------------ the face routes use
  // Each is a whole operation: what a change needs after it (a read, a plan) is done here,
  // not by the caller. The parts above stay readable for the DVR's own wings and its tests.

  listRules(): StoredRule[] {
    return this.rules.list();
  }

  rule(id: number): StoredRule {
    return this.rules.get(id);
  }

  /** Adds a rule; its jobs are planned at once (RulesService's `changed`). */
  addRule(definition: RuleDefinition): StoredRule {
    return this.rules.create(definition);
  }

  replaceRule(id: number, definition: RuleDefinition): StoredRule {
    return this.rules.replace(id, definition);
  }

  removeRule(id: number): void {
    this.rules.delete(id);
  }

  /** A job's fate in one sentence; 404 for an unknown id. */
  explainJob(id: string): JobWhy {
    return this.schedule.explain(id);
  }

  /** Skips a planned job, or stops one that is recording; the plan follows. */
  cancelJob(id: string): void {
    this.schedule.cancelJob(id);
  }

  /** Forgets that a programme was recorded, so its next airing is planned again. */
  forgetProgramme(programId: string): void {
    this.schedule.forgetProgramme(programId);
  }

  listSources(): SourceRow[] {
    return this.sources.listSources();
  }

  /** Adds a source, reads its channels (a failed read is stored on it, not thrown) and plans; the source as saved. */
  async addSource(spec: SourceSpec): Promise<SourceRow> {
    const source = this.sources.addSource(spec);
    await this.sources.refreshSource(source.id, { signal: this.refreshAbort.signal });
    this.replan('re-planning after a source was added');
    return this.sources.listSources().find((s) => s.id === source.id) ?? source;
  }

  /** Removes a source and its channels; the jobs on them are planned again. */
  removeSource(id: string): void {
    this.sources.removeSource(id);
    this.replan('re-planning after a source was removed');
  }

  listGuides(): GuideRow[] {
    return this.sources.listGuides();
  }

  /** Adds a guide, reads it and plans, as addSource does a source. */
  async addGuide(location: string): Promise<GuideRow> {
    const guide = this.sources.addGuide(location);
    await this.sources.refreshGuide(guide.id, { signal: this.refreshAbort.signal });
    this.replan('re-planning after a guide was added');
    return this.sources.listGuides().find((g) => g.id === guide.id) ?? guide;
  }

  /** Removes a guide and its programmes; the plan follows. */
  removeGuide(id: string): void {
    this.sources.removeGuide(id);
    this.replan('re-planning after a guide was removed');
  }

  /** Each source with the streams it allows and has open now (metrics, health). */
  tuners(): { source: SourceRow; inUse: number }[] {
    const usage = this.hub.usage();
    return this.sources.listSources().map((source) => ({ source, inUse: usage.get(source.id) ?? 0 }));
  }

  /** The HLS playlist of a channel's live buffer (from `from`, epoch ms), tuning it first when nobody watches it. */
  livePlaylist(
    number: string,
    browser = false,
    client = '',
    from?: number,
    options: PlaylistOptions = {},
  ): Promise<string> {
    return this.liveBuffers.playlist(number, browser, client, from, options);
  }

  /** Tunes a channel's live buffer for `client` (an HLS session's start): its first bytes, to probe. */
  liveSample(number: string, client: string): Promise<Buffer> {
    return this.liveBuffers.sample(number, client);
  }

  /** `client` stopped watching channel `number` (its HLS session ended). */
  liveLeave(number: string, client: string): void {
    this.liveBuffers.leave(number, client);
  }

  /** Where a segment of a channel's live buffer is sent from (its file, or memory after a disk failure); 404: gone. */
  liveSegment(number: string, seq: number): SegmentSource {
    return this.liveBuffers.segment(number, seq);
  }

  /** What each live buffer holds now. */
  liveBufferState() {
    return this.liveBuffers.describe();
  }

  /** How many recordings run now. */
  recordingCount(): number {
    return this.recordings.activeJobIds().length;
  }

  /**
   * The one way the DVR's parts ask for a plan after a change of theirs: a full plan now,
   * so the answer to the request that changed something already shows its jobs. A failure
   * is logged, never thrown (the change itself is done). The periodic plan and the one
   * after a refresh read the guide in slices instead (replanInSlices); a rule's change
   * plans for that rule alone (RulesService's `changed`).
   */
  private replan(why: string): void {
    this.safely(why, () => this.schedule.replan());
  }

  /**
   * Runs timer and callback work so that a failure is logged, never thrown into the event loop (which would end the
   * process).
   */
  private safely(what: string, work: () => void): void {
    if (this.stopped) return;
    try {
      work();
    } catch (error) {
      this.options.logger?.error({ err: error }, `${what} failed`);
    }
  }

  /** A full re-plan that reads the guide in slices (JobScheduler.replanInSlices); a failure is logged, never thrown. */
  private async replanInSlices(what: string): Promise<void> {
    if (this.stopped) return;
    const replanning = this.schedule.replanInSlices();
    this.replanning.add(replanning);
    try {
      await replanning;
    } catch (error) {
      this.options.logger?.error({ err: error }, `${what} failed`);
    } finally {
      this.replanning.delete(replanning);
      this.sources.dropReplacedProgrammes();
    }
  }

  /** Refreshes every source and guide, then re-plans. Concurrent calls share one refresh. */
  refresh(): Promise<unknown> {
    if (this.refreshing) return this.refreshing;
    this.refreshing = this.sources
      .refreshAll(this.refreshAbort.signal)
      .then(async (summary) => {
        await this.replanInSlices('re-planning after a refresh');
        return summary;
      })
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** Refreshes one source (`accept`: the user confirms a lineup that removes much) and re-plans when it was applied. */
  async refreshSource(id: string, accept = false): Promise<SourceRefresh> {
    return await this.replannedAfter(
      await this.sources.refreshSource(id, { signal: this.refreshAbort.signal, accept }),
    );
  }

  /** Refreshes one guide, as refreshSource does a source. */
  async refreshGuide(id: string, accept = false): Promise<GuideRefresh> {
    return await this.replannedAfter(await this.sources.refreshGuide(id, { signal: this.refreshAbort.signal, accept }));
  }

  private async replannedAfter<T extends { error?: string }>(result: T): Promise<T> {
    if (result.error === undefined) await this.replanInSlices('re-planning after a refresh');
    return result;
  }

  /** What records now and what records next (MQTT's state, Home Assistant's sensors). */
  recordingSummary(now = Date.now()) {
    const next = nextScheduledJob(this.db, Math.floor(now / 1000));
    return {
      recording: listJobsInState(this.db, 'recording').map((job) => ({ title: job.name, channel: job.channel })),
      next: next ? { title: next.name, channel: next.channel, start_time: next.start_time } : undefined,
    };
  }

  status() {
    return {
      streams: this.hub.describe(),
      recording: this.recordings.activeJobIds(),
      recording_files: this.recordings.activeItemIds(),
      refreshing: this.refreshing !== undefined,
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.schedule.stop();
    clearInterval(this.replanTimer);
    clearInterval(this.refreshTimer);
    this.refreshAbort.abort();
    await this.liveBuffers.stop();
    await this.recordings.stop();
    this.hub.stop();
    await this.refreshing?.catch(() => undefined);
    // A re-plan reading the guide in slices ends before the database closes.
    await Promise.allSettled(this.replanning);
    // Each guide refresh thread stops and closes its connection before the database does.
    await guideThreadsStopped();
  }
}
