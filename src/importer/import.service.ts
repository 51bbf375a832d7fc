/**
 * Scans import roots into the library: walk (folder-walk.ts), name (media-name.parser.ts),
 * reconcile with what earlier scans recorded (import-files.repository.ts), write items
 * through the library's own write functions, then probe new and changed files with
 * ffprobe at bounded concurrency.
 *
 * Never writes inside a root: every filesystem call here reads.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import type { ImportRoot } from '../library/library-state.repository.js';
import { deleteItem, setProbeResults, upsertEpisode, upsertMovie, upsertVideo } from '../library/items.repository.js';
import { upsertShow, upsertVideoGroup } from '../library/parents.repository.js';
import { type WalkProblem, type WalkedFile, walkRoot } from './folder-walk.js';
import {
  type ImportFileRow,
  deleteEmptyImportedParents,
  listImportFiles,
  listUnprobedFiles,
  moveImportFile,
  recordImportedParent,
  saveImportFile,
  saveProbeRecord,
} from './import-files.repository.js';
import { type ParsedMedia, parseMediaPath } from './media-name.parser.js';
import { type ProbeOutcome, probeFile } from './media-probe.js';

export interface ScanSummary {
  added: number;
  updated: number;
  moved: number;
  removed: number;
  unchanged: number;
  /** Files under a root that are not media (extras, samples, partial downloads). */
  ignored: number;
  probed: number;
  failed: { path: string; reason: string }[];
  /** Roots that were missing, unreadable or empty: nothing under them was removed. */
  skippedRoots: { path: string; reason: string }[];
  durationMs: number;
}

export interface ScanProgress {
  phase: 'idle' | 'walking' | 'importing' | 'probing' | 'done';
  filesSeen: number;
  probed: number;
  toProbe: number;
}

export interface ImportServiceOptions {
  logger: Logger;
  /** Run ffprobe on new and changed files (default true). */
  probe?: boolean;
  ffprobePath?: string;
  probeConcurrency?: number;
  now?: () => number;
  onProgress?: (progress: ScanProgress) => void;
}

const FINGERPRINT_BYTES = 64 * 1024;
const WRITE_BATCH = 2000;

export class ImportService {
  private progressState: ScanProgress = { phase: 'idle', filesSeen: 0, probed: 0, toProbe: 0 };
  private readonly knownParents = new Set<string>();
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
    const summary: ScanSummary = { added: 0, updated: 0, moved: 0, removed: 0, unchanged: 0, ignored: 0, probed: 0, failed: [], skippedRoots: [], durationMs: 0 };
    this.knownParents.clear();
    this.report({ phase: 'walking', filesSeen: 0, probed: 0, toProbe: 0 });

    const known = listImportFiles(this.db);
    const walked: { root: ImportRoot; file: WalkedFile }[] = [];
    const availableRoots = new Set<string>();
    for (const root of roots) {
      const files = await this.walk(root, known, summary);
      this.checkCancelled();
      if (!files) continue;
      availableRoots.add(root.path);
      for (const file of files) walked.push({ root, file });
      this.report({ ...this.progressState, filesSeen: walked.length });
    }

    this.report({ ...this.progressState, phase: 'importing' });
    this.reconcile(walked, known, availableRoots, summary);

    if (this.options.probe !== false) await this.probePending(summary);
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

  /** The root's files, or undefined when the root is missing, unreadable or looks unmounted. */
  private async walk(root: ImportRoot, known: Map<string, ImportFileRow>, summary: ScanSummary): Promise<WalkedFile[] | undefined> {
    const skip = (reason: string) => {
      summary.skippedRoots.push({ path: root.path, reason });
      this.options.logger.warn({ root: root.path, reason }, 'import root skipped; nothing under it is removed');
      return undefined;
    };
    try {
      if (!statSync(root.path).isDirectory()) return skip('not a folder');
    } catch {
      return skip('missing or unreadable');
    }
    const problems: WalkProblem[] = [];
    const files = await walkRoot(root.path, problems);
    for (const problem of problems) this.fail(summary, problem.path, problem.reason);
    if (files.length === 0 && [...known.values()].some((row) => row.root === root.path)) {
      return skip('holds no media files now but did before: unmounted? nothing removed');
    }
    return files;
  }

  private fail(summary: ScanSummary, path: string, reason: string): void {
    summary.failed.push({ path, reason });
    this.options.logger.warn({ path, reason }, 'import problem');
  }

  private reconcile(
    walked: readonly { root: ImportRoot; file: WalkedFile }[],
    known: Map<string, ImportFileRow>,
    availableRoots: Set<string>,
    summary: ScanSummary,
  ): void {
    const seen = new Set(walked.map((w) => w.file.path));
    // Files recorded before and not found now, under roots that are there: removed or moved.
    const gone = [...known.values()].filter((row) => !seen.has(row.path) && availableRoots.has(row.root));
    const goneByFingerprint = new Map(gone.map((row) => [row.fingerprint, row]));
    const goneByInode = new Map(gone.map((row) => [`${row.dev}:${row.ino}:${row.size}`, row]));
    const now = this.options.now?.() ?? Date.now();

    for (let start = 0; start < walked.length; start += WRITE_BATCH) {
      this.checkCancelled();
      this.db.transaction(() => {
        for (const { root, file } of walked.slice(start, start + WRITE_BATCH)) {
          const parsed = parseMediaPath(root.kind, file.relative);
          if (parsed.kind === 'ignored') {
            summary.ignored++;
            continue;
          }
          const previous = known.get(file.path);
          if (previous && previous.size === file.size && previous.mtime_ms === file.mtimeMs) {
            summary.unchanged++;
            continue;
          }
          const fingerprint = this.fingerprint(file, summary);
          if (fingerprint === undefined) continue;
          const row: ImportFileRow = { path: file.path, root: root.path, root_kind: root.kind, item_id: previous?.item_id ?? '', size: file.size, mtime_ms: file.mtimeMs, dev: file.dev, ino: file.ino, fingerprint };
          if (previous) {
            this.writeItem(row.item_id, root, parsed, file, now, false);
            saveImportFile(this.db, row, false);
            summary.updated++;
            continue;
          }
          const movedFrom = goneByInode.get(`${file.dev}:${file.ino}:${file.size}`) ?? goneByFingerprint.get(fingerprint);
          if (movedFrom) {
            goneByInode.delete(`${movedFrom.dev}:${movedFrom.ino}:${movedFrom.size}`);
            goneByFingerprint.delete(movedFrom.fingerprint);
            row.item_id = movedFrom.item_id;
            this.writeItem(row.item_id, root, parsed, file, now, false);
            moveImportFile(this.db, movedFrom.path, row);
            summary.moved++;
            continue;
          }
          row.item_id = `imp-${digest(`${root.kind}:${file.path}:${now}`)}`;
          this.writeItem(row.item_id, root, parsed, file, now, true);
          saveImportFile(this.db, row, false);
          summary.added++;
        }
      })();
    }

    this.db.transaction(() => {
      const movedAway = new Set([...goneByFingerprint.values(), ...goneByInode.values()]);
      for (const row of movedAway) {
        if (deleteItem(this.db, row.item_id)) summary.removed++;
      }
      deleteEmptyImportedParents(this.db);
    })();
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

  private writeItem(id: string, root: ImportRoot, parsed: Exclude<ParsedMedia, { kind: 'ignored' }>, file: WalkedFile, now: number, isNew: boolean): void {
    // Watch state, favorites and labels are never written here, so a rescan keeps them.
    const common = { id, source: 'imports' as const, path: file.path, completed: true, ...(isNew ? { created_at: now, processed: false } : {}), updated_at: now };
    if (parsed.kind === 'episode') {
      const showId = `imp-show-${digest(`${parsed.show.toLowerCase()}|${parsed.year ?? ''}`)}`;
      this.ensureParent(showId, 'show', () => upsertShow(this.db, { id: showId, name: parsed.show, release_year: parsed.year ?? null }));
      upsertEpisode(this.db, {
        ...common,
        show_id: showId,
        season_number: parsed.season ?? null,
        episode_number: parsed.episodes?.[0] ?? null,
        episode_title: parsed.title ?? (parsed.date ? `${parsed.show} ${parsed.date}` : null),
        original_air_date: parsed.date ?? null,
      });
    } else if (parsed.kind === 'movie') {
      upsertMovie(this.db, { ...common, title: parsed.title, release_year: parsed.year ?? null });
    } else {
      const folder = parsed.group === null ? root.path : `${root.path}/${parsed.group}`;
      const groupId = `videos-${digest(folder)}`;
      const name = parsed.group ?? basename(root.path);
      this.ensureParent(groupId, 'video_group', () => upsertVideoGroup(this.db, { id: groupId, name }));
      upsertVideo(this.db, { ...common, video_group_id: groupId, video_title: parsed.title });
    }
  }

  private ensureParent(id: string, kind: 'show' | 'video_group', create: () => void): void {
    if (this.knownParents.has(id)) return;
    create();
    recordImportedParent(this.db, id, kind);
    this.knownParents.add(id);
  }

  private async probePending(summary: ScanSummary): Promise<void> {
    const pending = listUnprobedFiles(this.db);
    this.report({ ...this.progressState, phase: 'probing', toProbe: pending.length, probed: 0 });
    let next = 0;
    const worker = async () => {
      while (next < pending.length) {
        const file = pending[next++];
        if (!file) break;
        const outcome = await probeFile(file.path, this.options.ffprobePath, this.abort.signal);
        this.checkCancelled();
        this.saveProbe(file.path, file.item_id, outcome, summary);
        summary.probed++;
        this.report({ ...this.progressState, probed: summary.probed });
      }
    };
    const concurrency = Math.max(1, this.options.probeConcurrency ?? availableParallelism());
    await Promise.all(Array.from({ length: Math.min(concurrency, pending.length) }, worker));
  }

  private saveProbe(path: string, itemId: string, outcome: ProbeOutcome, summary: ScanSummary): void {
    const now = this.options.now?.() ?? Date.now();
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

function digest(text: string): string {
  return createHash('sha1').update(text).digest('hex').slice(0, 16);
}
