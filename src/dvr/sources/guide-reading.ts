/**
 * One refresh of a guide on a connection of its own: read and parse the XMLTV, stage its
 * programmes, judge what was read against what is stored, and, when believable (or
 * confirmed), place and swap it in (GuideWriter). Runs in a worker thread
 * (guide-refresh.worker.ts) in a server; in the same thread when there is no compiled
 * worker (the tests run the sources). A refresh not applied is thrown (RefreshRejected,
 * a read or parse error); its reason is stored by the caller (source-refresh.ts).
 */
import type { Db } from '../../db/database.js';
import { countProgrammesEndingAfter, getGuide, GuideWriter } from '../../repositories/dvr/guide.repository.js';
import type { WritePace } from '../../repositories/dvr/guide-writer.js';
import { judgeGuide, RefreshRejected } from './refresh-checks.js';
import { openSource } from './source-reader.js';
import { parseXmltv, type XmltvProgramme } from './xmltv/xmltv.parser.js';

/** What a refresh of a guide needs, all of it plain data (it crosses to a worker thread). */
export interface GuideReadRequest {
  guideId: string;
  /** The location to read, already checked against the allowed folders. */
  location: string;
  timeoutMs?: number | undefined;
  /** The refresh's clock (epoch ms): what is upcoming, and its `refreshed_at`. */
  now: number;
  maxRemovedShare: number;
  accept: boolean;
}

/** An applied refresh: its counts, and the judgement the user's confirmation overrode, if any. */
export interface GuideApplied {
  programmes: number;
  skipped: number;
  confirmed?: string;
}

/** The guide was removed while it was read: nothing applied, nothing to store. */
export interface GuideRemoved {
  removed: true;
}

export interface GuideReadHooks {
  signal?: AbortSignal | undefined;
  pace: WritePace;
  /** After each transaction whose rows no reader sees (staged, placed unswapped, replaced rows deleted). */
  wrote?: () => void;
}

/**
 * Reads the guide and applies it. Resolves once the swap is committed, with `dropReplaced`
 * to call afterwards (the replaced rows, unread, are deleted then: nothing waits for it).
 */
export async function readGuideInto(
  db: Db,
  request: GuideReadRequest,
  hooks: GuideReadHooks,
): Promise<{ outcome: GuideApplied | GuideRemoved; dropReplaced: () => Promise<void> }> {
  const id = request.guideId;
  const { signal } = hooks;
  const nowSeconds = Math.floor(request.now / 1000);
  const writer = new GuideWriter(db, id, { pace: hooks.pace, signal, ...(hooks.wrote ? { wrote: hooks.wrote } : {}) });
  const nothing = async () => undefined;
  // XMLTV may leave out `stop`: a programme then ends where the next one on its channel begins.
  const open = new Map<string, XmltvProgramme>();
  let skipped = 0;
  let upcoming = 0;
  const emit = (p: XmltvProgramme) => {
    if (p.stop === undefined || p.stop <= p.start) {
      skipped++;
      return;
    }
    if (p.stop > nowSeconds) upcoming++;
    writer.programme({ ...p, stop: p.stop });
  };
  try {
    const input = await openSource(request.location, {
      ...(signal ? { signal } : {}),
      ...(request.timeoutMs ? { timeoutMs: request.timeoutMs } : {}),
    });
    const counts = await parseXmltv(
      input,
      {
        channel: (channel) => writer.channel(channel),
        programme: (programme) => {
          if (programme.stop !== undefined) return emit(programme);
          const before = open.get(programme.channel);
          if (before) emit({ ...before, stop: programme.start });
          open.set(programme.channel, programme);
        },
      },
      signal ? { signal } : {},
    );
    skipped += counts.skipped + open.size;
    // Judged before the rows are placed, so a refused guide costs no writes to programmes.
    // What was judged is what gets replaced though placing awaits: a guide's current
    // programmes change only by a refresh of it, and this is its only one (the refresher shares it).
    const stored = getGuide(db, id);
    if (!stored) {
      await writer.abandon();
      return { outcome: { removed: true }, dropReplaced: nothing };
    }
    const before = { programmes: stored.programmes, upcoming: countProgrammesEndingAfter(db, id, nowSeconds) };
    const judgement = judgeGuide(before, { programmes: writer.count, upcoming }, request.maxRemovedShare);
    if (judgement && !request.accept)
      throw new RefreshRejected(`${judgement.detail}; it was not applied`, judgement.kind);
    await writer.place();
    signal?.throwIfAborted();
    // Removed while placing: its programmes, these ones too, went with it (ON DELETE CASCADE).
    if (!getGuide(db, id)) {
      await writer.abandon();
      return { outcome: { removed: true }, dropReplaced: nothing };
    }
    writer.commit({ skipped }, request.now);
    const outcome: GuideApplied = {
      programmes: writer.count,
      skipped,
      ...(judgement ? { confirmed: judgement.detail } : {}),
    };
    return { outcome, dropReplaced: () => writer.dropReplaced() };
  } catch (error) {
    // What is left is unread, and the guide's next refresh deletes it: when stopped (the
    // server is stopping), left for it rather than deleted while the shutdown waits.
    if (signal?.aborted) writer.dropStaging();
    else await writer.abandon().catch(() => undefined);
    throw error;
  }
}
