/**
 * Restarting what a player backend supervises (mpv, Chromium) after it died: again
 * after a wait that grows while it keeps dying (0.5 s doubling to 30 s), back to no wait
 * once it has run a healthy minute, and never once its owner is stopping.
 */
import type { Logger } from 'pino';

/** A program that ran this long counts as healthy: the next crash restarts it at once again. */
const HEALTHY_AFTER_MS = 60_000;

export const defaultRestartDelay = (attempt: number) => Math.min(30_000, 500 * 2 ** (attempt - 1));

export interface RestartsOptions {
  /** The program's name in logs. */
  what: string;
  logger: Logger;
  /** Wait before restart number `attempt` (1, 2, ...); default defaultRestartDelay. */
  delayMs?: ((attempt: number) => number) | undefined;
  stopping(): boolean;
}

export class Restarts {
  private attempts = 0;
  private startedAt = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: RestartsOptions) {}

  /** The program is up: its healthy minute counts from now. */
  started(): void {
    this.startedAt = Date.now();
  }

  /** It died unexpectedly: `launch` again after the wait, and again while that fails. */
  afterExit(launch: () => Promise<void>): void {
    if (Date.now() - this.startedAt > HEALTHY_AFTER_MS) this.attempts = 0;
    this.schedule(launch);
  }

  cancel(): void {
    clearTimeout(this.timer);
  }

  private schedule(launch: () => Promise<void>): void {
    this.attempts += 1;
    const delay = (this.options.delayMs ?? defaultRestartDelay)(this.attempts);
    this.timer = setTimeout(() => {
      launch().catch((error: unknown) => {
        if (this.options.stopping()) return;
        this.options.logger.error(
          { err: error, attempt: this.attempts },
          `${this.options.what} did not restart; trying again`,
        );
        this.schedule(launch);
      });
    }, delay);
  }
}
