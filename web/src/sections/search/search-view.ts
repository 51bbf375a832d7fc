/**
 * The Search section's pure parts: the `?q=` parameter, the result groups as cards,
 * and how a guide programme is described (when, on which channel, whether a job
 * records it) and recorded (a `program` rule). Unit-tested in web/test/search.test.ts.
 */
import type { GuideMatch, PlayableItem, RuleBody, SearchResults } from '../../api/server-types';
import { type CardData, groupCard, itemCard, showCard } from '../../lib/cards';
import { episodeCode } from '../../lib/item-view';

/** Typing pauses this long before the search runs (and the address changes). */
export const SEARCH_DEBOUNCE_MS = 300;
/** The server refuses longer queries (GET /dvr/search). */
export const MAX_QUERY_LENGTH = 200;

/**
 * `?q=` as the page reads it: text of at most 200 characters, or nothing. The router
 * parses search values as JSON, so `?q=24` arrives as a number: it is text here.
 */
export function searchParam(search: Record<string, unknown>): { q?: string } {
  const value = search.q;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    const q = String(value).slice(0, MAX_QUERY_LENGTH);
    return q.trim() ? { q } : {};
  }
  return {};
}

export interface ResultGroup {
  key: 'shows' | 'movies' | 'video_groups' | 'videos' | 'episodes';
  title: string;
  cards: CardData[];
}

/** The library's groups that found something, in the section's order, each as cards. */
export function resultGroups(results: SearchResults, recordingNow: ReadonlySet<string> = new Set()): ResultGroup[] {
  const items = (list: readonly PlayableItem[]) => list.map((item) => itemCard(item, recordingNow));
  const groups: ResultGroup[] = [
    { key: 'shows', title: 'TV shows', cards: results.shows.map(showCard) },
    { key: 'movies', title: 'Movies', cards: items(results.movies) },
    { key: 'video_groups', title: 'Video groups', cards: results.video_groups.map(groupCard) },
    { key: 'videos', title: 'Videos', cards: items(results.videos) },
    { key: 'episodes', title: 'Episodes', cards: items(results.episodes) },
  ];
  return groups.filter((group) => group.cards.length > 0);
}

export function foundNothing(results: SearchResults): boolean {
  return resultGroups(results).length === 0 && results.programmes.length === 0;
}

const time = (seconds: number) =>
  new Date(seconds * 1000).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
const dayStart = (seconds: number) => {
  const date = new Date(seconds * 1000);
  date.setHours(0, 0, 0, 0);
  return date.getTime() / 1000;
};

/** When a programme airs, for a person: `Now, until 21:30`, `Today 21:30–22:00`, `Tomorrow …`, `Wed 12 Mar …`. */
export function airingWhen(start: number, end: number, now: number): string {
  if (start <= now && now < end) return `Now, until ${time(end)}`;
  const days = Math.round((dayStart(start) - dayStart(now)) / 86400);
  const day =
    days === 0
      ? 'Today'
      : days === 1
        ? 'Tomorrow'
        : new Date(start * 1000).toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
  return `${day} ${time(start)}–${time(end)}`;
}

/** The line under a programme's title: its episode code and title. */
export function programmeSubtitle(match: GuideMatch): string {
  return [episodeCode(match.season_number, match.episode_number), match.episode_title].filter(Boolean).join(' · ');
}

export type RecordingState = 'recording' | 'scheduled' | 'skipped' | 'none';

export function recordingState(match: Pick<GuideMatch, 'job'>): RecordingState {
  if (!match.job) return 'none';
  if (match.job.skipped) return 'skipped';
  return match.job.state;
}

export const RECORDING_LABELS: Record<RecordingState, string> = {
  recording: 'Recording',
  scheduled: 'Will record',
  skipped: 'Skipped',
  none: '',
};

/** Record it unless a job already will (a skipped one may be recorded again by a rule of its own). */
export function canRecord(match: Pick<GuideMatch, 'job'>): boolean {
  const state = recordingState(match);
  return state === 'none' || state === 'skipped';
}

export type ProgramRuleBody = Extract<RuleBody, { type: 'program' }>;

/**
 * The rule that records exactly this airing: its channel and start (src/dvr/planning/rules/program.rule.ts), named
 * after it.
 */
export function programRuleFor(match: Pick<GuideMatch, 'channel' | 'start_time' | 'title'>): ProgramRuleBody {
  const name = match.title.trim().slice(0, 200);
  return { type: 'program', channel: match.channel, start_time: match.start_time, ...(name ? { name } : {}) };
}
