/**
 * Commercial marks while a recording is still being written: one comskip in live mode per recording in progress
 * (comskip.ts's LIVE_SETTINGS), whose EDL is read every `pollMs` and told when its marks change.
 *
 * Why live mode and not comskip run again on the file so far: measured with comskip 0.82.011, live mode rewrites its
 * EDL every 15 s of video while it follows the growing file, and reads every frame once, so a recording costs one
 * decoding (about 0.1 of a core for 1080i MPEG-2, 0.01 for SD); a run on the file so far every few minutes decodes the
 * whole file each time, which grows with the square of its length. Its marks are cruder than the final pass's (a
 * black-frame pass), which the final pass, run as before once the recording ends, replaces.
 *
 * A break may still be open at the live edge: `.incommercial` says so and that break is held back (liveMarks), so
 * marks trail the edge by up to about 2.5 min after a break ends (incommercial_frames, 144 s at 25 fps, less when
 * another break begins sooner, plus comskip's 15 s step and this poll).
 *
 * At most `limit` runs at once (default 2; more recordings wait for a slot, oldest first). A run that fails is told
 * once (onFailed) and the recording has no (more) live marks; one that ends by itself while the recording goes on
 * (comskip gave up waiting for the file to grow: a long stall) is started again, `restarts` times at most. comskip
 * writes only under `workDir` (Antenna's data folder), reading the recording as /dev/fd/3 (library-input.ts).
 */
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { PathBoundary } from '../../common/path-boundary.js';
import { INPUT_PATH } from '../../media-tools/library-input.js';
import { OUTPUT_BASE, comskipArgs, comskipIni, failureOf, liveMarks, runComskip } from './comskip.js';

export interface LiveCommercialsOptions {
  /** Scratch space: each run gets its own folder under it, removed when the run ends. */
  workDir: string;
  /** The recordings folder: a recording is opened only inside it. */
  recordingsDir: string;
  program: string;
  /** Live runs at once (default 2). */
  limit?: number;
  /** How often the runs' EDLs are read and waiting recordings started (default 10 s). */
  pollMs?: number;
  /** A recording is started once its file holds this much (default 2 MB: comskip wants some video to begin with). */
  minBytes?: number;
  /** Starts again after a run that ended by itself (default 3). */
  restarts?: number;
  logger?: Logger;
  /** A recording's live marks changed (flat [start, end, ...] seconds). */
  onMarks: (itemId: string, marks: number[]) => void;
  /** A run began (state 'live'). */
  onRunning: (itemId: string) => void;
  /** Live detection of this recording failed for good; told once. */
  onFailed: (itemId: string, reason: string) => void;
}

/** A recording in progress as the scheduler sees it. */
export interface LiveCandidate {
  itemId: string;
  bytes: number;
  /** Epoch ms before which it may not start (after a run that ended by itself). */
  notBefore: number;
}

/** Which waiting recordings start now: those with enough bytes, oldest first, while slots are free. */
export function recordingsToStart(
  waiting: readonly LiveCandidate[],
  running: number,
  limit: number,
  minBytes: number,
  now: number,
): string[] {
  const free = Math.max(0, limit - running);
  return waiting
    .filter((candidate) => candidate.bytes >= minBytes && candidate.notBefore <= now)
    .slice(0, free)
    .map((candidate) => candidate.itemId);
}

interface Run {
  abort: AbortController;
  dir: string;
  done: Promise<void>;
}

interface Watched {
  itemId: string;
  path: string;
  /** The marks last told, as JSON. */
  told: string;
  run: Run | undefined;
  starts: number;
  notBefore: number;
  failed: boolean;
  ended: boolean;
}

/** Runs that live longer than a day are not recordings any more. */
const RUN_TIMEOUT_MS = 24 * 60 * 60 * 1000;

export class LiveCommercials {
  private readonly watched = new Map<string, Watched>();
  private timer: NodeJS.Timeout | undefined;
  /** Runs being stopped, by item: a second end() of one waits for the same exit. */
  private readonly ending = new Map<string, Promise<void>>();
  private ticking = false;
  private readonly boundary: PathBoundary;

  constructor(private readonly options: LiveCommercialsOptions) {
    this.boundary = new PathBoundary(() => [options.recordingsDir]);
  }

  private get limit(): number {
    return this.options.limit ?? 2;
  }

  /** Follows a recording that has begun (or resumed); it starts when a slot is free and its file has some video. */
  begin(itemId: string, path: string): void {
    if (this.watched.has(itemId)) return;
    this.watched.set(itemId, {
      itemId,
      path,
      told: '[]',
      run: undefined,
      starts: 0,
      notBefore: 0,
      failed: false,
      ended: false,
    });
    this.timer ??= setInterval(
      () =>
        void this.tick().catch((err: unknown) =>
          this.options.logger?.warn({ err }, 'live commercial detection: a poll failed; the next one tries again'),
        ),
      this.options.pollMs ?? 10_000,
    );
    this.timer.unref();
  }

  /** The recording ended (or is gone): its run stops, nothing more is told of it; resolves once comskip exited. */
  async end(itemId: string): Promise<void> {
    const watched = this.watched.get(itemId);
    // Ended already (finish, then the recording's stop): the same wait for the same run.
    if (!watched) return this.ending.get(itemId);
    watched.ended = true;
    this.watched.delete(itemId);
    if (this.watched.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
    watched.run?.abort.abort(new Error('the recording ended'));
    const done = (watched.run?.done ?? Promise.resolve()).then(() => undefined);
    this.ending.set(itemId, done);
    try {
      await done;
    } finally {
      if (this.ending.get(itemId) === done) this.ending.delete(itemId);
    }
  }

  /** Runs going now (tests, /status). */
  running(): number {
    return [...this.watched.values()].filter((watched) => watched.run !== undefined).length;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.watched.keys()].map((itemId) => this.end(itemId)));
  }

  /** One poll: the runs' marks read, waiting recordings started. Never two at once (a slow disk). */
  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      for (const watched of this.watched.values()) {
        if (watched.run) await this.readRun(watched, watched.run);
      }
      const waiting: LiveCandidate[] = [];
      for (const watched of this.watched.values()) {
        if (watched.run || watched.failed) continue;
        const bytes = await stat(watched.path).then(
          (stats) => stats.size,
          () => 0,
        );
        waiting.push({ itemId: watched.itemId, bytes, notBefore: watched.notBefore });
      }
      const now = Date.now();
      for (const itemId of recordingsToStart(waiting, this.running(), this.limit, this.options.minBytes ?? 2e6, now)) {
        const watched = this.watched.get(itemId);
        if (watched && !watched.ended) this.startRun(watched);
      }
    } finally {
      this.ticking = false;
    }
  }

  private async readRun(watched: Watched, run: Run): Promise<void> {
    const marks = await readLiveOutput(run.dir).catch(() => undefined);
    if (marks === undefined || watched.ended) return;
    const text = JSON.stringify(marks);
    if (text === watched.told) return;
    watched.told = text;
    this.options.onMarks(watched.itemId, marks);
  }

  private startRun(watched: Watched): void {
    watched.starts++;
    const abort = new AbortController();
    const run: Run = { abort, dir: '', done: Promise.resolve() };
    watched.run = run;
    run.done = this.runOnce(watched, run).finally(() => {
      if (watched.run === run) watched.run = undefined;
    });
  }

  private async runOnce(watched: Watched, run: Run): Promise<void> {
    const { itemId } = watched;
    let failure: string | undefined;
    const opening = await this.boundary.open(watched.path);
    if (!opening.ok) {
      this.fail(watched, `the recording could not be opened (${opening.reason})`);
      return;
    }
    try {
      const base = join(this.options.workDir, itemId);
      await mkdir(base, { recursive: true });
      run.dir = await mkdtemp(join(base, 'comskip-live-'));
      const iniPath = join(run.dir, 'comskip.ini');
      await writeFile(iniPath, comskipIni({ live: true }));
      if (watched.ended) return;
      this.options.onRunning(itemId);
      const args = comskipArgs(INPUT_PATH, run.dir, iniPath);
      const finished = await runComskip(
        this.options.program,
        args,
        run.dir,
        RUN_TIMEOUT_MS,
        run.abort.signal,
        opening.file.fd,
      );
      failure = failureOf(finished);
    } catch (error) {
      if (!watched.ended) failure = (error as Error).message;
    } finally {
      await opening.file.handle.close().catch(() => undefined);
      if (run.dir) await rm(run.dir, { recursive: true, force: true }).catch(() => undefined);
    }
    if (watched.ended) return;
    if (failure !== undefined) {
      this.fail(watched, failure);
    } else if (watched.starts > (this.options.restarts ?? 3)) {
      this.fail(watched, `comskip stopped following the recording ${watched.starts} times (did the source stall?)`);
    } else {
      // comskip gave up waiting for the file to grow: it is started again from the beginning, a minute on.
      this.options.logger?.info({ item: itemId }, 'live commercial detection ended early; starting it again');
      watched.notBefore = Date.now() + 60_000;
    }
  }

  private fail(watched: Watched, reason: string): void {
    watched.failed = true;
    this.options.logger?.warn(
      { item: watched.itemId, err: reason },
      'live commercial detection failed; the recording goes on without live marks and gets them when it ends: check that comskip runs (--comskip-path)',
    );
    this.options.onFailed(watched.itemId, reason);
  }
}

/**
 * The marks in a run's folder, or undefined when there is nothing to read or comskip is between its writes: it
 * writes the EDL, then `.incommercial`, so an `.incommercial` older than the EDL, or either changed while read, is
 * read again at the next poll.
 */
export async function readLiveOutput(dir: string): Promise<number[] | undefined> {
  const edlPath = join(dir, `${OUTPUT_BASE}.edl`);
  const incPath = join(dir, `${OUTPUT_BASE}.incommercial`);
  const stamps = async () => {
    const [edl, inc] = await Promise.all([stat(edlPath, { bigint: true }), stat(incPath, { bigint: true })]);
    return { edl: edl.mtimeNs, inc: inc.mtimeNs, key: `${edl.mtimeNs}/${edl.size}/${inc.mtimeNs}/${inc.size}` };
  };
  const before = await stamps().catch(() => undefined);
  if (!before || before.inc < before.edl) return undefined;
  const [edl, inc] = await Promise.all([readFile(edlPath, 'utf8'), readFile(incPath, 'utf8')]);
  const after = await stamps().catch(() => undefined);
  return after?.key === before.key ? liveMarks(edl, inc) : undefined;
}
