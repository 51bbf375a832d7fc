/**
 * What a planned job is about, from its airing: its episode keys (what counts as already
 * recorded), its programme's identity, and the item clients see on the job.
 */
import { showIdFor } from '../../model/ids.js';
import type { JobItem } from '../../model/library/library.schemas.js';
import type { Airing } from '../lineup/airing.js';
import type { NewEvent } from '../../model/events/event.schemas.js';
import type { DvrJobRow } from '../../repositories/dvr/jobs.repository.js';

/**
 * The keys under which an airing counts as "already recorded" (placed, listed, or
 * remembered once recorded): its programme id, and its show + season + episode. A
 * programme with neither (news, sport) has none, so it is never taken for a rerun.
 * An airing without a programme id is also keyed `nsxe:`, which only airings with an id
 * look up (episodeLookupKeys).
 */
export function episodeKeys(airing: Pick<Airing, 'programId' | 'title' | 'season' | 'episode'>): string[] {
  const keys: string[] = [];
  if (airing.programId) keys.push(`pid:${airing.programId}`);
  const episode = episodeOf(airing);
  if (episode !== undefined) keys.push(`sxe:${episode}`);
  if (episode !== undefined && !airing.programId) keys.push(`nsxe:${episode}`);
  return keys;
}

/**
 * The keys that make an airing a rerun of another: an airing's identity is its
 * programme id when the guide gives one, so two airings with different ids are two
 * programmes even when their season and episode agree (a guide that numbers three
 * sub-titled shows of one evening alike). The season/episode pair decides only where
 * one of the two has no id: an airing with an id looks it up among airings without one
 * (`nsxe:`), an airing without an id among all (`sxe:`).
 */
export function episodeLookupKeys(airing: Pick<Airing, 'programId' | 'title' | 'season' | 'episode'>): string[] {
  const episode = episodeOf(airing);
  if (airing.programId)
    return episode === undefined ? [`pid:${airing.programId}`] : [`pid:${airing.programId}`, `nsxe:${episode}`];
  return episode === undefined ? [] : [`sxe:${episode}`];
}

function episodeOf(airing: Pick<Airing, 'title' | 'season' | 'episode'>): string | undefined {
  return airing.season !== undefined && airing.episode !== undefined
    ? `${airing.title.toLowerCase()}|${airing.season}|${airing.episode}`
    : undefined;
}

/** Movies are told apart by the guide's category or a Gracenote movie id; everything else is an episode. */
export function isMovie(
  airing: Pick<Airing, 'categories' | 'programId' | 'season' | 'episode' | 'episodeTitle'>,
): boolean {
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

/** What makes two airings one programme: the guide's programme id, else the title and episode title. */
export function programmeKeyOf(airing: {
  programId?: string | undefined;
  title: string;
  episodeTitle?: string | undefined;
}): string {
  return airing.programId
    ? `pid:${airing.programId}`
    : `t:${airing.title.toLowerCase()}|${(airing.episodeTitle ?? '').toLowerCase()}`;
}

/** "Harbour Lights: Pilot": what a recording is, for people. */
export function whatOf(job: DvrJobRow, item: JobItem): string {
  return [item.title ?? job.name, item.episode_title].filter(Boolean).join(': ');
}

export function recordingData(job: DvrJobRow, item: JobItem): NewEvent['data'] {
  return {
    job_id: job.id,
    title: item.title ?? job.name,
    ...(item.episode_title ? { episode_title: item.episode_title } : {}),
    ...(job.channel ? { channel: job.channel } : {}),
    ...(job.rule_id !== null ? { rule_id: job.rule_id } : {}),
    start_time: job.start_time,
    end_time: job.end_time,
  };
}
