/** Stops what runs on the first SIGTERM or SIGINT, then exits (0, or 1 when stopping failed). */
import type { Logger } from 'pino';

export function stopOnSignals(logger: Logger, stop: () => Promise<void>): void {
  const shutdown = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'shutting down');
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // Installed before anything is announced: whoever reacts to the announcement can already stop us.
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
