// @ts-check
/**
 * Watches the import roots for changes, in a Node process of its own (started by
 * folder-watch.ts): watching reads the folders (chokidar lists and stats every one, and
 * asks the kernel to watch each), and on a dead network share those calls block. Here
 * they block this process, never the server, and it is ended with SIGKILL.
 *
 * Reads its settings as JSON on stdin; writes one JSON message per line on stdout:
 * `{ type: 'ready' }` once every folder is watched, `{ type: 'change', path, folder,
 * removed }` (folder: true, false, or null when the path is gone and it is not known
 * what it was)
 * and `{ type: 'error', message }`.
 *
 * Plain JavaScript for the same reason as folder-walk.child.js.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { watch } from 'chokidar';

/** @type {{ paths: string[]; writeFinishMs: number }} */
const settings = JSON.parse(readFileSync(0, 'utf8'));
/** A path with a hidden file or folder in it: never imported, so its churn (.part files, editors) is not a change. */
const HIDDEN = /(^|[/\\])\.[^/\\]/;

/** @param {object} message */
function send(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

const watcher = watch(settings.paths, {
  ignoreInitial: true,
  ignored: (path) => HIDDEN.test(path),
  awaitWriteFinish: { stabilityThreshold: settings.writeFinishMs, pollInterval: 100 },
});
watcher.on('all', (event, path) => {
  const folder =
    event === 'addDir' || event === 'unlinkDir'
      ? true
      : event === 'add' || event === 'change' || event === 'unlink'
        ? false
        : null;
  send({ type: 'change', path, folder, removed: event === 'unlink' || event === 'unlinkDir' });
});
// A file removed while chokidar still waits for its write to finish gets neither 'add' nor
// 'unlink' (chokidar drops it on ENOENT): the raw event of a path that is gone says it.
// Only a folder's watcher names its entries: the kernel watches an inode, so a file's
// watcher also hears of its hard links under their names (thousands, where a download
// manager links every file into the library), which are not entries of anything.
watcher.on('raw', (event, name, details) => {
  if (event !== 'rename') return;
  const watched = /** @type {{ watchedPath?: string }} */ (details).watchedPath ?? '';
  const ownName = basename(watched) === name;
  if (!ownName && !statSync(watched, { throwIfNoEntry: false })?.isDirectory()) return;
  const path = ownName ? watched : join(watched, String(name));
  if (!HIDDEN.test(path) && !existsSync(path)) send({ type: 'change', path, folder: null, removed: true });
});
watcher.on('ready', () => send({ type: 'ready' }));
watcher.on('error', (error) =>
  send({ type: 'error', message: error instanceof Error ? error.message : String(error) }),
);
