/**
 * Placing again after one rule's change, deciding only the candidates the change reaches.
 *
 * Placing is greedy in one order, and a candidate's fate depends only on what was decided
 * before it (job-placing.ts): the streams overlapping it on its sources, and the episode
 * keys placed or listed as skipped. So with the last placing kept, a change to one rule
 * (its candidates gone, its new ones found) is placed again by walking the new order and
 * deciding again only:
 * - the rule's new candidates;
 * - candidates overlapping, on one of their sources, a stream that came or went;
 * - candidates with an episode key whose placing or listing changed;
 * - candidates that ended since the last placing.
 * Any other keeps its fate: nothing it looks at changed. What a candidate decided again
 * sees is the last placing's streams and keys from before it, less what went, plus what
 * came. A decision that comes out as before changes nothing further, so a change reaches
 * as far as it really does (an edit to one series: a few dozen candidates of 14,000).
 *
 * It gives exactly what placeAll gives on the same candidates (test/unit/dvr-simulation.test.ts
 * holds it to that over random guides, rules and edits); when anything else the placing
 * depends on changed (running jobs, recordings, skips, sources), it is placeAll.
 */
import type { PlannedJob } from '../../model/dvr/planned-job.js';
import { setJobIds } from './job-ids.js';
import {
  byStartAndId,
  type Candidate,
  compareCandidates,
  coveredCandidates,
  decide,
  extendRunning,
  DROPPED,
  type Fate,
  hasAny,
  placeAll,
  type PlacedStream,
  type PlacingView,
  type Placing,
  type PlannerInput,
  type RunningJob,
  scheduleIn,
} from './job-placing.js';
import { SourceSchedule } from './source-schedule.js';

/**
 * The placing after rule `ruleId` changed: `found` its candidates now (none when it was
 * removed or paused). Takes over `last` (its structures are updated, not copied).
 */
export function placeAgain(last: Placing, input: PlannerInput, ruleId: number, found: Candidate[]): Placing {
  const kept: Candidate[] = [];
  const removed: Candidate[] = [];
  for (const candidate of last.order) (candidate.ruleId === ruleId ? removed : kept).push(candidate);
  // Sorted first, as placeAll sorts before it looks for what running jobs cover (of two equally near, the first).
  found.sort(compareCandidates);
  const covered = sameConditions(last.input, input) ? coveredAgain(last, input, ruleId, found) : undefined;
  if (!covered) return placeAll(input, [...kept, ...found]);
  const known = input.knownIds ?? new Map<string, string>();
  setJobIds(found, known, input.heldIds ?? new Set(known.keys()));
  const order = merged(kept, found);
  const change = new Change(last, input, covered);
  for (const candidate of removed) change.apply(candidate, DROPPED);
  for (const candidate of order)
    if (candidate.fate === undefined || change.reaches(candidate)) change.decideAgain(candidate);
  return change.finish(order);
}

/**
 * The candidates running jobs record already, the rule's own found again among its new
 * candidates (only a job's own rule's candidates can be it); undefined when that changes
 * how far a recording is extended (its stream's end, which the last placing's streams
 * hold): then everything is placed in full.
 */
function coveredAgain(
  last: Placing,
  input: PlannerInput,
  ruleId: number,
  found: readonly Candidate[],
): ReadonlyMap<Candidate, RunningJob> | undefined {
  const own = input.running.filter((job) => job.ruleId === ruleId);
  if (own.length === 0) return last.covered;
  const covered = new Map([...last.covered].filter(([candidate]) => candidate.ruleId !== ruleId));
  for (const [candidate, job] of coveredCandidates(own, found)) covered.set(candidate, job);
  return sameMap(extendRunning(input, covered).extensions, last.plan.extensions, (x, y) => x === y)
    ? covered
    : undefined;
}

/** Two sorted lists as one, each candidate's `rank` its place in it. */
function merged(a: readonly Candidate[], b: readonly Candidate[]): Candidate[] {
  const out: Candidate[] = [];
  const push = (candidate: Candidate) => {
    candidate.rank = out.length;
    out.push(candidate);
  };
  let j = 0;
  for (const candidate of a) {
    while (j < b.length && compareCandidates(b[j] as Candidate, candidate) < 0) push(b[j++] as Candidate);
    push(candidate);
  }
  while (j < b.length) push(b[j++] as Candidate);
  return out;
}

/** What came and went in this placing, and the view of it a candidate decided again has. */
class Change implements PlacingView {
  private readonly runningIds: ReadonlySet<string>;
  /** The last placing's streams that went, and the new ones. */
  private readonly goneStreams = new Set<PlacedStream>();
  private readonly newStreams: PlacedStream[] = [];
  /** Both, by time, for finding the candidates they reach. */
  private readonly moved = new SourceSchedule<PlacedStream>();
  private movedCount = 0;
  /** Episode keys whose placing or listing changed. */
  private readonly changedKeys = new Set<string>();
  private readonly unplaced = new Set<Candidate>();
  private readonly unlisted = new Set<Candidate>();
  private readonly newPlacers: Candidate[] = [];
  private readonly newListers: Candidate[] = [];
  private readonly newPlacedKeys = new Set<string>();
  private readonly newListedKeys = new Set<string>();
  private readonly goneJobs = new Set<PlannedJob>();
  private readonly newJobs: PlannedJob[] = [];

  constructor(
    private readonly last: Placing,
    private readonly input: PlannerInput,
    private readonly covered: ReadonlyMap<Candidate, RunningJob>,
  ) {
    this.runningIds = new Set(input.running.map((job) => job.id));
  }

  /** Whether the change reaches `candidate`: something it looks at may have changed. */
  reaches(candidate: Candidate): boolean {
    if (candidate.end <= this.input.now && candidate.fate !== DROPPED) return true;
    // Only a candidate that records an episode once looks at which episodes were placed or listed.
    if (candidate.dedupe && this.changedKeys.size > 0 && candidate.lookup && hasAny(this.changedKeys, candidate.lookup))
      return true;
    return (
      this.movedCount > 0 &&
      this.moved.some(candidate.start, candidate.end, (stream) => this.carries(candidate, stream.sourceId))
    );
  }

  decideAgain(candidate: Candidate): void {
    this.apply(candidate, decide(this.input, this.runningIds, this, candidate, this.covered.has(candidate)));
  }

  /** Records `candidate`'s new fate and what it changed. */
  apply(candidate: Candidate, after: Fate): void {
    const before = candidate.fate ?? DROPPED;
    candidate.fate = after;
    if (before.job !== after.job) {
      if (before.job) this.goneJobs.add(before.job);
      if (after.job) this.newJobs.push(after.job);
    }
    if (before.stream !== after.stream) {
      if (before.stream) this.goneStreams.add(before.stream);
      if (after.stream) this.newStreams.push(after.stream);
      for (const stream of [before.stream, after.stream]) if (stream) this.moved.add(stream);
      this.movedCount++;
    }
    const keys = candidate.keys ?? [];
    if (Boolean(before.stream) !== Boolean(after.stream)) {
      for (const key of keys) this.changedKeys.add(key);
      if (after.stream) {
        this.newPlacers.push(candidate);
        for (const key of keys) this.newPlacedKeys.add(key);
      } else this.unplaced.add(candidate);
    }
    if (Boolean(before.listed) !== Boolean(after.listed)) {
      for (const key of keys) this.changedKeys.add(key);
      if (after.listed) {
        this.newListers.push(candidate);
        for (const key of keys) this.newListedKeys.add(key);
      } else this.unlisted.add(candidate);
    }
  }

  busy(sourceId: string, candidate: Candidate): PlacedStream[] {
    const rank = candidate.rank as number;
    const found: PlacedStream[] = [];
    for (const stream of this.last.schedules.get(sourceId)?.overlapping(candidate.start, candidate.end) ?? []) {
      if (!this.goneStreams.has(stream) && (stream.by === undefined || (stream.by.rank as number) < rank))
        found.push(stream);
    }
    for (const stream of this.newStreams)
      if (stream.sourceId === sourceId && stream.start < candidate.end && candidate.start < stream.end)
        found.push(stream);
    return found;
  }

  placed(keys: readonly string[], candidate: Candidate): boolean {
    return hasAny(this.newPlacedKeys, keys) || this.before(this.last.placers, this.unplaced, keys, candidate);
  }

  listed(keys: readonly string[], candidate: Candidate): boolean {
    return hasAny(this.newListedKeys, keys) || this.before(this.last.listers, this.unlisted, keys, candidate);
  }

  /** The placing it all comes to; `last`'s structures updated to it. */
  finish(order: Candidate[]): Placing {
    const { last } = this;
    for (const stream of this.goneStreams) last.schedules.get(stream.sourceId)?.remove(stream);
    for (const stream of this.newStreams) scheduleIn(last.schedules, stream.sourceId).add(stream);
    update(last.placers, this.unplaced, this.newPlacers);
    update(last.listers, this.unlisted, this.newListers);
    let jobs = last.plan.jobs;
    if (this.goneJobs.size > 0 || this.newJobs.length > 0)
      jobs = mergedJobs(
        jobs.filter((job) => !this.goneJobs.has(job)),
        this.newJobs.sort(byStartAndId),
      );
    const changes = { gone: [...this.goneJobs], added: this.newJobs };
    return {
      ...last,
      input: this.input,
      order,
      covered: this.covered,
      plan: { jobs, extensions: last.plan.extensions, changes },
    };
  }

  /** Whether a candidate of `by` placed before `candidate` (and still there) has one of `keys`. */
  private before(
    by: ReadonlyMap<string, Candidate[]>,
    gone: ReadonlySet<Candidate>,
    keys: readonly string[],
    candidate: Candidate,
  ): boolean {
    const rank = candidate.rank as number;
    for (const key of keys) {
      for (const other of by.get(key) ?? []) if ((other.rank as number) < rank && !gone.has(other)) return true;
    }
    return false;
  }

  private carries(candidate: Candidate, sourceId: string): boolean {
    for (const channel of candidate.channels)
      if (this.input.channelSources.get(channel)?.includes(sourceId)) return true;
    return false;
  }
}

/** Episode key → candidates, less those gone, plus the new ones, in placing order. */
function update(byKey: Map<string, Candidate[]>, gone: ReadonlySet<Candidate>, added: readonly Candidate[]): void {
  const touched = new Set<string>();
  for (const candidate of gone) for (const key of candidate.keys ?? []) touched.add(key);
  for (const candidate of added) for (const key of candidate.keys ?? []) touched.add(key);
  for (const key of touched) {
    const list = (byKey.get(key) ?? []).filter((candidate) => !gone.has(candidate));
    for (const candidate of added) if (candidate.keys?.includes(key)) list.push(candidate);
    if (list.length === 0) byKey.delete(key);
    else
      byKey.set(
        key,
        list.sort((a, b) => (a.rank as number) - (b.rank as number)),
      );
  }
}

function mergedJobs(a: readonly PlannedJob[], b: readonly PlannedJob[]): PlannedJob[] {
  const out: PlannedJob[] = [];
  let j = 0;
  for (const job of a) {
    while (j < b.length && byStartAndId(b[j] as PlannedJob, job) < 0) out.push(b[j++] as PlannedJob);
    out.push(job);
  }
  while (j < b.length) out.push(b[j++] as PlannedJob);
  return out;
}

/**
 * Whether everything a placing depends on besides the candidates is as it was (the clock only forward: see
 * Change.reaches).
 */
function sameConditions(a: PlannerInput, b: PlannerInput): boolean {
  return (
    a.now <= b.now &&
    sameRunning(a.running, b.running) &&
    sameSet(a.settledIds, b.settledIds) &&
    sameSet(a.heldIds, b.heldIds) &&
    sameSet(a.userSkips, b.userSkips) &&
    sameSet(a.recordedKeys, b.recordedKeys) &&
    sameMap(a.sourceLimits, b.sourceLimits, (x, y) => x === y) &&
    sameMap(a.sourceNames, b.sourceNames, (x, y) => x === y) &&
    sameMap(
      a.channelSources,
      b.channelSources,
      (x, y) => x.length === y.length && x.every((source, i) => source === y[i]),
    )
  );
}

function sameRunning(a: readonly RunningJob[], b: readonly RunningJob[]): boolean {
  if (a.length !== b.length) return false;
  const byId = new Map(a.map((job) => [job.id, job]));
  return b.every((job) => {
    const other = byId.get(job.id);
    return (
      other !== undefined &&
      (Object.keys(job) as (keyof RunningJob)[]).every((key) => job[key] === other[key]) &&
      Object.keys(other).length === Object.keys(job).length
    );
  });
}

function sameSet<T>(a: ReadonlySet<T> | undefined, b: ReadonlySet<T> | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.size !== b.size) return false;
  for (const item of a) if (!b.has(item)) return false;
  return true;
}

function sameMap<K, V>(
  a: ReadonlyMap<K, V> | undefined,
  b: ReadonlyMap<K, V> | undefined,
  same: (x: V, y: V) => boolean,
): boolean {
  if (a === b) return true;
  if (!a || !b || a.size !== b.size) return false;
  for (const [key, value] of a) {
    const other = b.get(key);
    if (other === undefined || !same(value, other)) return false;
  }
  return true;
}
