/**
 * Which NFO and artwork files belong to a media file, from the folder listings the
 * walk made (no filesystem calls), following Kodi's naming:
 * - the item: `<name>.nfo`; `<name>-poster`, `<name>-thumb`, `<name>` images;
 *   a movie in its own folder also `movie.nfo` and `poster`, `folder`, `fanart`;
 * - a show: `tvshow.nfo` and `poster`, `folder`, `fanart` in the show folder.
 * The signature changes whenever one of those files does, so a rescan re-reads an
 * item whose sidecars changed even if the media file did not.
 */
import { dirname, join } from 'node:path';
import type { Sidecar, SidecarIndex } from './folder-walk.js';
import type { ParsedMedia } from './media-name.parser.js';

export interface SidecarFiles {
  nfo?: string;
  image?: string;
  showNfo?: string;
  showImage?: string;
  /** Names, sizes and mtimes of the files above. */
  signature: string;
}

const IMAGE_EXTENSIONS = ['.jpg', '.jpeg', '.png'] as const;
const NONE: SidecarFiles = { signature: '' };

interface Found {
  path: string;
  sidecar: Sidecar;
}

function find(inFolder: Map<string, Sidecar> | undefined, dir: string, names: readonly string[]): Found | undefined {
  if (!inFolder) return undefined;
  for (const name of names) {
    const sidecar = inFolder.get(name);
    if (sidecar) return { path: join(dir, sidecar.name), sidecar };
  }
  return undefined;
}

/** The first image named `<base>.<jpg|jpeg|png>` for the bases in order (names lower-cased). */
function findImage(
  inFolder: Map<string, Sidecar> | undefined,
  dir: string,
  bases: readonly string[],
): Found | undefined {
  if (!inFolder) return undefined;
  for (const base of bases) {
    for (const extension of IMAGE_EXTENSIONS) {
      const sidecar = inFolder.get(base + extension);
      if (sidecar) return { path: join(dir, sidecar.name), sidecar };
    }
  }
  return undefined;
}

const SHOW_IMAGES = ['poster', 'folder', 'fanart'];

function describeFound(role: string, found: Found | undefined): string {
  return found ? `${role}:${found.sidecar.name}:${found.sidecar.size}:${found.sidecar.mtimeMs}` : '';
}

/**
 * @param path the media file
 * @param stem its name without extension
 * @param showFolder the show's folder for an episode in one, else undefined
 * @param ownFolder true when the file sits in a folder of its own (a movie folder)
 */
export function findSidecars(
  index: SidecarIndex,
  path: string,
  stem: string,
  kind: Exclude<ParsedMedia['kind'], 'ignored'>,
  showFolder: string | undefined,
  ownFolder: boolean,
): SidecarFiles {
  const dir = dirname(path);
  const here = index.get(dir);
  const showSidecars = showFolder !== undefined ? index.get(showFolder) : undefined;
  // Most media folders hold no sidecars at all: answer without building any name.
  if (!here && !showSidecars) return NONE;
  const base = stem.toLowerCase();
  const folderNames = kind === 'movie' && ownFolder;
  const nfo = find(here, dir, folderNames ? [`${base}.nfo`, 'movie.nfo'] : [`${base}.nfo`]);
  const image = findImage(
    here,
    dir,
    folderNames
      ? [`${base}-poster`, 'poster', 'folder', `${base}-thumb`, base, 'fanart']
      : [`${base}-poster`, `${base}-thumb`, base],
  );
  const showNfo = showFolder !== undefined ? find(showSidecars, showFolder, ['tvshow.nfo']) : undefined;
  const showImage = showFolder !== undefined ? findImage(showSidecars, showFolder, SHOW_IMAGES) : undefined;
  if (!nfo && !image && !showNfo && !showImage) return NONE;
  return {
    ...(nfo ? { nfo: nfo.path } : {}),
    ...(image ? { image: image.path } : {}),
    ...(showNfo ? { showNfo: showNfo.path } : {}),
    ...(showImage ? { showImage: showImage.path } : {}),
    signature: [
      describeFound('nfo', nfo),
      describeFound('image', image),
      describeFound('showNfo', showNfo),
      describeFound('showImage', showImage),
    ].join('|'),
  };
}
