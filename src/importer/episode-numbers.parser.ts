/**
 * Which episode a file (or folder) name says it is: S01E02 and its multi-episode forms,
 * 1x02, air dates in any common order, E13 / Episode 4 / Ep. 02, a number leading a name
 * in a season folder, compact 117 / 1012 numbers and anime-style absolute numbers
 * ("[Group] Show - 012"). Pure. media-name.parser.ts decides what the folders around the
 * name add (the show's name, the season folder) and passes that in as a NameContext.
 *
 * The order of the rules is the order of trust: an explicit season and episode first, then
 * a date, then the forms where numbers could be something else (a title, a resolution, a
 * year), each fenced off by the rules before it.
 */

export interface EpisodeNumbers {
  season?: number;
  episodes?: number[];
  /** Daily shows: the air date, YYYY-MM-DD. */
  date?: string;
  /** Where the numbers start and end in the name. */
  start: number;
  end: number;
  /** The episode title when the form gives one ("02 Title", "E13 - Title"). */
  title?: string;
}

export interface NameContext {
  /** Where the show's own name ends in the name: "Room 104 - 205" must not read 104. */
  from: number;
  /** The season its folders give ("Season 02", "Specials"), if any. */
  folderSeason?: number;
  /** The name sits in a show or season folder, so a number leading it is an episode number. */
  inShowFolder: boolean;
}

/** S01E02, with more episodes as E03, -E03, -03 or -S01E03. */
const SXXEYY =
  /(?:^|[^\p{L}\p{N}])s(\d{1,4})[\s._-]*e(\d{1,4})((?:[\s._]*-?[\s._]*(?:s\d{1,4}[\s._-]*)?e\d{1,4}|-\d{1,4}(?![\p{L}\p{N}]))*)/iu;
/** 1x02, 1x02x03, 1x02-1x03, 1x02-03; the season has at most two digits, so 1920x1080 is not one. */
const NXMM = /(?:^|[^0-9\p{L}])(\d{1,2})x(\d{2,3})((?:[-_.]?(?:\d{1,2})?x\d{2,3}|-\d{2,3}(?![0-9]))*)(?![0-9])/iu;
/** 2018-03-24, 2018.03.24, 2018_03_24, 2018 03 24 (a time after it is left alone). */
const DATE_YMD = /(?:^|[^0-9])((?:19|20)\d{2})[-._ ](\d{2})[-._ ](\d{2})(?![0-9])/;
/** 24.03.2018 and 03-24-2018: day first, month first only when day first is an impossible date. */
const DATE_DMY = /(?:^|[^0-9])(\d{2})[-._ ](\d{2})[-._ ]((?:19|20)\d{2})(?![0-9])/;
/** 20180324, as recorders write it ("Show_20180324_1900.ts"). */
const DATE_COMPACT = /(?:^|[^0-9])((?:19|20)\d{2})(\d{2})(\d{2})(?![0-9])/;
/** E13, Ep. 02, Ep02, Episode 4, Episode.04; with -E14 / E14 / -14 for more. */
const EPISODE_ONLY =
  /(?:^|[^\p{L}\p{N}])(?:episode[\s._-]*|ep\.?[\s._-]*|e)(\d{1,4})((?:[\s._]*-?[\s._]*e\d{1,4}|[\s._]*-[\s._]*\d{1,4}(?![\p{L}\p{N}]))*)(?![\p{L}\p{N}])/iu;
/** A number leading the name: "02 Title", "02 - Title", "02. Title", "[401] Title", "401.mkv". */
const LEADING = /^[\s._-]*(?:\[(\d{1,4})\]|(\d{1,4})(?![\p{L}\p{N}]|[.,]\d))/u;
/** Anime-style: "Show - 012", "Show - 12v2", followed by the end, tags or a title. */
const DASH_NUMBER = /\s-\s(\d{2,4})(?:v\d)?(?=$|[\s[(._])/u;
/** A bare 3-4 digit number between separators; not H.264 / x.265 codecs. */
const COMPACT = /(?<=^|[\s._\-[(])(?<![hx]\.)(\d{3,4})(?=$|[\s._\-\])])/giu;
/** A fansub group's tag leading a name: "[SubsPlease] …", never a bracketed number "[401]". */
const GROUP_TAG = /^\s*\[(?!\d{1,4}\])[^\]]*\]/;
const YEAR = /^(?:19|20)\d\d$/;
const RESOLUTIONS: ReadonlySet<number> = new Set([480, 576, 720, 1080, 1440, 2160, 4320]);

/**
 * Words that only appear in release names; the first of them ends the show's name or title
 * ("Show.Name.117.HDTV" — the HDTV), so numbers after it are not episode numbers.
 */
export const RELEASE_TAG =
  /^(?:\d{3,4}[pi]|[48]k|uhd|hdtv|pdtv|sdtv|hdtvrip|web|webdl|webrip|web-?dl|web-?rip|blu-?ray|bdrip|brrip|bdremux|remux|dvd|dvdrip|dvdscr|dvdr|hdrip|x26[45]|h26[45]|hevc|avc|xvid|divx|10bit|8bit|hdr|hdr10|dovi|atmos|truehd|aac|ac3|eac3|ddp?\d?|dts|flac|proper|repack|amzn|dsnp|hmax|atvp)$/i;

/** A bare resolution ("Show.Name.720.HDTV", "1920x1080"): a tag for names, but 720 may still be S07E20 in Season 07. */
const BARE_RESOLUTION = /^(?:480|576|720|1080|2160|\d{3,4}x\d{3,4})$/i;

/**
 * Where the first release tag of a name starts, or the name's length when it has none.
 * Bare resolutions count as tags only when asked: the show's name ends there, but a
 * season folder may still make "720" an episode number.
 */
export function firstReleaseTag(name: string, from = 0, bareResolutions = true): number {
  for (const match of name.slice(from).matchAll(/[^\s._\-[\]()]+/g)) {
    const index = from + match.index;
    const word = match[0];
    // "WEB-DL", "H.264", "DDP5.1" are one tag across a separator; the first part names it.
    if (RELEASE_TAG.test(word) || (/^h$/i.test(word) && /^\.26[45]/.test(name.slice(index + 1)))) return index;
    if (bareResolutions && BARE_RESOLUTION.test(word)) return index;
  }
  return name.length;
}

export function findEpisodeNumbers(
  name: string,
  context: NameContext = { from: 0, inShowFolder: false },
): EpisodeNumbers | undefined {
  return (
    sxxEyy(name) ??
    airDate(name) ??
    nxMm(name) ??
    episodeOnly(name, context) ??
    leadingNumber(name, context) ??
    dashNumber(name, context) ??
    compactNumber(name, context)
  );
}

function sxxEyy(name: string): EpisodeNumbers | undefined {
  const match = SXXEYY.exec(name);
  if (!match) return undefined;
  const more = [...(match[3] ?? '').matchAll(/(-)?[\s._]*(?:s\d{1,4}[\s._-]*)?e?(\d{1,4})/giu)];
  const episodes = chain(
    Number(match[2]),
    more.map((m) => ({ range: m[1] === '-', n: Number(m[2]) })),
  );
  return { season: Number(match[1]), episodes, ...span(match) };
}

function nxMm(name: string): EpisodeNumbers | undefined {
  const match = NXMM.exec(name);
  if (!match) return undefined;
  const more = [...(match[3] ?? '').matchAll(/(-)?(?:\d{1,2})?x?(\d{2,3})/giu)];
  // "1x02-1x03" is a range written in full: the dash makes it one.
  const episodes = chain(
    Number(match[2]),
    more.map((m) => ({ range: m[1] === '-', n: Number(m[2]) })),
  );
  return { season: Number(match[1]), episodes, ...span(match) };
}

/**
 * More episodes after the first: E03 adds one, -03 / -E03 runs a range (every episode in
 * it). A range that runs backwards or over 99 episodes is not a range ("S01E05-1080p" is
 * never read that far: the "p" ends it).
 */
function chain(first: number, more: { range: boolean; n: number }[]): number[] {
  const episodes = [first];
  for (const { range, n } of more) {
    const last = episodes.at(-1) ?? first;
    if (range && n > last && n - last < 100) for (let e = last + 1; e <= n; e++) episodes.push(e);
    else if (!range && !episodes.includes(n)) episodes.push(n);
  }
  return episodes;
}

function airDate(name: string): EpisodeNumbers | undefined {
  const ymd = DATE_YMD.exec(name);
  if (ymd) {
    const date = validDate(Number(ymd[1]), Number(ymd[2]), Number(ymd[3]));
    if (date) return { date, ...span(ymd) };
  }
  const dmy = DATE_DMY.exec(name);
  if (dmy) {
    const [a, b, year] = [Number(dmy[1]), Number(dmy[2]), Number(dmy[3])];
    // Day first (24.03.2018), as Plex documents it; month first only when the day-first
    // reading is impossible (03.24.2018).
    const date = validDate(year, b, a) ?? validDate(year, a, b);
    if (date) return { date, ...span(dmy) };
  }
  const compact = DATE_COMPACT.exec(name);
  if (compact) {
    const date = validDate(Number(compact[1]), Number(compact[2]), Number(compact[3]));
    if (date) return { date, ...span(compact) };
  }
  return undefined;
}

function validDate(year: number, month: number, day: number): string | undefined {
  if (month < 1 || month > 12 || day < 1) return undefined;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > days) return undefined;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

function episodeOnly(name: string, context: NameContext): EpisodeNumbers | undefined {
  const rest = name.slice(context.from);
  const match = EPISODE_ONLY.exec(rest);
  // "Episode 1999" names a year (a title), not the 1999th episode.
  if (!match || YEAR.test(match[1] ?? '')) return undefined;
  const more = [...(match[2] ?? '').matchAll(/(-)?[\s._]*e?(\d{1,4})/giu)];
  const episodes = chain(
    Number(match[1]),
    more.map((m) => ({ range: m[1] === '-', n: Number(m[2]) })),
  );
  const found = shift(span(match), context.from);
  return {
    ...(context.folderSeason !== undefined ? { season: context.folderSeason } : {}),
    episodes,
    ...found,
    ...titleOf(name, found.end),
  };
}

function leadingNumber(name: string, context: NameContext): EpisodeNumbers | undefined {
  if (!context.inShowFolder) return undefined;
  const rest = name.slice(context.from).replace(GROUP_TAG, (tag) => ' '.repeat(tag.length));
  const match = LEADING.exec(rest);
  const digits = match?.[1] ?? match?.[2];
  if (!match || digits === undefined) return undefined;
  const numbers = splitNumber(digits, context.folderSeason, false);
  if (!numbers) return undefined;
  const end = context.from + match[0].length;
  return {
    ...numbers,
    start: context.from + match[0].length - digits.length - (match[1] ? 2 : 0),
    end,
    ...titleOf(name, end),
  };
}

function dashNumber(name: string, context: NameContext): EpisodeNumbers | undefined {
  const rest = name.slice(context.from);
  const match = DASH_NUMBER.exec(rest);
  const digits = match?.[1];
  if (!match || digits === undefined) return undefined;
  // A fansub group's tag before the name marks anime, numbered from the first episode on.
  const numbers = splitNumber(digits, context.folderSeason, GROUP_TAG.test(name));
  if (!numbers) return undefined;
  const found = shift(span(match), context.from);
  return { ...numbers, ...found, ...titleOf(name, found.end) };
}

function compactNumber(name: string, context: NameContext): EpisodeNumbers | undefined {
  const stop = firstReleaseTag(name, context.from, false);
  // The last candidate before the tags: "Room.104.205.HDTV" is 205, the show's 104 before it.
  const candidates = [...name.slice(context.from, stop).matchAll(COMPACT)];
  for (const match of candidates.reverse()) {
    const digits = match[1] ?? '';
    const numbers = splitNumber(digits, context.folderSeason, false);
    if (numbers) {
      const start = context.from + match.index;
      return { ...numbers, start, end: start + digits.length };
    }
  }
  return undefined;
}

/**
 * A bare number as season and episode. With a season folder, a number that begins with
 * that season splits (Season 04/401 is S04E01); one that does not is the episode itself in
 * the folder's season (Season 02/105 is episode 105: anime numbered across seasons), so
 * the folder wins. Without one, 3-4 digits split as SEE/SSEE (117 is S01E17, 1012 is
 * S10E12) and 1-2 digits are the episode of season 1. A leading zero (012) or an anime
 * group tag always means the episode itself. Years and resolutions are never split unless
 * the folder's season agrees, and a split never makes episode 0 ("The 4400" is not S44E00).
 */
function splitNumber(
  digits: string,
  folderSeason: number | undefined,
  absolute: boolean,
): Pick<EpisodeNumbers, 'season' | 'episodes'> | undefined {
  const value = Number(digits);
  const season = folderSeason ?? 1;
  if (absolute || digits.length <= 2 || digits.startsWith('0')) {
    // Episode 0 only in season 0 (specials); a 4-digit year is never an episode.
    if ((value === 0 && folderSeason !== 0) || YEAR.test(digits)) return undefined;
    return { season, episodes: [value] };
  }
  const seasonPart = Number(digits.slice(0, -2));
  const episodePart = Number(digits.slice(-2));
  if (folderSeason !== undefined && seasonPart === folderSeason && episodePart > 0)
    return { season: seasonPart, episodes: [episodePart] };
  if (YEAR.test(digits) || RESOLUTIONS.has(value)) return undefined;
  if (folderSeason !== undefined) return { season: folderSeason, episodes: [value] };
  return episodePart > 0 ? { season: seasonPart, episodes: [episodePart] } : undefined;
}

/** Where a match's numbers are, past the one separator the patterns open with. */
function span(match: RegExpExecArray): { start: number; end: number } {
  const start = match.index + (/^[^\p{L}\p{N}]/u.test(match[0]) ? 1 : 0);
  return { start, end: match.index + match[0].length };
}

function shift(found: { start: number; end: number }, by: number): { start: number; end: number } {
  return { start: found.start + by, end: found.end + by };
}

/** "E13 - Title", "02 Title", "[401] Title": the words after the number, without tags. */
function titleOf(name: string, end: number): { title?: string } {
  const rest = name.slice(end).replace(/^[\s._-]+/, '');
  const cut = rest.slice(0, firstReleaseTag(rest)).replace(/\s*[[({].*$/, '');
  const title = (cut.includes(' ') ? cut : cut.replace(/[._]+/g, ' ')).replace(/[\s._-]+$/, '').trim();
  return title ? { title } : {};
}

/** A season pack's "S03" or "Season 3" inside a longer name ("Show.Name.S03.1080p.BluRay-GRP"). */
const SEASON_PACK = /(?:^|[\s._-])(?:s(\d{1,4})|season[\s._-]*(\d{1,4}))(?=$|[\s._\-([])/iu;

/**
 * Where a folder's name says which season (and maybe episode) it holds: S03E07, 3x07,
 * S03, Season 3, or an air date (no season). Only these explicit forms: a show folder such
 * as "Room 104" or "24" must not read as numbers.
 */
export function findSeasonMarker(name: string): { season?: number; episode: boolean; start: number } | undefined {
  const found: { season?: number; episode: boolean; start: number }[] = [];
  const date = airDate(name);
  if (date) found.push({ episode: true, start: date.start });
  const sxe = sxxEyy(name);
  if (sxe?.season !== undefined) found.push({ season: sxe.season, episode: true, start: sxe.start });
  const nx = nxMm(name);
  if (nx?.season !== undefined) found.push({ season: nx.season, episode: true, start: nx.start });
  const pack = SEASON_PACK.exec(name);
  if (pack)
    found.push({
      season: Number(pack[1] ?? pack[2]),
      episode: false,
      start: pack.index + (/^[^\p{L}\p{N}]/u.test(pack[0]) ? 1 : 0),
    });
  return found.sort((a, b) => a.start - b.start)[0];
}
