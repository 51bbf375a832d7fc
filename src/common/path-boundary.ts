/**
 * Where the server may read a user's files from: inside the configured import roots
 * and its own recordings folder, judged by real paths (after every symbolic link), so
 * a link inside a media folder that points at /etc is not the library. The importer
 * asks before following a link; the file and artwork routes ask again at every
 * request, since a file may be swapped for a link after it was imported.
 *
 * `followExternal` (--follow-external-links) is the user's opt-in to links that leave
 * the roots: then everything the library holds may be read.
 */
import { constants, realpathSync, statSync } from 'node:fs';
import { type FileHandle, open, realpath, stat } from 'node:fs/promises';
import { sep } from 'node:path';

/** True when `path` is `tree` or lies below it; both absolute and normal. */
export function isInsideTree(path: string, tree: string): boolean {
  return path === tree || path.startsWith(tree.endsWith(sep) ? tree : tree + sep);
}

export type Resolution =
  | { ok: true; realPath: string; identity?: string }
  | { ok: false; reason: 'missing' | 'outside' | 'unreadable' | 'not_a_file'; error?: NodeJS.ErrnoException };

/**
 * A library file opened after the boundary admitted it: the descriptor is what the
 * check was made of, so a program given it (ffmpeg, ffprobe, comskip as /dev/fd/3)
 * reads that file whatever the path leads to later (a link swapped in mid-session).
 */
export interface OpenedFile {
  handle: FileHandle;
  fd: number;
  /** Where the file was when it was checked (its real path). */
  realPath: string;
  /** The path it was opened by (the library's name for it). */
  knownAs: string;
  /** "dev:ino" of what was opened: a reader in another process checks it reads the same file. */
  identity: string;
  size: number;
  mtimeMs: number;
}

export type Opening = { ok: true; file: OpenedFile } | Exclude<Resolution, { ok: true }>;

/** A file to send: where its bytes are (checked, links followed) and the name the library knows it by (its type). */
export interface ServedFile {
  path: string;
  knownAs: string;
  /** "dev:ino" of the file checked: the sender reads only that file (a link swapped in at `path` since is refused). */
  identity?: string;
}

export class PathBoundary {
  /** Real paths of the trees, resolved when first needed and again when a path seems outside (a root mounted later). */
  private realTrees: string[] | undefined;

  constructor(
    private readonly trees: () => readonly string[],
    readonly followExternal = false,
  ) {}

  /** The library's boundary: the import roots and the recordings folder (what the server and `antenna scan` read). */
  static forLibrary(roots: readonly { path: string }[], recordingsDir: string, followExternal: boolean): PathBoundary {
    return new PathBoundary(() => [...roots.map((root) => root.path), recordingsDir], followExternal);
  }

  /** A boundary that admits nothing: the safe default where no roots were given. */
  static closed(): PathBoundary {
    return new PathBoundary(() => []);
  }

  /** The trees as configured (not resolved): for a walk in another thread, which resolves them itself. */
  treePaths(): string[] {
    return [...this.trees()];
  }

  /** True when a real (already resolved) path lies inside a tree, or links may go anywhere. */
  admits(realPath: string): boolean {
    if (this.followExternal) return true;
    if (this.currentTrees().some((tree) => isInsideTree(realPath, tree))) return true;
    // A root that was missing or re-pointed since the trees were resolved.
    this.realTrees = undefined;
    return this.currentTrees().some((tree) => isInsideTree(realPath, tree));
  }

  /** Follows every link in `path` and says whether the file it reaches may be read. */
  resolve(path: string): Resolution {
    let realPath: string;
    try {
      realPath = realpathSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return {
        ok: false,
        reason: code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : 'unreadable',
        error: error as NodeJS.ErrnoException,
      };
    }
    return this.admits(realPath) ? { ok: true, realPath } : { ok: false, reason: 'outside' };
  }

  /**
   * As resolve(), and the target must be a regular file: a named pipe would block the
   * reader for good, and a device or folder is no media.
   */
  resolveFile(path: string): Resolution {
    const resolved = this.resolve(path);
    if (!resolved.ok) return resolved;
    try {
      const stat = statSync(resolved.realPath, { bigint: true });
      return stat.isFile() ? { ...resolved, identity: `${stat.dev}:${stat.ino}` } : { ok: false, reason: 'not_a_file' };
    } catch (error) {
      return { ok: false, reason: 'unreadable', error: error as NodeJS.ErrnoException };
    }
  }

  /**
   * Opens a file for reading and says whether it may be read, judged of what was
   * opened: the open comes first, then the real path of the name, which must lead to
   * the same file (device and inode) inside a tree. A swap between the two is caught
   * (the identities differ: tried once more, then refused). Asynchronous, so a file on
   * a dead share holds up the thread pool rather than the event loop. Opened without
   * blocking: a named pipe swapped in is refused (not a regular file), never waited on.
   * The caller closes what it gets (OpenedFile.handle).
   */
  async open(path: string, attempt = 1): Promise<Opening> {
    let handle: FileHandle;
    try {
      handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (error) {
      return failedOpen(error as NodeJS.ErrnoException);
    }
    try {
      const opened = await handle.stat({ bigint: true });
      if (!opened.isFile()) return await closed(handle, { ok: false, reason: 'not_a_file' });
      const realPath = await realpath(path);
      const named = await stat(realPath, { bigint: true });
      if (named.dev !== opened.dev || named.ino !== opened.ino) {
        await handle.close();
        return attempt < 2
          ? this.open(path, attempt + 1)
          : {
              ok: false,
              reason: 'unreadable',
              error: Object.assign(new Error('the file changed while it was opened'), { code: 'ECHANGED' }),
            };
      }
      if (!this.admits(realPath)) return await closed(handle, { ok: false, reason: 'outside' });
      const file = {
        handle,
        fd: handle.fd,
        realPath,
        knownAs: path,
        identity: `${opened.dev}:${opened.ino}`,
        size: Number(opened.size),
        mtimeMs: Number(opened.mtimeMs),
      };
      return { ok: true, file };
    } catch (error) {
      return closed(handle, failedOpen(error as NodeJS.ErrnoException));
    }
  }

  private currentTrees(): string[] {
    this.realTrees ??= this.trees().flatMap((tree) => {
      try {
        return [realpathSync(tree)];
      } catch {
        // Not there now (an unmounted disk): nothing can be inside it.
        return [];
      }
    });
    return this.realTrees;
  }
}

function failedOpen(error: NodeJS.ErrnoException): Exclude<Resolution, { ok: true }> {
  return { ok: false, reason: error.code === 'ENOENT' || error.code === 'ENOTDIR' ? 'missing' : 'unreadable', error };
}

async function closed<T>(handle: FileHandle, result: T): Promise<T> {
  await handle.close().catch(() => undefined);
  return result;
}
