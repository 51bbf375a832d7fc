/**
 * Search in the programme guide: airings not yet ended whose title or episode title
 * holds every word of the query, on the channel numbers they air on, each with
 * whether it is on now and the job (if any) that records it, so a person can watch
 * it or record it from the answer.
 */
import type { Db } from '../../db/database.js';
import {
  jobRecording,
  matchExpression,
  searchProgrammes,
  type RecordingJob,
} from '../../repositories/library/search.repository.js';
import { type Airing, ProgrammeAiring } from './airing.js';
import { guideKey } from './guide-match.js';
import { lineupSnapshot } from './lineup-snapshot.js';

export interface GuideMatch {
  airing: Airing;
  /** The channel number to watch or record it on (the first of those it airs on). */
  channel: string;
  channelName: string | undefined;
  onNow: boolean;
  job: RecordingJob | undefined;
}

export class GuideSearchService {
  constructor(
    private readonly db: Db,
    /** Epoch milliseconds. */
    private readonly now: () => number = Date.now,
  ) {}

  /** Up to `limit` airings that have not ended, soonest first. */
  search(text: string, limit: number): GuideMatch[] {
    const match = matchExpression(text);
    if (match === undefined) return [];
    const { channels, guideMap: map } = lineupSnapshot(this.db);
    if (map.size === 0) return [];
    const now = Math.floor(this.now() / 1000);
    const names = new Map<string, string>();
    for (const channel of channels) if (!names.has(channel.number)) names.set(channel.number, channel.name);
    return searchProgrammes(this.db, match, now, [...map.keys()], limit).flatMap((row) => {
      const numbers = map.get(guideKey(row.guide_id, row.xmltv_channel)) ?? [];
      const channel = numbers[0];
      if (channel === undefined) return [];
      return [
        {
          airing: ProgrammeAiring.fromRow(row, numbers),
          channel,
          channelName: names.get(channel),
          onNow: row.start <= now,
          job: jobRecording(this.db, numbers, row.stop),
        },
      ];
    });
  }
}
