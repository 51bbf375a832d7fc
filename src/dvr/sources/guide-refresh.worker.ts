/**
 * The worker thread of a guide refresh (guide-refresh.thread.ts starts it): a connection
 * of its own, readGuideInto at the worker's pace, and messages back: `wrote` after each
 * transaction no reader sees, `applied` or `removed` once the swap is committed (the
 * replaced rows are deleted after it), `failed` with the error's message and rejection
 * kind. The replaced rows are deleted when the main thread says `drop` (after its re-plan,
 * whose writes would otherwise wait for the deleting) or after DROP_AFTER_MS. `abort`
 * from the main thread stops it (a read or placing is abandoned; deleting the replaced
 * rows stops, the next refresh deletes the rest).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openWorkerConnection } from '../../db/database.js';
import { WORKER_PACE } from '../../repositories/dvr/guide-writer.js';
import { type GuideReadRequest, readGuideInto } from './guide-reading.js';
import { rejectionKind } from './refresh-checks.js';
import type { GuideThreadMessage } from './guide-refresh.thread.js';

const { file, request } = workerData as { file: string; request: GuideReadRequest };
const port = parentPort;
const post = (message: GuideThreadMessage) => port?.postMessage(message);
const DROP_AFTER_MS = 60_000;
const abort = new AbortController();
let drop: () => void = () => undefined;
const dropSaid = new Promise<void>((resolve) => (drop = resolve));
port?.on('message', (message) => {
  if (message === 'abort') abort.abort();
  drop();
});

const db = openWorkerConnection(file);
try {
  const { outcome, dropReplaced } = await readGuideInto(db, request, {
    signal: abort.signal,
    pace: WORKER_PACE,
    wrote: () => post({ type: 'wrote' }),
  });
  if ('removed' in outcome) post({ type: 'removed' });
  else {
    post({ type: 'applied', outcome });
    const timer = setTimeout(drop, DROP_AFTER_MS);
    await dropSaid;
    clearTimeout(timer);
    await dropReplaced().catch(() => undefined); // Unread rows; the guide's next refresh deletes what is left.
  }
} catch (error) {
  post({ type: 'failed', message: error instanceof Error ? error.message : String(error), kind: rejectionKind(error) });
} finally {
  // What the main connection would otherwise copy on its next commit (its own checkpoints are off while this runs).
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // A checkpoint that cannot run now runs at a later commit.
  }
  db.close();
  port?.close();
}
