/**
 * The streamable channels and which guide channel describes each, read once per change
 * of the lineup rather than once per request: with 1,000 channels the two reads and the
 * match cost ~6 ms, which every guide, channel and search request paid. A change is
 * told by lineup_version, a counter triggers move whenever a channel, a guide or a guide
 * channel is written, by this process or another (migration 012): other writes (watch
 * state, jobs, a guide's programmes) leave the snapshot as it is.
 * Callers must not change what they are given: it is shared until the next change.
 */
import type { Db } from '../../db/database.js';
import { lineupVersion } from '../../repositories/dvr/channel-edits.repository.js';
import { listStreamableChannels, type StreamableChannel } from '../../repositories/dvr/sources.repository.js';
import { listGuideChannels } from '../../repositories/dvr/guide.repository.js';
import { type GuideChannelMap, matchGuideChannels } from './guide-match.js';

export interface LineupSnapshot {
  /** Every streamable channel (not hidden), in number order. */
  readonly channels: readonly StreamableChannel[];
  /** Which guide channel describes which channel number. */
  readonly guideMap: GuideChannelMap;
}

interface Cached {
  version: number;
  channels: readonly StreamableChannel[];
  guideMap?: GuideChannelMap;
}

const cache = new WeakMap<Db, Cached>();

/** Which guide channel describes each channel number, for `channels` (read now, not cached). */
export function guideMapOf(db: Db, channels: readonly StreamableChannel[]): GuideChannelMap {
  const guideChannels = listGuideChannels(db).map((gc) => ({
    ...gc,
    displayNames: JSON.parse(gc.display_names) as string[],
  }));
  return matchGuideChannels(channels, guideChannels);
}

/** Each channel number once: the first of the sources that carry it (the one a viewer gets). */
export function firstPerNumber(channels: readonly StreamableChannel[]): StreamableChannel[] {
  const seen = new Set<string>();
  return channels.filter((c) => !seen.has(c.number) && seen.add(c.number));
}

function entryFor(db: Db): Cached {
  // Inside a transaction the counter may yet roll back to a value a later commit reaches again: read, never cache.
  if (db.inTransaction) return { version: -1, channels: listStreamableChannels(db) };
  const version = lineupVersion(db);
  let cached = cache.get(db);
  if (cached?.version !== version) cache.set(db, (cached = { version, channels: listStreamableChannels(db) }));
  return cached;
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
