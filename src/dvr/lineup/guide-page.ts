/**
 * One page of the guide grid: a slice of the channels, in channel-number order, with
 * their programmes in a window and the jobs that record them. Reads two queries of
 * guide-grid.repository.ts besides the channel lists, whatever the page's size.
 */
import type { Static } from '@sinclair/typebox';
import type { Db } from '../../db/database.js';
import type { GuideAiringSchema, GuidePageSchema } from '../../model/dvr/guide-page.schemas.js';
import {
  type GridJobRow,
  type GridProgrammeRow,
  jobsBetween,
  programmesOfChannels,
} from '../../repositories/dvr/guide-grid.repository.js';
import type { StreamableChannel } from '../../repositories/dvr/sources.repository.js';
import type { GuideChannelMap } from './guide-match.js';
import { placeholderAirings } from './placeholder-airings.js';

export type GuidePage = Static<typeof GuidePageSchema>;
type GuideAiring = Static<typeof GuideAiringSchema>;

export interface GuidePageRequest {
  start: number;
  end: number;
  offset: number;
  limit: number;
  favorites: boolean;
}

/**
 * Whether `job` records the airing [start, stop): they overlap and one's middle falls
 * in the other. A padded job covers its airing's middle; "record now" started late has
 * its own middle in the airing; the padding that spills into the next airing does neither.
 */
export function jobRecords(job: Pick<GridJobRow, 'start_time' | 'end_time'>, start: number, stop: number): boolean {
  if (job.start_time >= stop || job.end_time <= start) return false;
  const airingMiddle = (start + stop) / 2;
  const jobMiddle = (job.start_time + job.end_time) / 2;
  return (job.start_time <= airingMiddle && airingMiddle < job.end_time) || (start <= jobMiddle && jobMiddle < stop);
}

/** The channel number a job records from: the one it is set to, else the first it may use. */
function jobChannel(job: GridJobRow): string | undefined {
  if (job.channel) return job.channel;
  try {
    return (JSON.parse(job.channels) as string[])[0];
  } catch {
    return undefined;
  }
}

/** A channel no guide describes: its placeholder hours in the window, as grid rows. */
function placeholderRows(channel: StreamableChannel, start: number, end: number): GridProgrammeRow[] {
  return placeholderAirings(channel.number, channel.name, start, end).map((airing) => ({
    channel: -1,
    start: airing.start,
    stop: airing.stop,
    title: airing.title,
    episode_title: null,
    season: null,
    episode: null,
    summary: null,
    is_new: 0,
    program_id: null,
    series_id: null,
  }));
}

function airingOf(row: GridProgrammeRow, jobs: readonly GridJobRow[]): GuideAiring {
  const job = jobs.find((j) => jobRecords(j, row.start, row.stop));
  return {
    start_time: row.start,
    end_time: row.stop,
    title: row.title,
    new: row.is_new === 1,
    ...(row.episode_title ? { episode_title: row.episode_title } : {}),
    ...(row.season !== null ? { season_number: row.season } : {}),
    ...(row.episode !== null ? { episode_number: row.episode } : {}),
    ...(row.summary ? { summary: row.summary } : {}),
    ...(row.program_id ? { program_id: row.program_id } : {}),
    ...(row.series_id ? { series_id: row.series_id } : {}),
    ...(job ? { job_id: job.id, ...(job.state === 'recording' ? { recording: true } : {}) } : {}),
  };
}

/**
 * The page: `channels` are every streamable channel, one per number, in order;
 * `guideMap` says which guide channel describes which numbers.
 */
export function guidePageOf(
  db: Db,
  channels: readonly StreamableChannel[],
  guideMap: GuideChannelMap,
  request: GuidePageRequest,
): GuidePage {
  const listed = request.favorites ? channels.filter((c) => c.favorited === 1) : channels;
  const page = listed.slice(request.offset, request.offset + request.limit);
  const keyOf = new Map<string, readonly [string, string]>();
  for (const [key, numbers] of guideMap) {
    const [guideId, xmltvId] = key.split('\t') as [string, string];
    for (const number of numbers) keyOf.set(number, [guideId, xmltvId]);
  }
  // One guide channel per page channel that has one; rows come back tagged with its index.
  const keys: (readonly [string, string])[] = [];
  const keyIndexOf = new Map<string, number>();
  for (const channel of page) {
    const key = keyOf.get(channel.number);
    if (!key) continue;
    const joined = key.join('\t');
    if (!keyIndexOf.has(joined)) keyIndexOf.set(joined, keys.push(key) - 1);
  }
  const rowsByKey = new Map<number, GridProgrammeRow[]>();
  for (const row of programmesOfChannels(db, keys, request.start, request.end)) {
    const list = rowsByKey.get(row.channel);
    if (list) list.push(row);
    else rowsByKey.set(row.channel, [row]);
  }
  const jobsByChannel = new Map<string, GridJobRow[]>();
  for (const job of jobsBetween(db, request.start, request.end)) {
    const number = jobChannel(job);
    if (number === undefined) continue;
    const list = jobsByChannel.get(number);
    if (list) list.push(job);
    else jobsByChannel.set(number, [job]);
  }
  return {
    start: request.start,
    end: request.end,
    offset: request.offset,
    limit: request.limit,
    total: listed.length,
    channels: page.map((channel) => {
      const key = keyOf.get(channel.number);
      const rows = key
        ? (rowsByKey.get(keyIndexOf.get(key.join('\t')) ?? -1) ?? [])
        : placeholderRows(channel, request.start, request.end);
      const jobs = jobsByChannel.get(channel.number) ?? [];
      return {
        number: channel.number,
        name: channel.name,
        ...(channel.image_url ? { image_url: channel.image_url } : {}),
        favorited: channel.favorited === 1,
        airings: rows.map((row) => (key ? airingOf(row, jobs) : { ...airingOf(row, jobs), placeholder: true })),
      };
    }),
  };
}
