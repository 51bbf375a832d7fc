/**
 * One reconciliation of what is on disk with what earlier scans recorded: a whole
 * root's scan, or a watched change's few folders. The walk's files come in batches;
 * each batch is examined (unchanged files are told apart by size, mtime and sidecars,
 * without a read), what needs importing is read asynchronously (fingerprints, NFO
 * texts: a dead share blocks a pool thread, never the event loop), then written in one
 * synchronous transaction; should one file fail, the batch is written again with each
 * file in a savepoint of its own, and only the failing files are left out (write).
 *
 * Two runs may be under way at once (a long first scan and a watched change): every
 * write is synchronous, so they never interleave inside a batch, and each write looks
 * the file up again rather than trusting what the run saw earlier; a file the other run
 * removed after this one listed it is not written back (removedElsewhere).
 */
import { existsSync } from 'node:fs';
import { sep } from 'node:path';
import type { Db } from '../db/database.js';
import type { ImportRoot } from '../model/import-root.js';
import { digest } from '../model/ids.js';
import { forEachConcurrently } from '../common/concurrency.js';
import { deleteItem, setThumbnailUrl } from '../repositories/library/items.repository.js';
import {
  type ImportFileRow,
  type ImportFileState,
  deleteEmptyImportedParents,
  getImportFile,
  getThumbnailPath,
  moveImportFile,
  saveImportFile,
} from '../repositories/library/import-files.repository.js';
import type { SidecarIndex, WalkedFile } from './folder-walk.js';
import { readFingerprint, readProblem, readSmallText } from './file-reads.js';
import { ItemWriter, type MediaItem } from './item-writer.js';
import { type ParsedMedia, parseMediaPath } from './media-name.parser.js';
import { MAX_NFO_BYTES } from './nfo.parser.js';
import { type SidecarFiles, findSidecars } from './sidecar-files.js';
import { MoveCandidates } from './move-candidates.js';
import { RunJournal } from './run-journal.js';
import type { ScanSummary } from './scan-summary.js';

const KIND_OF_ROOT = { tv: 'episode', movies: 'movie', videos: 'video' } as const;
/** Reads at once while preparing a batch: enough to hide a disk's latency, few enough to leave the pool to others. */
const READS_AT_ONCE = 8;

/** A file that needs importing: its parsed name (when it was parsed), sidecars and what was read of it. */
interface Prepared {
  root: ImportRoot;
  file: WalkedFile;
  parsed: ParsedMedia | undefined;
  sidecars: SidecarFiles;
  /** Read when the media is new or changed; a failed read leaves the file out of this run. */
  fingerprint?: string;
}

/** One file's write failed inside a batch whose transaction is still open: the batch is written again file by file. */
class FileWriteFailed extends Error {
  constructor(failure: unknown) {
    super(failure instanceof Error ? failure.message : String(failure));
  }
}

export interface ImportRunOptions {
  summary: ScanSummary;
  /** What earlier scans recorded, by path, for the places this run walks. */
  known: Map<string, ImportFileState>;
  now: number;
  thumbnailsDir: string | undefined;
  fail: (path: string, reason: string) => void;
  checkCancelled: () => void;
  /** Keep `written` (a change run tells the whole walk under way); a whole walk of 100,000 files does not hold them. */
  trackWrites: boolean;
}

export class ImportRun {
  readonly summary: ScanSummary;
  readonly known: Map<string, ImportFileState>;
  /** Every media path found in this run. */
  readonly seen = new Set<string>();
  readonly sidecars: SidecarIndex = new Map();
  /** New files that may be moved ones, imported once every place is walked. */
  readonly held: { root: ImportRoot; file: WalkedFile }[] = [];
  /** Folders and files the walk could not read: what was imported from them stays. */
  readonly unreadable: string[] = [];
  /**
   * Files written by this run (new, changed or moved) and files removed: what a run under way at the same time must
   * learn.
   */
  readonly written = new Map<string, ImportFileState>();
  readonly removed = new Set<string>();
  /**
   * Files another run removed while this one was under way (ImportService tells it): this
   * run may have listed and read one before it went, and its write comes later.
   */
  readonly removedElsewhere = new Set<string>();
  private readonly writer: ItemWriter;
  /** What the run remembers while a transaction is open: undone if it rolls back (see write). */
  private readonly journal: RunJournal;

  constructor(
    private readonly db: Db,
    private readonly options: ImportRunOptions,
  ) {
    this.summary = options.summary;
    this.known = options.known;
    this.journal = new RunJournal(options.fail);
    this.writer = new ItemWriter(
      db,
      options.now,
      (path, reason) => this.journal.problem(path, reason),
      this.journal.record,
    );
  }

  /** Files of a walked batch: recorded ones now, new ones now or (`holdNew`, a move may explain them) at the end. */
  async take(root: ImportRoot, files: readonly WalkedFile[], holdNew: boolean): Promise<void> {
    const now: WalkedFile[] = [];
    for (const file of files) {
      this.seen.add(file.path);
      if (holdNew && !this.known.has(file.path)) this.held.push({ root, file });
      else now.push(file);
    }
    await this.importBatch(
      now.map((file) => ({ root, file })),
      undefined,
    );
  }

  /** Examines, reads, then writes a batch in one transaction. */
  private async importBatch(
    files: readonly { root: ImportRoot; file: WalkedFile }[],
    moves: MoveCandidates | undefined,
  ): Promise<void> {
    const prepared: Prepared[] = [];
    for (const { root, file } of files) {
      const examined = this.examine(root, file);
      if (examined) prepared.push(examined);
    }
    if (prepared.length === 0) return;
    await this.read(prepared);
    this.options.checkCancelled();
    this.write(prepared, moves);
  }

  /**
   * The batch in one transaction. Should a file fail, the batch is rolled back and
   * written again with each file in a savepoint of its own, so that only the failing
   * files are left out. Not a savepoint per file from the start: FTS5 (the search index)
   * writes its pending words out at every savepoint, which took a quarter of a first scan's time.
   * Anything else (the lock not had in time, a full disk that ended the transaction) is
   * not a file's failure: it is thrown, as a whole write's would be.
   */
  private write(prepared: readonly Prepared[], moves: MoveCandidates | undefined): void {
    const files = prepared.filter((item) => item.parsed?.kind !== 'ignored');
    const written = this.inTransaction(() => {
      for (const item of files) {
        try {
          this.importFile(item, moves);
        } catch (error) {
          throw this.db.inTransaction ? new FileWriteFailed(error) : error;
        }
      }
    });
    if (!written) {
      this.inTransaction(() => {
        for (const item of files) this.importIsolated(item, moves);
      });
    }
  }

  /**
   * Runs `write` in a transaction; what the run remembered takes effect once it commits,
   * and is undone if it does not. False when one file's write failed (FileWriteFailed),
   * for the caller to write the batch file by file; other failures are thrown.
   */
  private inTransaction(write: () => void): boolean {
    const mark = this.journal.mark();
    try {
      this.db.transaction(write).immediate();
    } catch (error) {
      this.journal.rollBackTo(mark);
      if (error instanceof FileWriteFailed) return false;
      throw error;
    }
    this.journal.committed();
    return true;
  }

  /** What a file is, when it needs importing; undefined (and counted) when it is not media or unchanged. */
  private examine(root: ImportRoot, file: WalkedFile): Prepared | undefined {
    const recorded = this.known.get(file.path);
    // A file recorded under another kind of root is looked at afresh (see importFile).
    const state = recorded?.rootKind === root.kind ? recorded : undefined;
    // Files recorded before are media of their root's kind; an unchanged one needs no parsing.
    const kind = state ? KIND_OF_ROOT[root.kind] : undefined;
    const parsed = kind ? undefined : parseMediaPath(root.kind, file.relative);
    if (parsed?.kind === 'ignored') {
      this.summary.ignored++;
      return undefined;
    }
    const sidecars = this.sidecarsOf(root, file, parsed?.kind ?? kind ?? 'video');
    const sameMedia = state !== undefined && state.size === file.size && state.mtimeMs === file.mtimeMs;
    if (sameMedia && state.sidecars === sidecars.signature) {
      this.summary.unchanged++;
      return undefined;
    }
    return { root, file, parsed, sidecars, ...(sameMedia ? {} : { fingerprint: '' }) };
  }

  /** The fingerprints and NFO texts the batch needs, read a few at a time. */
  private async read(prepared: Prepared[]): Promise<void> {
    const nfoPaths = new Set(prepared.flatMap((item) => this.writer.nfoPathsFor(item.sidecars)));
    await forEachConcurrently([...nfoPaths], READS_AT_ONCE, async (path) => {
      try {
        const text = await readSmallText(path, MAX_NFO_BYTES);
        this.writer.provideNfo(path, text ?? { problem: 'NFO file too large; ignored' });
      } catch (error) {
        this.writer.provideNfo(path, {
          problem: `NFO file unreadable: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        });
      }
    });
    await forEachConcurrently(
      prepared.filter((item) => item.fingerprint !== undefined),
      READS_AT_ONCE,
      async (item) => {
        try {
          item.fingerprint = await readFingerprint(item.file.path, item.file.size);
        } catch (error) {
          item.fingerprint = undefined;
          item.parsed = { kind: 'ignored', reason: 'unreadable' };
          this.options.fail(item.file.path, readProblem(error));
        }
      },
    );
  }

  /**
   * One file in a savepoint of its own: whatever goes wrong with it (a constraint, a
   * parser bug) is undone for that file alone and reported; the run goes on.
   */
  private importIsolated(item: Prepared, moves: MoveCandidates | undefined): void {
    const mark = this.journal.mark();
    try {
      this.db.transaction(() => this.importFile(item, moves)).immediate();
    } catch (error) {
      // SQLite ended the whole transaction (a full disk, an I/O error): the batch fails, not the file.
      if (!this.db.inTransaction) throw error;
      // A moved file that fails keeps its candidate: the file it was is neither moved nor removed, and the next scan
      // tries again.
      this.journal.rollBackTo(mark, true);
      this.journal.problem(item.file.path, `not imported: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Imports one file; `moves` (files recorded before and gone now) lets a new file take over a vanished one's item. */
  private importFile(item: Prepared, moves: MoveCandidates | undefined): void {
    const { root, file, sidecars } = item;
    // Looked up now, not trusted from the walk: another run may have written it since.
    let previous = getImportFile(this.db, file.path);
    if (previous && previous.root_kind !== root.kind) {
      // The folder is now a root of another kind (videos before, TV now): an episode is
      // not the movie or video it was, so it becomes a new item.
      this.removeItem(previous.item_id, previous.path);
      previous = undefined;
    }
    // Listed and read before a change run removed it: gone, not new (a stat only for these few, never for a whole
    // walk's files).
    if (!previous && this.removedElsewhere.has(file.path) && !existsSync(file.path)) return;
    const media = item.parsed ?? parseMediaPath(root.kind, file.relative);
    if (media.kind === 'ignored') return;
    const mediaChanged = !previous || previous.size !== file.size || previous.mtime_ms !== file.mtimeMs;
    // A changed file gets a new thumbnail; the old one goes now, not when it is replaced.
    if (previous && mediaChanged) {
      this.removeOwnThumbnail(getThumbnailPath(this.db, previous.item_id));
      setThumbnailUrl(this.db, previous.item_id, null);
    }
    const fingerprint = item.fingerprint || previous?.fingerprint;
    if (!fingerprint) return;
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
    if (this.options.trackWrites)
      this.setWritten(file.path, {
        root: root.path,
        rootKind: root.kind,
        size: file.size,
        mtimeMs: file.mtimeMs,
        sidecars: sidecars.signature,
      });
    if (previous) {
      this.writer.write(row.item_id, root, media, file.path, sidecars, false);
      saveImportFile(this.db, row, !mediaChanged);
      this.count('updated');
      return;
    }
    // A vanished file still where it was recorded: another run may have moved or removed it since.
    const movedFrom = moves?.take(file, fingerprint, root.kind, (undo) => this.journal.record(undo, true));
    if (movedFrom && getImportFile(this.db, movedFrom.path)?.item_id === movedFrom.item_id) {
      row.item_id = movedFrom.item_id;
      this.writer.write(row.item_id, root, media, file.path, sidecars, false);
      moveImportFile(this.db, movedFrom.path, row);
      this.addRemoved(movedFrom.path);
      this.count('moved');
      return;
    }
    row.item_id = `imp-${digest(`${root.kind}:${file.path}:${this.options.now}`)}`;
    this.writer.write(row.item_id, root, media, file.path, sidecars, true);
    saveImportFile(this.db, row, false);
    this.count('added');
  }

  private count(field: 'added' | 'updated' | 'moved' | 'removed'): void {
    this.summary[field]++;
    this.journal.record(() => this.summary[field]--);
  }

  private setWritten(path: string, state: ImportFileState | undefined): void {
    const before = this.written.get(path);
    if (state) this.written.set(path, state);
    else this.written.delete(path);
    this.journal.record(() => (before ? this.written.set(path, before) : this.written.delete(path)));
  }

  private addRemoved(path: string): void {
    if (this.removed.has(path)) return;
    this.removed.add(path);
    this.journal.record(() => this.removed.delete(path));
  }

  /**
   * After every place is walked: files recorded before and not seen now (under roots
   * that are there) are gone. A held new file with the same inode or fingerprint as a
   * gone one is that file moved; the other new files are added, and the rest of the
   * gone removed.
   */
  async settle(availableRoots: ReadonlySet<string>, batchSize: number): Promise<void> {
    const gone: ImportFileRow[] = [];
    const unreadable = (path: string) => this.unreadable.some((p) => path === p || path.startsWith(p + sep));
    for (const [path, state] of this.known) {
      // Not seen under a root that is there, and not under a folder that could not be read.
      if (this.seen.has(path) || !availableRoots.has(state.root) || unreadable(path)) continue;
      const row = getImportFile(this.db, path);
      if (row) gone.push(row);
    }
    const moves = new MoveCandidates(gone);
    for (let start = 0; start < this.held.length; start += batchSize) {
      this.options.checkCancelled();
      await this.importBatch(this.held.slice(start, start + batchSize), moves);
    }
    this.inTransaction(() => {
      // Only what is still recorded as it was: another run may have moved it meanwhile (then it is not gone).
      for (const row of moves.remaining())
        if (getImportFile(this.db, row.path)?.item_id === row.item_id) this.removeItem(row.item_id, row.path);
      // Only a run that changed something can have emptied a show, group or set.
      const { added, updated, moved, removed } = this.summary;
      if (added + updated + moved + removed > 0) deleteEmptyImportedParents(this.db);
    });
  }

  /** Removes an imported item (its file is gone), with the thumbnail Antenna made of it. */
  private removeItem(itemId: string, path: string): void {
    const thumbnail = getThumbnailPath(this.db, itemId);
    if (deleteItem(this.db, itemId)) this.count('removed');
    this.addRemoved(path);
    if (this.written.has(path)) this.setWritten(path, undefined);
    this.removeOwnThumbnail(thumbnail);
  }

  /**
   * Deletes a thumbnail of a removed item, once the removal is committed: only files Antenna made, in its own folder.
   */
  private removeOwnThumbnail(path: string | undefined): void {
    const dir = this.options.thumbnailsDir;
    if (path === undefined || dir === undefined || !path.startsWith(dir + sep)) return;
    this.journal.deleteThumbnail(path);
  }

  private sidecarsOf(root: ImportRoot, file: WalkedFile, kind: MediaItem['kind']): SidecarFiles {
    const firstSlash = file.relative.indexOf('/');
    const inFolder = firstSlash !== -1;
    const showFolder =
      kind === 'episode' && inFolder ? `${root.path}${sep}${file.relative.slice(0, firstSlash)}` : undefined;
    const name = file.relative.slice(file.relative.lastIndexOf('/') + 1);
    const dot = name.lastIndexOf('.');
    return findSidecars(this.sidecars, file.path, dot > 0 ? name.slice(0, dot) : name, kind, showFolder, inFolder);
  }
}
