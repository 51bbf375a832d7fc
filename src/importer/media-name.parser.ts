/**
 * What a file under an import root is, from its path alone: an episode (show, season,
 * episode numbers or air date), a movie (title, year, ids), a video (group, title), or
 * nothing to import. Pure: no filesystem access.
 *
 * The folder conventions (show and movie folders, season folders, extras, release-named
 * folders, {tmdb-…} ids and edition tags) are handled here; the episode numbers in a name
 * by episode-numbers.parser.ts. @ctrl/video-filename-parser only finds a movie
 * release name's year: its titles lose punctuation ("Vita &. Virginia") and its episode
 * numbers take years for seasons, so both are done here.
 */
import { filenameParse } from '@ctrl/video-filename-parser';
import {
  type EpisodeNumbers,
  RELEASE_TAG,
  findEpisodeNumbers,
  findSeasonMarker,
  firstReleaseTag,
} from './episode-numbers.parser.js';
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
      /** The show's ids when its folder names them ("Show (2019) {tmdb-123}"). */
      tmdbId?: number;
      imdbId?: string;
    }
  | { kind: 'movie'; title: string; year?: number; tmdbId?: number; imdbId?: string }
  | { kind: 'video'; group: string | null; title: string }
  | { kind: 'ignored'; reason: string };

export const VIDEO_EXTENSIONS: ReadonlySet<string> = new Set([
  'mkv',
  'mp4',
  'm4v',
  'ts',
  'mpg',
  'mpeg',
  'avi',
  'mov',
  'wmv',
  'webm',
  'm2ts',
  'flv',
  'ogv',
  '3gp',
  'vob',
  'divx',
  'mts',
]);
const PARTIAL_EXTENSIONS: ReadonlySet<string> = new Set(['part', 'crdownload', '!qb', 'partial', 'tmp']);
const EXTRAS_FOLDERS: ReadonlySet<string> = new Set([
  'extras',
  'featurettes',
  'trailers',
  'behind the scenes',
  'deleted scenes',
  'samples',
  'sample',
  'interviews',
  'scenes',
  'shorts',
  'other',
]);

const SEASON_FOLDER = /^(?:season|series|s)[\s._-]*(\d{1,4})$/i;
const SPECIALS_FOLDER = /^specials?$/i;
const SAMPLE_FILE = /(?:^|[\s._-])sample$/i;
const PART_FOLDER = /^(?:cd|dis[ck]|part)[\s._-]*\d{1,2}$/i;
const NAME_WITH_YEAR = /^(.*?)\s*[([]((?:19|20)\d{2})[)\]]/;
const TRAILING_YEAR = /^(.*\S)[\s._]+((?:19|20)\d{2})$/;
/** Plex {tmdb-123} / {imdb-tt123}, Jellyfin [tmdbid-123] / [imdbid-tt123], Emby [tmdbid=123]. */
const ID_TAG = /[[{(]\s*(tmdb|imdb|tvdb)(?:id)?\s*[-=:]\s*(tt\d{1,10}|\d{1,10})\s*[\]})]/giu;
/** Words of an edition, in a bracket of its own: "(Director's Cut)", "[Remastered]". */
const EDITION_WORD =
  /^(?:director'?s|directors|cut|extended|edition|remastered|restored|unrated|uncut|theatrical|imax|criterion|collection|special|ultimate|final|collector'?s|anniversary|version|hybrid|open|matte|\d{1,3}th)$/i;

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

interface Name {
  name: string;
  year?: number;
  tmdbId?: number;
  imdbId?: string;
}

// ---------------------------------------------------------------- episodes

function parseEpisode(stem: string, folders: string[]): ParsedMedia {
  const showFolder = folders.length > 0 && !isSeasonFolder(folders[0] ?? '') ? folders[0] : undefined;
  const fromFolder = showFolder !== undefined ? showFromFolder(showFolder) : undefined;
  const folderSeason = seasonFromFolders(folders);
  // Numbers are looked for after the show's own name, so "Room 104 - 205" is not episode 104.
  const from = fromFolder ? showNameLength(stem, fromFolder) : 0;
  const numbers =
    findEpisodeNumbers(stem, { from, folderSeason, inShowFolder: folders.length > 0 }) ??
    numbersFromFolders(folders, stem.length);
  const show = fromFolder ?? showFromFileName(stem, numbers);
  // An episode number with no season anywhere (absolute numbering) is season 1, as Plex and Jellyfin file it.
  const season = numbers?.season ?? folderSeason ?? (numbers?.episodes ? 1 : undefined);
  const title = numbers?.title ?? (numbers ? titleAfter(stem, numbers.end) : undefined);
  return {
    kind: 'episode',
    show: show.name,
    ...(show.year !== undefined ? { year: show.year } : {}),
    ...(numbers?.date ? { date: numbers.date } : {}),
    ...(season !== undefined && !numbers?.date ? { season } : {}),
    ...(numbers?.episodes ? { episodes: numbers.episodes } : {}),
    ...(title ? { title } : {}),
    ...ids(show),
  };
}

function isSeasonFolder(name: string): boolean {
  return SEASON_FOLDER.test(name) || SPECIALS_FOLDER.test(name);
}

/** The innermost folder that names a season: "Season 02", "Specials", or a release's "Show.S02.1080p". */
function seasonFromFolders(folders: string[]): number | undefined {
  for (const folder of folders.slice().reverse()) {
    if (SPECIALS_FOLDER.test(folder)) return 0;
    const match = SEASON_FOLDER.exec(folder);
    if (match) return Number(match[1]);
    const marker = findSeasonMarker(folder);
    if (marker?.season !== undefined) return marker.season;
  }
  return undefined;
}

/**
 * A file that names nothing ("grp-sne-720p.mkv") in a release-named folder ("Show.S03E07.720p-GRP") is that folder's
 * episode.
 */
function numbersFromFolders(folders: string[], end: number): EpisodeNumbers | undefined {
  for (const folder of folders.slice().reverse()) {
    const numbers = findEpisodeNumbers(folder, { from: 0, inShowFolder: false });
    if (numbers && (numbers.date !== undefined || findSeasonMarker(folder)?.episode)) {
      const { title: _title, ...rest } = numbers;
      return { ...rest, start: end, end };
    }
  }
  return undefined;
}

/**
 * The show from its folder: "Show Name (2005)" as written, or a release-named folder
 * ("Show.Name.S03E07.1080p.WEB-GRP", "Show.Name.2019.S01.1080p") cut where its numbers or
 * tags begin. Ids and tags in brackets are dropped from the name.
 */
function showFromFolder(folder: string): Name | undefined {
  const text = stripTags(folder);
  const marker = findSeasonMarker(text);
  const spaced = text.includes(' ');
  const cut = Math.min(marker?.start ?? text.length, spaced ? text.length : firstReleaseTag(text));
  if (cut === text.length) {
    const name = nameAndYear(text);
    return name.name ? { ...name, ...idsIn(folder) } : undefined;
  }
  const name = nameWithTrailingYear(text.slice(0, cut));
  return name.name ? { ...name, ...idsIn(folder) } : undefined;
}

/** How much of the file name is the show's name (and year), so the numbers are looked for after it. */
function showNameLength(stem: string, show: Name): number {
  const words = show.name.split(/[^\p{L}\p{N}]+/u).filter((w) => w !== '');
  if (words.length === 0) return 0;
  const year = show.year !== undefined ? `(?:[\\s._-]*[([]?${show.year}[)\\]]?)?` : '';
  const pattern = `^(?:\\s*\\[[^\\]]*\\])?[\\s._-]*${words.map(escapeRegExp).join('[^\\p{L}\\p{N}]*')}${year}(?![\\p{L}\\p{N}])`;
  const match = new RegExp(pattern, 'iu').exec(stem);
  return match ? match[0].length : 0;
}

function showFromFileName(stem: string, numbers: EpisodeNumbers | undefined): Name {
  const stop = numbers && numbers.start > 0 ? numbers.start : firstReleaseTag(stem);
  let before = stripTags(stem.slice(0, stop).replace(/^\s*\[[^\]]*\]\s*/, '')).replace(/[\s._\-[(]+$/, '');
  // "show-name-1x01-pilot": dashes are the separators when the numbers are dashed off too,
  // but not in a name of one-letter parts ("9-1-1").
  if (
    numbers &&
    stem[numbers.start - 1] === '-' &&
    !/[\s._]/.test(before) &&
    before.split('-').every((w) => w.length >= 2)
  )
    before = before.replace(/-/g, ' ');
  const name = nameWithTrailingYear(before);
  return name.name ? name : { name: cleanSeparators(stem) };
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
  // Ids are ids wherever they are written: the file's own first, then its folder's.
  const found = { ...idsIn(folder ?? ''), ...idsIn(stem) };
  return {
    kind: 'movie',
    title: chosen.name,
    ...(chosen.year !== undefined ? { year: chosen.year } : {}),
    ...ids(found),
  };
}

function movieName(text: string): Name {
  const clean = stripTags(text);
  const explicit = NAME_WITH_YEAR.exec(clean);
  if (explicit?.[1]) return { name: cleanTitle(explicit[1]), year: Number(explicit[2]) };
  const parsed = filenameParse(clean, false);
  const year = parsed.year ? Number(parsed.year) : undefined;
  if (year !== undefined) {
    // The title is everything before the year the library found, cleaned here so that
    // its punctuation stays ("Vita.&.Virginia" is "Vita & Virginia").
    const at = new RegExp(`(?<=[\\s._\\-([])${year}(?![0-9])`).exec(clean);
    const title = at ? cleanTitle(clean.slice(0, at.index)) : '';
    if (title) return { name: title, year };
    if (parsed.title) return { name: parsed.title.trim(), year };
  }
  // A release name without a year ("Title.1080p.WEB-DL"): the title ends where the tags begin.
  const stop = firstReleaseTag(clean);
  if (stop > 0 && stop < clean.length) return { name: cleanTitle(clean.slice(0, stop)) };
  return { name: cleanSeparators(clean).trim() };
}

function stripPart(stem: string): string {
  return stem.replace(/[\s._-]+(?:-[\s._]*)?(?:cd|dis[ck]|part|pt)[\s._-]*\d{1,2}$/i, '');
}

// ---------------------------------------------------------------- shared

function nameAndYear(text: string): Name {
  const match = NAME_WITH_YEAR.exec(text);
  if (match?.[1] && /[)\]]\s*$/.test(text)) return { name: cleanSeparators(match[1]).trim(), year: Number(match[2]) };
  return { name: cleanSeparators(text).trim() };
}

/** "Show.Name.2019." or "Show Name (2019)" → the name and its year. */
function nameWithTrailingYear(text: string): Name {
  const withYear = nameAndYear(text);
  if (withYear.year !== undefined) return withYear;
  const cleaned = cleanSeparators(text).replace(/[\s-]+$/, '');
  const trailing = TRAILING_YEAR.exec(cleaned);
  if (trailing?.[1]) return { name: trailing[1].replace(/[\s-]+$/, '').trim(), year: Number(trailing[2]) };
  return { name: cleaned };
}

function cleanTitle(text: string): string {
  return cleanSeparators(text)
    .replace(/[\s\-–([]+$/u, '')
    .trim();
}

/**
 * Drops what is not part of a name: ids ({tmdb-123}, [imdbid-tt…]), anything in braces
 * ({edition-…}: Plex's metadata), and brackets holding only release tags or edition words
 * ("(BluRay)", "[1080p]", "(Director's Cut)"). Brackets that are words of the title stay.
 */
function stripTags(text: string): string {
  const stripped = text
    .replace(ID_TAG, ' ')
    .replace(/\{[^{}]*\}/g, ' ')
    .replace(/[[(]([^[\]()]*)[\])]/g, (group, inner: string) => (isTagsOnly(inner) ? ' ' : group));
  return text.includes(' ') || stripped !== text ? stripped.replace(/\s{2,}/g, ' ').trim() : text;
}

function isTagsOnly(inner: string): boolean {
  const words = inner.split(/[\s._-]+/).filter((w) => w !== '');
  return (
    words.length > 0 && words.every((w) => RELEASE_TAG.test(w) || EDITION_WORD.test(w) || /^(?:h|x)26[45]$/i.test(w))
  );
}

function idsIn(text: string): { tmdbId?: number; imdbId?: string } {
  const found: { tmdbId?: number; imdbId?: string } = {};
  for (const match of text.matchAll(ID_TAG)) {
    const [, kind, value] = match;
    if (kind?.toLowerCase() === 'tmdb' && value && /^\d+$/.test(value)) found.tmdbId ??= Number(value);
    if (kind?.toLowerCase() === 'imdb' && value?.startsWith('tt')) found.imdbId ??= value;
  }
  return found;
}

function ids(from: { tmdbId?: number; imdbId?: string }): { tmdbId?: number; imdbId?: string } {
  return {
    ...(from.tmdbId !== undefined ? { tmdbId: from.tmdbId } : {}),
    ...(from.imdbId !== undefined ? { imdbId: from.imdbId } : {}),
  };
}

/**
 * Dots and underscores are word separators only in names without spaces
 * ("Show.Name" → "Show Name"); a spaced name keeps them ("Mr. Robot", "S.W.A.T.").
 * In a dotted name, single letters in a row are an acronym and keep their dots
 * ("L.A.Confidential" → "L.A. Confidential").
 */
function cleanSeparators(text: string): string {
  if (text.includes(' ')) return text.trim();
  // A name that is only an acronym ("M.A.S.H", "S.W.A.T.") is kept as written.
  if (/^(?:\p{L}\.)+\p{L}?\.?$/u.test(text)) return text;
  const parts = text.split(/([._]+)/);
  const words: string[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    const word = parts[i] ?? '';
    if (word === '') continue;
    const prev = words.at(-1);
    const joinsAcronym = isLetter(word) && prev !== undefined && /^(?:\p{L}\.)+$/u.test(prev) && parts[i - 1] === '.';
    const startsAcronym = isLetter(word) && parts[i + 1] === '.' && isLetter(parts[i + 2] ?? '');
    if (joinsAcronym) words[words.length - 1] = `${prev}${word}.`;
    else words.push(startsAcronym ? `${word}.` : word);
  }
  return words.join(' ').trim();
}

function isLetter(word: string): boolean {
  return /^\p{L}$/u.test(word);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
