/**
 * Steps 3 and 4 of job-planner.ts's order of decisions: candidates placed against the
 * sources' limits, greedily, in one total order (highest priority first, then earliest,
 * then lowest rule id, then channel number and programme), so a plan does not depend on
 * the order the guide was read in.
 *
 * A candidate's fate (decide) depends only on what was decided before it: the streams
 * placed earlier that overlap it on its sources, and the episode keys placed or listed as
 * skipped earlier. That is what lets job-placing-again.ts, after one rule's change,
 * decide again only the candidates the change reaches (a placing is kept for it).
 */
import { pushTo } from '../../common/multi-map.js';
import { finishNow, type Steps, stepClock } from '../../common/work-in-steps.js';
import type { JobItem } from '../../model/library/library.schemas.js';
import type { PlannedJob } from '../../model/dvr/planned-job.js';
import type { Airing } from '../lineup/airing.js';
import { byChannelNumber, type IdCandidate, setJobIds } from './job-ids.js';
import { episodeKeys, episodeLookupKeys, jobItemOf } from '../recording/job-item.js';
import type { StoredRule } from './rules/rule-types.js';
import { fits, type Placement, SourceSchedule } from './source-schedule.js';

/** A job the DVR already started: it keeps its stream, and its id is not planned again. */
export interface RunningJob {
  id: string;
  /** The rule that planned it, when one did. */
  ruleId?: number | undefined;
  name: string;
  start: number;
  end: number;
  channel: string;
  sourceId: string;
  /** What it records (see programmeKeyOf); absent, any airing of its rule it overlaps counts as it. */
  programme?: string | undefined;
  /** Its end when it started (epoch seconds): the guide may extend it up to MAX_EXTENSION past this. */
  plannedEnd?: number | undefined;
}

/** How far past the end it had when it started a recording follows a guide extending its programme. */
export const MAX_EXTENSION = 4 * 3600;

/** A plan: the jobs to keep scheduled, and new ends for recordings whose programme the guide extended. */
export interface Plan {
  jobs: PlannedJob[];
  /** Running job id → its new end, epoch seconds (only later than its end now). */
  extensions: Map<string, number>;
  /** Made by placeAgain: the jobs that differ from the plan it was made from (the store writes only those). */
  changes?: { gone: PlannedJob[]; added: PlannedJob[] };
}

export interface PlannerInput {
  /** Epoch seconds. */
  now: number;
  rules: readonly StoredRule[];
  /** Every airing that ends after `now`, in any order. */
  airings: Iterable<Airing>;
  /** Channel number → the sources that carry it, in order of preference. */
  channelSources: ReadonlyMap<string, readonly string[]>;
  /** Channel numbers the user hid in the lineup (no source's stream is offered for them). */
  hiddenChannels?: ReadonlySet<string>;
  /** Source id → simultaneous streams it allows. */
  sourceLimits: ReadonlyMap<string, number>;
  /** Source id → a name for error messages. */
  sourceNames?: ReadonlyMap<string, string>;
  /** Episode keys (see episodeKeys) of recordings that exist. */
  recordedKeys: ReadonlySet<string>;
  running: readonly RunningJob[];
  /** Ids of jobs already started or finished: never planned again, whatever the guide says now. */
  settledIds?: ReadonlySet<string>;
  /**
   * Every stored job's id (planned, recording or finished) → the programme it is for
   * (programmeKeyOf): a programme keeps its id across re-plans, and an id is never given
   * to another programme (see job-ids.ts).
   */
  knownIds?: ReadonlyMap<string, string>;
  /**
   * Which of `knownIds` no other programme may have: recording, finished, or skipped by
   * the user (default: all of them). A job merely planned gives its id up when its
   * programme goes (a rule's edit), so the rule's next programme there can have it.
   */
  heldIds?: ReadonlySet<string>;
  /** Job ids the user skipped by hand. */
  userSkips: ReadonlySet<string>;
  /** How far ahead weekly time slots are planned, seconds (default 14 days). */
  horizon?: number;
}

/**
 * The candidates running jobs record already: for each running job, of the candidates of
 * its rule on its channel that overlap it and are its programme (the guide moved or
 * extended it, or the rule's padding changed), the one starting nearest to it. Another
 * airing of the same programme beside it (a rerun just after, padding making them
 * overlap) is not it.
 */
export function coveredCandidates(
  running: readonly RunningJob[],
  candidates: readonly Candidate[],
): Map<Candidate, RunningJob> {
  const covered = new Map<Candidate, RunningJob>();
  for (const job of running) {
    let nearest: Candidate | undefined;
    for (const candidate of candidates) {
      if (
        candidate.rule.id !== job.ruleId ||
        !candidate.channels.includes(job.channel) ||
        !(job.start < candidate.end && candidate.start < job.end)
      )
        continue;
      if (job.programme !== undefined && job.programme !== candidate.programme) continue;
      if (!nearest || Math.abs(candidate.start - job.start) < Math.abs(nearest.start - job.start)) nearest = candidate;
    }
    if (nearest) covered.set(nearest, job);
  }
  return covered;
}

/**
 * Recordings whose programme the guide now says ends later go on to its new end, up to
 * MAX_EXTENSION past the end they had when they started; the running jobs are returned
 * with those ends, so what is placed after them sees their tuners taken for longer.
 */
export function extendRunning(
  input: PlannerInput,
  covered: ReadonlyMap<Candidate, RunningJob>,
): { running: RunningJob[]; extensions: Map<string, number> } {
  const extensions = new Map<string, number>();
  for (const [candidate, job] of covered) {
    const end = Math.min(candidate.end, (job.plannedEnd ?? job.end) + MAX_EXTENSION);
    if (end > job.end) extensions.set(job.id, end);
  }
  return { running: input.running.map((job) => ({ ...job, end: extensions.get(job.id) ?? job.end })), extensions };
}

/** What a rule found in the guide: an airing (or a time slot) it would record, on the channels it may use. */
export interface Candidate extends IdCandidate {
  rule: StoredRule;
  airing: Airing;
  channels: string[];
  end: number;
  dedupe: boolean;
  /** Worked out at the first placing and kept: the scheduler places kept candidates again after each rule change. */
  keys?: string[];
  /**
   * The keys that make it a rerun of what was placed, listed or recorded (episodeLookupKeys); worked out with `keys`.
   */
  lookup?: string[];
  item?: JobItem;
  job?: PlannedJob;
  /**
   * Why it found no tuner at its last placing: the same sources tried and the same placements in the way give the same
   * words.
   */
  refusal?: { tried: string[]; blockers: readonly Placement[]; error: string };
  /** Its place in the order of the last placing. */
  rank?: number;
  /** What the last placing made of it. */
  fate?: Fate;
}

/** A stream placed for a candidate (`by`); a running job's has none. */
export interface PlacedStream extends Placement {
  by?: Candidate;
}

/**
 * What placing made of a candidate: nothing (DROPPED: running, settled, ended, or an
 * episode recorded or placed already), or a job, placed (`stream`) or skipped (`listed`
 * when for want of a tuner: its episode is then listed as skipped once).
 */
export interface Fate {
  readonly job?: PlannedJob;
  readonly stream?: PlacedStream;
  readonly listed?: boolean;
}

export const DROPPED: Fate = Object.freeze({});

/** What a candidate's fate depends on besides itself: what was decided before it. */
export interface PlacingView {
  /** The streams on `sourceId` placed before `candidate` (and the running ones) that overlap it. */
  busy(sourceId: string, candidate: Candidate): readonly PlacedStream[];
  /** Whether one of `keys` was placed before `candidate`. */
  placed(keys: readonly string[], candidate: Candidate): boolean;
  /** Whether one of `keys` was listed as skipped before `candidate`. */
  listed(keys: readonly string[], candidate: Candidate): boolean;
}

/**
 * A placing, kept so that the next one after one rule's change decides again only what the change reaches (placeAgain).
 */
export interface Placing {
  /** What it was placed with. */
  input: PlannerInput;
  /** Every candidate, in placing order (each one's `rank` its index, `fate` what it became). */
  order: Candidate[];
  /** Source id → its streams: the running jobs' and every placed candidate's. */
  schedules: Map<string, SourceSchedule<PlacedStream>>;
  /** Episode key → the candidates placed with it, in order. */
  placers: Map<string, Candidate[]>;
  /** Episode key → the candidates listed as skipped with it, in order. */
  listers: Map<string, Candidate[]>;
  /** The candidates running jobs record already (see coveredCandidates). */
  covered: ReadonlyMap<Candidate, RunningJob>;
  plan: Plan;
}

const NONE: readonly never[] = Object.freeze([]);

/** The placing order (see the top of this file). */
export function compareCandidates(a: Candidate, b: Candidate): number {
  return (
    priority(b) - priority(a) ||
    a.start - b.start ||
    a.ruleId - b.ruleId ||
    byChannelNumber(a.channel, b.channel) ||
    compareText(a.programme, b.programme)
  );
}

const priority = (candidate: Candidate) => candidate.rule.definition.priority ?? 0;

/**
 * Places candidates (of any plan's finding) against the sources' limits: see the order of decisions in job-planner.ts.
 */
export function placeCandidates(input: PlannerInput, candidates: Candidate[]): Plan {
  return placeAll(input, candidates).plan;
}

/** placeCandidates, and the placing kept for placeAgain. Sorts `candidates` in place. */
export function placeAll(input: PlannerInput, candidates: Candidate[]): Placing {
  return finishNow(placingInSteps(input, candidates, Number.POSITIVE_INFINITY));
}

/**
 * placeAll, yielding after about `stepMs` of deciding (the caller lets the event loop
 * run, then goes on): a full plan of a 1,000-channel guide decides tens of thousands of
 * candidates, a tenth of a second that requests would wait behind (issue 21). The
 * placing is the same however it is stepped: the fates depend only on the order.
 */
export function* placingInSteps(input: PlannerInput, candidates: Candidate[], stepMs: number): Steps<Placing> {
  candidates.sort(compareCandidates);
  const schedules = new Map<string, SourceSchedule<PlacedStream>>();
  const covered = coveredCandidates(input.running, candidates);
  const { running, extensions } = extendRunning(input, covered);
  for (const job of running) scheduleIn(schedules, job.sourceId).add({ ...job });
  const known = input.knownIds ?? new Map<string, string>();
  setJobIds(candidates, known, input.heldIds ?? new Set(known.keys()));
  const placers = new Map<string, Candidate[]>();
  const listers = new Map<string, Candidate[]>();
  const view: PlacingView = {
    busy: (sourceId, candidate) => schedules.get(sourceId)?.overlapping(candidate.start, candidate.end) ?? NONE,
    placed: (keys) => hasAny(placers, keys),
    listed: (keys) => hasAny(listers, keys),
  };
  const runningIds = new Set(input.running.map((job) => job.id));
  const jobs: PlannedJob[] = [];
  const clock = stepClock(stepMs);
  for (let rank = 0; rank < candidates.length; rank++) {
    if (clock.due(rank)) yield;
    const candidate = candidates[rank] as Candidate;
    candidate.rank = rank;
    const fate = (candidate.fate = decide(input, runningIds, view, candidate, covered.has(candidate)));
    if (fate.stream) {
      scheduleIn(schedules, fate.stream.sourceId).add(fate.stream);
      for (const key of candidate.keys ?? NONE) pushTo(placers, key, candidate);
    }
    if (fate.listed) for (const key of candidate.keys ?? NONE) pushTo(listers, key, candidate);
    if (fate.job) jobs.push(fate.job);
  }
  return {
    input,
    order: candidates,
    schedules,
    placers,
    listers,
    covered,
    plan: { jobs: jobs.sort(byStartAndId), extensions },
  };
}

export function scheduleIn(
  schedules: Map<string, SourceSchedule<PlacedStream>>,
  sourceId: string,
): SourceSchedule<PlacedStream> {
  let schedule = schedules.get(sourceId);
  if (!schedule) schedules.set(sourceId, (schedule = new SourceSchedule()));
  return schedule;
}

/** The plan's order of jobs: by start, then id. */
export const byStartAndId = (a: PlannedJob, b: PlannedJob) => a.start - b.start || compareText(a.id, b.id);

/** One candidate's fate, given what was decided before it (`view`): see the order of decisions in job-planner.ts. */
export function decide(
  input: PlannerInput,
  runningIds: ReadonlySet<string>,
  view: PlacingView,
  candidate: Candidate,
  covered: boolean,
): Fate {
  const id = candidate.jobId as string;
  if (covered || runningIds.has(id) || input.settledIds?.has(id) || candidate.end <= input.now) return DROPPED;
  const keys = (candidate.keys ??= episodeKeys(candidate.airing));
  const lookup = (candidate.lookup ??= episodeLookupKeys(candidate.airing));
  if (candidate.dedupe && (hasAny(input.recordedKeys, lookup) || view.placed(lookup, candidate))) return DROPPED;
  if (input.userSkips.has(id))
    return { job: jobOf(candidate, id, keys, { skipped: true, error: 'skipped by the user' }) };
  const choice = chooseStream(input, view, candidate);
  if ('error' in choice) {
    // An episode that fits at none of its airings is listed as skipped once, at its first.
    if (candidate.dedupe && view.listed(lookup, candidate)) return DROPPED;
    return { job: jobOf(candidate, id, keys, { skipped: true, error: choice.error }), listed: true };
  }
  const job = jobOf(candidate, id, keys, { skipped: false, channel: choice.channel, sourceId: choice.sourceId });
  return { job, stream: streamOf(job, choice, candidate) };
}

export function hasAny(set: { has(key: string): boolean }, keys: readonly string[]): boolean {
  for (const key of keys) if (set.has(key)) return true;
  return false;
}

type Placed = Pick<PlannedJob, 'skipped' | 'error' | 'channel' | 'sourceId'>;

/**
 * A placed job's stream, the same object while the job is: a job skipped for want of a
 * tuner is then refused by the same placements as last time, and keeps its reason
 * without writing it again (see chooseStream), and placeAgain sees a fate unchanged.
 */
const streams = new WeakMap<PlannedJob, PlacedStream>();

function streamOf(job: PlannedJob, where: { channel: string; sourceId: string }, by: Candidate): PlacedStream {
  let stream = streams.get(job);
  if (!stream) streams.set(job, (stream = { ...where, start: job.start, end: job.end, name: job.name, by }));
  return stream;
}

/**
 * The candidate's job as placed. The one of its last placing when nothing about it
 * changed: the scheduler places kept candidates again after each rule change, and the
 * same object lets the store skip comparing it.
 */
function jobOf(candidate: Candidate, id: string, keys: readonly string[], placed: Placed): PlannedJob {
  const last = candidate.job;
  if (
    last &&
    last.id === id &&
    last.skipped === placed.skipped &&
    last.error === placed.error &&
    last.channel === placed.channel &&
    last.sourceId === placed.sourceId
  )
    return last;
  const job = baseJob(id, candidate, keys);
  job.skipped = placed.skipped;
  if (placed.error !== undefined) job.error = placed.error;
  if (placed.channel !== undefined) job.channel = placed.channel;
  if (placed.sourceId !== undefined) job.sourceId = placed.sourceId;
  candidate.job = job;
  return job;
}

function baseJob(id: string, candidate: Candidate, keys: readonly string[]): PlannedJob {
  const job: PlannedJob = {
    id,
    ruleId: candidate.rule.id,
    name: candidate.rule.definition.name ?? candidate.airing.title,
    start: candidate.start,
    end: candidate.end,
    channels: candidate.channels,
    skipped: false,
    item: (candidate.item ??= jobItemOf(candidate.airing)),
  };
  if (keys[0] !== undefined) job.episodeKey = keys[0];
  return job;
}

function chooseStream(
  input: PlannerInput,
  view: PlacingView,
  candidate: Candidate,
): { channel: string; sourceId: string } | { error: string } {
  // Placing runs for every candidate after every rule change: plain loops, and the words of a refusal only when they
  // change.
  let blockers: readonly Placement[] | undefined;
  let tried: string[] | undefined;
  for (const channel of candidate.channels) {
    const sources = input.channelSources.get(channel);
    if (!sources) continue;
    for (const sourceId of sources) {
      const busy = view.busy(sourceId, candidate);
      if (fits(busy, channel, candidate.start, candidate.end, input.sourceLimits.get(sourceId) ?? 1))
        return { channel, sourceId };
      (tried ??= []).push(input.sourceNames?.get(sourceId) ?? sourceId);
      if (!blockers || blockers.length === 0) blockers = busy;
    }
  }
  if (!tried) {
    const hidden = candidate.channels.some((channel) => input.hiddenChannels?.has(channel));
    return {
      error: hidden
        ? `you hid channel ${candidate.channels.join(', ')} in the lineup: show it again to record from it`
        : `no source carries channel ${candidate.channels.join(', ')}`,
    };
  }
  blockers ??= [];
  const last = candidate.refusal;
  if (last && sameItems(last.tried, tried) && sameItems(last.blockers, blockers)) return { error: last.error };
  // By start (then name): the same words whatever order the placements were found in.
  const names = [...new Set([...blockers].sort(byStartThenName).map((p) => p.name))].slice(0, 3).join(', ');
  const error = `no free tuner on ${[...new Set(tried)].join(', ')}${names ? `: already recording ${names}` : ''}`;
  candidate.refusal = { tried, blockers, error };
  return { error };
}

const byStartThenName = (a: Placement, b: Placement) => a.start - b.start || compareText(a.name, b.name);
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
