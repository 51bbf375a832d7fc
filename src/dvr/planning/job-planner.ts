/**
 * Rules × guide → jobs. A pure function of its input (the clock is a number in it),
 * so every scheduling decision is unit-tested without timers, files or sockets.
 *
 * The order of decisions:
 * 1. each active rule finds its airings or time slots: its type (dvr/planning/rules/) says how,
 *    in one pass over the guide shared by all types;
 * 2. the same programme at the same time on several channels becomes one candidate
 *    listing every channel (`channels`); different programmes one rule selects at the
 *    same time are candidates of their own, with ids of their own (job-ids.ts);
 * 3. candidates are placed (job-placing.ts) highest priority first, then earliest, then
 *    lowest rule id; an episode already recorded, or already placed earlier in this
 *    plan, is dropped;
 * 4. a candidate takes the first of its channels whose source still has a free
 *    stream for its whole time (recordings of one channel share one stream); what
 *    fits nowhere stays in the plan as `skipped` with an error saying why.
 */
import { finishNow, type Steps, stepClock } from '../../common/work-in-steps.js';
import { pushTo } from '../../common/multi-map.js';
import type { PlannedJob } from '../../model/dvr/planned-job.js';
import type { Airing } from '../lineup/airing.js';
import { byChannelNumber, ruleOfJobId } from './job-ids.js';
import { programmeKeyOf } from '../recording/job-item.js';
import { type Candidate, type Plan, type PlannerInput, placeCandidates } from './job-placing.js';
import type { CandidateSink, GuideNeeds, MatchQuery, StoredRuleOf } from './rules/rule-type.js';
import {
  RULE_TYPES,
  type RuleDefinition,
  type RuleOfType,
  ruleTypeNamed,
  type RuleTypeName,
  type StoredRule,
} from './rules/rule-types.js';
import { isPlaceholder } from '../lineup/placeholder-airings.js';
export { SAME_START_STEP } from './job-ids.js';
export { episodeKeys, isMovie, jobItemOf, programmeKeyOf } from '../recording/job-item.js';
export {
  type Candidate as PlanCandidate,
  MAX_EXTENSION,
  type Plan,
  type PlannerInput,
  placeAll,
  placeCandidates,
  placingInSteps,
  type Placing,
  type RunningJob,
} from './job-placing.js';
export { fits } from './source-schedule.js';

const DEFAULT_HORIZON = 14 * 24 * 3600;

export function planJobs(input: PlannerInput): PlannedJob[] {
  return plan(input).jobs;
}

/** Rules × guide → a plan: the candidates each rule finds (findCandidates), placed (placeCandidates). */
export function plan(input: PlannerInput): Plan {
  return placeCandidates(input, [...findCandidates(input).values()].flat());
}

/**
 * Each active rule's candidates, by rule id. Pure like the rest: the scheduler keeps
 * them between plans (with their fates: job-placing-again.ts), so that a change to one
 * rule reads the guide for that rule only.
 */
export function findCandidates(input: CandidateSearch): Map<number, Candidate[]> {
  return finishNow(findCandidatesInSteps(input, Number.POSITIVE_INFINITY));
}

type CandidateSearch = Pick<PlannerInput, 'now' | 'rules' | 'airings' | 'horizon' | 'running' | 'settledIds'>;

/** findCandidates, pausing after about `stepMs` of reading airings (common/work-in-steps.ts). */
export function* findCandidatesInSteps(input: CandidateSearch, stepMs: number): Steps<Map<number, Candidate[]>> {
  const candidates = new Map<string, Candidate>();
  const window = {
    now: input.now,
    horizon: input.now + (input.horizon ?? DEFAULT_HORIZON),
    finishedRules: finishedRules(input),
    recordingRules: new Map(
      input.running.flatMap((job) =>
        job.ruleId === undefined ? [] : [[job.ruleId, { start: job.start, end: job.end }] as const],
      ),
    ),
  };
  const sink: CandidateSink<RuleDefinition> = {
    airing: (rule, airing, channels, dedupe) => addCandidate(candidates, rule, airing, channels, dedupe),
    slot: (rule, airing, channel, start, end) => {
      const padded = {
        start: start - (rule.definition.padding_before ?? 0),
        end: end + (rule.definition.padding_after ?? 0),
      };
      // A slot is its time, whatever is on: what describes it changes as programmes end, its identity does not.
      const programme = slotProgramme(rule.id, padded.start);
      candidates.set(`${padded.start}-${rule.id}`, {
        rule,
        ruleId: rule.id,
        airing,
        programme,
        channel,
        channels: [channel],
        ...padded,
        dedupe: false,
      });
    },
  };
  const planners = byType(input.rules)
    .filter(({ rules }) => rules.length > 0)
    .map(({ name, rules }) => ({
      planner: ruleTypeNamed(name).planner(rules, sink, window),
      byTime: ruleTypeNamed(name).recordsByTime,
    }));
  // A 14-day guide is read once per plan, every type seeing each airing; a placeholder hour only the types that record
  // by time.
  const clock = stepClock(stepMs);
  let seen = 0;
  for (const airing of input.airings) {
    if (clock.due(++seen)) yield;
    if (airing.stop <= input.now) continue;
    const placeholder = isPlaceholder(airing);
    for (const { planner, byTime } of planners) if (byTime || !placeholder) planner.see(airing);
  }
  for (const { planner } of planners) planner.finish();
  const byRule = new Map<number, Candidate[]>();
  for (const candidate of candidates.values()) pushTo(byRule, candidate.ruleId, candidate);
  return byRule;
}

/**
 * Rules with a job that finished, however it went (the second number of its id, modulo 2^32): a one-programme rule is
 * then done.
 */
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
function byType(
  rules: readonly StoredRule[],
): { name: RuleTypeName; rules: StoredRuleOf<RuleOfType<RuleTypeName>>[] }[] {
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
  /**
   * False when only `channels` matter (no rule reads titles, summaries or series ids): the guide is then read by
   * channel.
   */
  hasMatchers: boolean;
  matches(title: string, summary: string | null, seriesId: string | null): boolean;
  /**
   * Every matcher as one indexed query (see GuideNeeds.query), when each can be said so and words to look for in every
   * summary are few.
   */
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
  return {
    seriesIds: all.flatMap((query) => query.seriesIds),
    titles: all.flatMap((query) => query.titles),
    substrings,
  };
}

function addCandidate(
  out: Map<string, Candidate>,
  rule: StoredRule,
  airing: Airing,
  channels: readonly string[],
  dedupe: boolean,
): void {
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
    if (
      airing.stop > existing.airing.stop ||
      (airing.stop === existing.airing.stop &&
        byChannelNumber(airing.channels[0] ?? '', existing.airing.channels[0] ?? '') < 0)
    )
      existing.airing = airing;
    existing.end = Math.max(existing.end, end);
    return;
  }
  const channelsByNumber = [...allowed].sort(byChannelNumber);
  out.set(key, {
    rule,
    ruleId: rule.id,
    airing,
    programme: programmeKeyOf(airing),
    channel: channelsByNumber[0] as string,
    channels: channelsByNumber,
    start,
    end,
    dedupe,
  });
}

/** The identity of a time slot's job (see programmeKeyOf): its rule and its (padded) start. */
export const slotProgramme = (ruleId: number, start: number) => `slot:${ruleId}@${start}`;

export type { Airing, RuleDefinition };
