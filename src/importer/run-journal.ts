/**
 * What an import run remembers while its transaction is open (counts, paths written and
 * removed, parents written, move candidates taken), with how to undo each, and what must
 * wait for the commit (problems to report, thumbnails to delete). A rollback undoes the
 * one and drops the other, so the run is as it was before the transaction; a commit
 * keeps the one and does the other.
 */
import { rmSync } from 'node:fs';
import { readProblem } from './file-reads.js';

/**
 * How to undo one thing remembered; `batchOnly`: only when the whole batch is rolled back, not one file's savepoint.
 */
interface Undo {
  run: () => void;
  batchOnly: boolean;
}

export interface JournalMark {
  undo: number;
  problems: number;
  thumbnails: number;
}

export class RunJournal {
  private readonly undo: Undo[] = [];
  private readonly problems: [path: string, reason: string][] = [];
  private readonly thumbnails: string[] = [];

  constructor(private readonly fail: (path: string, reason: string) => void) {}

  /** Records how to undo something just remembered. */
  readonly record = (run: () => void, batchOnly = false): void => void this.undo.push({ run, batchOnly });

  /** A problem with a file, reported once the transaction commits. */
  problem(path: string, reason: string): void {
    this.problems.push([path, reason]);
  }

  /** A thumbnail Antenna made, deleted once the removal or change that drops it commits. */
  deleteThumbnail(path: string): void {
    this.thumbnails.push(path);
  }

  mark(): JournalMark {
    return { undo: this.undo.length, problems: this.problems.length, thumbnails: this.thumbnails.length };
  }

  /**
   * Undoes what was remembered since `mark`, newest first; `oneFile`: one file's savepoint, not the batch
   * (Undo.batchOnly).
   */
  rollBackTo(mark: JournalMark, oneFile = false): void {
    while (this.undo.length > mark.undo) {
      const undo = this.undo.pop() as Undo;
      if (!(oneFile && undo.batchOnly)) undo.run();
    }
    this.problems.length = mark.problems;
    this.thumbnails.length = mark.thumbnails;
  }

  /** The transaction committed: what was remembered stays; problems are reported and thumbnails deleted. */
  committed(): void {
    this.undo.length = 0;
    for (const [path, reason] of this.problems.splice(0)) this.fail(path, reason);
    for (const path of this.thumbnails.splice(0)) {
      try {
        rmSync(path, { force: true });
      } catch (error) {
        this.fail(path, `thumbnail not deleted: ${readProblem(error)}`);
      }
    }
  }
}
