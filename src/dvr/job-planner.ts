/**
 * Rules × guide → jobs. A pure function of its input (the clock is a number in it),
 * so every scheduling decision is unit-tested without timers, files or sockets.
 *
 * The order of decisions:
 * 1. each active rule finds its airings (series, keyword, program) or its time slots;
 * 2. the same programme at the same time on several channels becomes one candidate
 *    listing every channel (`channels`);
 * 3. candidates are placed highest priority first, then earliest, then lowest rule id;
 *    an episode already recorded, or already placed earlier in this plan, is dropped;
 * 4. a candidate takes the first of its channels whose source still has a free
 *    stream for its whole time (recordings of one channel share one stream); what
 *    fits nowhere stays in the plan as `skipped` with an error saying why.
 */
import { showIdFor } from '../model/ids.js';
import type { JobItem } from '../model/library.schemas.js';
import type { PlannedJob } from '../model/planned-job.js';
import type { ProgrammeFields } from '../repositories/guide.repository.js';
import { type RuleDefinition, ruleDisplayName, type SlotRule, type StoredRule } from '../model/rule.schemas.js';

/** One programme from the guide, on every channel number its guide channel maps to. */
export interface Airing extends ProgrammeFields {
  channels: string[];
}

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
  const active = input.rules.filter((rule) => !rule.definition.paused);
  const candidates = new Map<string, Candidate>();
  const slotAirings = collectGuideMatches(input, active, candidates);
  collectSlots(input, active, slotAirings, candidates);
  return place(input, [...candidates.values()]);
}

/**
 * Series, keyword and program rules, in one pass over the airings (a 14-day guide is
 * read once per plan); the same pass keeps the airings of channels that slot rules name.
 */
function collectGuideMatches(input: PlannerInput, rules: readonly StoredRule[], out: Map<string, Candidate>): Map<string, Airing[]> {
  const bySeriesId = new Map<string, StoredRule[]>();
  const byTitle = new Map<string, StoredRule[]>();
  const keywords: { rule: StoredRule; needle: string }[] = [];
  const programs = new Map<string, StoredRule[]>();
  const slotChannels = new Set<string>();
  for (const rule of rules) {
    const d = rule.definition;
    if (d.type === 'series') {
      if (d.series_id) push(bySeriesId, d.series_id, rule);
      else if (d.title) push(byTitle, d.title.toLowerCase(), rule);
    } else if (d.type === 'keyword') keywords.push({ rule, needle: d.keyword.toLowerCase() });
    else if (d.type === 'program') push(programs, `${d.channel}@${d.start_time}`, rule);
    else slotChannels.add(d.channel);
  }
  const keywordRulesIn = keywordMatcher(keywords);
  const slotAirings = new Map<string, Airing[]>();
  const lowerTitles = new Map<string, string>();
  const matched: StoredRule[] = [];
  const add = (rules: readonly StoredRule[] | undefined) => {
    if (rules) for (const rule of rules) if (!matched.includes(rule)) matched.push(rule);
  };
  for (const airing of input.airings) {
    if (airing.stop <= input.now) continue;
    if (slotChannels.size > 0) for (const channel of airing.channels) if (slotChannels.has(channel)) push(slotAirings, channel, airing);
    matched.length = 0;
    if (airing.seriesId && bySeriesId.size > 0) add(bySeriesId.get(airing.seriesId));
    if (byTitle.size > 0) {
      let lower = lowerTitles.get(airing.title);
      if (lower === undefined) lowerTitles.set(airing.title, (lower = airing.title.toLowerCase()));
      add(byTitle.get(lower));
    }
    if (keywords.length > 0) {
      add(keywordRulesIn(airing.title, true));
      add(keywordRulesIn(airing.summary, false));
    }
    for (const rule of matched) addCandidate(out, rule, airing, airing.channels, true);
    if (programs.size === 0) continue;
    for (const channel of airing.channels) {
      for (const rule of programs.get(`${channel}@${airing.start}`) ?? []) addCandidate(out, rule, airing, [channel], false);
    }
  }
  return slotAirings;
}

/**
 * What a plan can use from the guide, so the database hands over only those rows:
 * airings on the channels of slot and program rules, and airings whose title, series
 * id or (for keyword rules) summary some rule matches. The planner checks every
 * airing again; this only spares it reading the rest of a 14-day guide.
 */
export function guidePrefilter(rules: readonly StoredRule[]): {
  channels: Set<string>;
  needsSummary: boolean;
  matches(title: string, summary: string | null, seriesId: string | null): boolean;
} {
  const active = rules.filter((rule) => !rule.definition.paused);
  const channels = new Set<string>();
  const seriesIds = new Set<string>();
  const titles = new Set<string>();
  const keywords: { rule: StoredRule; needle: string }[] = [];
  for (const rule of active) {
    const d = rule.definition;
    if (d.type === 'slot' || d.type === 'program') channels.add(d.channel);
    else if (d.type === 'keyword') keywords.push({ rule, needle: d.keyword.toLowerCase() });
    else if (d.series_id) seriesIds.add(d.series_id);
    else if (d.title) titles.add(d.title.toLowerCase());
  }
  const keywordRulesIn = keywordMatcher(keywords);
  return {
    channels,
    needsSummary: keywords.length > 0,
    matches: (title, summary, seriesId) =>
      (seriesId !== null && seriesIds.has(seriesId)) ||
      (titles.size > 0 && titles.has(title.toLowerCase())) ||
      keywordRulesIn(title, true).length > 0 ||
      (summary !== null && keywordRulesIn(summary, false).length > 0),
  };
}

/**
 * Which keyword rules a text matches (case ignored), fast enough for every title and
 * summary of a 14-day guide. One case-blind pattern of all keywords, longest first, is
 * searched from each match's start + 1, so every position where some keyword begins is
 * found; the keyword found there implies every keyword it contains (a shorter one
 * beginning at the same place is one of those). Titles repeat (reruns, simulcasts), so
 * their answers are remembered. Non-ASCII keywords fall back to one search per keyword,
 * where toLowerCase and the pattern's case folding could disagree.
 */
export function keywordMatcher(keywords: readonly { rule: StoredRule; needle: string }[]): (text: string | undefined, remember: boolean) => readonly StoredRule[] {
  if (keywords.length === 0) return () => [];
  const needles = [...new Set(keywords.map(({ needle }) => needle))].sort((a, b) => b.length - a.length);
  const rulesOf = new Map<string, StoredRule[]>();
  for (const needle of needles) {
    const contained = keywords.filter((k) => needle.includes(k.needle)).map((k) => k.rule);
    rulesOf.set(needle, [...new Set(contained)]);
  }
  // eslint-disable-next-line no-control-regex
  const ascii = needles.every((needle) => /^[\x00-\x7f]*$/.test(needle));
  const pattern = new RegExp(needles.map((needle) => needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gi');
  const search = (text: string): StoredRule[] => {
    if (!ascii) {
      const lower = text.toLowerCase();
      return keywords.filter(({ needle }) => lower.includes(needle)).map(({ rule }) => rule);
    }
    const found: StoredRule[] = [];
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      for (const rule of rulesOf.get(match[0].toLowerCase()) ?? []) if (!found.includes(rule)) found.push(rule);
      pattern.lastIndex = match.index + 1;
    }
    return found;
  };
  const remembered = new Map<string, readonly StoredRule[]>();
  return (text, remember) => {
    if (!text) return [];
    if (!remember) return search(text);
    let found = remembered.get(text);
    if (!found) remembered.set(text, (found = search(text)));
    return found;
  };
}

function addCandidate(out: Map<string, Candidate>, rule: StoredRule, airing: Airing, channels: readonly string[], dedupe: boolean): void {
  const d = rule.definition;
  if (d.new_only && !airing.isNew) return;
  const allowed = d.channels ? channels.filter((channel) => d.channels?.includes(channel)) : channels;
  if (allowed.length === 0) return;
  const start = airing.start - (d.padding_before ?? 0);
  const end = airing.stop + (d.padding_after ?? 0);
  // One job per rule and start (the job id says so); simulcasts of one programme merge their channels.
  const key = `${start}-${rule.id}`;
  const existing = out.get(key);
  if (existing) {
    if (sameProgramme(existing.airing, airing)) {
      for (const channel of allowed) if (!existing.channels.includes(channel)) existing.channels.push(channel);
    }
    return;
  }
  out.set(key, { rule, airing, channels: [...allowed], start, end, dedupe });
}

function sameProgramme(a: Airing, b: Airing): boolean {
  if (a.programId && b.programId) return a.programId === b.programId;
  return a.title.toLowerCase() === b.title.toLowerCase() && (a.episodeTitle ?? '') === (b.episodeTitle ?? '');
}

/** Time-slot rules: their occurrences, described by the airing that overlaps each most. */
function collectSlots(input: PlannerInput, rules: readonly StoredRule[], byChannel: ReadonlyMap<string, Airing[]>, out: Map<string, Candidate>): void {
  const horizon = input.now + (input.horizon ?? DEFAULT_HORIZON);
  for (const rule of rules) {
    const d = rule.definition;
    if (d.type !== 'slot') continue;
    for (const start of slotStarts(d, input.now, horizon)) {
      const end = start + d.duration;
      const airing = describeSlot(d, start, end, byChannel.get(d.channel) ?? []);
      const padded = { start: start - (d.padding_before ?? 0), end: end + (d.padding_after ?? 0) };
      out.set(`${padded.start}-${rule.id}`, { rule, airing, channels: [d.channel], ...padded, dedupe: false });
    }
  }
}

/** Start times of a slot that end after `now` and start before `horizon`; weekly ones keep their local wall-clock time across DST. */
export function slotStarts(rule: Pick<SlotRule, 'start_time' | 'duration' | 'weekly'>, now: number, horizon: number): number[] {
  if (!rule.weekly) return rule.start_time + rule.duration > now ? [rule.start_time] : [];
  const starts: number[] = [];
  const first = new Date(rule.start_time * 1000);
  // Skip whole weeks already past, then walk forward by local calendar days.
  const weeksPast = Math.max(0, Math.floor((now - rule.start_time - rule.duration) / (7 * 86400)));
  for (let week = weeksPast; ; week++) {
    const at = new Date(first);
    at.setDate(first.getDate() + week * 7);
    const start = Math.floor(at.getTime() / 1000);
    if (start >= horizon) break;
    if (start + rule.duration > now) starts.push(start);
  }
  return starts;
}

function describeSlot(rule: SlotRule, start: number, end: number, airings: readonly Airing[]): Airing {
  let best: Airing | undefined;
  let bestOverlap = 0;
  for (const airing of airings) {
    const overlap = Math.min(end, airing.stop) - Math.max(start, airing.start);
    if (overlap > bestOverlap) [best, bestOverlap] = [airing, overlap];
  }
  const base: Airing = best ?? { channels: [rule.channel], start, stop: end, title: ruleDisplayName(rule) };
  // The item lasts as long as the slot, whatever the programme's own times.
  return { ...base, channels: [rule.channel], start, stop: end };
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
    for (let bucket = Math.floor(placement.start / BUCKET_SECONDS); bucket <= last; bucket++) push(this.buckets, bucket, placement);
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
  for (const candidate of candidates) {
    const id = `${candidate.start}-${candidate.rule.id}`;
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

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export type { RuleDefinition };
