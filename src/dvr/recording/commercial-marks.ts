/**
 * A recording's commercial marks over its life, for RecordingsService: live marks while it is written
 * (live-commercials.ts) stored as the item's `commercials`, the detection's state and failure reason
 * (GET /dvr/files/:id's file.commercial_detection), and `recording.commercials` told whenever its marks change (live)
 * or the final pass settles them, so an app playing the item refetches it.
 */
import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import type { EventSink } from '../../model/events/event.schemas.js';
import type { JobItem } from '../../model/library/library.schemas.js';
import {
  type DetectionState,
  getStoredCommercials,
  setCommercialDetection,
  setLiveCommercials,
} from '../../repositories/dvr/commercial-detection.repository.js';
import { getDvrJob } from '../../repositories/dvr/jobs.repository.js';
import { getRecording } from '../../repositories/dvr/recordings.repository.js';
import { recordingData, whatOf } from './job-item.js';
import { LiveCommercials, type LiveCommercialsOptions } from './live-commercials.js';

export interface CommercialMarksOptions {
  workDir: string;
  recordingsDir: string;
  /** comskip's path; undefined: detection is off (not installed, or turned off). */
  program: string | undefined;
  /** Live detection's limits (live-commercials.ts); `limit: 0` turns live detection off. */
  live?: Partial<Pick<LiveCommercialsOptions, 'limit' | 'pollMs' | 'minBytes' | 'restarts'>>;
  logger?: Logger | undefined;
  emit?: EventSink | undefined;
  now?: () => number;
}

const plural = (breaks: number) => `${breaks} break${breaks === 1 ? '' : 's'}`;

export class CommercialMarks {
  private readonly live: LiveCommercials | undefined;

  constructor(
    private readonly db: Db,
    private readonly options: CommercialMarksOptions,
  ) {
    if (options.program === undefined || options.live?.limit === 0) return;
    this.live = new LiveCommercials({
      ...options.live,
      workDir: options.workDir,
      recordingsDir: options.recordingsDir,
      program: options.program,
      ...(options.logger ? { logger: options.logger } : {}),
      onRunning: (itemId) => this.setState(itemId, 'live'),
      onMarks: (itemId, marks) =>
        this.guarded(itemId, () => {
          setLiveCommercials(this.db, itemId, marks, this.now());
          this.tell(itemId, marks, 'live');
        }),
      onFailed: (itemId, reason) =>
        this.guarded(itemId, () => {
          if (this.setState(itemId, 'live_failed', reason))
            this.tell(itemId, getStoredCommercials(db, itemId), 'live_failed', reason);
        }),
    });
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** Whether the final pass runs comskip at all. */
  get enabled(): boolean {
    return this.options.program !== undefined;
  }

  /** A recording began (or resumed after a restart): followed live when detection is on. */
  recordingStarted(itemId: string, path: string): void {
    if (!this.enabled) {
      this.setState(itemId, 'off');
      return;
    }
    this.setState(itemId, 'pending');
    this.live?.begin(itemId, path);
  }

  /**
   * The recording ended (or was deleted): its live run stops, no more live marks are told; its marks stay until the
   * final pass. Resolves when comskip has exited.
   */
  async recordingEnded(itemId: string, final = true): Promise<void> {
    // Before the wait: the final pass may begin (and say so) while comskip is still exiting.
    if (final) this.setState(itemId, this.enabled ? 'pending' : 'off');
    await this.live?.end(itemId);
  }

  /** The final pass begins. */
  finalStarted(itemId: string): void {
    if (this.enabled) this.setState(itemId, 'final');
  }

  /**
   * What the final pass found (its marks replace the live ones, written by the caller with the other results), or
   * why it could not judge the file (no marks then). Undefined `outcome`: detection is off.
   */
  finalDone(itemId: string, outcome: { commercials: number[] } | { error: string } | undefined): void {
    if (outcome === undefined) {
      this.setState(itemId, 'off');
      return;
    }
    if ('error' in outcome) {
      if (this.setState(itemId, 'failed', outcome.error))
        this.guarded(itemId, () => this.tell(itemId, [], 'failed', outcome.error));
      return;
    }
    if (this.setState(itemId, 'done')) this.guarded(itemId, () => this.tell(itemId, outcome.commercials, 'done'));
  }

  /** Stops every live run (shutdown): the recordings resume, and are followed again, at the next start. */
  async stop(): Promise<void> {
    await this.live?.stop();
  }

  /** Live runs going now. */
  running(): number {
    return this.live?.running() ?? 0;
  }

  /** Live marks are a nicety: a write that fails (a full data disk) is logged, never thrown into the poll. */
  private guarded(itemId: string, write: () => void): void {
    try {
      write();
    } catch (err) {
      this.options.logger?.warn(
        { item: itemId, err },
        'live commercial marks could not be stored (is the data disk full?)',
      );
    }
  }

  private setState(itemId: string, state: DetectionState, error?: string): boolean {
    try {
      return setCommercialDetection(this.db, itemId, state, error);
    } catch (err) {
      this.options.logger?.warn({ item: itemId, err }, 'the commercial detection state could not be written');
      return false;
    }
  }

  private tell(
    itemId: string,
    commercials: number[],
    state: 'live' | 'live_failed' | 'done' | 'failed',
    reason?: string,
  ) {
    const recording = this.options.emit ? getRecording(this.db, itemId) : undefined;
    if (!this.options.emit || !recording) return;
    const job = getDvrJob(this.db, recording.job_id);
    const item = job ? (JSON.parse(job.item) as JobItem) : undefined;
    const what = job && item ? whatOf(job, item) : itemId;
    const breaks = commercials.length / 2;
    const why = reason ?? 'no reason given';
    const message =
      state === 'failed' || state === 'live_failed'
        ? `Commercial detection ${state === 'live_failed' ? 'while recording ' : ''}failed for ${what}: ${why}.`
        : state === 'live'
          ? `Commercials in ${what} so far: ${plural(breaks)} (while recording).`
          : `Commercials in ${what}: ${plural(breaks)}.`;
    this.options.emit({
      kind: 'recording.commercials',
      severity: state === 'failed' || state === 'live_failed' ? 'warning' : 'info',
      message,
      data: {
        ...(job && item ? recordingData(job, item) : {}),
        item_id: itemId,
        commercials,
        commercial_detection: state,
        ...(reason ? { reason } : {}),
      },
    });
  }
}
