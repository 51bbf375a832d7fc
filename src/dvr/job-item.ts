/**
 * What a planned job is about, from its airing: its episode keys (what counts as already
 * recorded), its programme's identity, and the item clients see on the job.
 */
import { showIdFor } from '../model/ids.js';
import type { JobItem } from '../model/library.schemas.js';
import type { Airing } from './airing.js';

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

/** What makes two airings one programme: the guide's programme id, else the title and episode title. */
export function programmeKeyOf(airing: { programId?: string | undefined; title: string; episodeTitle?: string | undefined }): string {
  return airing.programId ? `pid:${airing.programId}` : `t:${airing.title.toLowerCase()}|${(airing.episodeTitle ?? '').toLowerCase()}`;
}

