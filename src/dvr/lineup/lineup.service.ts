/**
 * The lineup as other players take it (issue 21): the channels `/api/v1/channels` lists,
 * with the guide of each for a time ahead, and the tuner count Antenna announces as an
 * HDHomeRun device. What they are written as is lineup-export.ts.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../../db/database.js';
import { listChannels } from '../../repositories/dvr/channels.repository.js';
import { programmeTuplesOf } from '../../repositories/dvr/guide.repository.js';
import { listSources } from '../../repositories/dvr/sources.repository.js';
import { NotFoundError } from '../../common/errors.js';
import type { ChannelsGuideEntry } from '../../model/dvr/channels-guide.schemas.js';
import { channelsAiring, channelsGuideChannel } from './channels-guide.js';
import { firstPerNumber, lineupSnapshot } from './lineup-snapshot.js';
import { type Airing, ProgrammeAiring } from './airing.js';
import { placeholderAirings } from './placeholder-airings.js';
import type { ExportChannel } from './lineup-export.js';

export class LineupService {
  constructor(
    private readonly db: Db,
    private readonly options: { now: () => number },
  ) {}

  /** The lineup, in channel-number order. */
  channels(): ExportChannel[] {
    return listChannels(this.db).map((channel) => ({
      number: channel.number,
      name: channel.name,
      logo: channel.image_url ?? undefined,
      hd: channel.hd === 1,
    }));
  }

  /**
   * Streams the sources allow at once, together: what Antenna announces as its tuner
   * count (viewers of one channel share a stream, so more may watch that one).
   */
  tunerCount(): number {
    return Math.max(
      1,
      listSources(this.db).reduce((sum, source) => sum + source.stream_limit, 0),
    );
  }

  /** A stable HDHomeRun device id (8 hex digits) for this data directory. */
  deviceId(): string {
    return createHash('sha1').update(`antenna:${this.db.name}`).digest('hex').slice(0, 8).toUpperCase();
  }

  /**
   * The programmes of the lineup's channels (`channels`, when the caller has them) that
   * air between now and `seconds` ahead (placeholder hours for one no guide describes), by guide channel and start,
   * read from the
   * database one guide channel at a time as they are written out (each channel read whole: no statement stays open
   * while the answer
   * waits for a slow client, which would keep the DVR from writing).
   */
  *programmes(
    seconds: number,
    channels: readonly ExportChannel[] = this.channels(),
  ): Generator<{ number: string; airing: Airing }> {
    const now = Math.floor(this.options.now() / 1000);
    const exported = new Set(channels.map((channel) => channel.number));
    const map = lineupSnapshot(this.db).guideMap;
    for (const [key, mapped] of map) {
      const numbers = mapped.filter((number) => exported.has(number));
      if (numbers.length === 0) continue;
      for (const row of programmeTuplesOf(this.db, key, now, now + seconds)) {
        const airing = ProgrammeAiring.fromTuple(row, numbers);
        for (const number of numbers) yield { number, airing };
      }
    }
    // A channel no guide describes gets hour blocks named after it: other players list only channels with a guide.
    const described = new Set([...map.values()].flat());
    for (const channel of channels) {
      if (described.has(channel.number)) continue;
      for (const airing of placeholderAirings(channel.number, channel.name, now, now + seconds))
        yield { number: channel.number, airing };
    }
  }

  /**
   * Channels' guide: each channel (of one source, or 'ANY': each number once) with its programmes overlapping
   * [from, to). A channel no guide describes has no airings (the placeholder hours are the app's, not data).
   */
  guideEntries(from: number, to: number, source: string): ChannelsGuideEntry[] {
    const snapshot = lineupSnapshot(this.db);
    if (source !== 'ANY' && !listSources(this.db).some((s) => s.id === source))
      throw new NotFoundError('source', source);
    const channels =
      source === 'ANY' ? firstPerNumber(snapshot.channels) : snapshot.channels.filter((c) => c.source_id === source);
    const keyOf = new Map<string, string>();
    for (const [key, numbers] of snapshot.guideMap) for (const number of numbers) keyOf.set(number, key);
    return channels.map((channel) => {
      const key = keyOf.get(channel.number);
      const airings = key
        ? programmeTuplesOf(this.db, key, from, to).map((row) => ProgrammeAiring.fromTuple(row, [channel.number]))
        : [];
      return {
        Channel: channelsGuideChannel(channel, key?.split('\t')[1]),
        Airings: airings.map((airing) => channelsAiring(channel.number, airing)),
      };
    });
  }
}
