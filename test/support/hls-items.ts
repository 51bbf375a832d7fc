/**
 * An HLS service's item lookup for tests: `resolve` names the file (or throws the 404
 * the server would), and the file is opened as the server opens it (PathBoundary.open,
 * here with the whole filesystem as its tree).
 */
import { ForbiddenError } from '../../src/common/errors.js';
import { PathBoundary } from '../../src/common/path-boundary.js';
import type { HlsServiceOptions } from '../../src/streaming/hls-sessions.service.js';

export function itemFiles(
  resolve: (id: string) => { path: string; growing: boolean; playableSeconds?: number },
  boundary = new PathBoundary(() => ['/']),
): Pick<HlsServiceOptions, 'checkItem' | 'openItem'> {
  return {
    checkItem: (id) => void resolve(id),
    openItem: async (id) => {
      const { path, ...rest } = resolve(id);
      const opening = await boundary.open(path);
      if (!opening.ok) throw new ForbiddenError(opening.reason, `${path}: ${opening.reason}`);
      return { file: opening.file, ...rest };
    },
  };
}
