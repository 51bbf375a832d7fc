/**
 * Where a guide refresh runs: in a worker thread with its own connection
 * (guide-refresh.worker.ts) when the database is a file and the compiled worker is there
 * (a server), else in this thread (the tests, which run the TypeScript sources).
 *
 * Why a thread: a 14-day guide of 1,000 channels is 220 MB of XML to parse and 400,000
 * rows to write, seconds of CPU that on the main thread every request waited behind
 * (issue 21's bench: 10 s). In a worker the main thread's readers never wait (WAL), and
 * its writers wait at most for one of the worker's short transactions.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Db } from '../../db/database.js';
import { MAIN_THREAD_PACE } from '../../repositories/dvr/guide-writer.js';
import { type GuideApplied, type GuideReadRequest, type GuideRemoved, readGuideInto } from './guide-reading.js';
import { RefreshRejected, type RejectionKind } from './refresh-checks.js';

export type GuideThreadMessage =
  | { type: 'wrote' }
  | { type: 'applied'; outcome: GuideApplied }
  | { type: 'removed' }
  | { type: 'failed'; message: string; kind: RejectionKind };

const WORKER_FILE = fileURLToPath(new URL('./guide-refresh.worker.js', import.meta.url));

/**
 * A refresh applied (or its guide found removed), and the deleting of the rows it replaced, to start when the caller's
 * own writes are done.
 */
export interface GuideRun {
  outcome: GuideApplied | GuideRemoved;
  dropReplaced: () => void;
}

export interface GuideRunOptions {
  signal?: AbortSignal | undefined;
  /** After each of the refresh's transactions that no reader sees (its rows not swapped in yet, or replaced). */
  wrote?: () => void;
  /** Once the refresh has written its last, whatever came of it (its thread ended, or its rows deleted in this one). */
  ended?: () => void;
}

/** The refreshes running in worker threads, to stop and wait for at shutdown: each thread and when it has exited. */
const running = new Map<Worker, Promise<void>>();

/**
 * The main connection's automatic checkpoints are off while a refresh thread writes: its
 * WAL grows to tens of MB between the thread's own checkpoints, and a commit of the main
 * thread (a position report) would copy all of it to the database while requests wait.
 */
const checkpointsHeld = new Map<Db, { threads: number; pages: number }>();

function holdCheckpoints(db: Db): () => void {
  const held = checkpointsHeld.get(db) ?? {
    threads: 0,
    pages: Number(db.pragma('wal_autocheckpoint', { simple: true })),
  };
  if (held.threads++ === 0) db.pragma('wal_autocheckpoint = 0');
  checkpointsHeld.set(db, held);
  return () => {
    if (--held.threads > 0) return;
    checkpointsHeld.delete(db);
    if (db.open) db.pragma(`wal_autocheckpoint = ${held.pages}`);
  };
}

/**
 * Runs a guide refresh; resolves when it is applied (or the guide was found removed), rejects as the refresh is not
 * applied.
 */
export function runGuideRefresh(db: Db, request: GuideReadRequest, options: GuideRunOptions): Promise<GuideRun> {
  if (db.memory || !existsSync(WORKER_FILE)) return inThisThread(db, request, options);
  return inWorker(db, request, options);
}

async function inThisThread(db: Db, request: GuideReadRequest, options: GuideRunOptions): Promise<GuideRun> {
  const hooks = { signal: options.signal, pace: MAIN_THREAD_PACE, ...(options.wrote ? { wrote: options.wrote } : {}) };
  const { outcome, dropReplaced } = await readGuideInto(db, request, hooks).catch((error: unknown) => {
    options.ended?.();
    throw error;
  });
  // Unread rows, deleted in the background; what a failure leaves, the guide's next refresh deletes.
  return {
    outcome,
    dropReplaced: () =>
      void dropReplaced()
        .catch(() => undefined)
        .finally(() => options.ended?.()),
  };
}

/** Tells the main thread's hook, never throwing into the message loop (the database may have closed meanwhile). */
function told(hook: (() => void) | undefined): void {
  try {
    hook?.();
  } catch {
    // What the hook keeps (the cache's idea of other connections' commits) is read again at the next check.
  }
}

function inWorker(db: Db, request: GuideReadRequest, options: GuideRunOptions): Promise<GuideRun> {
  // A refresh asked for after the stop (the rest of a refresh of every guide, say) starts no thread.
  if (options.signal?.aborted)
    return Promise.reject(
      options.signal.reason instanceof Error ? options.signal.reason : new Error('the refresh was stopped'),
    );
  const worker = new Worker(WORKER_FILE, { workerData: { file: db.name, request } });
  const release = holdCheckpoints(db);
  const abort = () => worker.postMessage('abort');
  options.signal?.addEventListener('abort', abort, { once: true });
  let settle: { resolve: (outcome: GuideApplied | GuideRemoved) => void; reject: (error: Error) => void } | undefined;
  const answer = new Promise<GuideApplied | GuideRemoved>((resolve, reject) => (settle = { resolve, reject }));
  let ended = false;
  const exited = new Promise<void>((resolve) => {
    worker.on('message', (message: GuideThreadMessage) => {
      if (message.type === 'wrote') told(options.wrote);
      else if (message.type === 'applied') settle?.resolve(message.outcome);
      else if (message.type === 'removed') settle?.resolve({ removed: true });
      else settle?.reject(new RefreshRejected(message.message, message.kind));
    });
    worker.on('error', (error) => settle?.reject(new Error(`the guide refresh thread failed: ${error.message}`)));
    worker.on('exit', (code) => {
      ended = true;
      release();
      told(options.ended);
      options.signal?.removeEventListener('abort', abort);
      // A worker that ends without an answer (it cannot: but a crash of its thread would) is a refresh not applied.
      settle?.reject(new Error(`the guide refresh thread stopped (exit code ${code}) before it answered`));
      resolve();
    });
  });
  running.set(worker, exited);
  void exited.then(() => running.delete(worker));
  return answer.then((outcome) => ({ outcome, dropReplaced: () => ended || worker.postMessage('drop') }));
}

/** Whether a refresh thread is writing (or about to): a backup waits for it (db/database-backup.ts). */
export function guideThreadsRunning(): boolean {
  return running.size > 0;
}

/**
 * Stops the refresh threads and waits for them: a read or placing under way is abandoned,
 * a deleting of replaced rows stops (the next refresh deletes the rest). Their
 * connections close before the database does.
 */
export async function guideThreadsStopped(): Promise<void> {
  for (const worker of running.keys()) worker.postMessage('abort');
  await Promise.all(running.values());
}
