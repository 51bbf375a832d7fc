/** Which folders a watched change makes the importer walk again (src/importer/change-jobs.ts). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ChangedPath, changeJobs } from '../../src/importer/change-jobs.js';
import type { ImportRoot } from '../../src/model/import-root.js';
import { mergedKind } from '../../src/importer/scan-scheduler.js';

const tv: ImportRoot = { kind: 'tv', path: '/media/TV' };
const movies: ImportRoot = { kind: 'movies', path: '/media/Movies' };
const jobsOf = (changes: ChangedPath[]) =>
  changeJobs(changes).map((job) => `${job.start}${job.recursive ? '/**' : ''}`);

describe('changeJobs', () => {
  it('walks a media file’s folder alone, with the root’s and the show folder’s listings', () => {
    expect(jobsOf([{ root: tv, path: '/media/TV/Show/Season 01/Show - S01E01.mkv', folder: false }])).toEqual([
      '/media/TV',
      '/media/TV/Show',
      '/media/TV/Show/Season 01',
    ]);
    expect(jobsOf([{ root: movies, path: '/media/Movies/Heat (1995)/Heat (1995).mkv', folder: false }])).toEqual([
      '/media/Movies',
      '/media/Movies/Heat (1995)',
    ]);
  });

  it('walks below a folder, an NFO or artwork change, and a path that is gone and may have been a folder', () => {
    expect(jobsOf([{ root: tv, path: '/media/TV/Show', folder: true }])).toEqual(['/media/TV', '/media/TV/Show/**']);
    expect(jobsOf([{ root: tv, path: '/media/TV/Show/tvshow.nfo', folder: false }])).toEqual([
      '/media/TV',
      '/media/TV/Show/**',
    ]);
    expect(jobsOf([{ root: movies, path: '/media/Movies/Heat (1995)', folder: undefined }])).toEqual([
      '/media/Movies',
      '/media/Movies/Heat (1995)/**',
    ]);
  });

  it('walks the whole root when the root itself changed, and covers nothing twice', () => {
    expect(
      jobsOf([
        { root: tv, path: '/media/TV', folder: true },
        { root: tv, path: '/media/TV/Show/Season 01/a.mkv', folder: false },
      ]),
    ).toEqual(['/media/TV/**']);
    expect(
      jobsOf([
        { root: tv, path: '/media/TV/Show/Season 01/a.mkv', folder: false },
        { root: tv, path: '/media/TV/Show/Season 01/b.mkv', folder: false },
        { root: tv, path: '/media/TV/Show', folder: true },
      ]),
    ).toEqual(['/media/TV', '/media/TV/Show/**']);
  });

  it('covers every changed path, once, parents first (property)', () => {
    const segment = fc.constantFrom('Show', 'Season 01', 'a.mkv', 'b.mp4', 'poster.jpg', 'x');
    const change = fc.record({
      root: fc.constantFrom(tv, movies),
      rest: fc.array(segment, { maxLength: 4 }),
      folder: fc.constantFrom(true, false, undefined),
    });
    fc.assert(
      fc.property(fc.array(change, { minLength: 1, maxLength: 8 }), (raw) => {
        const changes = raw.map(({ root, rest, folder }) => ({ root, path: [root.path, ...rest].join('/'), folder }));
        const jobs = changeJobs(changes);
        const inside = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);
        for (const { path } of changes) {
          const parent = path.slice(0, path.lastIndexOf('/'));
          // The path itself walked below, or its folder listed.
          expect(
            jobs.some(
              (job) =>
                (job.recursive && inside(path, job.start)) ||
                (job.recursive && inside(parent, job.start)) ||
                job.start === parent ||
                job.start === path,
            ),
          ).toBe(true);
        }
        for (const job of jobs) {
          expect(jobs.filter((other) => other !== job && other.recursive && inside(job.start, other.start))).toEqual(
            [],
          );
          expect(changes.some((c) => c.root.path === job.root && inside(job.start, job.root))).toBe(true);
        }
        const depths = jobs.map((job) => job.start.split('/').length);
        expect(depths).toEqual([...depths].sort((a, b) => a - b));
      }),
    );
  });

  it('takes what either of two events says a path is, and nothing when they disagree', () => {
    expect([
      mergedKind(undefined, false),
      mergedKind(true, undefined),
      mergedKind(false, false),
      mergedKind(true, false),
      mergedKind(undefined, undefined),
    ]).toEqual([false, true, false, undefined, undefined]);
  });
});
