/**
 * Lists the candidate media files under an import root: non-hidden files with a video
 * extension, with what a rescan compares (size, mtime, device and inode), and the
 * sidecar files (NFO, artwork) of each folder.
 *
 * The walk itself runs in a process of its own (folder-walk.child.js): its readdir and
 * stat calls may block for ever on a dead network share, and must not block the server.
 * This module starts it and hands its findings to the importer as they come, a batch
 * at a time, so a scan imports as it goes instead of holding a library's listing; the
 * walk waits when the importer falls behind.
 */
import { fileURLToPath } from 'node:url';
import { startProgram } from '../common/external-program.js';
import type { PathBoundary } from '../common/path-boundary.js';
import { VIDEO_EXTENSIONS } from './media-name.parser.js';

export interface WalkedFile {
  path: string;
  /** Relative to the root, with `/` separators. */
  relative: string;
  size: number;
  mtimeMs: number;
  dev: number;
  ino: number;
}

/** A metadata or artwork file beside the media (.nfo, .jpg, .jpeg, .png). */
export interface Sidecar {
  /** The name as it is on disk. */
  name: string;
  size: number;
  mtimeMs: number;
}

/** Per folder: its sidecar files by lower-cased name. */
export type SidecarIndex = Map<string, Map<string, Sidecar>>;

export interface WalkProblem {
  path: string;
  reason: string;
  /** The path exists but could not be read (permissions, I/O, a dead mount): nothing under it is gone. */
  unreadable: boolean;
}

/** Where a walk starts: a whole root, one folder and everything below it, or one folder alone. */
export interface WalkJob {
  root: string;
  start: string;
  recursive: boolean;
}

/** What a walk finds, in order: each job's start (can it be read?), then its files. */
export type WalkEvent = WalkStart | { type: 'files'; files: WalkedFile[] };

/** A job's start: can its folder be read, and is it empty (an unmounted share's mount point is)? */
export interface WalkStart {
  type: 'start';
  job: number;
  status: 'ok' | 'missing' | 'not-a-folder' | 'unreadable';
  empty: boolean;
}

type ChildMessage =
  | WalkStart
  | { type: 'batch'; files: WalkedFile[]; sidecars: [string, Sidecar[]][]; problems: WalkProblem[] }
  | { type: 'done' };

const CHILD_PATH = fileURLToPath(new URL('./folder-walk.child.js', import.meta.url));

/** The lines of a stream as they come; read on demand, so a walk ahead of the importer waits in its pipe. */
async function* linesOf(stream: NodeJS.ReadableStream): AsyncGenerator<string> {
  let rest = '';
  // Decoded as a stream: a chunk may end inside a character ("Amélie"), which must not become U+FFFD.
  stream.setEncoding('utf8');
  for await (const chunk of stream) {
    const lines = (rest + String(chunk)).split('\n');
    rest = lines.pop() ?? '';
    yield* lines;
  }
}

/**
 * Walks the jobs in a process of its own. Sidecars of a folder are in `sidecars` before
 * its files are yielded, and a parent folder is read before its children (a show
 * folder's tvshow.nfo before its seasons). Problems (unreadable folders, links leading
 * outside) are added to `problems` as they are found. An abort, or leaving the loop,
 * kills the walk: one stuck in a dead share is ended too.
 */
export async function* walkFolders(
  jobs: readonly WalkJob[],
  boundary: PathBoundary,
  problems: WalkProblem[],
  sidecars: SidecarIndex,
  signal?: AbortSignal,
): AsyncGenerator<WalkEvent> {
  const { child, stderrTail } = startProgram(process.execPath, [CHILD_PATH], { stdin: 'pipe', stdout: 'pipe' });
  let spawnError: Error | undefined;
  child.on('error', (error) => (spawnError = error));
  // 'close', not 'exit': a process that could not start (EAGAIN, EMFILE) emits 'error' and 'close' only.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const kill = () => child.kill('SIGKILL');
  signal?.addEventListener('abort', kill);
  try {
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(
      JSON.stringify({
        jobs,
        trees: boundary.treePaths(),
        followExternal: boundary.followExternal,
        extensions: [...VIDEO_EXTENSIONS],
      }),
    );
    let done = false;
    for await (const line of linesOf(child.stdout as NodeJS.ReadableStream)) {
      let message: ChildMessage;
      try {
        message = JSON.parse(line) as ChildMessage;
      } catch {
        throw new Error(`the folder walk wrote something that is not a message: ${line.slice(0, 200)}`);
      }
      if (message.type === 'done') done = true;
      else if (message.type === 'start') yield message;
      else {
        for (const [dir, found] of message.sidecars) {
          let inFolder = sidecars.get(dir);
          if (!inFolder) sidecars.set(dir, (inFolder = new Map()));
          for (const sidecar of found) inFolder.set(sidecar.name.toLowerCase(), sidecar);
        }
        problems.push(...message.problems);
        if (message.files.length > 0) yield { type: 'files', files: message.files };
      }
    }
    if (signal?.aborted) return;
    const code = await exited;
    if (!done)
      throw new Error(
        `the folder walk ended early (${spawnError?.message ?? `exit ${code}`}): ${stderrTail().trim().split('\n').pop() ?? ''}`,
      );
  } finally {
    signal?.removeEventListener('abort', kill);
    if (child.exitCode === null && child.signalCode === null) kill();
  }
}
