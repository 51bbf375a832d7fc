/**
 * XMLTV's values as text -> numbers and ids: times with their zone, xmltv_ns and
 * on-screen numbering, dates, Gracenote programme ids, channel numbers. Pure; the
 * decisions are listed in xmltv.parser.ts.
 */
/**
 * XMLTV time -> epoch seconds: 'YYYYMMDDhhmmss +hhmm', any suffix of the time part
 * may be missing ('YYYYMMDDhhmm', 'YYYYMMDD', 'YYYY'); the offset may be '+hh:mm',
 * '+hh', 'Z', 'UTC' or 'GMT'; no offset means UTC. Undefined for anything else,
 * including impossible dates. Read by character code, not a regex: it runs twice
 * per programme.
 */
export function parseXmltvTime(text: string): number | undefined {
  const s = text.trim();
  let digits = 0;
  while (digits < s.length && isDigit(s.charCodeAt(digits))) digits++;
  if (digits < 4 || digits > 14 || digits % 2 !== 0) return undefined;
  const year = twoDigits(s, 0) * 100 + twoDigits(s, 2);
  const month = digits >= 6 ? twoDigits(s, 4) : 1;
  const day = digits >= 8 ? twoDigits(s, 6) : 1;
  const hour = digits >= 10 ? twoDigits(s, 8) : 0;
  const minute = digits >= 12 ? twoDigits(s, 10) : 0;
  const second = digits >= 14 ? twoDigits(s, 12) : 0;
  if (!isValidDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return undefined;
  const offset = parseOffset(s, digits);
  if (offset === undefined) return undefined;
  return daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset;
}

/** The zone after the digits, in seconds east of UTC: '', ' +0100', '-05:00', '+01', 'Z', ' UTC'. */
function parseOffset(s: string, from: number): number | undefined {
  let i = from;
  while (i < s.length && s.charCodeAt(i) === 32) i++;
  if (i === s.length) return 0;
  const sign = s.charCodeAt(i);
  if (sign !== 43 && sign !== 45) return /^(?:Z|UTC|GMT)$/i.test(s.slice(i)) ? 0 : undefined;
  const rest = s.length - i - 1;
  const colon = rest === 5 && s.charCodeAt(i + 3) === 58 ? 1 : 0;
  if (rest !== 2 && rest !== 4 + colon) return undefined;
  if (!isDigit(s.charCodeAt(i + 1)) || !isDigit(s.charCodeAt(i + 2))) return undefined;
  const hours = twoDigits(s, i + 1);
  let minutes = 0;
  if (rest > 2) {
    if (!isDigit(s.charCodeAt(i + 3 + colon)) || !isDigit(s.charCodeAt(i + 4 + colon))) return undefined;
    minutes = twoDigits(s, i + 3 + colon);
  }
  if (hours > 14 || minutes > 59) return undefined;
  return (sign === 45 ? -1 : 1) * (hours * 3600 + minutes * 60);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Two ASCII digits (already checked) at `at`, as a number. */
function twoDigits(s: string, at: number): number {
  return (s.charCodeAt(at) - 48) * 10 + s.charCodeAt(at + 1) - 48;
}

/** xmltv_ns 'season.episode.part', each 0-based and optionally 'n/total' -> 1-based numbers. */
export function parseXmltvNs(text: string): { season?: number; episode?: number } {
  const parts = text.split('.');
  if (parts.length < 2 || parts.length > 3) return {};
  const result: { season?: number; episode?: number } = {};
  const season = zeroBased(parts[0] ?? '');
  const episode = zeroBased(parts[1] ?? '');
  if (season !== undefined) result.season = season + 1;
  if (episode !== undefined) result.episode = episode + 1;
  return result;
}

const SEASON_EPISODE = /\bS(?:eason)?\s*(\d{1,4})\s*[-.,:]?\s*E(?:p(?:isode)?)?\.?\s*(\d{1,5})/i;
const CROSS = /\b(\d{1,4})x(\d{1,5})\b/i;
const SEASON_ONLY = /\bS(?:eason)?\s*(\d{1,4})\b/i;
const EPISODE_ONLY = /\bE(?:p(?:isode)?)?\.?\s*(\d{1,5})\b/i;

/** On-screen numbering: 'S01E05', 'S1 E5', 'Season 1 Episode 5', '1x05', 'E5', 'S2'. Numbers as written. */
export function parseOnscreen(text: string): { season?: number; episode?: number } {
  const both = SEASON_EPISODE.exec(text) ?? CROSS.exec(text);
  if (both !== null) return { season: Number(both[1]), episode: Number(both[2]) };
  const result: { season?: number; episode?: number } = {};
  const season = SEASON_ONLY.exec(text);
  const episode = EPISODE_ONLY.exec(text);
  if (season !== null) result.season = Number(season[1]);
  if (episode !== null) result.episode = Number(episode[1]);
  return result;
}

function zeroBased(part: string): number | undefined {
  const slash = part.indexOf('/');
  const value = (slash === -1 ? part : part.slice(0, slash)).trim();
  return /^\d{1,6}$/.test(value) ? Number(value) : undefined;
}

const DATE = /^(\d{4})(?:(-?)(\d\d)\2(\d\d))?/;

/** `<date>` / `<previously-shown start>`: the year, and the full date when there is one. */
export function parseDateText(text: string): { year?: number; date?: string } {
  const m = DATE.exec(text.trim());
  if (m === null) return {};
  const year = Number(m[1]);
  if (year === 0) return {};
  if (m[3] === undefined || m[4] === undefined || !isValidDate(year, Number(m[3]), Number(m[4]))) return { year };
  return { year, date: `${m[1]}-${m[3]}-${m[4]}` };
}

const GRACENOTE_ID = /^(EP|SH|SP|MV)(\d{8})\.?(\d{4})$/;

/** Gracenote (dd_progid) id -> programId without the dot, and the series' SH id. */
export function parseDdProgid(text: string): { programId?: string; seriesId?: string } {
  const id = text.trim();
  const m = GRACENOTE_ID.exec(id);
  if (m === null) return id === '' ? {} : { programId: id };
  const programId = `${m[1]}${m[2]}${m[3]}`;
  return m[1] === 'MV' ? { programId } : { programId, seriesId: `SH${m[2]}` };
}

export const CHANNEL_NUMBER = /^\d{1,5}(?:[.-]\d{1,5})?$/;

function isValidDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return day <= days;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Hinnant); unlike Date.UTC, years 0-99 are years 0-99. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}
