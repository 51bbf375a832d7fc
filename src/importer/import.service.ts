/**
 * Scans import roots into the library: walk (folder-walk.ts), name (media-name.parser.ts),
 * reconcile with what earlier scans recorded (import-files.repository.ts), write items
 * through the library's own write functions, then probe new and changed files with
 * ffprobe at bounded concurrency.
 *
 * Never writes inside a root: every filesystem call here reads.
 */
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, sep } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import type { ImportRoot } from '../model/import-root.js';
import { forEachConcurrently } from '../common/concurrency.js';
import { PathBoundary } from '../common/path-boundary.js';
import { deleteItem, setProbeResults, setThumbnailUrl } from '../repositories/items.repository.js';
import { type SidecarIndex, type WalkProblem, type WalkedFile, walkRoot } from './folder-walk.js';
import {
  type ImportFileRow,
  deleteEmptyImportedParents,
  getImportFile,
  getThumbnailPath,
  type ImportFileState,
  listFilesNeedingThumbnails,
  listImportFileStates,
  listImportsUnder,
  listUnprobedFiles,
  moveImportFile,
  saveImportFile,
  saveProbeRecord,
  saveThumbnail,
} from '../repositories/import-files.repository.js';
import { makeThumbnail } from '../media-tools/thumbnail-maker.js';
import { ItemWriter, type MediaItem } from './item-writer.js';
import { digest } from '../model/ids.js';
import { type ParsedMedia, parseMediaPath } from './media-name.parser.js';
import { type ProbeOutcome, probeFile } from '../media-tools/media-probe.js';
import { type SidecarFiles, findSidecars } from './sidecar-files.js';

export interface ScanSummary {
  added: number;
  updated: number;
  moved: number;
  removed: number;
  unchanged: number;
  /** Files under a root that are not media (extras, samples, partial downloads). */
  ignored: number;
  probed: number;
  /** Time spent probing, in milliseconds. */
  probeMs: number;
  thumbnails: number;
  failed: { path: string; reason: string }[];
  /** Roots that were missing, unreadable or empty: nothing under them was removed. */
  skippedRoots: { path: string; reason: string }[];
  durationMs: number;
}

export interface ScanProgress {
  phase: 'idle' | 'walking' | 'importing' | 'probing' | 'thumbnails' | 'done';
  filesSeen: number;
  probed: number;
  toProbe: number;
}

export interface ImportServiceOptions {
  logger: Logger;
  /** Run ffprobe on new and changed files (default true). */
  probe?: boolean;
  ffprobePath?: string;
  /** Where thumbnails go (under the data directory); none are made without it. */
  thumbnailsDir?: string;
  ffmpegPath?: string;
  probeConcurrency?: number;
  now?: () => number;
  onProgress?: (progress: ScanProgress) => void;
  /**
   * Where symbolic links may lead (the import roots and the recordings folder, or
   * anywhere with --follow-external-links); default: the roots being scanned.
   */
  boundary?: PathBoundary;
}

const FINGERPRINT_BYTES = 64 * 1024;
const KIND_OF_ROOT = { tv: 'episode', movies: 'movie', videos: 'video' } as const;
/**
 * Files written per transaction. Between batches the scan yields to the event loop, so
 * a server scanning a large library keeps answering; small batches also keep each
 * batch's garbage young, which holds a 100,000-file first scan's memory down.
 */
const WRITE_BATCH = 500;

/** A file that needs importing: its parsed name (when it was parsed) and sidecars. */
interface Examined {
  parsed: ParsedMedia | undefined;
  sidecars: SidecarFiles;
  recorded: boolean;
}

/** What one scan carries from root to root. */
interface ScanRun {
  summary: ScanSummary;
  /** What earlier scans recorded, by path. */
  known: Map<string, ImportFileState>;
  /** Every media path found in this scan. */
  seen: Set<string>;
  sidecars: SidecarIndex;
  /** New files that may be moved ones, imported once every root is walked. */
  held: { root: ImportRoot; file: WalkedFile }[];
  writer: ItemWriter;
  now: number;
  /** Folders and files the walk could not read: what was imported from them stays. */
  unreadable: string[];
  /** Where symbolic links may lead. */
  boundary: PathBoundary;
}

/** Files that vanished, findable by inode (same disk) or by content fingerprint (copied across). */
class MoveCandidates {
  private readonly byInode = new Map<string, ImportFileRow>();
  private readonly byFingerprint = new Map<string, ImportFileRow>();

  constructor(gone: readonly ImportFileRow[]) {
    for (const row of gone) {
      this.byInode.set(inodeKey(row.dev, row.ino, row.size), row);
      this.byFingerprint.set(row.fingerprint, row);
    }
  }

  /**
   * The vanished file this new one is, if any; it is then no longer a candidate. Only
   * within one kind of root: a file moved from TV to movies is a different item.
   */
  take(file: WalkedFile, fingerprint: string, kind: ImportRoot['kind']): ImportFileRow | undefined {
    const byInode = this.byInode.get(inodeKey(file.dev, file.ino, file.size));
    const byFingerprint = this.byFingerprint.get(fingerprint);
    const row = byInode?.root_kind === kind ? byInode : byFingerprint?.root_kind === kind ? byFingerprint : undefined;
    if (row) {
      this.byInode.delete(inodeKey(row.dev, row.ino, row.size));
      this.byFingerprint.delete(row.fingerprint);
    }
    return row;
  }

  /** The vanished files no new file turned out to be: removed. */
  remaining(): Set<ImportFileRow> {
    return new Set([...this.byInode.values(), ...this.byFingerprint.values()]);
  }
}

function inodeKey(dev: number, ino: number, size: number): string {
  return `${dev}:${ino}:${size}`;
}

export class ImportService {
  private progressState: ScanProgress = { phase: 'idle', filesSeen: 0, probed: 0, toProbe: 0 };
  private abort = new AbortController();

  constructor(
    private readonly db: Db,
    private readonly options: ImportServiceOptions,
  ) {}

  progress(): ScanProgress {
    return { ...this.progressState };
  }

  /** Stops a running scan at its next step and kills its ffprobe processes; the scan then rejects with ScanCancelledError. */
  cancel(): void {
    this.abort.abort();
  }

  private checkCancelled(): void {
    if (this.abort.signal.aborted) throw new ScanCancelledError();
  }

  async scan(roots: readonly ImportRoot[]): Promise<ScanSummary> {
    if (this.abort.signal.aborted) this.abort = new AbortController();
    const started = performance.now();
    const summary: ScanSummary = { added: 0, updated: 0, moved: 0, removed: 0, unchanged: 0, ignored: 0, probed: 0, probeMs: 0, thumbnails: 0, failed: [], skippedRoots: [], durationMs: 0 };
    this.report({ phase: 'walking', filesSeen: 0, probed: 0, toProbe: 0 });

    const now = this.options.now?.() ?? Date.now();
    const run: ScanRun = {
      summary,
      known: listImportFileStates(this.db),
      seen: new Set(),
      sidecars: new Map(),
      held: [],
      writer: new ItemWriter(this.db, now, (path, reason) => this.fail(summary, path, reason)),
      now,
      unreadable: [],
      boundary: this.options.boundary ?? new PathBoundary(() => roots.map((root) => root.path)),
    };
    const availableRoots = new Set<string>();
    for (const root of roots) {
      if (await this.importRoot(root, run)) availableRoots.add(root.path);
      this.checkCancelled();
    }
    await this.settleMovesAndRemovals(run, availableRoots);

    if (this.options.probe !== false) {
      const probeStarted = performance.now();
      await this.probePending(summary, [...availableRoots]);
      summary.probeMs = Math.round(performance.now() - probeStarted);
      if (this.options.thumbnailsDir) await this.makeThumbnails(this.options.thumbnailsDir, summary, [...availableRoots]);
    }
    summary.durationMs = Math.round(performance.now() - started);
    this.report({ ...this.progressState, phase: 'done' });
    this.options.logger.info(
      { added: summary.added, updated: summary.updated, moved: summary.moved, removed: summary.removed, failed: summary.failed.length, ms: summary.durationMs },
      'scan finished',
    );
    return summary;
  }

  private report(progress: ScanProgress): void {
    this.progressState = progress;
    this.options.onProgress?.(progress);
  }

  /**
   * Walks one root and imports its files as the walk yields them, in batches. Returns
   * false when the root is missing, unreadable or looks unmounted (empty where it held
   * media): then nothing under it may be removed.
   */
  private async importRoot(root: ImportRoot, run: ScanRun): Promise<boolean> {
    const skip = (reason: string) => {
      run.summary.skippedRoots.push({ path: root.path, reason });
      this.options.logger.warn({ root: root.path, reason }, 'import root skipped; nothing under it is removed');
      return false;
    };
    try {
      if (!statSync(root.path).isDirectory()) return skip('not a folder');
    } catch {
      return skip('missing or unreadable');
    }
    // New files wait for the end only when something recorded may have moved to them.
    const holdNew = run.known.size > 0;
    const problems: WalkProblem[] = [];
    let batch: WalkedFile[] = [];
    let found = 0;
    for await (const files of walkRoot(root.path, problems, run.sidecars, run.boundary)) {
      this.checkCancelled();
      for (const file of files) {
        run.seen.add(file.path);
        if (holdNew && !run.known.has(file.path)) run.held.push({ root, file });
        else batch.push(file);
      }
      found += files.length;
      if (batch.length >= WRITE_BATCH) {
        this.importBatch(root, batch, run);
        batch = [];
        this.report({ ...this.progressState, phase: 'importing', filesSeen: run.seen.size });
        this.checkCancelled();
      }
    }
    this.importBatch(root, batch, run);
    for (const problem of problems) {
      this.fail(run.summary, problem.path, problem.reason);
      if (problem.unreadable) run.unreadable.push(problem.path);
    }
    this.report({ ...this.progressState, filesSeen: run.seen.size });
    if (found === 0 && [...run.known.values()].some((state) => state.root === root.path)) {
      return skip('holds no media files now but did before: unmounted? nothing removed');
    }
    return true;
  }

  /** One transaction: each file unchanged, updated in place, or (no move possible) added. */
  private importBatch(root: ImportRoot, files: readonly WalkedFile[], run: ScanRun): void {
    if (files.length === 0) return;
    this.db.transaction(() => {
      for (const file of files) this.importIsolated(root, file, run, undefined);
    })();
  }

  /**
   * One file in a savepoint of its own: whatever goes wrong with it (a constraint, a
   * parser bug) is undone for that file alone and reported; the scan goes on.
   */
  private importIsolated(root: ImportRoot, file: WalkedFile, run: ScanRun, moves: MoveCandidates | undefined): void {
    try {
      // Most files of a rescan are unchanged: they are told apart without a savepoint.
      const changed = this.examine(root, file, run);
      if (changed) this.db.transaction(() => this.importFile(root, file, run, moves, changed))();
    } catch (error) {
      this.fail(run.summary, file.path, `not imported: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** What a file is, when it needs importing; undefined (and counted) when it is not media or unchanged. */
  private examine(root: ImportRoot, file: WalkedFile, run: ScanRun): Examined | undefined {
    const { summary } = run;
    const recorded = run.known.get(file.path);
    // A file recorded under another kind of root is looked at afresh (see below).
    const state = recorded?.rootKind === root.kind ? recorded : undefined;
    // Files recorded before are media of their root's kind; an unchanged one needs no parsing.
    const kind = state ? KIND_OF_ROOT[root.kind] : undefined;
    const parsed = kind ? undefined : parseMediaPath(root.kind, file.relative);
    if (parsed?.kind === 'ignored') {
      summary.ignored++;
      return undefined;
    }
    const sidecars = this.sidecarsOf(run.sidecars, root, file, parsed?.kind ?? kind ?? 'video');
    if (state && state.size === file.size && state.mtimeMs === file.mtimeMs && state.sidecars === sidecars.signature) {
      summary.unchanged++;
      return undefined;
    }
    return { parsed, sidecars, recorded: recorded !== undefined };
  }

  /** Imports one file; `moves` (files recorded before and gone now) lets a new file take over a vanished one's item. */
  private importFile(root: ImportRoot, file: WalkedFile, run: ScanRun, moves: MoveCandidates | undefined, examined: Examined): void {
    const { summary } = run;
    const { parsed, sidecars } = examined;
    let previous = examined.recorded ? getImportFile(this.db, file.path) : undefined;
    if (previous && previous.root_kind !== root.kind) {
      // The folder is now a root of another kind (videos before, TV now): an episode is
      // not the movie or video it was, so it becomes a new item.
      this.removeItem(previous.item_id, summary);
      previous = undefined;
    }
    const media = parsed ?? parseMediaPath(root.kind, file.relative);
    if (media.kind === 'ignored') return;
    const mediaChanged = !previous || previous.size !== file.size || previous.mtime_ms !== file.mtimeMs;
    // A changed file gets a new thumbnail; the old one goes now, not when it is replaced.
    if (previous && mediaChanged) {
      this.removeOwnThumbnail(getThumbnailPath(this.db, previous.item_id));
      setThumbnailUrl(this.db, previous.item_id, null);
    }
    const fingerprint = previous && !mediaChanged ? previous.fingerprint : this.fingerprint(file, summary);
    if (fingerprint === undefined) return;
    const row: ImportFileRow = {
      path: file.path,
      root: root.path,
      root_kind: root.kind,
      item_id: previous?.item_id ?? '',
      size: file.size,
      mtime_ms: file.mtimeMs,
      dev: file.dev,
      ino: file.ino,
      fingerprint,
      sidecars: sidecars.signature,
    };
    if (previous) {
      run.writer.write(row.item_id, root, media, file.path, sidecars, false);
      saveImportFile(this.db, row, !mediaChanged);
      summary.updated++;
      return;
    }
    const movedFrom = moves?.take(file, fingerprint, root.kind);
    if (movedFrom) {
      row.item_id = movedFrom.item_id;
      run.writer.write(row.item_id, root, media, file.path, sidecars, false);
      moveImportFile(this.db, movedFrom.path, row);
      summary.moved++;
      return;
    }
    row.item_id = `imp-${digest(`${root.kind}:${file.path}:${run.now}`)}`;
    run.writer.write(row.item_id, root, media, file.path, sidecars, true);
    saveImportFile(this.db, row, false);
    summary.added++;
  }

  /**
   * After every root is walked: files recorded before and not seen now (under roots that
   * are there) are gone. A held new file with the same inode or fingerprint as a gone one
   * is that file moved; the other new files are added, and the rest of the gone removed.
   */
  private async settleMovesAndRemovals(run: ScanRun, availableRoots: Set<string>): Promise<void> {
    const gone: ImportFileRow[] = [];
    const unreadable = (path: string) => run.unreadable.some((p) => path === p || path.startsWith(p + sep));
    for (const [path, state] of run.known) {
      // Not seen under a root that is there, and not under a folder that could not be read.
      if (run.seen.has(path) || !availableRoots.has(state.root) || unreadable(path)) continue;
      const row = getImportFile(this.db, path);
      if (row) gone.push(row);
    }
    const moves = new MoveCandidates(gone);
    for (let start = 0; start < run.held.length; start += WRITE_BATCH) {
      if (start > 0) await yieldToEventLoop();
      this.checkCancelled();
      this.db.transaction(() => {
        for (const { root, file } of run.held.slice(start, start + WRITE_BATCH)) this.importIsolated(root, file, run, moves);
      })();
    }
    this.db.transaction(() => {
      for (const row of moves.remaining()) this.removeItem(row.item_id, run.summary);
      // Only a scan that changed something can have emptied a show, group or set.
      const { added, updated, moved, removed } = run.summary;
      if (added + updated + moved + removed > 0) deleteEmptyImportedParents(this.db);
    })();
  }

  private fail(summary: ScanSummary, path: string, reason: string): void {
    summary.failed.push({ path, reason });
    this.options.logger.warn({ path, reason }, 'import problem');
  }

  /** Removes everything imported from roots inside `dir` (the sample media, once real roots are configured). */
  forgetImportsUnder(dir: string): number {
    let removed = 0;
    this.db.transaction(() => {
      for (const { item_id, thumbnail } of listImportsUnder(this.db, dir)) {
        if (deleteItem(this.db, item_id)) removed++;
        this.removeOwnThumbnail(thumbnail ?? undefined);
      }
      deleteEmptyImportedParents(this.db);
    })();
    return removed;
  }

  /** Removes an imported item (its file is gone), with the thumbnail Antenna made of it. */
  private removeItem(itemId: string, summary: ScanSummary): void {
    const thumbnail = getThumbnailPath(this.db, itemId);
    if (deleteItem(this.db, itemId)) summary.removed++;
    this.removeOwnThumbnail(thumbnail);
  }

  /** Deletes a thumbnail of a removed item: only files Antenna made, in its own folder. */
  private removeOwnThumbnail(path: string | undefined): void {
    const dir = this.options.thumbnailsDir;
    if (path === undefined || dir === undefined || !path.startsWith(dir + sep)) return;
    rmSync(path, { force: true });
  }

  private sidecarsOf(index: SidecarIndex, root: ImportRoot, file: WalkedFile, kind: MediaItem['kind']): SidecarFiles {
    const firstSlash = file.relative.indexOf('/');
    const inFolder = firstSlash !== -1;
    const showFolder = kind === 'episode' && inFolder ? `${root.path}${sep}${file.relative.slice(0, firstSlash)}` : undefined;
    const name = file.relative.slice(file.relative.lastIndexOf('/') + 1);
    const dot = name.lastIndexOf('.');
    return findSidecars(index, file.path, dot > 0 ? name.slice(0, dot) : name, kind, showFolder, inFolder);
  }

  /** Size plus the first and last 64 KiB: the same file under another name has the same one. */
  private fingerprint(file: WalkedFile, summary: ScanSummary): string | undefined {
    let fd: number | undefined;
    try {
      fd = openSync(file.path, 'r');
      const hash = createHash('sha1').update(String(file.size));
      const buffer = Buffer.alloc(Math.min(FINGERPRINT_BYTES, file.size));
      hash.update(buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)));
      if (file.size > FINGERPRINT_BYTES * 2) hash.update(buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, file.size - buffer.length)));
      return hash.digest('hex');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      this.fail(summary, file.path, code === 'ENOENT' ? 'vanished during the scan' : code === 'EACCES' ? 'permission denied' : String(error));
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /** Probes the unprobed files under these roots (not under a root that is away: it would only fail). */
  private async probePending(summary: ScanSummary, roots: string[]): Promise<void> {
    const pending = listUnprobedFiles(this.db, roots);
    this.report({ ...this.progressState, phase: 'probing', toProbe: pending.length, probed: 0 });
    const concurrency = this.options.probeConcurrency ?? availableParallelism();
    await forEachConcurrently(pending, concurrency, async (file) => {
      const outcome = await probeFile(file.path, this.options.ffprobePath, this.abort.signal);
      this.checkCancelled();
      this.saveProbe(file.path, file.item_id, outcome, summary);
      summary.probed++;
      this.report({ ...this.progressState, probed: summary.probed });
    });
  }

  /** One frame per probed item without a thumbnail, one ffmpeg at a time: playback matters more. */
  private async makeThumbnails(dir: string, summary: ScanSummary, roots: string[]): Promise<void> {
    const pending = listFilesNeedingThumbnails(this.db, roots);
    if (pending.length === 0) return;
    mkdirSync(dir, { recursive: true });
    this.report({ ...this.progressState, phase: 'thumbnails' });
    await forEachConcurrently(pending, 1, async (file) => {
      const name = `${file.item_id}.jpg`;
      const result = await makeThumbnail(file.path, join(dir, name), file.duration, this.options.ffmpegPath, this.abort.signal);
      this.checkCancelled();
      if (result.ok) {
        saveThumbnail(this.db, file.path, join(dir, name), null);
        setThumbnailUrl(this.db, file.item_id, `/thumbnails/${encodeURIComponent(file.item_id)}`);
        summary.thumbnails++;
      } else {
        if (!result.transient) saveThumbnail(this.db, file.path, null, result.reason);
        this.fail(summary, file.path, result.reason);
      }
    });
  }

  private saveProbe(path: string, itemId: string, outcome: ProbeOutcome, summary: ScanSummary): void {
    const now = this.options.now?.() ?? Date.now();
    if (!outcome.ok && outcome.transient) {
      // Left unprobed: the next scan tries again.
      this.fail(summary, path, outcome.reason);
      return;
    }
    this.db.transaction(() => {
      if (outcome.ok) {
        setProbeResults(this.db, itemId, { duration: outcome.result.duration, tags: outcome.result.tags, corrupted: false, updatedAt: now });
        saveProbeRecord(this.db, path, { probedAt: now, chapters: outcome.result.chapters, problem: null });
      } else {
        setProbeResults(this.db, itemId, { duration: null, tags: null, corrupted: true, updatedAt: now });
        saveProbeRecord(this.db, path, { probedAt: now, chapters: null, problem: outcome.reason });
        this.fail(summary, path, outcome.reason);
      }
    })();
  }

}

export class ScanCancelledError extends Error {
  override readonly name = 'ScanCancelledError';
  constructor() {
    super('scan cancelled');
  }
}
