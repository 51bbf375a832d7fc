/**
 * The files a reconcile found gone, as candidates for the new files it found: a new file
 * with the inode (same disk) or the content fingerprint (copied across) of a gone one is
 * that file moved, and keeps its item (and so its watch state).
 */
import type { ImportRoot } from '../model/import-root.js';
import type { ImportFileRow } from '../repositories/library/import-files.repository.js';
import type { WalkedFile } from './folder-walk.js';

/** Files that vanished, findable by inode (same disk) or by content fingerprint (copied across). */
export class MoveCandidates {
  private readonly byInode = new Map<string, ImportFileRow>();
  private readonly byFingerprint = new Map<string, ImportFileRow>();
  /** Every vanished file not taken yet (hard links share an inode and a fingerprint: a map would keep one). */
  private readonly left: Set<ImportFileRow>;

  constructor(gone: readonly ImportFileRow[]) {
    this.left = new Set(gone);
    for (const row of gone) {
      this.byInode.set(inodeKey(row.dev, row.ino, row.size), row);
      this.byFingerprint.set(row.fingerprint, row);
    }
  }

  /**
   * The vanished file this new one is, if any; it is then no longer a candidate. Only
   * within one kind of root: a file moved from TV to movies is a different item.
   */
  take(
    file: WalkedFile,
    fingerprint: string,
    kind: ImportRoot['kind'],
    journal: (undo: () => void) => void,
  ): ImportFileRow | undefined {
    const byInode = this.byInode.get(inodeKey(file.dev, file.ino, file.size));
    const byFingerprint = this.byFingerprint.get(fingerprint);
    const row = byInode?.root_kind === kind ? byInode : byFingerprint?.root_kind === kind ? byFingerprint : undefined;
    if (row) {
      const inode = inodeKey(row.dev, row.ino, row.size);
      const [wasByInode, wasByFingerprint] = [this.byInode.get(inode), this.byFingerprint.get(row.fingerprint)];
      this.byInode.delete(inode);
      this.byFingerprint.delete(row.fingerprint);
      this.left.delete(row);
      // Rolled back (the write of the batch failed): the vanished file is a candidate again, as it was.
      journal(() => {
        if (wasByInode) this.byInode.set(inode, wasByInode);
        if (wasByFingerprint) this.byFingerprint.set(row.fingerprint, wasByFingerprint);
        this.left.add(row);
      });
    }
    return row;
  }

  /** The vanished files no new file turned out to be: removed. */
  remaining(): Set<ImportFileRow> {
    return this.left;
  }
}

function inodeKey(dev: number, ino: number, size: number): string {
  return `${dev}:${ino}:${size}`;
}
