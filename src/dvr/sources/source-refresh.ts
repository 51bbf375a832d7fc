/**
 * Refreshing a source or a guide: read it, judge what was read (refresh-checks.ts), then
 * either apply it in one transaction or keep everything as it was, store why as the
 * source's or guide's `error` (its `refreshed_at` stays the time of the last good
 * refresh) and log what to do. A rejected refresh is an answer, never a thrown error:
 * only an unknown id throws (NotFoundError).
 *
 * A source's channels are replaced in one transaction (replaceSourceChannels), each with
 * the user's lineup edit applied (lineup-edits.ts finds them again); a guide's
 * programmes are staged, placed unseen and swapped in with one short transaction
 * (GuideWriter, in a worker thread: guide-refresh.thread.ts), so readers see the old
 * lineup or guide or the new one, never half of either. What was judged is what gets
 * replaced: for a source nothing awaits between them; a guide's programmes change only by
 * its refresh, and one runs at a time.
 */
import type { EventSink } from '../../model/events/event.schemas.js';
import { guideApplied, guideFailed, sourceBack, sourceFailing } from './refresh-events.js';
import type { Logger } from 'pino';
import { NotFoundError } from '../../common/errors.js';
import type { Db } from '../../db/database.js';
import { getGuide, setGuideError } from '../../repositories/dvr/guide.repository.js';
import { listEditsOfSource, listLineup } from '../../repositories/dvr/channel-edits.repository.js';
import {
  getSource,
  listSourceChannelNumbers,
  replaceSourceChannels,
  setSourceError,
  type SourceRow,
} from '../../repositories/dvr/sources.repository.js';
import { readHdHomeRun } from './hdhomerun.client.js';
import { numberClashes, withEdits } from '../lineup/lineup-edits.js';
import { parseM3u } from './m3u.parser.js';
import {
  advice,
  confirmation,
  judgeLineup,
  needsConfirmation,
  playlistProblem,
  RefreshRejected,
  type RejectionKind,
  rejectionKind,
} from './refresh-checks.js';
import { runGuideRefresh } from './guide-refresh.thread.js';
import { readSourceText, shownLocation } from './source-reader.js';

/**
 * Why a refresh was not applied: its `error` (stored on the source or guide too), its kind, and whether `accept` would
 * apply it.
 */
interface NotApplied {
  error?: string;
  rejected?: RejectionKind;
  needs_confirmation?: boolean;
}

export interface SourceRefresh extends NotApplied {
  id: string;
  channels?: number;
  skipped?: number;
}

export interface GuideRefresh extends NotApplied {
  id: string;
  programmes?: number;
  skipped?: number;
}

export interface RefreshSummary {
  sources: SourceRefresh[];
  guides: GuideRefresh[];
}

export interface RefreshOptions {
  signal?: AbortSignal | undefined;
  /** The user confirms: apply a refresh that is empty or removes much (not one that is unreadable or malformed). */
  accept?: boolean | undefined;
}

/**
 * Told of a guide refresh's commits on a connection of its own: `unseen` after each no reader sees; `seen` after its
 * swap, and once it has ended (whatever came of it).
 */
export interface GuideWrites {
  unseen(): void;
  seen(): void;
}

export interface RefresherOptions {
  logger?: Logger | undefined;
  now: () => number;
  /** The share a refresh may remove unconfirmed (refresh-checks.ts). */
  maxRemovedShare: number;
  /** Longest wait for a source's answer and each chunk of it; the readers' defaults (30 s, a tuner 5 s) when absent. */
  timeoutMs?: number | undefined;
  /** The location to read, or an Error when it may not be read (a managed file outside the allowed folders). */
  readable: (row: { location: string; origin: string }) => string;
  /** Told of a guide refresh's commits (GuideWrites). */
  guideWrites?: GuideWrites | undefined;
  /** Where a source going dark or coming back, and each guide refresh, are told (refresh-events.ts). */
  emit: EventSink;
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class SourceRefresher {
  private readonly sourceRefreshes = new Map<string, { accept: boolean; done: Promise<SourceRefresh> }>();
  private readonly guideRefreshes = new Map<string, { accept: boolean; done: Promise<GuideRefresh> }>();
  private replacedToDrop: (() => void)[] = [];

  constructor(
    private readonly db: Db,
    private readonly options: RefresherOptions,
  ) {}

  private get maxRemovedShare(): number {
    return this.options.maxRemovedShare;
  }

  private now(): number {
    return this.options.now();
  }

  /** The signal and time limit of a read (the reader's own default limit unless one was given). */
  private reading(signal: AbortSignal | undefined): { signal?: AbortSignal; timeoutMs?: number } {
    return { ...(signal ? { signal } : {}), ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}) };
  }

  /**
   * Starts deleting the programmes that applied guide refreshes replaced (unread rows):
   * called after the re-plan that follows them, whose writes would otherwise wait for the
   * deleting. Left uncalled, a refresh thread deletes them a minute after its swap.
   */
  dropReplacedProgrammes(): void {
    const drops = this.replacedToDrop;
    this.replacedToDrop = [];
    for (const drop of drops) drop();
  }

  /**
   * One refresh of a source at a time: a call while one runs shares it, or, to accept what that one may not, follows
   * it.
   */
  refreshSource(id: string, options: RefreshOptions = {}): Promise<SourceRefresh> {
    return shared(this.sourceRefreshes, id, options.accept === true, () => this.readSource(id, options));
  }

  /** The same for a guide. */
  refreshGuide(id: string, options: RefreshOptions = {}): Promise<GuideRefresh> {
    return shared(this.guideRefreshes, id, options.accept === true, () => this.readGuide(id, options));
  }

  private async readSource(id: string, options: RefreshOptions): Promise<SourceRefresh> {
    const source = getSource(this.db, id);
    if (!source) throw new NotFoundError('source', id);
    try {
      const result =
        source.kind === 'm3u'
          ? await this.readM3u(source, options.signal)
          : await this.readTuner(source, options.signal);
      // Nothing awaits from here to the write: the lineup judged is the one replaced, in one transaction.
      if (!getSource(this.db, id)) return { id, error: `${source.name}: removed while it was read` };
      const judgement = judgeLineup(
        listSourceChannelNumbers(this.db, id),
        result.channels.map((c) => c.number),
        this.maxRemovedShare,
      );
      if (judgement && options.accept !== true)
        throw new RefreshRejected(`${judgement.detail}; it was not applied`, judgement.kind);
      const edited = withEdits(result.channels, listEditsOfSource(this.db, id));
      replaceSourceChannels(
        this.db,
        id,
        { ...result, channels: edited.channels, identities: edited.identities },
        this.now(),
      );
      this.warnOfClashes(id);
      const counts = { channels: result.channels.length, skipped: result.skipped };
      if (judgement)
        this.options.logger?.warn(
          { source: id, ...counts },
          `source refresh applied as the user confirmed: ${judgement.detail}`,
        );
      else this.options.logger?.info({ source: id, ...counts }, 'source refresh applied');
      if (source.error !== null) this.options.emit(sourceBack(source));
      return { id, ...counts };
    } catch (error) {
      const answer = this.rejected('source', id, `${source.name}: ${reason(error)}`, error, (message, kind) =>
        setSourceError(this.db, id, message, this.now(), kind),
      );
      // Told when it starts failing, not at every refresh that finds it still dark.
      if (source.error === null && !options.signal?.aborted) this.options.emit(sourceFailing(source, answer.error));
      return answer;
    }
  }

  /**
   * A channel the user numbered that now shares its number with another (this refresh brought it, or moved it there):
   * said, with what to do.
   */
  private warnOfClashes(id: string): void {
    const lineup = listLineup(this.db);
    const numbered = new Set(lineup.flatMap((row) => (row.number !== row.source_number ? [row.id] : [])));
    const byId = new Map(lineup.map((row) => [row.id, row]));
    for (const [mine, other] of numberClashes(lineup, numbered)) {
      const [a, b] = [byId.get(mine), byId.get(other)];
      this.options.logger?.warn(
        { source: id, channels: [mine, other] },
        `after the refresh, “${a?.name ?? mine}” (${mine}) has the number you gave it, ${a?.number ?? ''}, which “${b?.name ?? other}” (${other}) has too; the lineup lists one of them: renumber one (PATCH /dvr/lineup/ID, or antenna channels edit ID --number N)`,
      );
    }
  }

  /** Stores and logs why a refresh was not applied; what the last good one gave stays. */
  private rejected(
    what: 'source' | 'guide',
    id: string,
    message: string,
    error: unknown,
    store: (message: string, kind: RejectionKind) => void,
  ) {
    const kind = rejectionKind(error);
    const confirm = needsConfirmation(kind);
    const stored = confirm
      ? `${message}; if the ${what} really changed, confirm it: ${confirmation(what, id)}`
      : message;
    store(stored, kind);
    const kept = what === 'source' ? 'its channels' : 'the programmes';
    this.options.logger?.warn(
      { [what]: id, reason: kind, err: stored },
      `${what} refresh ${kind === 'unreadable' ? 'failed' : 'not applied'}; keeping ${kept} from the last refresh: ${advice(kind, what, id)}`,
    );
    return { id, error: stored, rejected: kind, ...(confirm ? { needs_confirmation: true } : {}) };
  }

  private async readM3u(source: SourceRow, signal?: AbortSignal) {
    const text = await readSourceText(this.options.readable(source), this.reading(signal));
    const playlist = parseM3u(text);
    const problem = playlistProblem(text, { channels: playlist.channels.length, skipped: playlist.skipped });
    if (problem) throw new RefreshRejected(problem, 'not_recognised');
    const channels = playlist.channels.map((c) => ({
      number: c.number,
      name: c.name,
      image_url: c.logo,
      hd: c.hd,
      stream_url: c.url,
      guide_id: c.guideId,
      guide_name: c.guideName,
      group_title: c.group,
    }));
    return { channels, skipped: playlist.skipped };
  }

  private async readTuner(source: SourceRow, signal?: AbortSignal) {
    const device = await readHdHomeRun(source.location, this.reading(signal));
    const channels = device.channels.map((c) => ({
      number: c.number,
      name: c.name,
      call_sign: c.name,
      hd: c.hd,
      stream_url: c.url,
    }));
    const name = device.friendlyName ? `${device.friendlyName} ${device.deviceId}` : `HDHomeRun ${device.deviceId}`;
    return { channels, skipped: device.skipped, streamLimit: Math.max(1, device.tunerCount), name };
  }

  private async readGuide(id: string, options: RefreshOptions): Promise<GuideRefresh> {
    const guide = getGuide(this.db, id);
    if (!guide) throw new NotFoundError('guide', id);
    try {
      const request = {
        guideId: id,
        location: this.options.readable(guide),
        timeoutMs: this.options.timeoutMs,
        now: this.now(),
        maxRemovedShare: this.maxRemovedShare,
        accept: options.accept === true,
      };
      const writes = this.options.guideWrites;
      const told = writes ? { wrote: () => writes.unseen(), ended: () => writes.seen() } : {};
      const { outcome, dropReplaced } = await runGuideRefresh(this.db, request, { signal: options.signal, ...told });
      writes?.seen();
      this.replacedToDrop.push(dropReplaced);
      if ('removed' in outcome)
        return { id, error: `guide ${shownLocation(guide.location)}: removed while it was read` };
      const result = { programmes: outcome.programmes, skipped: outcome.skipped };
      if (outcome.confirmed)
        this.options.logger?.warn(
          { guide: id, ...result },
          `guide refresh applied as the user confirmed: ${outcome.confirmed}`,
        );
      else this.options.logger?.info({ guide: id, ...result }, 'guide refresh applied');
      this.options.emit(guideApplied(id, shownLocation(guide.location), result));
      return { id, ...result };
    } catch (error) {
      // Stopped with the server: nothing was wrong with the guide, so nothing is stored or warned of.
      if (options.signal?.aborted)
        return {
          id,
          error: `guide ${shownLocation(guide.location)}: the refresh was stopped (the server is stopping)`,
        };
      const answer = this.rejected(
        'guide',
        id,
        `guide ${shownLocation(guide.location)}: ${reason(error)}`,
        error,
        (message, kind) => setGuideError(this.db, id, message, this.now(), kind),
      );
      this.options.emit(guideFailed(id, answer.error));
      return answer;
    }
  }
}

/**
 * The refresh of `id` running in `running`, or a new one: a call that accepts what the
 * running one may refuse starts after it instead of sharing it.
 */
function shared<T>(
  running: Map<string, { accept: boolean; done: Promise<T> }>,
  id: string,
  accept: boolean,
  start: () => Promise<T>,
): Promise<T> {
  const current = running.get(id);
  if (current && (current.accept || !accept)) return current.done;
  const after = current
    ? current.done.then(
        () => undefined,
        () => undefined,
      )
    : Promise.resolve();
  const done: Promise<T> = after.then(start).finally(() => {
    if (running.get(id)?.done === done) running.delete(id);
  });
  running.set(id, { accept, done });
  return done;
}
