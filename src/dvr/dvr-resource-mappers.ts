/**
 * DVR rows to the resources the management interface answers (model/dvr/dvr.schemas.ts):
 * properties without a value left out, as interface A does, and source locations shown
 * without the query and credentials IPTV URLs carry (reads are open to the local network).
 */
import type { StoredRule } from './planning/rules/rule-types.js';
import type { GuideRow, SourceRow } from './sources/dvr-sources.service.js';
import type { Airing } from './planning/job-planner.js';
import { shownLocation } from './sources/source-reader.js';
import { isPlaceholder } from './lineup/placeholder-airings.js';
import { isRejectionKind, needsConfirmation } from './sources/refresh-checks.js';

/** The kind of the refresh not applied, and whether confirming it would apply it: only while its error stands. */
function held(row: { error: string | null; rejected: string | null }) {
  if (row.error === null || row.rejected === null || !isRejectionKind(row.rejected)) return {};
  return { rejected: row.rejected, ...(needsConfirmation(row.rejected) ? { needs_confirmation: true } : {}) };
}

export const jobRef = (job: {
  id: string;
  name: string;
  start_time: number;
  end_time: number;
  channel: string | null;
}) => ({
  id: job.id,
  name: job.name,
  start_time: job.start_time,
  end_time: job.end_time,
  ...(job.channel ? { channel: job.channel } : {}),
});

export const ruleOut = (rule: StoredRule) => ({ id: String(rule.id), ...rule.definition });
export const sourceOut = (s: SourceRow) => ({
  id: s.id,
  kind: s.kind,
  location: shownLocation(s.location),
  name: s.name,
  streams: s.stream_limit,
  origin: s.origin,
  skipped: s.skipped,
  channels: s.channels,
  ...(s.refreshed_at !== null ? { refreshed_at: s.refreshed_at } : {}),
  ...(s.error !== null ? { error: s.error } : {}),
  ...held(s),
});
export const guideOut = (g: GuideRow) => ({
  id: g.id,
  location: shownLocation(g.location),
  origin: g.origin,
  programmes: g.programmes,
  skipped: g.skipped,
  priority: g.priority,
  ...(g.refreshed_at !== null ? { refreshed_at: g.refreshed_at } : {}),
  ...(g.error !== null ? { error: g.error } : {}),
  ...held(g),
});
export const airingOut = (a: Airing) => ({
  start_time: a.start,
  end_time: a.stop,
  title: a.title,
  new: a.isNew === true,
  ...(a.episodeTitle ? { episode_title: a.episodeTitle } : {}),
  ...(a.season !== undefined ? { season_number: a.season } : {}),
  ...(a.episode !== undefined ? { episode_number: a.episode } : {}),
  ...(a.summary ? { summary: a.summary } : {}),
  ...(a.categories ? { categories: a.categories } : {}),
  ...(a.originalAirDate ? { original_air_date: a.originalAirDate } : {}),
  ...(a.rating ? { content_rating: a.rating } : {}),
  ...(a.image ? { image_url: a.image } : {}),
  ...(a.programId ? { program_id: a.programId } : {}),
  ...(a.seriesId ? { series_id: a.seriesId } : {}),
  ...(isPlaceholder(a) ? { placeholder: true } : {}),
});
