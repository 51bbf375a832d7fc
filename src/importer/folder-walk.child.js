// @ts-check
/**
 * The folder walk, in a Node process of its own (started by folder-walk.ts): a dead
 * network share or a hung FUSE mount blocks this process in readdir or stat, never the
 * server's event loop, so interface A keeps answering while a walk waits for a disk.
 * A process rather than a worker thread: a thread stuck in the kernel cannot be ended,
 * and Node waits for its threads when it exits, so a server with a walk stuck in a dead
 * share could never stop; a process is ended with SIGKILL.
 *
 * Reads the jobs as JSON on stdin; writes one JSON message per line on stdout. Writes to
 * a pipe block in Node on Linux, so a walk ahead of the importer waits for it: memory
 * stays bounded whatever the disk's speed.
 *
 * Plain JavaScript because Node runs this file as it is: the server runs the compiled
 * modules, the tests the TypeScript sources, and this file is the same in both
 * (scripts/copy-assets.mjs ships it beside the compiled ones). The messages are typed
 * in folder-walk.ts.
 *
 * Read-only by construction: only readdir, stat and realpath. Synchronous calls keep
 * the walk fast (no thread-pool round trip per file).
 *
 * Symbolic links are followed only where they stay in the library: a link whose target
 * lies outside every tree the server may read (`trees`, the import roots and the
 * recordings folder) is reported and skipped, unless the user opted in
 * (--follow-external-links). A linked folder is walked once: a link into the root
 * itself or into a linked folder already walked is reported, not walked again.
 */
import { readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { sep } from 'node:path';

/** Files per message: large enough that messaging costs little, small enough that the importer starts at once. */
const FILES_PER_MESSAGE = 256;
const SIDECAR = /\.(?:nfo|jpe?g|png)$/i;

/**
 * @type {{ jobs: { root: string; start: string; recursive: boolean }[]; trees: string[]; followExternal: boolean;
 * extensions: string[] }}
 */
const input = JSON.parse(readFileSync(0, 'utf8'));
const extensions = new Set(input.extensions);

/** @param {object} message */
function send(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

/** @type {{ path: string; relative: string; size: number; mtimeMs: number; dev: number; ino: number }[]} */
let files = [];
/** @type {[string, { name: string; size: number; mtimeMs: number }[]][]} */
let sidecars = [];
/** @type {{ path: string; reason: string; unreadable: boolean }[]} */
let problems = [];

/**
 * When the last message went: a slow disk's few files are sent within a quarter second, not held for a full message.
 */
let lastSent = Date.now();
const LONGEST_WAIT_MS = 250;

/** @param {boolean} force */
function flush(force) {
  if (!force && files.length < FILES_PER_MESSAGE && (files.length === 0 || Date.now() - lastSent < LONGEST_WAIT_MS))
    return;
  lastSent = Date.now();
  if (files.length === 0 && sidecars.length === 0 && problems.length === 0) return;
  send({ type: 'batch', files, sidecars, problems });
  files = [];
  sidecars = [];
  problems = [];
}

/** @param {string} path @param {string} tree */
function isInsideTree(path, tree) {
  return path === tree || path.startsWith(tree.endsWith(sep) ? tree : tree + sep);
}

/** @param {unknown} error */
function describe(error) {
  const code = /** @type {NodeJS.ErrnoException} */ (error).code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOENT') return 'vanished during the scan';
  if (code === 'ELOOP') return 'symbolic link loop';
  return error instanceof Error ? error.message : String(error);
}

/** @param {string} path @param {unknown} error */
function report(path, error) {
  problems.push({
    path,
    reason: describe(error),
    unreadable: /** @type {NodeJS.ErrnoException} */ (error).code !== 'ENOENT',
  });
}

/** @param {string} path */
function statOrReport(path) {
  try {
    return statSync(path);
  } catch (error) {
    report(path, error);
    return undefined;
  }
}

/** Real paths of the trees links may lead into; a tree that is not there admits nothing. */
const realTrees = input.trees.flatMap((tree) => {
  try {
    return [realpathSync(tree)];
  } catch {
    return [];
  }
});

/**
 * Where a link leads, when it leads somewhere inside the library (or the user allows anywhere). @param {string} link
 */
function followLink(link) {
  let realPath;
  try {
    realPath = realpathSync(link);
  } catch (error) {
    report(link, error);
    return undefined;
  }
  if (!input.followExternal && !realTrees.some((tree) => isInsideTree(realPath, tree))) {
    problems.push({
      path: link,
      reason:
        'symbolic link to a place outside the import roots and recordings folder; skipped (start the server with --follow-external-links to follow such links)',
      unreadable: false,
    });
    return undefined;
  }
  const stats = statOrReport(realPath);
  return stats ? { realPath, stats } : undefined;
}

/** @param {string} name */
function hasVideoExtension(name) {
  const dot = name.lastIndexOf('.');
  return dot > 0 && extensions.has(name.slice(dot + 1).toLowerCase());
}

/**
 * One folder's entries: media files into `files`, sidecars into `sidecars` (sent before
 * or with the files they describe, parents before children), subfolders returned.
 * @param {string} dir @param {string} relative @param {string[]} walkedTrees
 */
function readFolder(dir, relative, walkedTrees) {
  /** @type {{ dir: string; relative: string }[]} */
  const folders = [];
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    report(dir, error);
    return folders;
  }
  /** @type {{ name: string; size: number; mtimeMs: number }[]} */
  const found = [];
  for (const entry of entries) {
    const name = entry.name;
    if (name.startsWith('.')) continue;
    // Plain concatenation: dir is already normal, and path.join's normalising is a measurable share of a rescan.
    const path = dir.endsWith(sep) ? dir + name : dir + sep + name;
    if (name.includes('\uFFFD')) {
      // Node decodes names as UTF-8; an invalid one comes back altered and cannot be opened by it.
      problems.push({ path, reason: 'name is not valid UTF-8; skipped (rename it to import it)', unreadable: false });
      continue;
    }
    const childRelative = relative === '' ? name : `${relative}/${name}`;
    let isDirectory = entry.isDirectory();
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      const target = followLink(path);
      if (!target) continue;
      isDirectory = target.stats.isDirectory();
      isFile = target.stats.isFile();
      if (isDirectory && !enterLinkedTree(path, target.realPath, walkedTrees)) continue;
    }
    if (isDirectory) folders.push({ dir: path, relative: childRelative });
    else if (isFile && hasVideoExtension(name)) {
      const stats = statOrReport(path);
      if (stats)
        files.push({
          path,
          relative: childRelative,
          size: stats.size,
          mtimeMs: Math.trunc(stats.mtimeMs),
          dev: stats.dev,
          ino: stats.ino,
        });
    } else if (isFile && SIDECAR.test(name)) {
      const stats = statOrReport(path);
      if (stats) found.push({ name, size: stats.size, mtimeMs: Math.trunc(stats.mtimeMs) });
    }
  }
  if (found.length > 0) sidecars.push([dir, found]);
  return folders;
}

/**
 * True (and remembered) when a linked folder leads outside everything walked so far. @param {string} link @param
 * {string} real @param {string[]} walkedTrees
 */
function enterLinkedTree(link, real, walkedTrees) {
  // Inside a walked tree: already walked. Above one: it would walk that tree again.
  if (walkedTrees.some((tree) => isInsideTree(real, tree) || isInsideTree(tree, real))) {
    problems.push({
      path: link,
      reason: 'symbolic link loop or second link to a folder already scanned; skipped',
      unreadable: false,
    });
    return false;
  }
  walkedTrees.push(real);
  return true;
}

/**
 * Whether the place a walk starts is a folder that can be read (a root that is not is
 * skipped, nothing under it removed), and whether it is empty (an unmounted share's
 * mount point is).
 * @param {string} start
 * @returns {{ status: 'ok' | 'missing' | 'not-a-folder' | 'unreadable'; empty: boolean }}
 */
function startStatus(start) {
  try {
    if (!statSync(start).isDirectory()) return { status: 'not-a-folder', empty: false };
    return { status: 'ok', empty: readdirSync(start).length === 0 };
  } catch (error) {
    return {
      status: /** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT' ? 'missing' : 'unreadable',
      empty: false,
    };
  }
}

/** @param {{ root: string; start: string; recursive: boolean }} job @param {number} index */
function walk(job, index) {
  const { status, empty } = startStatus(job.start);
  send({ type: 'start', job: index, status, empty });
  if (status !== 'ok') return;
  /** @type {string[]} */
  const walkedTrees = [];
  try {
    walkedTrees.push(realpathSync(job.root));
  } catch (error) {
    report(job.root, error);
    return;
  }
  const relative =
    job.start === job.root
      ? ''
      : job.start
          .slice(job.root.length + 1)
          .split(sep)
          .join('/');
  const pending = [{ dir: job.start, relative }];
  while (pending.length > 0) {
    const { dir, relative: folder } = /** @type {{ dir: string; relative: string }} */ (pending.pop());
    const subfolders = readFolder(dir, folder, walkedTrees);
    if (job.recursive) pending.push(...subfolders);
    flush(false);
  }
  flush(true);
}

for (const [index, job] of input.jobs.entries()) walk(job, index);
send({ type: 'done' });
