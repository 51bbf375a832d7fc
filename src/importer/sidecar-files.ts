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

const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'png'];

function find(index: SidecarIndex, dir: string, names: readonly string[]): { path: string; sidecar: Sidecar } | undefined {
  const inFolder = index.get(dir);
  if (!inFolder) return undefined;
  for (const name of names) {
    const sidecar = inFolder.get(name.toLowerCase());
    if (sidecar) return { path: join(dir, sidecar.name), sidecar };
  }
  return undefined;
}

const images = (bases: readonly string[]) => bases.flatMap((base) => IMAGE_EXTENSIONS.map((ext) => `${base}.${ext}`));

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
  const folderNames = kind === 'movie' && ownFolder;
  const nfo = find(index, dir, folderNames ? [`${stem}.nfo`, 'movie.nfo'] : [`${stem}.nfo`]);
  const image = find(index, dir, images(folderNames ? [`${stem}-poster`, 'poster', 'folder', `${stem}-thumb`, stem, 'fanart'] : [`${stem}-poster`, `${stem}-thumb`, stem]));
  const showNfo = showFolder !== undefined ? find(index, showFolder, ['tvshow.nfo']) : undefined;
  const showImage = showFolder !== undefined ? find(index, showFolder, images(['poster', 'folder', 'fanart'])) : undefined;
  const found = { nfo, image, showNfo, showImage };
  const signature = Object.entries(found)
    .map(([role, file]) => (file ? `${role}:${file.sidecar.name}:${file.sidecar.size}:${file.sidecar.mtimeMs}` : ''))
    .join('|');
  return {
    ...(nfo ? { nfo: nfo.path } : {}),
    ...(image ? { image: image.path } : {}),
    ...(showNfo ? { showNfo: showNfo.path } : {}),
    ...(showImage ? { showImage: showImage.path } : {}),
    signature,
  };
}
