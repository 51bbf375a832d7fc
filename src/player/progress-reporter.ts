/**
 * Sends watch progress to the server: where to resume an item, or that it was
 * watched. Only the latest report per item matters, so a newer one replaces one not
 * yet sent. A server that cannot be reached is retried with backoff until it answers
 * (playback never waits for this); a report the server refuses (the item was
 * deleted) is dropped and logged.
 */
import type { Logger } from 'pino';
import { UnavailableError } from '../common/errors.js';
import type { AntennaServerClient } from './antenna-server.client.js';

export type Report = { watched: true } | { watched: false; seconds: number };

export interface ProgressReporterOptions {
  /** Wait before retry number `attempt`; default 2 s doubling to 30 s. */
  retryDelayMs?: (attempt: number) => number;
}

const defaultRetryDelay = (attempt: number) => Math.min(30_000, 2000 * 2 ** (attempt - 1));

export class ProgressReporter {
  private readonly pending = new Map<string, Report>();
  private readonly sending = new Map<string, Promise<void>>();
  private readonly retries = new Map<string, NodeJS.Timeout>();
  private readonly attempts = new Map<string, number>();
  private stopped = false;

  constructor(
    private readonly server: AntennaServerClient,
    private readonly logger: Logger,
    private readonly options: ProgressReporterOptions = {},
  ) {}

  report(itemId: string, report: Report): void {
    if (this.stopped) return;
    this.pending.set(itemId, report);
    // A retry waiting for its time goes now with the newer report.
    clearTimeout(this.retries.get(itemId));
    this.retries.delete(itemId);
    if (!this.sending.has(itemId)) this.drain(itemId);
  }

  private drain(itemId: string): void {
    const work = (async () => {
      for (
        let report = this.pending.get(itemId);
        report !== undefined && !this.stopped;
        report = this.pending.get(itemId)
      ) {
        this.pending.delete(itemId);
        try {
          await (report.watched
            ? this.server.markWatched(itemId)
            : this.server.setPlaybackTime(itemId, report.seconds));
          if (this.attempts.has(itemId))
            this.logger.info({ item: itemId }, 'progress reported again after the server came back');
          this.attempts.delete(itemId);
        } catch (error) {
          if (!(error instanceof UnavailableError)) {
            this.logger.warn(
              { item: itemId, err: error },
              'the server refused a progress report; dropped: the error says why (a wrong --token?)',
            );
            continue;
          }
          // Unsent: keep it unless a newer one came meanwhile, and try again later.
          if (!this.pending.has(itemId)) this.pending.set(itemId, report);
          this.retryLater(itemId, error);
          return;
        }
      }
    })().finally(() => this.sending.delete(itemId));
    this.sending.set(itemId, work);
  }

  private retryLater(itemId: string, error: UnavailableError): void {
    if (this.stopped) return;
    const attempt = (this.attempts.get(itemId) ?? 0) + 1;
    this.attempts.set(itemId, attempt);
    if (attempt === 1)
      this.logger.warn(
        { item: itemId, reason: error.message },
        'cannot report progress now; retrying until the server answers (check that the server runs and this player reaches it)',
      );
    const delay = (this.options.retryDelayMs ?? defaultRetryDelay)(attempt);
    this.retries.set(
      itemId,
      setTimeout(() => {
        this.retries.delete(itemId);
        if (!this.sending.has(itemId)) this.drain(itemId);
      }, delay),
    );
  }

  /** Waits (at most `timeoutMs`) for reports in flight; then gives up on the rest. */
  async stop(timeoutMs = 2000): Promise<void> {
    for (const timer of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
    // One last try for what waits to be retried.
    for (const itemId of this.pending.keys()) if (!this.sending.has(itemId)) this.drain(itemId);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.sending.values()]),
      new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
    this.stopped = true;
    for (const timer of this.retries.values()) clearTimeout(timer);
    if (this.pending.size > 0)
      this.logger.warn(
        { items: [...this.pending.keys()] },
        'progress not reported: the server did not answer before shutdown, so these items resume from their last reported position (check that the server runs and this player reaches it)',
      );
  }
}
