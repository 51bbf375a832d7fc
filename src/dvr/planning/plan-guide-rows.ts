/**
 * The guide rows a plan reads (JobScheduler.airings): by channel when its rules look at
 * channels only, through the indexes when their matching can be said so, else a pass over
 * the guide with the rules' match inside the query. `all` reads them at once; `inSlices`
 * reads the pass over the guide a slice of rows at a time with a turn of the event loop
 * between (about 0.6 s of reading on a 400,000-programme guide, which every request
 * waited behind after a refresh: issue 21).
 */
import { performance } from 'node:perf_hooks';
import type { Db } from '../../db/database.js';
import {
  iterateProgrammeTuplesMatching,
  iterateProgrammeTuplesOn,
  iterateProgrammeTuplesWhere,
  largestProgrammeId,
  type ProgrammeTuple,
  programmeTuplesWhereIn,
} from '../../repositories/dvr/guide.repository.js';
import type { guidePrefilter } from './job-planner.js';

/** Reading of one slice aimed at; a request waits about this long behind one. */
const SLICE_MS = 5;
const FIRST_SPAN = 5_000;

export interface PlanGuideRows {
  all(): Iterable<ProgrammeTuple>;
  inSlices(): Promise<ProgrammeTuple[]>;
}

export function planGuideRows(
  db: Db,
  now: number,
  channelKeys: string[],
  prefilter: ReturnType<typeof guidePrefilter>,
): PlanGuideRows {
  const { query } = prefilter;
  const filter = { channelKeys, needsSummary: prefilter.needsSummary, match: prefilter.matches };
  const all = () =>
    !prefilter.hasMatchers
      ? iterateProgrammeTuplesOn(db, now, channelKeys)
      : query
        ? iterateProgrammeTuplesMatching(db, now, { channelKeys, ...query })
        : iterateProgrammeTuplesWhere(db, now, filter);
  return {
    all,
    async inSlices() {
      // Channels and indexed matches read a few hundred rows each: at once.
      if (!prefilter.hasMatchers || query) return [...all()];
      const rows: ProgrammeTuple[] = [];
      const last = largestProgrammeId(db);
      let span = FIRST_SPAN;
      for (let from = 0; from < last; ) {
        const began = performance.now();
        for (const row of programmeTuplesWhereIn(db, now, filter, from, from + span)) rows.push(row);
        from += span;
        const took = performance.now() - began;
        span = Math.max(500, Math.min(span * 2, took > 0 ? Math.floor((span * SLICE_MS) / took) : span * 2));
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      return rows;
    },
  };
}
