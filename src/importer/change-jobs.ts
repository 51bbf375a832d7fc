/**
 * Which folders a watched change makes the importer walk again: the least that tells
 * what happened, so a file copied into a 100,000-file library is imported in well under
 * a second, whatever else is running.
 *
 * - a file added, changed or removed: its folder alone (its siblings show whether it
 *   moved within the folder);
 * - an NFO or artwork file: its folder and everything below (a show's tvshow.nfo speaks
 *   for every season);
 * - a folder added or removed: it and everything below;
 * - a path that is gone and was either: both of the above;
 * - always the root's own listing (is the root there at all? an unmounted share must not
 *   read as every file deleted) and, below a TV root's show folder, the show folder's
 *   (its sidecars).
 *
 * Pure: the walk and the comparison with what was recorded are the importer's.
 */
import { dirname, sep } from 'node:path';
import type { ImportRoot } from '../model/import-root.js';
import { isInsideTree } from '../common/path-boundary.js';
import type { WalkJob } from './folder-walk.js';

export interface ChangedPath {
  root: ImportRoot;
  path: string;
  /** A folder (true), a file (false), or not known (a path that is gone). */
  folder: boolean | undefined;
}

/** NFO and artwork: they speak for what is below their folder (a show's tvshow.nfo for every season). */
const SIDECAR = /\.(?:nfo|jpe?g|png)$/i;

function jobsOf(change: ChangedPath): WalkJob[] {
  const { root, path } = change;
  const job = (start: string, recursive: boolean): WalkJob => ({ root: root.path, start, recursive });
  const jobs = [job(root.path, false)];
  if (path === root.path || !isInsideTree(path, root.path)) return [job(root.path, true)];
  const relative = path.slice(root.path.length + 1).split(sep);
  // Below a show folder: the show's own listing too (tvshow.nfo, artwork), or the show would be written without them.
  if (root.kind === 'tv' && relative.length >= 2) jobs.push(job(`${root.path}${sep}${relative[0]}`, false));
  if (change.folder === true) jobs.push(job(path, true));
  else if (change.folder === false) jobs.push(job(dirname(path), SIDECAR.test(path)));
  else jobs.push(job(path, true), job(dirname(path), false));
  return jobs;
}

/** The folders above `start` (up to the filesystem's root), nearest last; `start` itself first. */
function selfAndAncestors(start: string): string[] {
  const out = [start];
  for (let slash = start.lastIndexOf(sep); slash > 0; slash = start.lastIndexOf(sep, slash - 1))
    out.push(start.slice(0, slash));
  return out;
}

/**
 * The walk jobs for these changes: no job another one covers, parent folders first
 * (their sidecars before their files). Linear in the changes (a folder of thousands of
 * files copied in is thousands of events): jobs are keyed, and a job is covered when
 * its folder or one above it is walked recursively.
 */
export function changeJobs(changes: readonly ChangedPath[]): WalkJob[] {
  const unique = new Map<string, WalkJob>();
  for (const job of changes.flatMap(jobsOf)) unique.set(`${job.recursive ? 'r' : 'n'}${job.start}`, job);
  const recursive = new Set([...unique.values()].filter((job) => job.recursive).map((job) => job.start));
  const needed = [...unique.values()].filter((job) => {
    const [self, ...above] = selfAndAncestors(job.start);
    // A recursive job is covered by one above it; a folder's own listing also by its own recursive walk.
    return !above.some((dir) => recursive.has(dir)) && (job.recursive || !recursive.has(self as string));
  });
  return needed.sort(
    (a, b) =>
      a.start.split(sep).length - b.start.split(sep).length || (a.start < b.start ? -1 : a.start > b.start ? 1 : 0),
  );
}
