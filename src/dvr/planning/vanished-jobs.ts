/**
 * A job never vanishes because of a refresh (issue 21). A scheduled job that a full plan
 * no longer has is kept, skipped with the reason, until its end passes, when what it was
 * for is gone from under it: its programme no longer in the guide at its time (a refresh
 * the user confirmed, a guide that lost it), or its channels no longer offered by any
 * source (a source removed, a lineup that dropped them) or hidden by the user. It goes, as before, when the
 * plan has it another way or the user changed what they asked for:
 * - its rule was removed or paused, or the user skipped it;
 * - its rule planned the same programme at another time (the guide moved it) or another
 *   rule records that episode;
 * - its programme is still in the guide at its time on one of its channels, still
 *   offered: the rule no longer selects it (an edit), or the episode is recorded already.
 * Pure: the scheduler hands in what it looks up.
 */
import type { JobItem } from '../../model/library/library.schemas.js';
import type { PlannedJob } from '../../model/dvr/planned-job.js';
import { ruleTypeOf, type StoredRule } from './rules/rule-types.js';

/** A stored scheduled job, as much of it as this needs. */
export interface StoredScheduledJob {
  id: string;
  rule_id: number | null;
  name: string;
  start_time: number;
  end_time: number;
  channels: string;
  item: string;
  episode_key: string | null;
  error: string | null;
}

export interface VanishedJobLookups {
  /** Epoch seconds. */
  now: number;
  /** The ids of the plan's jobs. */
  plannedIds: ReadonlySet<string>;
  /** `<rule id> <programme>` of the plan's jobs (programme: programmeKeyOf, or a slot's). */
  plannedProgrammes: ReadonlySet<string>;
  /** Episode keys of the plan's placed jobs. */
  placedEpisodes: ReadonlySet<string>;
  userSkips: ReadonlySet<string>;
  rule(id: number): StoredRule | undefined;
  /** What the stored job records, as plannedProgrammes names it. */
  programmeOf(job: StoredScheduledJob, item: JobItem): string;
  /** Whether a source offers channel `number` now (and the user has not hidden it). */
  offered(number: string): boolean;
  /** Whether channel `number` is one the user hid (else no source offers it). */
  hidden(number: string): boolean;
  /** Whether the guide has the programme `programme` starting within [from, to) on channel `number`. */
  aired(number: string, from: number, to: number, programme: string): boolean;
}

/** The job to keep for `job`, missing from the plan: skipped, saying why; undefined when it may go. */
export function keptVanishedJob(job: StoredScheduledJob, at: VanishedJobLookups): PlannedJob | undefined {
  if (job.end_time <= at.now || at.plannedIds.has(job.id) || at.userSkips.has(job.id) || job.rule_id === null)
    return undefined;
  const rule = at.rule(job.rule_id);
  if (!rule || rule.definition.paused) return undefined;
  const item = JSON.parse(job.item) as JobItem;
  const programme = at.programmeOf(job, item);
  if (
    at.plannedProgrammes.has(`${job.rule_id} ${programme}`) ||
    (job.episode_key !== null && at.placedEpisodes.has(job.episode_key))
  )
    return undefined;
  const channels = JSON.parse(job.channels) as string[];
  const offered = channels.filter((number) => at.offered(number));
  let error: string;
  if (offered.length === 0 && channels.some((number) => at.hidden(number)))
    error = `you hid channel ${channels.join(', ')} in the lineup: show it again to record from it`;
  else if (offered.length === 0)
    error = `no source offers channel ${channels.join(', ')} any more: it was skipped when the lineup changed`;
  else if (ruleTypeOf(rule.definition).jobsAreTheirTime) return undefined;
  else {
    // Its airing starts within the job, whatever padding it was planned with (the rule's may have changed since).
    if (offered.some((number) => at.aired(number, job.start_time, job.end_time, programme))) return undefined;
    error = 'the guide no longer lists this programme at this time: it was skipped when the guide changed';
  }
  const kept: PlannedJob = {
    id: job.id,
    ruleId: job.rule_id,
    name: job.name,
    start: job.start_time,
    end: job.end_time,
    channels,
    skipped: true,
    error,
    item,
  };
  if (job.episode_key !== null) kept.episodeKey = job.episode_key;
  return kept;
}
