/**
 * The plan and the clock: rules × guide → jobs (job-planner.ts), stored; a timer that
 * starts each job when due; what happened while Antenna was down settled at start.
 */
import type { Logger } from 'pino';
import type { EventSink } from '../../model/events/event.schemas.js';
import { planEvents } from './plan-events.js';
import { ConflictError, NotFoundError } from '../../common/errors.js';
import type { Db } from '../../db/database.js';
import { type Airing, ProgrammeAiring } from '../lineup/airing.js';
import { guideKey } from '../lineup/guide-match.js';
import { firstPerNumber, guideMapOf } from '../lineup/lineup-snapshot.js';
import {
  deleteProgrammesEndedBefore,
  guideGenerations,
  type ProgrammeTuple,
} from '../../repositories/dvr/guide.repository.js';
import { planGuideRows } from './plan-guide-rows.js';
import { explainJob, type JobWhy } from './job-explanation.js';
import {
  findCandidates,
  findCandidatesInSteps,
  guidePrefilter,
  type Plan,
  type PlanCandidate,
  placeAll,
  placingInSteps,
  type PlannerInput,
  type Placing,
  type RunningJob,
} from './job-planner.js';
import { ruleOfJobId } from './job-ids.js';
import { placeAgain } from './job-placing-again.js';
import { byStartAndId } from './job-placing.js';
import { finishInTurns, finishNow, type Steps } from '../../common/work-in-steps.js';
import { airingsStarting, keptVanishedJobs, plannedProgramme, storedProgramme } from './scheduled-job-lookups.js';
import { placeholderAirings } from '../lineup/placeholder-airings.js';
import { hiddenChannelNumbers, lineupVersion } from '../../repositories/dvr/channel-edits.repository.js';
import {
  addJobSkip,
  deleteJobsEndedBefore,
  type DvrJobRow,
  finishJob,
  getDvrJob,
  listDueJobs,
  listJobProgrammes,
  listJobSkips,
  listJobsInState,
  nextJobStart,
  changeScheduledJobs,
  type PlanChange,
  replaceScheduledJobs,
  prepareJobRows,
  settledJobIds,
  type WrittenPlan,
} from '../../repositories/dvr/jobs.repository.js';
import { forgetRecordedProgramme, recordedEpisodeKeys } from '../../repositories/dvr/recordings.repository.js';
import {
  listSources,
  listStreamableChannels,
  type StreamableChannel,
} from '../../repositories/dvr/sources.repository.js';
import type { JobItem } from '../../model/library/library.schemas.js';
import type { PlannedJob } from '../../model/dvr/planned-job.js';
import type { RecordingsService } from '../recording/recordings.service.js';
import type { RulesService } from './rules.service.js';
import { ruleTypeOf, type StoredRule } from './rules/rule-types.js';
import type { StreamTarget } from '../recording/stream-hub.js';

/** Finished jobs stay listed this long. */
const JOB_HISTORY_SECONDS = 7 * 86400;

export interface JobSchedulerOptions {
  /** Epoch milliseconds. */
  now: () => number;
  /** Where what the plan changed is told (recording.scheduled, .skipped, .conflict). */
  emit?: EventSink | undefined;
  logger?: Logger | undefined;
  /** False once the DVR is stopping: nothing more is planned or started. */
  running: () => boolean;
  /** Runs timer work so a failure is logged, never thrown into the event loop. */
  safely: (what: string, work: () => void) => void;
}

/** How far ahead placeholder hours are planned for a channel no guide describes (a guide's usual 14 days). */
const PLACEHOLDER_REACH = 14 * 86400;

/**
 * How long the candidates of a full plan serve re-plans after a rule change (seconds); the periodic re-plan is a full
 * one.
 */
const CANDIDATES_FRESH_FOR = 15 * 60;

/** Work done between turns of the event loop in replanInSlices (ms). */
const STEP_MS = 5;

export class JobScheduler {
  private startTimer: NodeJS.Timeout | undefined;
  /**
   * The last placing: every rule's candidates as the last full plan found them (and rule changes since), and their
   * fates.
   */
  private candidates: { at: number; placing: Placing } | undefined;
  /**
   * The scheduled jobs as last written, and their programmes: a re-plan after a rule change compares with these instead
   * of reading them back.
   */
  private written: { jobs: WrittenPlan; programmes: Map<string, string> } | undefined;
  /** Ids of the jobs the last full write kept listed though the plan lost them (keptVanished). */
  private keptIds: ReadonlySet<string> = new Set();
  /** Plans made (full or after a rule's edit): replanInSlices starts again when one was made while it read. */
  private plans = 0;
  /** Recordings started (startDue): one started while replanInSlices works is a running job its plan did not see. */
  private starts = 0;

  constructor(
    private readonly db: Db,
    private readonly rules: RulesService,
    private readonly recordings: RecordingsService,
    private readonly options: JobSchedulerOptions,
  ) {}

  private nowSeconds(): number {
    return Math.floor(this.options.now() / 1000);
  }

  /** Fails jobs whose time passed while Antenna was down, and resumes the recordings that were running. */
  settleAfterDowntime(): void {
    const now = this.nowSeconds();
    for (const job of listJobsInState(this.db, 'scheduled')) {
      if (!job.skipped && job.end_time <= now)
        finishJob(this.db, job.id, { failed: true, error: 'Antenna was not running at the time' }, this.options.now());
    }
    for (const job of listJobsInState(this.db, 'recording')) this.recordings.start(job, this.targetsFor(job));
  }

  /** Plans jobs from rules × guide, stores them, and sets the timer for the next start. */
  replan(): void {
    if (!this.options.running()) return;
    const now = this.nowSeconds();
    this.planFully(now, listStreamableChannels(this.db), undefined);
  }

  /**
   * replan, in parts with the event loop free between them: the guide read a slice at a
   * time (plan-guide-rows.ts), then the candidates found, placed and written, a turn of
   * the loop after each. After a refresh and every ten minutes: on a 14-day guide of 1,000
   * channels a full plan is about a second, which every request waited behind. A plan made
   * meanwhile (a rule's edit, a recording's end, a skip: each plans), a recording started,
   * or a guide or lineup that changed starts it again; after three tries it is replan.
   */
  async replanInSlices(): Promise<void> {
    const token = () => `${this.plans} ${this.starts} ${lineupVersion(this.db)} ${guideGenerations(this.db)}`;
    for (let attempt = 0; attempt < 3; attempt++) {
      if (!this.options.running()) return;
      const began = token();
      // After each turn of the event loop: whether to go on (else give up, or start again).
      const stillGood = async () => {
        await new Promise<void>((resolve) => setImmediate(resolve));
        return this.options.running() && token() === began;
      };
      const now = this.nowSeconds();
      const channels = listStreamableChannels(this.db);
      const rows = await this.guideRows(now, channels, this.rules.list()).inSlices();
      if (token() !== began) continue;
      const state = this.fullPlanState(now, channels);
      if (!(await stillGood())) continue;
      const found = await finishInTurns(this.allCandidates(now, channels, rows, state, STEP_MS), stillGood);
      if (!found) continue;
      const placing = await finishInTurns(placingInSteps(state, found, STEP_MS), stillGood);
      if (!placing) continue;
      // What the plan lost and keeps listed is read before the write, and the jobs' JSON made: the write alone blocks.
      const kept = await finishInTurns(
        keptVanishedJobs(this.db, this.rules.list(), placing.plan.jobs, state.slotRules, this.nowSeconds(), STEP_MS),
        stillGood,
      );
      if (!kept) continue;
      if (!(await finishInTurns(prepareJobRows(placing.plan.jobs, STEP_MS), stillGood))) continue;
      this.storeFull(now, state, placing, kept);
      return;
    }
    if (this.options.running()) this.replan();
  }

  /** A full plan; `rows`: the guide rows its rules read, when read already (replanInSlices). */
  private planFully(
    now: number,
    channels: readonly StreamableChannel[],
    rows: readonly ProgrammeTuple[] | undefined,
  ): void {
    const { state, found } = this.findAll(now, channels, rows);
    this.storeFull(now, state, placeAll(state, found));
  }

  /** What a full plan starts from: old jobs and programmes forgotten, the state, every rule's candidates. */
  private findAll(now: number, channels: readonly StreamableChannel[], rows: readonly ProgrammeTuple[] | undefined) {
    const state = this.fullPlanState(now, channels);
    return { state, found: finishNow(this.allCandidates(now, channels, rows, state, Number.POSITIVE_INFINITY)) };
  }

  /** Old jobs and programmes forgotten, then the state a full plan starts from. */
  private fullPlanState(now: number, channels: readonly StreamableChannel[]) {
    deleteJobsEndedBefore(this.db, now - JOB_HISTORY_SECONDS);
    this.rules.forgetPastOneTimeRules(now);
    deleteProgrammesEndedBefore(this.db, now - 86400);
    return this.planState(now, channels, undefined);
  }

  /**
   * Every rule's candidates in the guide (`rows`: the guide rows they read, when read already), in steps of `stepMs`.
   */
  private *allCandidates(
    now: number,
    channels: readonly StreamableChannel[],
    rows: readonly ProgrammeTuple[] | undefined,
    state: PlannerInput,
    stepMs: number,
  ): Steps<PlanCandidate[]> {
    const rules = this.rules.list();
    const found = yield* findCandidatesInSteps(
      {
        now,
        rules,
        airings: this.airings(now, channels, rules, rows),
        running: state.running,
        settledIds: state.settledIds,
      },
      stepMs,
    );
    return [...found.values()].flat();
  }

  /** Writes a full plan and keeps its placing for the re-plans after rule changes. */
  private storeFull(
    now: number,
    state: { slotRules: ReadonlySet<number> },
    placing: Placing,
    kept?: PlannedJob[],
  ): void {
    this.plans++;
    this.candidates = undefined;
    this.store(placing.plan, undefined, state.slotRules, kept);
    this.candidates = { at: now, placing };
  }

  /**
   * Plans again after rule `ruleId` was made, edited or removed: the guide is read for
   * that rule alone (what a rule finds does not depend on the others; where it goes does)
   * and the candidates it reaches are placed again (placeAgain). The other rules'
   * candidates come from the last full plan, made at most CANDIDATES_FRESH_FOR ago, after
   * which this is a full plan.
   */
  replanRule(ruleId: number): void {
    if (!this.options.running()) return;
    const now = this.nowSeconds();
    const cached = this.candidates;
    const written = this.written;
    if (!cached || !written || now - cached.at > CANDIDATES_FRESH_FOR || now < cached.at) {
      this.replan();
      return;
    }
    this.plans++;
    const channels = listStreamableChannels(this.db);
    const state = this.planState(now, channels, written.programmes);
    const rule = this.rules.list().find((r) => r.id === ruleId);
    // Should anything below throw, the next change plans in full: the kept state may be half updated.
    this.candidates = undefined;
    const found = rule
      ? findCandidates({
          now,
          rules: [rule],
          airings: this.airings(now, channels, [rule]),
          running: state.running,
          settledIds: state.settledIds,
        })
      : new Map();
    const placing = placeAgain(cached.placing, state, ruleId, [...found.values()].flat());
    // A rule whose lost jobs are kept listed: written in full, so they are judged again (a removed or paused rule's
    // go).
    const keepsLost = [...this.keptIds].some((id) => ruleOfJobId(id) === ruleId);
    this.store(keepsLost ? { ...placing.plan, changes: undefined } : placing.plan, written, state.slotRules);
    this.candidates = { ...cached, placing };
  }

  /**
   * Everything a plan needs besides the rules and the guide. `planned`: the programmes of
   * the scheduled jobs as last written (else read, with the others, from the database).
   */
  private planState(
    now: number,
    channels: readonly StreamableChannel[],
    planned: ReadonlyMap<string, string> | undefined,
  ): PlannerInput & { slotRules: Set<number> } {
    const knownIds = new Map(planned);
    const slots = this.slotRules();
    for (const job of listJobProgrammes(this.db, planned !== undefined))
      knownIds.set(job.id, storedProgramme(job, slots));
    const running = this.runningJobs(slots);
    const settledIds = settledJobIds(this.db);
    const userSkips = listJobSkips(this.db);
    return {
      now,
      rules: [],
      airings: [],
      ...this.capacity(channels),
      recordedKeys: recordedEpisodeKeys(this.db),
      running,
      settledIds,
      knownIds,
      heldIds: new Set([...running.map((job) => job.id), ...settledIds, ...userSkips]),
      userSkips,
      slotRules: slots,
    };
  }

  /**
   * Writes a plan. `written`: the plan as last written, when this one was made from it
   * (a re-plan after a rule change): with the plan's changes (placeAgain), only those are
   * compared and written.
   */
  private store(
    planned: Plan,
    written: { jobs: WrittenPlan; programmes: Map<string, string> } | undefined,
    slots: ReadonlySet<number>,
    kept?: PlannedJob[],
  ): void {
    for (const [id, end] of planned.extensions) this.recordings.extend(id, end);
    this.written = undefined;
    const now = this.options.now();
    const changes: PlanChange[] = [];
    const programmeOf = (job: PlannedJob) => plannedProgramme(job, slots);
    if (written && planned.changes) {
      const { gone, added } = planned.changes;
      const jobs = changeScheduledJobs(this.db, planned.changes, written.jobs, now, changes);
      for (const job of gone) written.programmes.delete(job.id);
      for (const job of added) written.programmes.set(job.id, programmeOf(job));
      this.written = { jobs, programmes: written.programmes };
    } else {
      const vanished = kept ?? this.keptVanished(planned.jobs, slots);
      this.keptIds = new Set(vanished.map((job) => job.id));
      const all = vanished.length === 0 ? planned.jobs : [...planned.jobs, ...vanished].sort(byStartAndId);
      const jobs = replaceScheduledJobs(this.db, all, now, written?.jobs, changes);
      this.written = { jobs, programmes: new Map(planned.jobs.map((job) => [job.id, programmeOf(job)])) };
    }
    for (const event of planEvents(changes, Math.floor(now / 1000))) this.options.emit?.(event);
    this.startDue();
  }

  /**
   * The scheduled jobs a full plan of `jobs` lost that are kept listed, skipped (scheduled-job-lookups.ts). Only reads.
   */
  private keptVanished(jobs: PlannedJob[], slots: ReadonlySet<number>): PlannedJob[] {
    return finishNow(
      keptVanishedJobs(this.db, this.rules.list(), jobs, slots, this.nowSeconds(), Number.POSITIVE_INFINITY),
    );
  }

  /** Skips a planned job, or stops one that is recording (it keeps what it wrote, flagged cancelled). */
  cancelJob(id: string): void {
    const job = getDvrJob(this.db, id);
    if (!job) throw new NotFoundError('job', id);
    if (job.state === 'recording') {
      this.recordings.cancel(id);
      return;
    }
    if (job.state === 'finished') throw new ConflictError('job_finished', `Job '${id}' has already finished.`);
    addJobSkip(this.db, id, this.options.now());
    this.replan();
  }

  /** A job's fate in one sentence (job-explanation.ts); 404 for an unknown id. */
  explain(id: string): JobWhy {
    const job = getDvrJob(this.db, id);
    if (!job) throw new NotFoundError('job', id);
    return explainJob(
      job,
      job.source_id ? listSources(this.db).find((source) => source.id === job.source_id)?.name : undefined,
    );
  }

  /** Forgets that programme `programId` was recorded, so its next airing is planned again; 404 when nothing knew it. */
  forgetProgramme(programId: string): void {
    if (!forgetRecordedProgramme(this.db, programId)) throw new NotFoundError('recorded programme', programId);
    this.replan();
  }

  stop(): void {
    clearTimeout(this.startTimer);
  }

  /** The guide's airing on channel `number` starting at `start`, if one of the guides describing the channel has it. */
  airingOn(number: string, start: number): Airing | undefined {
    return airingsStarting(
      this.db,
      number,
      start,
      start + 1,
      guideMapOf(
        this.db,
        listStreamableChannels(this.db).filter((channel) => channel.number === number),
      ),
    )[0];
  }

  private capacity(channels: readonly StreamableChannel[]) {
    const channelSources = new Map<string, string[]>();
    for (const channel of channels) {
      const list = channelSources.get(channel.number) ?? [];
      list.push(channel.source_id);
      channelSources.set(channel.number, list);
    }
    const sources = listSources(this.db);
    const offered = new Set(channels.map((channel) => channel.number));
    return {
      channelSources,
      hiddenChannels: new Set([...hiddenChannelNumbers(this.db)].filter((number) => !offered.has(number))),
      sourceLimits: new Map(sources.map((s) => [s.id, s.stream_limit])),
      sourceNames: new Map(sources.map((s) => [s.id, s.name])),
    };
  }

  /** Ids of the rules whose jobs are their time (slots): their identity is that time (slotProgramme). */
  private slotRules(): Set<number> {
    return new Set(
      this.rules.list().flatMap((rule) => (ruleTypeOf(rule.definition).jobsAreTheirTime ? [rule.id] : [])),
    );
  }

  private runningJobs(slots: ReadonlySet<number>): RunningJob[] {
    return listJobsInState(this.db, 'recording').map((job) => {
      const item = JSON.parse(job.item) as JobItem;
      return {
        id: job.id,
        ruleId: job.rule_id ?? undefined,
        name: job.name,
        start: job.start_time,
        end: job.end_time,
        channel: job.channel ?? '',
        sourceId: job.source_id ?? '',
        programme: plannedProgramme({ ruleId: job.rule_id, start: job.start_time, item, name: job.name }, slots),
        plannedEnd: job.planned_end_time ?? job.end_time,
      };
    });
  }

  /** The guide rows the rules read (plan-guide-rows.ts). */
  private guideRows(now: number, channels: readonly StreamableChannel[], rules: readonly StoredRule[]) {
    const map = guideMapOf(this.db, channels);
    const prefilter = guidePrefilter(rules);
    const channelKeys = [...map]
      .filter(([, numbers]) => numbers.some((n) => prefilter.channels.has(n)))
      .map(([key]) => key);
    return planGuideRows(this.db, now, channelKeys, prefilter);
  }

  /**
   * The guide as airings on channel numbers, only those the rules can use; streamed from the database unless `read`
   * already.
   */
  private airings(
    now: number,
    channels: readonly StreamableChannel[],
    rules: readonly StoredRule[],
    read?: readonly ProgrammeTuple[],
  ): Iterable<Airing> {
    const map = guideMapOf(this.db, channels);
    const prefilter = guidePrefilter(rules);
    const rows = () => read ?? this.guideRows(now, channels, rules).all();
    // Channels the rules name that no guide describes: their placeholder hours, up to the guide's usual reach.
    const described = new Set([...map.values()].flat());
    const undescribed = firstPerNumber(channels).filter(
      (channel) => prefilter.channels.has(channel.number) && !described.has(channel.number),
    );
    return {
      *[Symbol.iterator]() {
        for (const row of rows()) {
          const numbers = map.get(guideKey(row[0], row[1]));
          if (numbers) yield ProgrammeAiring.fromTuple(row, numbers);
        }
        for (const channel of undescribed)
          yield* placeholderAirings(channel.number, channel.name, now, now + PLACEHOLDER_REACH);
      },
    };
  }

  /** Starts every job that is due, and sets the timer for the next one. */
  private startDue(): void {
    if (!this.options.running()) return;
    clearTimeout(this.startTimer);
    const now = this.nowSeconds();
    for (const job of listDueJobs(this.db, now)) {
      // One job that cannot start (its folder cannot be made, say) fails alone; the others and the timer go on.
      try {
        this.starts++;
        this.recordings.start(job, this.targetsFor(job));
      } catch (error) {
        const message = `the recording could not start: ${(error as Error).message}`;
        this.options.logger?.error({ job: job.id, err: message }, 'recording failed to start');
        finishJob(this.db, job.id, { failed: true, error: message }, this.options.now());
      }
    }
    const next = nextJobStart(this.db);
    if (next === undefined) return;
    // Timers drift and sleep with the machine: wake at least every minute to look again.
    const delay = Math.min(Math.max(0, next * 1000 - this.options.now()), 60_000);
    this.startTimer = setTimeout(() => this.options.safely('starting due recordings', () => this.startDue()), delay);
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
}
