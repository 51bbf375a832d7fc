/**
 * Rules × guide → jobs. A pure function of its input (the clock is a number in it),
 * so every scheduling decision is unit-tested without timers, files or sockets.
 *
 * The order of decisions:
 * 1. each active rule finds its airings or time slots: its type (dvr/rules/) says how,
 *    in one pass over the guide shared by all types;
 * 2. the same programme at the same time on several channels becomes one candidate
 *    listing every channel (`channels`); different programmes one rule selects at the
 *    same time are candidates of their own, with ids of their own (assignIds);
 * 3. candidates are placed highest priority first, then earliest, then lowest rule id;
 *    an episode already recorded, or already placed earlier in this plan, is dropped;
 * 4. a candidate takes the first of its channels whose source still has a free
 *    stream for its whole time (recordings of one channel share one stream); what
 *    fits nowhere stays in the plan as `skipped` with an error saying why.
 */
import { pushTo } from '../common/multi-map.js';
import { showIdFor } from '../model/ids.js';
import type { JobItem } from '../model/library.schemas.js';
import type { PlannedJob } from '../model/planned-job.js';
import type { Airing } from './airing.js';
import type { CandidateSink, GuideNeeds, StoredRuleOf } from './rules/rule-type.js';
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

interface Candidate {
  rule: StoredRule;
  airing: Airing;
  channels: string[];
  start: number;
  end: number;
  dedupe: boolean;
}

export function planJobs(input: PlannerInput): PlannedJob[] {
  const candidates = new Map<string, Candidate>();
  const window = { now: input.now, horizon: input.now + (input.horizon ?? DEFAULT_HORIZON), startedRules: startedRules(input) };
  const sink: CandidateSink<RuleDefinition> = {
    airing: (rule, airing, channels, dedupe) => addCandidate(candidates, rule, airing, channels, dedupe),
    slot: (rule, airing, channel, start, end) => {
      const padded = { start: start - (rule.definition.padding_before ?? 0), end: end + (rule.definition.padding_after ?? 0) };
      candidates.set(`${padded.start}-${rule.id}`, { rule, airing, channels: [channel], ...padded, dedupe: false });
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
  return place(input, [...candidates.values()]);
}

/** Rules with a job that started (recording, or finished however it went): a one-programme rule is then done. */
function startedRules(input: PlannerInput): Set<number> {
  const started = new Set<number>();
  for (const job of input.running) if (job.ruleId !== undefined) started.add(job.ruleId);
  for (const id of input.settledIds ?? []) {
    const second = Number(id.split('-')[1]);
    if (Number.isSafeInteger(second)) started.add(second % SAME_START_STEP);
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
  matches(title: string, summary: string | null, seriesId: string | null): boolean;
} {
  const needs: GuideNeeds[] = byType(rules)
    .filter(({ rules }) => rules.length > 0)
    .map(({ name, rules }) => ruleTypeNamed(name).guideNeeds(rules));
  const matchers = needs.flatMap((need) => (need.matches ? [need.matches] : []));
  return {
    channels: new Set(needs.flatMap((need) => need.channels)),
    needsSummary: needs.some((need) => need.needsSummary),
    matches: (title, summary, seriesId) => matchers.some((matches) => matches(title, summary, seriesId)),
  };
}

function addCandidate(out: Map<string, Candidate>, rule: StoredRule, airing: Airing, channels: readonly string[], dedupe: boolean): void {
  const d = rule.definition;
  if (d.new_only && !airing.isNew) return;
  const allowed = d.channels ? channels.filter((channel) => d.channels?.includes(channel)) : channels;
  if (allowed.length === 0) return;
  const start = airing.start - (d.padding_before ?? 0);
  const end = airing.stop + (d.padding_after ?? 0);
  // One job per rule, start and programme: simulcasts of one programme merge their channels,
  // different programmes starting together (a keyword on two channels) are jobs of their own.
  const key = `${start}-${rule.id}-${programmeKey(airing)}`;
  const existing = out.get(key);
  if (existing) {
    for (const channel of allowed) if (!existing.channels.includes(channel)) existing.channels.push(channel);
    return;
  }
  out.set(key, { rule, airing, channels: [...allowed], start, end, dedupe });
}

/** What makes two airings one programme: the guide's programme id, else the title and episode title. */
function programmeKey(airing: Airing): string {
  return airing.programId ? `pid:${airing.programId}` : `t:${airing.title.toLowerCase()}|${(airing.episodeTitle ?? '').toLowerCase()}`;
}

/**
 * A job's id: `<start>-<n>`, the shape clients parse (the first number the start in epoch
 * seconds). The second is the rule's id; when one rule selects several programmes that
 * start at the same second, the first (by channel, then programme) keeps that and the
 * k-th after it gets the rule id + k × 2^32: still the rule's id modulo 2^32, never
 * another rule's id, and the same for the same guide at every re-plan.
 */
export const SAME_START_STEP = 2 ** 32;

function assignIds(candidates: readonly Candidate[]): Map<Candidate, string> {
  const groups = new Map<string, Candidate[]>();
  for (const candidate of candidates) pushTo(groups, `${candidate.start}-${candidate.rule.id}`, candidate);
  const ids = new Map<Candidate, string>();
  const order = (a: Candidate, b: Candidate) =>
    (a.channels[0] ?? '').localeCompare(b.channels[0] ?? '', 'en', { numeric: true }) || programmeKey(a.airing).localeCompare(programmeKey(b.airing));
  for (const [key, group] of groups) {
    group.sort(order);
    group.forEach((candidate, index) => ids.set(candidate, index === 0 ? key : `${candidate.start}-${candidate.rule.id + index * SAME_START_STEP}`));
  }
  return ids;
}

interface Placement {
  channel: string;
  sourceId: string;
  start: number;
  end: number;
  name: string;
}

/** Bucket width for finding the placements that overlap a time: most programmes are shorter. */
const BUCKET_SECONDS = 3600;

/**
 * One source's placed streams, indexed by hour, so the placements overlapping a
 * candidate are found without walking every job of a 14-day plan (tens of thousands).
 */
class SourceSchedule {
  private readonly buckets = new Map<number, Placement[]>();

  add(placement: Placement): void {
    const last = Math.floor((placement.end - 1) / BUCKET_SECONDS);
    for (let bucket = Math.floor(placement.start / BUCKET_SECONDS); bucket <= last; bucket++) pushTo(this.buckets, bucket, placement);
  }

  overlapping(start: number, end: number): Placement[] {
    const found = new Set<Placement>();
    const last = Math.floor((end - 1) / BUCKET_SECONDS);
    for (let bucket = Math.floor(start / BUCKET_SECONDS); bucket <= last; bucket++) {
      for (const p of this.buckets.get(bucket) ?? []) if (p.start < end && start < p.end) found.add(p);
    }
    return [...found];
  }
}

function place(input: PlannerInput, candidates: Candidate[]): PlannedJob[] {
  const priority = (c: Candidate) => c.rule.definition.priority ?? 0;
  candidates.sort((a, b) => priority(b) - priority(a) || a.start - b.start || a.rule.id - b.rule.id);
  const placements = new Map<string, SourceSchedule>();
  const scheduleOf = (sourceId: string) => {
    let schedule = placements.get(sourceId);
    if (!schedule) placements.set(sourceId, (schedule = new SourceSchedule()));
    return schedule;
  };
  for (const job of input.running) scheduleOf(job.sourceId).add({ ...job });
  const runningIds = new Set(input.running.map((job) => job.id));
  const placedKeys = new Set<string>();
  const skippedKeys = new Set<string>();
  const jobs: PlannedJob[] = [];
  const ids = assignIds(candidates);
  for (const candidate of candidates) {
    const id = ids.get(candidate) as string;
    if (runningIds.has(id) || input.settledIds?.has(id) || candidate.end <= input.now) continue;
    // The guide moved a programme that is recording (or a rule's padding changed): the running job covers it.
    if (input.running.some((r) => r.ruleId === candidate.rule.id && candidate.channels.includes(r.channel) && r.start < candidate.end && candidate.start < r.end)) continue;
    const keys = episodeKeys(candidate.airing);
    if (candidate.dedupe && keys.some((key) => input.recordedKeys.has(key) || placedKeys.has(key))) continue;
    const job = baseJob(id, candidate, keys);
    if (input.userSkips.has(id)) {
      jobs.push({ ...job, skipped: true, error: 'skipped by the user' });
      continue;
    }
    const choice = chooseStream(input, placements, candidate);
    if ('error' in choice) {
      // An episode that fits at none of its airings is listed as skipped once, at its first.
      if (candidate.dedupe && keys.some((key) => skippedKeys.has(key))) continue;
      for (const key of keys) skippedKeys.add(key);
      jobs.push({ ...job, skipped: true, error: choice.error });
      continue;
    }
    scheduleOf(choice.sourceId).add({ channel: choice.channel, sourceId: choice.sourceId, start: job.start, end: job.end, name: job.name });
    for (const key of keys) placedKeys.add(key);
    jobs.push({ ...job, channel: choice.channel, sourceId: choice.sourceId });
  }
  return jobs.sort((a, b) => a.start - b.start || a.id.localeCompare(b.id));
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
    item: jobItemOf(candidate.airing),
  };
  if (keys[0] !== undefined) job.episodeKey = keys[0];
  return job;
}

function chooseStream(
  input: PlannerInput,
  placements: ReadonlyMap<string, SourceSchedule>,
  candidate: Candidate,
): { channel: string; sourceId: string } | { error: string } {
  let blockers: Placement[] = [];
  const tried: string[] = [];
  for (const channel of candidate.channels) {
    for (const sourceId of input.channelSources.get(channel) ?? []) {
      const limit = input.sourceLimits.get(sourceId) ?? 1;
      const busy = placements.get(sourceId)?.overlapping(candidate.start, candidate.end) ?? [];
      if (fits(busy, channel, candidate.start, candidate.end, limit)) return { channel, sourceId };
      tried.push(input.sourceNames?.get(sourceId) ?? sourceId);
      if (blockers.length === 0) blockers = busy;
    }
  }
  if (tried.length === 0) return { error: `no source carries channel ${candidate.channels.join(', ')}` };
  const names = [...new Set(blockers.map((p) => p.name))].slice(0, 3).join(', ');
  return { error: `no free tuner on ${[...new Set(tried)].join(', ')}${names ? `: already recording ${names}` : ''}` };
}

/**
 * True when adding a stream of `channel` over [start, end) keeps the source within its
 * limit at every moment. Streams of the same channel count once (they share a connection).
 */
export function fits(busy: readonly Pick<Placement, 'channel' | 'start' | 'end'>[], channel: string, start: number, end: number, limit: number): boolean {
  const overlapping = busy.filter((p) => p.start < end && start < p.end);
  if (overlapping.length === 0) return limit >= 1;
  // Channel usage only changes at a placement's start, so checking those instants (and our own start) suffices.
  const instants = [start, ...overlapping.map((p) => p.start).filter((t) => t > start)];
  for (const t of instants) {
    const channels = new Set([channel]);
    for (const p of overlapping) if (p.start <= t && t < p.end) channels.add(p.channel);
    if (channels.size > limit) return false;
  }
  return true;
}

export type { Airing, RuleDefinition };
