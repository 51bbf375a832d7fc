/**
 * M3U / "extended M3U" IPTV playlists -> channels.
 *
 * Our own parser rather than @iptv/playlist (parseM3U, 1.2.1), which we evaluated: it
 * loops forever on an unquoted attribute (`tvg-id=abc`), drops rtp:// and udp:// streams,
 * leaves tvg-chno in `extras`, attaches any later stray http line to the previous
 * channel as a second URL, and cannot tell us how many entries it dropped. The format
 * is line based, so a line-by-line reader is short and plainly linear.
 *
 * Rules:
 * - An entry is an `#EXTINF:` line, then the stream URL on the next line that is neither
 *   blank nor a comment (`#EXTVLCOPT`, `#KODIPROP`, ... in between are ignored;
 *   `#EXTGRP:` there gives the group when there is no group-title). The `#EXTM3U`
 *   header is optional.
 * - Attributes: tvg-id, tvg-chno, tvg-name, tvg-logo, group-title, quoted ("" or '') or
 *   not; names are case-insensitive, empty values count as absent. The name is the text
 *   after the first comma outside quotes, else tvg-name.
 * - Skipped, each counted once in `skipped`: an entry with no URL line before the next
 *   `#EXTINF` or the end, an entry whose URL line is not an http, https, rtp or udp URL,
 *   an entry with no name and no tvg-name or with an unterminated quote, and any other
 *   non-comment line (a URL without an `#EXTINF`, garbage).
 * - Numbers: a tvg-chno of the form 12, 12.1, 12-1 or 12_1 (up to 6 + 4 digits) is the
 *   channel's number, normalised to 12 / 12.1 without leading zeros. The first channel
 *   to claim a number keeps it; every other channel (no tvg-chno, one that is not a
 *   number, or a duplicate) is numbered 1, 2, 3, ... in playlist order, passing over every
 *   number claimed explicitly anywhere in the playlist. Numbers are thus unique.
 * - hd: the name or tvg-name has a word HD, FHD, UHD, QHD, HDTV, 4K, 8K, 720p, 1080,
 *   1080p/i or 2160p (case-insensitive; "HD+" counts, "SD" and "HDR" alone do not).
 */

export interface M3uChannel {
  number: string;
  name: string;
  guideId?: string;
  guideName?: string;
  logo?: string;
  group?: string;
  hd: boolean;
  url: string;
}

export interface M3uPlaylist {
  channels: M3uChannel[];
  skipped: number;
}

/** An #EXTINF line, read; `url` filled in from the line after it. */
interface Entry {
  attributes: Map<string, string>;
  name: string | undefined;
  malformed: boolean;
  group?: string;
}

type Unnumbered = Omit<M3uChannel, 'number'> & { explicit: string | undefined };

const STREAM_PROTOCOLS = new Set(['http:', 'https:', 'rtp:', 'udp:']);
const CHANNEL_NUMBER = /^0*(\d{1,6})(?:[.\-_]0*(\d{1,4}))?$/;
const HD_WORD = /(?:^|[^a-z0-9])(?:hd|fhd|uhd|qhd|hdtv|4k|8k|720p|1080[pi]?|2160p)(?![a-z0-9])/i;

export function parseM3u(text: string): M3uPlaylist {
  const found: Unnumbered[] = [];
  let skipped = 0;
  let pending: Entry | undefined;
  for (const raw of text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    if (/^#EXTINF:/i.test(line)) {
      if (pending) skipped++;
      pending = readExtinf(line);
    } else if (line.startsWith('#')) {
      if (pending && /^#EXTGRP:/i.test(line)) pending.group = line.slice('#EXTGRP:'.length).trim() || undefined;
    } else {
      const channel = pending && toChannel(pending, line);
      if (channel) found.push(channel);
      else skipped++;
      pending = undefined;
    }
  }
  if (pending) skipped++;
  return { channels: assignNumbers(found), skipped };
}

function toChannel(entry: Entry, urlLine: string): Unnumbered | undefined {
  const attribute = (key: string) => entry.attributes.get(key);
  const name = entry.name ?? attribute('tvg-name');
  if (entry.malformed || name === undefined || !isStreamUrl(urlLine)) return undefined;
  const guideName = attribute('tvg-name');
  return {
    explicit: channelNumber(attribute('tvg-chno')),
    name,
    ...optional('guideId', attribute('tvg-id')),
    ...optional('guideName', guideName),
    ...optional('logo', attribute('tvg-logo')),
    ...optional('group', attribute('group-title') ?? entry.group),
    hd: HD_WORD.test(name) || (guideName !== undefined && HD_WORD.test(guideName)),
    url: urlLine,
  };
}

/** `{ key: value }`, or nothing when the value is absent: the channel objects carry no undefined fields. */
function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

function isStreamUrl(line: string): boolean {
  try {
    const url = new URL(line);
    return STREAM_PROTOCOLS.has(url.protocol) && url.host !== '' && !/\s/.test(line);
  } catch {
    return false;
  }
}

/** "012-01" -> "12.1"; undefined when the value is not a channel number. */
function channelNumber(value: string | undefined): string | undefined {
  const match = value === undefined ? null : CHANNEL_NUMBER.exec(value);
  if (!match) return undefined;
  return match[2] === undefined ? match[1] : `${match[1]}.${match[2]}`;
}

function assignNumbers(found: Unnumbered[]): M3uChannel[] {
  const claimed = new Set<string>();
  const explicit = found.map(({ explicit: number }) => {
    if (number === undefined || claimed.has(number)) return undefined;
    claimed.add(number);
    return number;
  });
  let next = 1;
  return found.map(({ explicit: _explicit, ...channel }, index) => {
    let number = explicit[index];
    if (number === undefined) {
      while (claimed.has(String(next))) next++;
      number = String(next++);
    }
    return { number, ...channel };
  });
}

// --- the #EXTINF line ------------------------------------------------------------------

/**
 * `#EXTINF:<duration> key="value" key=value ...,Display name`. Read by hand, one pass
 * over the line: a regular expression over attributes with quotes and commas in them
 * is easy to get wrong and to make backtrack.
 */
function readExtinf(line: string): Entry {
  const entry: Entry = { attributes: new Map(), name: undefined, malformed: false };
  let at = skipDuration(line, '#EXTINF:'.length);
  while (at < line.length) {
    const c = line[at];
    if (c === ',') {
      entry.name = line.slice(at + 1).trim() || undefined;
      return entry;
    }
    if (c === ' ' || c === '\t') {
      at++;
      continue;
    }
    at = readAttribute(line, at, entry);
  }
  return entry;
}

function skipDuration(line: string, from: number): number {
  const match = /^\s*-?\d+(?:\.\d+)?/.exec(line.slice(from, from + 32));
  return from + (match ? match[0].length : 0);
}

/** Reads `key=value`, `key="value"` or a bare word at `from`; returns where it ended. */
function readAttribute(line: string, from: number, entry: Entry): number {
  let at = from;
  while (at < line.length && !' \t,='.includes(line[at] as string)) at++;
  const key = line.slice(from, at).toLowerCase();
  if (line[at] !== '=') return at;
  at++;
  const quote = line[at];
  let value: string;
  if (quote === '"' || quote === "'") {
    const end = line.indexOf(quote, at + 1);
    if (end === -1) {
      entry.malformed = true;
      return line.length;
    }
    value = line.slice(at + 1, end);
    at = end + 1;
  } else {
    const start = at;
    while (at < line.length && !' \t,'.includes(line[at] as string)) at++;
    value = line.slice(start, at);
  }
  value = value.trim();
  if (key !== '' && value !== '' && !entry.attributes.has(key)) entry.attributes.set(key, value);
  return at;
}
