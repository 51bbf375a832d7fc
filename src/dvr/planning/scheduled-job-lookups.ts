/**
 * What the job scheduler looks up beside the plan itself: what a job records, as the
 * planner names it; the guide's airings on a channel at a time; and which scheduled jobs
 * a full plan lost are kept listed, skipped (vanished-jobs.ts decides; this reads what
 * it needs). Reads only.
 */
import { type Steps, stepClock } from '../../common/work-in-steps.js';
import type { Db } from '../../db/database.js';
import type { JobItem } from '../../model/library/library.schemas.js';
import type { PlannedJob } from '../../model/dvr/planned-job.js';
import { hiddenChannelNumbers } from '../../repositories/dvr/channel-edits.repository.js';
import { programmesBetween } from '../../repositories/dvr/guide.repository.js';
import {
  type JobProgrammeRow,
  listJobSkips,
  listScheduledJobsEndingAfter,
} from '../../repositories/dvr/jobs.repository.js';
import { listStreamableChannels } from '../../repositories/dvr/sources.repository.js';
import { type Airing, ProgrammeAiring } from '../lineup/airing.js';
import type { GuideChannelMap } from '../lineup/guide-match.js';
import { programmeKeyOf, slotProgramme } from './job-planner.js';
import { guideMapOf, lineupSnapshot } from '../lineup/lineup-snapshot.js';
import { placeholderAirings } from '../lineup/placeholder-airings.js';
import type { StoredRule } from './rules/rule-types.js';
import { keptVanishedJob, type VanishedJobLookups } from './vanished-jobs.js';

/** What a stored job records, as the planner names it: a slot by its rule and time, anything else by its programme. */
export function storedProgramme(job: Omit<JobProgrammeRow, 'id'>, slotRules: ReadonlySet<number>): string {
  if (job.ruleId !== null && slotRules.has(job.ruleId)) return slotProgramme(job.ruleId, job.start);
  return programmeKeyOf({
    programId: job.programId ?? undefined,
    title: job.title,
    episodeTitle: job.episodeTitle ?? undefined,
  });
}

/** What a job (planned, or stored with its item) records, as the planner names it. */
export function plannedProgramme(
  job: { ruleId: number | null; start: number; item: JobItem; name: string },
  slotRules: ReadonlySet<number>,
): string {
  const { item } = job;
  return storedProgramme(
    {
      ruleId: job.ruleId,
      start: job.start,
      programId: item.program_id ?? null,
      title: item.title ?? job.name,
      episodeTitle: item.episode_title ?? null,
    },
    slotRules,
  );
}

/**
 * The airings on channel `number` that start within [from, to), from the guides `map` says describe it (placeholder
 * hours when none does).
 */
export function airingsStarting(db: Db, number: string, from: number, to: number, map: GuideChannelMap): Airing[] {
  const airings: Airing[] = [];
  let described = false;
  for (const [key, numbers] of map) {
    if (!numbers.includes(number)) continue;
    described = true;
    const [guideId, xmltvChannel] = key.split('\t') as [string, string];
    for (const row of programmesBetween(db, guideId, xmltvChannel, from, to))
      if (row.start >= from && row.start < to) airings.push(ProgrammeAiring.fromRow(row, [number]));
  }
  if (described) return airings;
  const channel = lineupSnapshot(db).channels.find((c) => c.number === number);
  return channel ? placeholderAirings(number, channel.name, from, to).filter((airing) => airing.start >= from) : [];
}

/**
 * The scheduled jobs a full plan of `jobs` lost that are kept listed, skipped, until
 * they end (vanished-jobs.ts). `now`: epoch seconds. In steps of about `stepMs`
 * (work-in-steps.ts): a refresh that moves every programme loses every job.
 */
export function* keptVanishedJobs(
  db: Db,
  rules: readonly StoredRule[],
  jobs: readonly PlannedJob[],
  slots: ReadonlySet<number>,
  now: number,
  stepMs: number,
): Steps<PlannedJob[]> {
  const plannedIds = new Set(jobs.map((job) => job.id));
  const missing = listScheduledJobsEndingAfter(db, now).filter((job) => !plannedIds.has(job.id));
  if (missing.length === 0) return [];
  // Reading them all was a step (a few thousand rows, each with its item).
  if (stepMs !== Number.POSITIVE_INFINITY) yield;
  const programmeOf = (job: Parameters<typeof plannedProgramme>[0]) => plannedProgramme(job, slots);
  const byId = new Map(rules.map((rule) => [rule.id, rule]));
  const streamable = listStreamableChannels(db);
  const offered = new Set(streamable.map((channel) => channel.number));
  let hidden: Set<string> | undefined;
  let map: GuideChannelMap | undefined;
  const lookups: VanishedJobLookups = {
    now,
    plannedIds,
    plannedProgrammes: new Set(jobs.map((job) => `${job.ruleId} ${programmeOf(job)}`)),
    placedEpisodes: new Set(jobs.flatMap((job) => (!job.skipped && job.episodeKey ? [job.episodeKey] : []))),
    userSkips: listJobSkips(db),
    rule: (id) => byId.get(id),
    programmeOf: (job, item) => programmeOf({ ruleId: job.rule_id, start: job.start_time, item, name: job.name }),
    offered: (number) => offered.has(number),
    hidden: (number) => (hidden ??= hiddenChannelNumbers(db)).has(number),
    aired: (number, from, to, programme) =>
      airingsStarting(db, number, from, to, (map ??= guideMapOf(db, streamable))).some(
        (airing) => programmeKeyOf(airing) === programme,
      ),
  };
  const kept: PlannedJob[] = [];
  const clock = stepClock(stepMs);
  for (let i = 0; i < missing.length; i++) {
    if (clock.due(i)) yield;
    const job = keptVanishedJob(missing[i] as (typeof missing)[number], lookups);
    if (job) kept.push(job);
  }
  return kept;
}
