/**
 * The DVR: rules, the plan of jobs, the clock that starts them, live TV and the
 * one-touch "record what is on now". It re-plans whenever a rule, a source, the guide
 * or a recording changes, and every few minutes so the plan rolls forward.
 */
import type { Logger } from 'pino';
import { BadRequestError, ConflictError, NotFoundError } from '../common/errors.js';
import type { Db } from '../db/database.js';
import { DvrSourcesService, type DvrSourcesConfig } from './dvr-sources.service.js';
import { PROGRAMS_ON_PATH, type ProgramPaths } from '../common/external-program.js';
import { type GuideChannelMap, guideKey, matchGuideChannels } from './guide-match.js';
import {
  deleteProgrammesEndedBefore,
  iterateProgrammeTuplesWhere,
  listGuideChannels,
  type ProgrammeRow,
  type ProgrammeTuple,
  programmesBetween,
} from '../repositories/guide.repository.js';
import { type Airing, guidePrefilter, planJobs, type RunningJob } from './job-planner.js';
import {
  addJobSkip,
  deleteJobsEndedBefore,
  type DvrJobRow,
  finishJob,
  getDvrJob,
  listDueJobs,
  listJobSkips,
  listJobsInState,
  nextJobStart,
  replaceScheduledJobs,
  settledJobIds,
} from '../repositories/jobs.repository.js';
import { recordedEpisodeKeys } from '../repositories/recordings.repository.js';
import { RecordingsService } from './recordings.service.js';
import { type RuleDefinition, type StoredRule } from '../model/rule.schemas.js';
import { deleteRule, getRule, insertRule, listRules, replaceRule } from '../repositories/rules.repository.js';
import { listSources, listStreamableChannels, setChannelFavorite, type StreamableChannel } from '../repositories/sources.repository.js';
import { type StreamConsumer, StreamHub, type StreamTarget, StreamUnavailableError, type Subscription } from './stream-hub.js';

export interface DvrOptions {
  recordingsDir: string;
  thumbnailsDir: string;
  workDir: string;
  sources: DvrSourcesConfig;
  logger?: Logger;
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
}

/** Re-planning at least this often keeps the plan rolling forward with the clock. */
const REPLAN_INTERVAL_MS = 10 * 60_000;
/** Finished jobs stay listed this long. */
const JOB_HISTORY_SECONDS = 7 * 86400;
/** Without a guide, "record now" records this long. */
const RECORD_NOW_DEFAULT_SECONDS = 3600;

export class DvrService {
  readonly sources: DvrSourcesService;
  readonly hub: StreamHub;
  readonly recordings: RecordingsService;
  private startTimer: NodeJS.Timeout | undefined;
  private replanTimer: NodeJS.Timeout | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private refreshing: Promise<unknown> | undefined;
  private readonly refreshAbort = new AbortController();
  private stopped = false;
  private readonly recordNowPending = new Map<string, Promise<DvrJobRow>>();

  constructor(
    private readonly db: Db,
    private readonly options: DvrOptions,
  ) {
    const shared = { ...(options.logger ? { logger: options.logger } : {}), ...(options.now ? { now: options.now } : {}) };
    this.sources = new DvrSourcesService(db, { ...shared, ...(options.localSourceDirs ? { localSourceDirs: options.localSourceDirs } : {}) });
    this.sources.applyConfig(options.sources);
    this.hub = new StreamHub({
      limitOf: (sourceId) => listSources(this.db).find((s) => s.id === sourceId)?.stream_limit ?? 1,
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
      onChange: () => this.safely('re-planning after a recording', () => this.replan()),
    });
  }

  private nowMs(): number {
    return this.options.now?.() ?? Date.now();
  }

  private nowSeconds(): number {
    return Math.floor(this.nowMs() / 1000);
  }

  /** Settles what happened while Antenna was down, resumes recordings, plans, and refreshes sources in the background. */
  start(): void {
    const now = this.nowSeconds();
    for (const job of listJobsInState(this.db, 'scheduled')) {
      if (!job.skipped && job.end_time <= now) finishJob(this.db, job.id, { failed: true, error: 'Antenna was not running at the time' }, this.nowMs());
    }
    for (const job of listJobsInState(this.db, 'recording')) this.recordings.start(job, this.targetsFor(job));
    this.recordings.resumePostProcessing();
    this.replan();
    this.replanTimer = setInterval(() => this.safely('periodic re-planning', () => this.replan()), REPLAN_INTERVAL_MS);
    this.replanTimer.unref();
    const refresh = () => this.refresh().catch((error: unknown) => this.options.logger?.error({ err: error }, 'refreshing sources and guides failed'));
    void refresh();
    const minutes = this.options.refreshInterval ?? 720;
    if (minutes > 0) {
      this.refreshTimer = setInterval(() => void refresh(), minutes * 60_000);
      this.refreshTimer.unref();
    }
  }

  /** Runs timer and callback work so that a failure is logged, never thrown into the event loop (which would end the process). */
  private safely(what: string, work: () => void): void {
    if (this.stopped) return;
    try {
      work();
    } catch (error) {
      this.options.logger?.error({ err: error }, `${what} failed`);
    }
  }

  /** Refreshes every source and guide, then re-plans. Concurrent calls share one refresh. */
  refresh(): Promise<unknown> {
    if (this.refreshing) return this.refreshing;
    this.refreshing = this.sources
      .refreshAll(this.refreshAbort.signal)
      .then((summary) => {
        if (!this.stopped) this.replan();
        return summary;
      })
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** Plans jobs from rules × guide, stores them, and sets the timer for the next start. */
  replan(): void {
    if (this.stopped) return;
    const now = this.nowSeconds();
    deleteJobsEndedBefore(this.db, now - JOB_HISTORY_SECONDS);
    this.forgetPastOneTimeRules(now);
    deleteProgrammesEndedBefore(this.db, now - 86400);
    const channels = listStreamableChannels(this.db);
    const rules = listRules(this.db);
    const planned = planJobs({
      now,
      rules,
      airings: this.airings(now, channels, rules),
      ...this.capacity(channels),
      recordedKeys: recordedEpisodeKeys(this.db),
      running: this.runningJobs(),
      settledIds: settledJobIds(this.db),
      userSkips: listJobSkips(this.db),
    });
    replaceScheduledJobs(this.db, planned, this.nowMs());
    this.startDue();
  }

  /** One-time rules (a single programme, a slot that does not repeat) go a day after they end: they can plan nothing more. */
  private forgetPastOneTimeRules(now: number): void {
    for (const rule of listRules(this.db)) {
      const d = rule.definition;
      const end = d.type === 'slot' && !d.weekly ? d.start_time + d.duration : d.type === 'program' ? d.start_time + 86400 : undefined;
      if (end !== undefined && end + 86400 < now) deleteRule(this.db, rule.id);
    }
  }

  private capacity(channels: readonly StreamableChannel[]) {
    const channelSources = new Map<string, string[]>();
    for (const channel of channels) {
      const list = channelSources.get(channel.number) ?? [];
      list.push(channel.source_id);
      channelSources.set(channel.number, list);
    }
    const sources = listSources(this.db);
    return {
      channelSources,
      sourceLimits: new Map(sources.map((s) => [s.id, s.stream_limit])),
      sourceNames: new Map(sources.map((s) => [s.id, s.name])),
    };
  }

  private runningJobs(): RunningJob[] {
    return listJobsInState(this.db, 'recording').map((job) => ({
      id: job.id,
      ruleId: job.rule_id ?? undefined,
      name: job.name,
      start: job.start_time,
      end: job.end_time,
      channel: job.channel ?? '',
      sourceId: job.source_id ?? '',
    }));
  }

  /** The guide as airings on channel numbers, only those the rules can use; streamed from the database. */
  private airings(now: number, channels: readonly StreamableChannel[], rules: readonly StoredRule[]): Iterable<Airing> {
    const map = this.guideMap(channels);
    const prefilter = guidePrefilter(rules);
    const channelKeys = [...map].filter(([, numbers]) => numbers.some((n) => prefilter.channels.has(n))).map(([key]) => key);
    const db = this.db;
    return {
      *[Symbol.iterator]() {
        for (const row of iterateProgrammeTuplesWhere(db, now, { channelKeys, needsSummary: prefilter.needsSummary, match: prefilter.matches })) {
          const numbers = map.get(guideKey(row[0], row[1]));
          if (numbers) yield ProgrammeAiring.fromTuple(row, numbers);
        }
      },
    };
  }

  private guideMap(channels: readonly StreamableChannel[]): GuideChannelMap {
    const guideChannels = listGuideChannels(this.db).map((gc) => ({ ...gc, displayNames: JSON.parse(gc.display_names) as string[] }));
    return matchGuideChannels(channels, guideChannels);
  }

  /** Starts every job that is due, and sets the timer for the next one. */
  private startDue(): void {
    if (this.stopped) return;
    clearTimeout(this.startTimer);
    const now = this.nowSeconds();
    for (const job of listDueJobs(this.db, now)) {
      // One job that cannot start (its folder cannot be made, say) fails alone; the others and the timer go on.
      try {
        this.recordings.start(job, this.targetsFor(job));
      } catch (error) {
        const message = `the recording could not start: ${(error as Error).message}`;
        this.options.logger?.error({ job: job.id, err: message }, 'recording failed to start');
        finishJob(this.db, job.id, { failed: true, error: message }, this.nowMs());
      }
    }
    const next = nextJobStart(this.db);
    if (next === undefined) return;
    // Timers drift and sleep with the machine: wake at least every minute to look again.
    const delay = Math.min(Math.max(0, next * 1000 - this.nowMs()), 60_000);
    this.startTimer = setTimeout(() => this.safely('starting due recordings', () => this.startDue()), delay);
    this.startTimer.unref();
  }

  /** The streams a job may use: its chosen channel on its chosen source first, then the others. */
  private targetsFor(job: DvrJobRow): StreamTarget[] {
    const numbers = [job.channel, ...(JSON.parse(job.channels) as string[])].filter((n): n is string => !!n);
    const channels = listStreamableChannels(this.db);
    const targets: StreamTarget[] = [];
    for (const number of new Set(numbers)) {
      const offered = channels.filter((c) => c.number === number);
      offered.sort((a, b) => Number(b.source_id === job.source_id) - Number(a.source_id === job.source_id));
      for (const c of offered) targets.push({ sourceId: c.source_id, number: c.number, url: c.stream_url });
    }
    return targets;
  }

  // Rules

  listRules(): StoredRule[] {
    return listRules(this.db);
  }

  getRule(id: number): StoredRule {
    const rule = getRule(this.db, id);
    if (!rule) throw new NotFoundError('rule', String(id));
    return rule;
  }

  createRule(definition: RuleDefinition): StoredRule {
    definition = checkRule(definition, this.nowSeconds());
    const rule = insertRule(this.db, definition, this.nowMs());
    this.replan();
    return rule;
  }

  replaceRule(id: number, definition: RuleDefinition): StoredRule {
    definition = checkRule(definition, this.nowSeconds());
    if (!replaceRule(this.db, id, definition, this.nowMs())) throw new NotFoundError('rule', String(id));
    this.replan();
    return { id, definition };
  }

  /** Removes a rule and its planned jobs; recordings it made stay, and one it is making goes on. */
  deleteRule(id: number): void {
    if (!deleteRule(this.db, id)) throw new NotFoundError('rule', String(id));
    this.replan();
  }

  // Jobs

  /** Skips a planned job, or stops one that is recording (it keeps what it wrote, flagged cancelled). */
  cancelJob(id: string): void {
    const job = getDvrJob(this.db, id);
    if (!job) throw new NotFoundError('job', id);
    if (job.state === 'recording') {
      this.recordings.cancel(id);
      return;
    }
    if (job.state === 'finished') throw new ConflictError('job_finished', `Job '${id}' has already finished.`);
    addJobSkip(this.db, id, this.nowMs());
    this.replan();
  }

  /**
   * Records what is on channel `number` now, until its programme ends (an hour without
   * a guide). The channel's stream is tried first, so a source that is down or full is
   * a 409 now rather than a recording that fails later.
   */
  recordNow(number: string): Promise<DvrJobRow> {
    // Two presses at once (a remote's repeat) make one recording, not two.
    const pending = this.recordNowPending.get(number);
    if (pending) return pending;
    const started = this.startRecordingNow(number).finally(() => this.recordNowPending.delete(number));
    this.recordNowPending.set(number, started);
    return started;
  }

  private async startRecordingNow(number: string): Promise<DvrJobRow> {
    const channels = this.sourcesOf(number);
    const active = this.activeJobOn(number);
    if (active) return active;
    // Holding the stream while the job starts keeps the tuner for the recorder, which joins the same connection.
    let probe: Subscription;
    try {
      probe = await this.watch(number, { kind: 'recording', data: () => undefined, ended: () => undefined });
    } catch (error) {
      if (error instanceof StreamUnavailableError) throw new ConflictError(error.reason === 'no_tuner' ? 'no_tuner' : 'stream_unavailable', `Cannot record channel ${number}: ${error.message}.`);
      throw error;
    }
    try {
      const now = this.nowSeconds();
      const current = this.programmeAt(number, now);
      const end = current && current.stop - now >= 60 ? current.stop : now + RECORD_NOW_DEFAULT_SECONDS;
      const definition: RuleDefinition = {
        type: 'slot',
        channel: number,
        start_time: now,
        duration: end - now,
        name: current?.title ?? `${channels[0]?.name ?? 'Channel'} ${number}`,
        priority: 1000,
      };
      const rule = insertRule(this.db, definition, this.nowMs());
      this.replan();
      const job = getDvrJob(this.db, `${now}-${rule.id}`);
      if (!job || job.state !== 'recording') {
        deleteRule(this.db, rule.id);
        this.replan();
        throw new ConflictError('no_tuner', job?.error ? `Cannot record channel ${number}: ${job.error}.` : `Cannot record channel ${number} now.`);
      }
      // Let the recorder's own join happen before the probe lets go of the connection.
      await new Promise((resolve) => setTimeout(resolve, 50));
      return job;
    } finally {
      probe.leave();
    }
  }

  /** Stops whatever is recording channel `number` now; false when nothing was. */
  stopRecording(number: string): boolean {
    const active = this.activeJobOn(number);
    if (!active) return false;
    this.recordings.cancel(active.id);
    return true;
  }

  /** The job recording `number` now, if one is (the player's toggle_record asks before it toggles). */
  recordingOn(number: string): DvrJobRow | undefined {
    this.sourcesOf(number);
    return this.activeJobOn(number);
  }

  /** The channels (one per source) that carry `number`; 404 when none does. */
  private sourcesOf(number: string): StreamableChannel[] {
    const channels = listStreamableChannels(this.db).filter((c) => c.number === number);
    if (channels.length === 0) throw new NotFoundError('channel', number);
    return channels;
  }

  private activeJobOn(number: string): DvrJobRow | undefined {
    return listJobsInState(this.db, 'recording').find((job) => job.channel === number && this.recordings.isRecording(job.id));
  }

  // Channels, guide and live TV

  /** Each channel number once (the first source that carries it), favorites resolved: what a player lists. */
  channels(): StreamableChannel[] {
    const seen = new Set<string>();
    return listStreamableChannels(this.db).filter((c) => !seen.has(c.number) && seen.add(c.number));
  }

  setFavorite(number: string, favorite: boolean): void {
    this.sourcesOf(number);
    setChannelFavorite(this.db, number, favorite);
  }

  /** The guide for one channel between two times (epoch seconds). */
  guide(number: string, from: number, to: number): Airing[] {
    this.sourcesOf(number);
    if (to <= from) throw new BadRequestError('to', '"to" must be after "from".');
    for (const [key, numbers] of this.guideMap(listStreamableChannels(this.db))) {
      if (!numbers.includes(number)) continue;
      const [guideId, xmltvId] = key.split('\t') as [string, string];
      return programmesBetween(this.db, guideId, xmltvId, from, to).map((row) => toAiring(row, [number]));
    }
    return [];
  }

  private programmeAt(number: string, at: number): Airing | undefined {
    return this.guide(number, at, at + 1)[0];
  }

  /** Joins channel `number` for a live viewer; the connection is shared with recordings of it. */
  watch(number: string, consumer: StreamConsumer): Promise<Subscription> {
    const channels = this.sourcesOf(number);
    return this.hub.join(
      channels.map((c) => ({ sourceId: c.source_id, number: c.number, url: c.stream_url })),
      consumer,
    );
  }

  status() {
    return { streams: this.hub.describe(), recording: this.recordings.activeJobIds(), refreshing: this.refreshing !== undefined };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.startTimer);
    clearInterval(this.replanTimer);
    clearInterval(this.refreshTimer);
    this.refreshAbort.abort();
    await this.recordings.stop();
    this.hub.stop();
    await this.refreshing?.catch(() => undefined);
  }
}

/** What a schema cannot say about a rule; channel numbers written 7-1 become 7.1, as channels are stored. */
function checkRule(definition: RuleDefinition, now: number): RuleDefinition {
  if (definition.type === 'series' && !definition.series_id && !definition.title) {
    throw new BadRequestError('series_id', 'A series rule needs "series_id" or "title".');
  }
  // A one-time rule for a time already over could record nothing (and would be cleaned away at once).
  if (definition.type === 'slot' && !definition.weekly && definition.start_time + definition.duration <= now) {
    throw new BadRequestError('start_time', 'That time slot is over: give a start_time in the future, or weekly: true.');
  }
  if (definition.type === 'program' && definition.start_time + 86400 <= now) {
    throw new BadRequestError('start_time', 'That airing is over: give the start_time of an airing in the guide that has not ended.');
  }
  const number = (text: string) => text.replace('-', '.');
  const normalised = { ...definition } as RuleDefinition;
  if (normalised.channels) normalised.channels = normalised.channels.map(number);
  if (normalised.type === 'slot' || normalised.type === 'program') normalised.channel = number(normalised.channel);
  return normalised;
}

/**
 * A guide row as the planner sees it. Categories stay JSON until asked for: only the
 * few airings that become jobs need them, and parsing 200,000 of them per plan did not pay.
 */
class ProgrammeAiring implements Airing {
  constructor(
    readonly channels: string[],
    readonly start: number,
    readonly stop: number,
    readonly title: string,
    readonly isNew: boolean,
    readonly episodeTitle: string | undefined,
    readonly season: number | undefined,
    readonly episode: number | undefined,
    readonly summary: string | undefined,
    private readonly categoriesJson: string | null,
    readonly originalAirDate: string | undefined,
    readonly rating: string | undefined,
    readonly image: string | undefined,
    readonly programId: string | undefined,
    readonly seriesId: string | undefined,
    readonly year: number | undefined,
  ) {}

  static fromTuple(t: ProgrammeTuple, channels: string[]): ProgrammeAiring {
    return new ProgrammeAiring(
      channels,
      t[2],
      t[3],
      t[4],
      t[11] === 1,
      t[5] ?? undefined,
      t[6] ?? undefined,
      t[7] ?? undefined,
      t[8] ?? undefined,
      t[9],
      t[10] ?? undefined,
      t[12] ?? undefined,
      t[13] ?? undefined,
      t[14] ?? undefined,
      t[15] ?? undefined,
      t[16] ?? undefined,
    );
  }

  static fromRow(r: ProgrammeRow, channels: string[]): ProgrammeAiring {
    return ProgrammeAiring.fromTuple(
      [r.guide_id, r.xmltv_channel, r.start, r.stop, r.title, r.episode_title, r.season, r.episode, r.summary, r.categories, r.original_air_date, r.is_new, r.rating, r.image_url, r.program_id, r.series_id, r.year],
      channels,
    );
  }

  get categories(): string[] | undefined {
    return this.categoriesJson === null ? undefined : (JSON.parse(this.categoriesJson) as string[]);
  }
}

function toAiring(row: ProgrammeRow, channels: string[]): Airing {
  return ProgrammeAiring.fromRow(row, channels);
}
