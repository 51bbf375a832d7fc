/**
 * Rules × guide → jobs. A pure function of its input (the clock is a number in it),
 * so every scheduling decision is unit-tested without timers, files or sockets.
 *
 * The order of decisions:
 * 1. each active rule finds its airings or time slots: its type (dvr/rules/) says how,
 *    in one pass over the guide shared by all types;
 * 2. the same programme at the same time on several channels becomes one candidate
 *    listing every channel (`channels`); different programmes one rule selects at the
 *    same time are candidates of their own, with ids of their own (job-ids.ts);
 * 3. candidates are placed highest priority first, then earliest, then lowest rule id;
 *    an episode already recorded, or already placed earlier in this plan, is dropped;
 * 4. a candidate takes the first of its channels whose source still has a free
 *    stream for its whole time (recordings of one channel share one stream); what
 *    fits nowhere stays in the plan as `skipped` with an error saying why.
 */
import { pushTo } from '../common/multi-map.js';
import { byChannelNumber, type IdCandidate, ruleOfJobId, setJobIds } from './job-ids.js';
import { fits, type Placement, SourceSchedule } from './source-schedule.js';
export { fits } from './source-schedule.js';
export { SAME_START_STEP } from './job-ids.js';
import { showIdFor } from '../model/ids.js';
import type { JobItem } from '../model/library.schemas.js';
import type { PlannedJob } from '../model/planned-job.js';
import type { Airing } from './airing.js';
import type { CandidateSink, GuideNeeds, MatchQuery, StoredRuleOf } from './rules/rule-type.js';
import { RULE_TYPES, type RuleDefinition, type RuleOfType, ruleTypeNamed, type RuleTypeName, type StoredRule } from './rules/rule-types.js';

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
}

export interface PlannerInput {
  /** Epoch seconds. */
  now: number;
  rules: readonly StoredRule[];
  /** Every airing that ends after `now`, in any order. */
  airings: Iterable<Airing>;
  /** Channel number → the sources that carry it, in order of preference. */
  channelSources: ReadonlyMap<string, readonly string[]>;
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

const DEFAULT_HORIZON = 14 * 24 * 3600;

/**
 * The keys under which an airing counts as "already recorded": its programme id, and
 * its show + season + episode. A programme with neither (news, sport) has none, so it
 * is never taken for a rerun.
 */
export function episodeKeys(airing: Pick<Airing, 'programId' | 'title' | 'season' | 'episode'>): string[] {
  const keys: string[] = [];
  if (airing.programId) keys.push(`pid:${airing.programId}`);
  if (airing.season !== undefined && airing.episode !== undefined) {
    keys.push(`sxe:${airing.title.toLowerCase()}|${airing.season}|${airing.episode}`);
  }
  return keys;
}

/** Movies are told apart by the guide's category or a Gracenote movie id; everything else is an episode. */
export function isMovie(airing: Pick<Airing, 'categories' | 'programId' | 'season' | 'episode' | 'episodeTitle'>): boolean {
  if (airing.programId?.startsWith('MV')) return true;
  if (airing.season !== undefined || airing.episode !== undefined || airing.episodeTitle) return false;
  return (airing.categories ?? []).some((category) => /^(movie|film|feature film)s?$/i.test(category));
}

/** The job's `item`: the airing in episode or movie shape, nothing recorded yet. */
export function jobItemOf(airing: Airing): JobItem {
  const common: JobItem = {
    title: airing.title,
    duration: airing.stop - airing.start,
    playback_time: 0,
    watched: false,
    favorited: false,
    delayed: false,
    cancelled: false,
    corrupted: false,
    completed: false,
    processed: false,
    locked: false,
    verified: false,
  };
  if (airing.programId) common.program_id = airing.programId;
  if (airing.summary) common.summary = common.full_summary = airing.summary;
  if (airing.rating) common.content_rating = airing.rating;
  if (airing.image) common.image_url = airing.image;
  if (airing.categories && airing.categories.length > 0) common.categories = common.genres = airing.categories;
  if (isMovie(airing)) {
    if (airing.year !== undefined) common.release_year = airing.year;
    return common;
  }
  common.show_id = showIdFor({ show: airing.title });
  if (airing.episodeTitle) common.episode_title = airing.episodeTitle;
  if (airing.season !== undefined) common.season_number = airing.season;
  if (airing.episode !== undefined) common.episode_number = airing.episode;
  if (airing.originalAirDate) common.original_air_date = airing.originalAirDate;
  return common;
}

interface Candidate extends IdCandidate {
  rule: StoredRule;
  airing: Airing;
  channels: string[];
  end: number;
  dedupe: boolean;
  /** Worked out at the first placing and kept: the scheduler places kept candidates again after each rule change. */
  keys?: string[];
  item?: JobItem;
  job?: PlannedJob;
  /** Why it found no tuner at its last placing: the same sources tried and the same placements in the way give the same words. */
  refusal?: { tried: string[]; blockers: Placement[]; error: string };
}

export function planJobs(input: PlannerInput): PlannedJob[] {
  return plan(input).jobs;
}

/** Rules × guide → a plan: the candidates each rule finds (findCandidates), placed (placeCandidates). */
export function plan(input: PlannerInput): Plan {
  return placeCandidates(input, [...findCandidates(input).values()].flat());
}

/** What a rule found in the guide, before placing: opaque outside the planner (kept by the scheduler between plans). */
export type { Candidate as PlanCandidate };

/**
 * Each active rule's candidates, by rule id. Pure like the rest: the scheduler keeps
 * them between plans, so that a change to one rule reads the guide for that rule only
 * and places everything again (placing is cheap; reading a 14-day guide is not).
 */
export function findCandidates(input: Pick<PlannerInput, 'now' | 'rules' | 'airings' | 'horizon' | 'running' | 'settledIds'>): Map<number, Candidate[]> {
  const candidates = new Map<string, Candidate>();
  const window = {
    now: input.now,
    horizon: input.now + (input.horizon ?? DEFAULT_HORIZON),
    finishedRules: finishedRules(input),
    recordingRules: new Map(input.running.flatMap((job) => (job.ruleId === undefined ? [] : [[job.ruleId, { start: job.start, end: job.end }] as const]))),
  };
  const sink: CandidateSink<RuleDefinition> = {
    airing: (rule, airing, channels, dedupe) => addCandidate(candidates, rule, airing, channels, dedupe),
    slot: (rule, airing, channel, start, end) => {
      const padded = { start: start - (rule.definition.padding_before ?? 0), end: end + (rule.definition.padding_after ?? 0) };
      // A slot is its time, whatever is on: what describes it changes as programmes end, its identity does not.
      const programme = slotProgramme(rule.id, padded.start);
      candidates.set(`${padded.start}-${rule.id}`, { rule, ruleId: rule.id, airing, programme, channel, channels: [channel], ...padded, dedupe: false });
    },
  };
  const planners = byType(input.rules)
    .filter(({ rules }) => rules.length > 0)
    .map(({ name, rules }) => ruleTypeNamed(name).planner(rules, sink, window));
  // A 14-day guide is read once per plan, every type seeing each airing.
  for (const airing of input.airings) {
    if (airing.stop <= input.now) continue;
    for (const planner of planners) planner.see(airing);
  }
  for (const planner of planners) planner.finish();
  const byRule = new Map<number, Candidate[]>();
  for (const candidate of candidates.values()) pushTo(byRule, candidate.ruleId, candidate);
  return byRule;
}

/** Rules with a job that finished, however it went (the second number of its id, modulo 2^32): a one-programme rule is then done. */
function finishedRules(input: Pick<PlannerInput, 'settledIds' | 'running'>): Set<number> {
  const started = new Set<number>();
  // The stored "settled" ids include the jobs recording now: those are not finished.
  const running = new Set(input.running.map((job) => job.id));
  for (const id of input.settledIds ?? []) {
    if (running.has(id)) continue;
    const rule = ruleOfJobId(id);
    if (rule !== undefined) started.add(rule);
  }
  return started;
}

/** Active (not paused) rules grouped by type, in the table's order. */
function byType(rules: readonly StoredRule[]): { name: RuleTypeName; rules: StoredRuleOf<RuleOfType<RuleTypeName>>[] }[] {
  const active = rules.filter((rule) => !rule.definition.paused);
  return RULE_TYPES.map(({ type }) => ({ name: type, rules: active.filter((rule) => isOfType(rule, type)) }));
}

function isOfType<K extends RuleTypeName>(rule: StoredRule, type: K): rule is StoredRuleOf<RuleOfType<K>> {
  return rule.definition.type === type;
}

/**
 * What a plan can use from the guide, so the database hands over only those rows: the
 * union of what each type needs (see GuideNeeds).
 */
export function guidePrefilter(rules: readonly StoredRule[]): {
  channels: Set<string>;
  needsSummary: boolean;
  /** False when only `channels` matter (no rule reads titles, summaries or series ids): the guide is then read by channel. */
  hasMatchers: boolean;
  matches(title: string, summary: string | null, seriesId: string | null): boolean;
  /** Every matcher as one indexed query (see GuideNeeds.query), when each can be said so and words to look for in every summary are few. */
  query: MatchQuery | undefined;
} {
  const needs: GuideNeeds[] = byType(rules)
    .filter(({ rules }) => rules.length > 0)
    .map(({ name, rules }) => ruleTypeNamed(name).guideNeeds(rules));
  const matching = needs.filter((need) => need.matches);
  const matchers = matching.flatMap((need) => (need.matches ? [need.matches] : []));
  return {
    channels: new Set(needs.flatMap((need) => need.channels)),
    needsSummary: needs.some((need) => need.needsSummary),
    hasMatchers: matchers.length > 0,
    matches: (title, summary, seriesId) => matchers.some((matches) => matches(title, summary, seriesId)),
    query: oneQuery(matching.map((need) => need.query)),
  };
}

/**
 * Substrings are looked for by SQLite's LIKE in every title and summary, one pass per
 * word: beyond a few (a full plan's fifty keywords) one JavaScript pattern of them all is faster.
 */
const QUERY_SUBSTRINGS_MAX = 4;

function oneQuery(queries: readonly (MatchQuery | undefined)[]): MatchQuery | undefined {
  if (queries.some((query) => query === undefined)) return undefined;
  const all = queries as readonly MatchQuery[];
  const substrings = all.flatMap((query) => query.substrings);
  if (substrings.length > QUERY_SUBSTRINGS_MAX) return undefined;
  return { seriesIds: all.flatMap((query) => query.seriesIds), titles: all.flatMap((query) => query.titles), substrings };
}

function addCandidate(out: Map<string, Candidate>, rule: StoredRule, airing: Airing, channels: readonly string[], dedupe: boolean): void {
  const d = rule.definition;
  if (d.new_only && !airing.isNew) return;
  const allowed = d.channels ? channels.filter((channel) => d.channels?.includes(channel)) : channels;
  if (allowed.length === 0) return;
  const start = airing.start - (d.padding_before ?? 0);
  const end = airing.stop + (d.padding_after ?? 0);
  // One job per rule, start and programme: simulcasts of one programme merge their channels
  // (to the latest end, should one channel's airing run longer), and different programmes
  // starting together (a keyword on two channels) are jobs of their own.
  const key = `${start}-${rule.id}-${programmeKeyOf(airing)}`;
  const existing = out.get(key);
  if (existing) {
    // Whatever order the guide was read in (a rule's edit reads it through an index, a full
    // plan in another order): channels by number, and the airing that ends last describes it.
    for (const channel of allowed) if (!existing.channels.includes(channel)) existing.channels.push(channel);
    existing.channels.sort(byChannelNumber);
    existing.channel = existing.channels[0] as string;
    if (airing.stop > existing.airing.stop || (airing.stop === existing.airing.stop && byChannelNumber(airing.channels[0] ?? '', existing.airing.channels[0] ?? '') < 0)) existing.airing = airing;
    existing.end = Math.max(existing.end, end);
    return;
  }
  const channelsByNumber = [...allowed].sort(byChannelNumber);
  out.set(key, { rule, ruleId: rule.id, airing, programme: programmeKeyOf(airing), channel: channelsByNumber[0] as string, channels: channelsByNumber, start, end, dedupe });
}

/** The identity of a time slot's job (see programmeKeyOf): its rule and its (padded) start. */
export const slotProgramme = (ruleId: number, start: number) => `slot:${ruleId}@${start}`;

/** What makes two airings one programme: the guide's programme id, else the title and episode title. */
export function programmeKeyOf(airing: { programId?: string | undefined; title: string; episodeTitle?: string | undefined }): string {
  return airing.programId ? `pid:${airing.programId}` : `t:${airing.title.toLowerCase()}|${(airing.episodeTitle ?? '').toLowerCase()}`;
}

/**
 * The candidates running jobs record already: for each running job, of the candidates of
 * its rule on its channel that overlap it and are its programme (the guide moved or
 * extended it, or the rule's padding changed), the one starting nearest to it. Another
 * airing of the same programme beside it (a rerun just after, padding making them
 * overlap) is not it.
 */
function coveredCandidates(running: readonly RunningJob[], candidates: readonly Candidate[]): Map<Candidate, RunningJob> {
  const covered = new Map<Candidate, RunningJob>();
  for (const job of running) {
    let nearest: Candidate | undefined;
    for (const candidate of candidates) {
      if (candidate.rule.id !== job.ruleId || !candidate.channels.includes(job.channel) || !(job.start < candidate.end && candidate.start < job.end)) continue;
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
function extendRunning(input: PlannerInput, covered: ReadonlyMap<Candidate, RunningJob>): { running: RunningJob[]; extensions: Map<string, number> } {
  const extensions = new Map<string, number>();
  for (const [candidate, job] of covered) {
    const end = Math.min(candidate.end, (job.plannedEnd ?? job.end) + MAX_EXTENSION);
    if (end > job.end) extensions.set(job.id, end);
  }
  return { running: input.running.map((job) => ({ ...job, end: extensions.get(job.id) ?? job.end })), extensions };
}

/** Places candidates (of any plan's finding) against the sources' limits: see the order of decisions above. */
export function placeCandidates(input: PlannerInput, candidates: Candidate[]): Plan {
  const priority = (c: Candidate) => c.rule.definition.priority ?? 0;
  // A total order, so a plan does not depend on the order the guide was read in (a rule's
  // edit reads it through an index): two programmes of a rule at one second go by channel.
  candidates.sort((a, b) => priority(b) - priority(a) || a.start - b.start || a.rule.id - b.rule.id || byChannelNumber(a.channel, b.channel) || compareText(a.programme, b.programme));
  const placements = new Map<string, SourceSchedule>();
  const scheduleOf = (sourceId: string) => {
    let schedule = placements.get(sourceId);
    if (!schedule) placements.set(sourceId, (schedule = new SourceSchedule()));
    return schedule;
  };
  const covered = coveredCandidates(input.running, candidates);
  const { running, extensions } = extendRunning(input, covered);
  for (const job of running) scheduleOf(job.sourceId).add({ ...job });
  const runningIds = new Set(input.running.map((job) => job.id));
  const placedKeys = new Set<string>();
  const skippedKeys = new Set<string>();
  const jobs: PlannedJob[] = [];
  const known = input.knownIds ?? new Map<string, string>();
  setJobIds(candidates, known, input.heldIds ?? new Set(known.keys()));
  for (const candidate of candidates) {
    const id = candidate.jobId as string;
    if (runningIds.has(id) || input.settledIds?.has(id) || candidate.end <= input.now) continue;
    if (covered.has(candidate)) continue;
    const keys = (candidate.keys ??= episodeKeys(candidate.airing));
    if (candidate.dedupe && (hasAny(input.recordedKeys, keys) || hasAny(placedKeys, keys))) continue;
    if (input.userSkips.has(id)) {
      jobs.push(jobOf(candidate, id, keys, { skipped: true, error: 'skipped by the user' }));
      continue;
    }
    const choice = chooseStream(input, placements, candidate);
    if ('error' in choice) {
      // An episode that fits at none of its airings is listed as skipped once, at its first.
      if (candidate.dedupe && hasAny(skippedKeys, keys)) continue;
      for (const key of keys) skippedKeys.add(key);
      jobs.push(jobOf(candidate, id, keys, { skipped: true, error: choice.error }));
      continue;
    }
    const job = jobOf(candidate, id, keys, { skipped: false, channel: choice.channel, sourceId: choice.sourceId });
    scheduleOf(choice.sourceId).add(placementOf(job, choice));
    for (const key of keys) placedKeys.add(key);
    jobs.push(job);
  }
  return { jobs: jobs.sort((a, b) => a.start - b.start || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)), extensions };
}

function hasAny(set: ReadonlySet<string>, keys: readonly string[]): boolean {
  for (const key of keys) if (set.has(key)) return true;
  return false;
}

type Placed = Pick<PlannedJob, 'skipped' | 'error' | 'channel' | 'sourceId'>;

/**
 * A placed job's stream, the same object while the job is: a job skipped for want of a
 * tuner is then refused by the same placements as last time, and keeps its reason
 * without writing it again (see chooseStream).
 */
const placements = new WeakMap<PlannedJob, Placement>();

function placementOf(job: PlannedJob, where: { channel: string; sourceId: string }): Placement {
  let placement = placements.get(job);
  if (!placement) placements.set(job, (placement = { ...where, start: job.start, end: job.end, name: job.name }));
  return placement;
}

/**
 * The candidate's job as placed. The one of its last placing when nothing about it
 * changed: the scheduler places kept candidates again after each rule change, and the
 * same object lets the store skip comparing it.
 */
function jobOf(candidate: Candidate, id: string, keys: readonly string[], placed: Placed): PlannedJob {
  const last = candidate.job;
  if (last && last.id === id && last.skipped === placed.skipped && last.error === placed.error && last.channel === placed.channel && last.sourceId === placed.sourceId) return last;
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
  placements: ReadonlyMap<string, SourceSchedule>,
  candidate: Candidate,
): { channel: string; sourceId: string } | { error: string } {
  // Placing runs for every candidate after every rule change: plain loops, and the words of a refusal only when they change.
  let blockers: Placement[] | undefined;
  let tried: string[] | undefined;
  for (const channel of candidate.channels) {
    const sources = input.channelSources.get(channel);
    if (!sources) continue;
    for (const sourceId of sources) {
      const busy = placements.get(sourceId)?.overlapping(candidate.start, candidate.end) ?? [];
      if (fits(busy, channel, candidate.start, candidate.end, input.sourceLimits.get(sourceId) ?? 1)) return { channel, sourceId };
      (tried ??= []).push(input.sourceNames?.get(sourceId) ?? sourceId);
      if (!blockers || blockers.length === 0) blockers = busy;
    }
  }
  if (!tried) return { error: `no source carries channel ${candidate.channels.join(', ')}` };
  blockers ??= [];
  const last = candidate.refusal;
  if (last && sameItems(last.tried, tried) && sameItems(last.blockers, blockers)) return { error: last.error };
  const names = [...new Set(blockers.map((p) => p.name))].slice(0, 3).join(', ');
  const error = `no free tuner on ${[...new Set(tried)].join(', ')}${names ? `: already recording ${names}` : ''}`;
  candidate.refusal = { tried, blockers, error };
  return { error };
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export type { Airing, RuleDefinition };
