/**
 * The streamable channels and which guide channel describes each, read once per change
 * of the database rather than once per request: with 1,000 channels the two reads and
 * the match cost ~6 ms, which every guide, channel and search request paid. A change is
 * any row this connection wrote (total_changes(), free to read) or another process's
 * commit (data_version, read at most every EXTERNAL_CHECK_MS: it costs file locks).
 * Callers must not change what they are given: it is shared until the next change.
 */
import { performance } from 'node:perf_hooks';
import type { Db } from '../db/database.js';
import { dataVersion, totalChanges } from '../repositories/library-state.repository.js';
import { listStreamableChannels, type StreamableChannel } from '../repositories/sources.repository.js';
import type { GuideChannelMap } from './guide-match.js';
import { guideMapOf } from './job-scheduler.js';

/** How stale another process's change to the lineup may be seen (as the library's lists). */
const EXTERNAL_CHECK_MS = 500;

export interface LineupSnapshot {
  /** Every streamable channel (not hidden), in number order. */
  readonly channels: readonly StreamableChannel[];
  /** Which guide channel describes which channel number. */
  readonly guideMap: GuideChannelMap;
}

interface Cached {
  key: string;
  channels: readonly StreamableChannel[];
  guideMap?: GuideChannelMap;
}

const cache = new WeakMap<Db, { external: number; checkedAt: number; cached?: Cached }>();

function entryFor(db: Db): Cached {
  let state = cache.get(db);
  if (!state) cache.set(db, (state = { external: 0, checkedAt: -Infinity }));
  const now = performance.now();
  if (now - state.checkedAt >= EXTERNAL_CHECK_MS) {
    state.external = dataVersion(db);
    state.checkedAt = now;
  }
  const key = `${totalChanges(db)}.${state.external}`;
  if (state.cached?.key !== key) state.cached = { key, channels: listStreamableChannels(db) };
  return state.cached;
}

/** The lineup as it is now (read again only after a change). */
export function lineupSnapshot(db: Db): LineupSnapshot {
  const entry = entryFor(db);
  return {
    channels: entry.channels,
    get guideMap() {
      return (entry.guideMap ??= guideMapOf(db, entry.channels));
    },
  };
}
