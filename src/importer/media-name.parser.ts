/**
 * What a file under an import root is, from its path alone: an episode (show, season,
 * episode numbers or air date), a movie (title, year), a video (group, title), or
 * nothing to import. Pure: no filesystem access.
 *
 * Release-name cleaning (dots, quality and codec tokens, years) is left to
 * @ctrl/video-filename-parser; the folder conventions (show and movie folders, season
 * folders, extras) and the episode patterns it misses (dates, ranges) are handled here.
 */
import { filenameParse } from '@ctrl/video-filename-parser';
import type { RootKind } from '../model/import-root.js';

export type { RootKind };

export type ParsedMedia =
  | {
      kind: 'episode';
      show: string;
      year?: number;
      season?: number;
      episodes?: number[];
      /** Daily shows: the air date, YYYY-MM-DD. */
      date?: string;
      /** The episode title when the file name gives one after the numbers. */
      title?: string;
    }
  | { kind: 'movie'; title: string; year?: number }
  | { kind: 'video'; group: string | null; title: string }
  | { kind: 'ignored'; reason: string };

export const VIDEO_EXTENSIONS: ReadonlySet<string> = new Set([
  'mkv', 'mp4', 'm4v', 'ts', 'mpg', 'mpeg', 'avi', 'mov', 'wmv', 'webm', 'm2ts', 'flv', 'ogv', '3gp', 'vob', 'divx', 'mts',
]);
const PARTIAL_EXTENSIONS: ReadonlySet<string> = new Set(['part', 'crdownload', '!qb', 'partial', 'tmp']);
const EXTRAS_FOLDERS: ReadonlySet<string> = new Set([
  'extras', 'featurettes', 'trailers', 'behind the scenes', 'deleted scenes', 'samples', 'sample', 'interviews', 'scenes',
  'shorts', 'other',
]);

const SEASON_FOLDER = /^(?:season|series|s)[\s._-]*(\d{1,4})$/i;
const SPECIALS_FOLDER = /^specials?$/i;
const SAMPLE_FILE = /(?:^|[\s._-])sample$/i;
const PART_FOLDER = /^(?:cd|dis[ck]|part)[\s._-]*\d{1,2}$/i;
/** S01E02, with more episodes as E03, -E03 or -03. */
const SXXEYY = /(?:^|[^a-z0-9])s(\d{1,4})[\s._-]*e(\d{1,4})((?:[\s._]*-?[\s._]*e\d{1,4}|-\d{1,4}(?!\d))*)/i;
/** 1x02; the season has at most two digits, so 1920x1080 is not an episode. */
const NXMM = /(?:^|[^0-9a-z])(\d{1,2})x(\d{2,3})(?![0-9])/i;
const AIR_DATE = /(?:^|[^0-9])((?:19|20)\d{2})[-. ](0[1-9]|1[0-2])[-. ](0[1-9]|[12]\d|3[01])(?![0-9])/;
const NAME_WITH_YEAR = /^(.*?)\s*[([]((?:19|20)\d{2})[)\]]/;
const TRAILING_YEAR = /^(.*\S)[\s._]+((?:19|20)\d{2})$/;

export function parseMediaPath(rootKind: RootKind, relativePath: string): ParsedMedia {
  const segments = relativePath.split('/').filter((s) => s !== '');
  const file = segments.at(-1) ?? '';
  const folders = segments.slice(0, -1);
  if (segments.some((s) => s.startsWith('.'))) return ignored('hidden');
  const dot = file.lastIndexOf('.');
  const extension = dot > 0 ? file.slice(dot + 1).toLowerCase() : '';
  const stem = dot > 0 ? file.slice(0, dot) : file;
  if (PARTIAL_EXTENSIONS.has(extension)) return ignored('partial download');
  if (!VIDEO_EXTENSIONS.has(extension)) return ignored('not a video file');

  if (rootKind === 'videos') return { kind: 'video', group: folders[0] ?? null, title: stem };
  if (folders.some((f) => EXTRAS_FOLDERS.has(f.toLowerCase()))) return ignored('extras');
  if (SAMPLE_FILE.test(stem)) return ignored('sample');
  return rootKind === 'tv' ? parseEpisode(stem, folders) : parseMovie(stem, folders);
}

function ignored(reason: string): ParsedMedia {
  return { kind: 'ignored', reason };
}

// ---------------------------------------------------------------- episodes

interface EpisodeNumbers {
  season?: number;
  episodes?: number[];
  date?: string;
  /** Where the numbers start and end in the name. */
  start: number;
  end: number;
}

function parseEpisode(stem: string, folders: string[]): ParsedMedia {
  const numbers = findEpisodeNumbers(stem);
  const showFolder = folders.length > 0 && !isSeasonFolder(folders[0] ?? '') ? folders[0] : undefined;
  const show = showFolder !== undefined ? nameAndYear(showFolder) : showFromFileName(stem, numbers);
  const season = numbers?.season ?? seasonFromFolders(folders);
  const title = numbers ? titleAfter(stem, numbers.end) : undefined;
  return {
    kind: 'episode',
    show: show.name,
    ...(show.year !== undefined ? { year: show.year } : {}),
    ...(numbers?.date ? { date: numbers.date } : {}),
    ...(season !== undefined && !numbers?.date ? { season } : {}),
    ...(numbers?.episodes ? { episodes: numbers.episodes } : {}),
    ...(title ? { title } : {}),
  };
}

export function findEpisodeNumbers(name: string): EpisodeNumbers | undefined {
  const sxe = SXXEYY.exec(name);
  if (sxe) {
    const first = Number(sxe[2]);
    const more = [...(sxe[3] ?? '').matchAll(/(-)?[\s._]*e?(\d{1,4})/gi)].map((m) => ({ range: m[1] === '-', n: Number(m[2]) }));
    const episodes = [first];
    for (const { range, n } of more) {
      const last = episodes.at(-1) ?? first;
      if (range && n > last && n - last < 100) for (let e = last + 1; e <= n; e++) episodes.push(e);
      else if (!episodes.includes(n)) episodes.push(n);
    }
    const start = sxe.index + (/^[^a-z0-9]/i.test(sxe[0]) ? 1 : 0);
    return { season: Number(sxe[1]), episodes, start, end: sxe.index + sxe[0].length };
  }
  const date = AIR_DATE.exec(name);
  if (date) {
    const start = date.index + (/^[^0-9]/.test(date[0]) ? 1 : 0);
    return { date: `${date[1]}-${date[2]}-${date[3]}`, start, end: date.index + date[0].length };
  }
  const nx = NXMM.exec(name);
  if (nx) {
    const start = nx.index + (/^[^0-9a-z]/i.test(nx[0]) ? 1 : 0);
    return { season: Number(nx[1]), episodes: [Number(nx[2])], start, end: nx.index + nx[0].length };
  }
  // Release names the patterns above miss ("Show.Name.102.HDTV"): the library's parser.
  const parsed = filenameParse(name, true);
  if ('isTv' in parsed && parsed.isTv && parsed.seasons.length === 1 && parsed.episodeNumbers.length > 0 && (parsed.seasons[0] ?? 0) < 100) {
    return { season: parsed.seasons[0], episodes: [...parsed.episodeNumbers], start: name.length, end: name.length };
  }
  return undefined;
}

function isSeasonFolder(name: string): boolean {
  return SEASON_FOLDER.test(name) || SPECIALS_FOLDER.test(name);
}

function seasonFromFolders(folders: string[]): number | undefined {
  for (const folder of folders.slice().reverse()) {
    if (SPECIALS_FOLDER.test(folder)) return 0;
    const match = SEASON_FOLDER.exec(folder);
    if (match) return Number(match[1]);
  }
  return undefined;
}

function showFromFileName(stem: string, numbers: EpisodeNumbers | undefined): { name: string; year?: number } {
  const before = numbers && numbers.start > 0 ? stem.slice(0, numbers.start) : stem;
  const cleaned = cleanSeparators(before).replace(/[\s-]+$/, '');
  const withYear = nameAndYear(cleaned);
  if (withYear.year !== undefined) return withYear;
  const trailing = TRAILING_YEAR.exec(cleaned);
  if (trailing?.[1]) return { name: trailing[1].trim(), year: Number(trailing[2]) };
  return { name: cleaned || cleanSeparators(stem) };
}

/** "Show - S01E02 - The Title" → "The Title"; release names ("S01E02.720p.HDTV") have none. */
function titleAfter(stem: string, end: number): string | undefined {
  const rest = stem.slice(end);
  const match = /^\s*-\s+(.+)$/.exec(rest);
  const title = match?.[1]?.trim();
  return title ? title : undefined;
}

// ---------------------------------------------------------------- movies

function parseMovie(stem: string, folders: string[]): ParsedMedia {
  let folder = folders.at(-1);
  if (folder !== undefined && PART_FOLDER.test(folder)) folder = folders.at(-2);
  const fromFolder = folder !== undefined ? movieName(folder) : undefined;
  const fromFile = movieName(stripPart(stem));
  // A folder that names a year is a movie folder; a bare folder ("Movies/…") only when the file gives nothing better.
  const chosen = fromFolder && (fromFolder.year !== undefined || fromFile.year === undefined) ? fromFolder : fromFile;
  return { kind: 'movie', title: chosen.name, ...(chosen.year !== undefined ? { year: chosen.year } : {}) };
}

function movieName(text: string): { name: string; year?: number } {
  const explicit = NAME_WITH_YEAR.exec(text);
  if (explicit?.[1]) return { name: cleanSeparators(explicit[1]).trim(), year: Number(explicit[2]) };
  const parsed = filenameParse(text, false);
  const year = parsed.year ? Number(parsed.year) : undefined;
  if (parsed.title && year !== undefined) return { name: parsed.title.trim(), year };
  // A release name without a year ("Title.1080p.WEB-DL"): the parser still drops the tags.
  if (parsed.title && !text.includes(' ')) return { name: parsed.title.trim() };
  return { name: cleanSeparators(text).trim() };
}

function stripPart(stem: string): string {
  return stem.replace(/[\s._-]+(?:-[\s._]*)?(?:cd|dis[ck]|part|pt)[\s._-]*\d{1,2}$/i, '');
}

// ---------------------------------------------------------------- shared

function nameAndYear(text: string): { name: string; year?: number } {
  const match = NAME_WITH_YEAR.exec(text);
  if (match?.[1] && /[)\]]\s*$/.test(text)) return { name: cleanSeparators(match[1]).trim(), year: Number(match[2]) };
  return { name: cleanSeparators(text).trim() };
}

/**
 * Dots and underscores are word separators only in names without spaces
 * ("Show.Name" → "Show Name"); a spaced name keeps them ("Mr. Robot", "S.W.A.T.").
 */
function cleanSeparators(text: string): string {
  if (text.includes(' ')) return text.trim();
  // An acronym ("M.A.S.H", "S.W.A.T.") is a name, not separated words.
  if (/^(?:\p{L}\.)+\p{L}?\.?$/u.test(text)) return text;
  return text.replace(/[._]+/g, ' ').replace(/\s+/g, ' ').trim();
}
