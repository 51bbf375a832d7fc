/**
 * The playlists Antenna writes itself (RFC 8216): the master, listing a session's
 * variants and its text subtitles as WebVTT renditions; a file's VOD media playlist,
 * which lists every segment of the whole item up front so a player can seek anywhere;
 * a subtitle rendition's playlist (one WebVTT segment for the whole file); and the
 * WebVTT header that ties cue times to the segments' clock. (A growing recording's
 * EVENT playlist is ffmpeg's own, served as it writes it; a channel's is its live
 * buffer's, dvr/live/buffer-playlist.ts.) Pure.
 */
import type { SubtitleStreamInfo } from '../media-tools/stream-info.js';
import type { Variant } from './hls-variants.js';

/** Seconds per segment of a file: short enough for a quick start and seek, long enough to keep requests few. */
export const SEGMENT_SECONDS = 6;

/** A segment's file and URL name. */
export const segmentName = (index: number) => `seg-${index}.ts`;
const SEGMENT_NAME = /^seg-(\d{1,7})\.ts$/;

/** The index in a segment name, or undefined for any other name. */
export function segmentIndex(name: string): number | undefined {
  const match = SEGMENT_NAME.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** The GROUP-ID of the subtitle renditions, and the folder of their URLs (`<prefix>subs/<n>/`). */
export const SUBTITLE_GROUP = 'subs';
/** The one segment of a subtitle rendition: the whole file's cues. */
export const SUBTITLE_SEGMENT = 'all.vtt';

/**
 * The master playlist: one entry per variant, its media playlist at
 * `<prefix><variant>/stream.m3u8`, and one subtitle rendition per text subtitle
 * stream at `<prefix>subs/<index>/stream.m3u8`. Version 3 still: RFC 8216 section 7
 * keeps EXT-X-MEDIA and the SUBTITLES attribute compatible with version 1 (a server
 * MAY say 4; older players then just ignore the subtitles), and FORCED needs none.
 */
export function masterPlaylist(
  variants: readonly Variant[],
  prefix: string,
  subtitles: readonly SubtitleStreamInfo[] = [],
): string {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-INDEPENDENT-SEGMENTS'];
  for (const rendition of subtitleRenditions(subtitles)) lines.push(subtitleMediaTag(rendition, prefix));
  for (const variant of variants) {
    const attributes = [`BANDWIDTH=${variant.bandwidth}`];
    if (variant.width && variant.height) attributes.push(`RESOLUTION=${variant.width}x${variant.height}`);
    if (variant.codecs) attributes.push(`CODECS="${variant.codecs}"`);
    attributes.push(`NAME="${variant.name}"`);
    if (subtitles.length > 0) attributes.push(`SUBTITLES="${SUBTITLE_GROUP}"`);
    lines.push(`#EXT-X-STREAM-INF:${attributes.join(',')}`, `${prefix}${variant.name}/stream.m3u8`);
  }
  return `${lines.join('\n')}\n`;
}

/** A subtitle rendition as the master playlist names it. */
export interface SubtitleRendition {
  /** In its URL: the stream's index among the file's subtitle streams. */
  index: number;
  /** Unique among the renditions, and safe inside a quoted string. */
  name: string;
  /** An RFC 5646 tag ("en" for the container's "eng"); absent when unknown. */
  language?: string;
  /** A language the player can match to its user's, or forced subtitles (shown when the audio's language is chosen). */
  autoselect: boolean;
  forced: boolean;
}

/** At most this many characters of a title go into NAME: a menu entry, not a paragraph. */
const MAX_NAME_LENGTH = 80;

/** Text safe in an RFC 8216 quoted string: no double quote, no line break (nor any other control character). */
export function quotedStringSafe(text: string): string {
  const plain = text
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
    .replace(/["\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return [...plain].slice(0, MAX_NAME_LENGTH).join('').trim();
}

/** The RFC 5646 form of a container's language tag ("eng" -> "en", "ger" -> "de"); undefined when it is not one. */
export function languageTag(language: string | undefined): string | undefined {
  if (!language) return undefined;
  try {
    const [tag] = Intl.getCanonicalLocales(language);
    return tag && tag !== 'und' ? tag : undefined;
  } catch {
    return undefined;
  }
}

const LANGUAGE_NAMES = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

/** A language's English name ("French" for "fr"), when it has one. */
function languageName(tag: string | undefined): string | undefined {
  if (!tag) return undefined;
  try {
    return LANGUAGE_NAMES.of(tag);
  } catch {
    return undefined;
  }
}

/**
 * `name`, or `name 2`, `name 3`... whichever is not taken yet (compared without case: players list them side by side).
 */
function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${name} ${n}`;
  taken.add(candidate.toLowerCase());
  return candidate;
}

/** The renditions of a file's text subtitle streams: named by title, else by language, else "Subtitles N". */
export function subtitleRenditions(subtitles: readonly SubtitleStreamInfo[]): SubtitleRendition[] {
  const taken = new Set<string>();
  return subtitles.map((subtitle, position) => {
    const language = languageTag(subtitle.language);
    const title = quotedStringSafe(subtitle.title ?? '');
    const byLanguage = languageName(language);
    const base =
      title ||
      (byLanguage
        ? `${quotedStringSafe(byLanguage)}${subtitle.forced ? ' (forced)' : ''}`
        : `Subtitles ${position + 1}`);
    const rendition: SubtitleRendition = {
      index: subtitle.index,
      name: uniqueName(base, taken),
      autoselect: language !== undefined || subtitle.forced,
      forced: subtitle.forced,
    };
    if (language) rendition.language = language;
    return rendition;
  });
}

/**
 * One EXT-X-MEDIA line. DEFAULT=NO always: whether subtitles show is the viewer's
 * choice (the web app's setting), not the file's.
 */
function subtitleMediaTag(rendition: SubtitleRendition, prefix: string): string {
  const attributes = [`TYPE=SUBTITLES`, `GROUP-ID="${SUBTITLE_GROUP}"`, `NAME="${rendition.name}"`];
  if (rendition.language) attributes.push(`LANGUAGE="${rendition.language}"`);
  attributes.push(
    'DEFAULT=NO',
    `AUTOSELECT=${rendition.autoselect ? 'YES' : 'NO'}`,
    `FORCED=${rendition.forced ? 'YES' : 'NO'}`,
  );
  attributes.push(`URI="${prefix}${SUBTITLE_GROUP}/${rendition.index}/stream.m3u8"`);
  return `#EXT-X-MEDIA:${attributes.join(',')}`;
}

/**
 * A subtitle rendition's playlist: one WebVTT segment with every cue of the file.
 * The target duration must be at least the segment's (rounded) length: the whole file.
 */
export function subtitlePlaylist(duration: number): string {
  const lines = [
    '#EXTM3U',
    '#EXT-X-VERSION:3',
    `#EXT-X-TARGETDURATION:${Math.max(1, Math.ceil(duration))}`,
    '#EXT-X-MEDIA-SEQUENCE:0',
    '#EXT-X-PLAYLIST-TYPE:VOD',
  ];
  lines.push(`#EXTINF:${Math.max(0.001, duration).toFixed(3)},`, SUBTITLE_SEGMENT, '#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}

/**
 * A WebVTT file with `X-TIMESTAMP-MAP=MPEGTS:<pts>,LOCAL:00:00:00.000` in its header
 * (any such line it had replaced), so players put cue time 0 where the segments' clock
 * reads `pts`: the clock value at which the file's time 0 lands in its MPEG-TS segments.
 */
export function withTimestampMap(vtt: string, pts: number): string {
  const map = `X-TIMESTAMP-MAP=MPEGTS:${Math.round(pts)},LOCAL:00:00:00.000`;
  const lines = vtt.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  if (!/^WEBVTT([ \t].*)?$/.test(lines[0] ?? '')) return `WEBVTT\n${map}\n\n${lines.join('\n')}`;
  // The header is the first line and those up to the first blank one.
  const blank = lines.findIndex((line) => line === '');
  const headerEnd = blank === -1 ? lines.length : blank;
  const header = lines.slice(1, headerEnd).filter((line) => !line.startsWith('X-TIMESTAMP-MAP='));
  return [lines[0], map, ...header, ...lines.slice(headerEnd)].join('\n');
}

/** How many segments a file of `duration` seconds has. */
export function segmentCount(duration: number, segmentSeconds = SEGMENT_SECONDS): number {
  return Math.max(1, Math.ceil(duration / segmentSeconds - 1e-6));
}

/**
 * A file's VOD playlist: every segment, each `segmentSeconds` long but the last. A remux
 * cuts at the source's keyframes, so its segments are only about that long; the target
 * duration says how far off they may be (`targetSeconds`).
 */
export function vodPlaylist(
  duration: number,
  options: { segmentSeconds?: number; targetSeconds?: number } = {},
): string {
  const seconds = options.segmentSeconds ?? SEGMENT_SECONDS;
  const count = segmentCount(duration, seconds);
  const lines = [
    '#EXTM3U',
    '#EXT-X-VERSION:3',
    `#EXT-X-TARGETDURATION:${options.targetSeconds ?? seconds}`,
    '#EXT-X-MEDIA-SEQUENCE:0',
    '#EXT-X-PLAYLIST-TYPE:VOD',
  ];
  for (let index = 0; index < count; index++) {
    const length = index === count - 1 ? duration - index * seconds : seconds;
    lines.push(`#EXTINF:${Math.max(0.001, length).toFixed(3)},`, segmentName(index));
  }
  lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}

/** The segment names a playlist ffmpeg wrote lists, in order. */
export function listedSegments(playlist: string): string[] {
  return playlist
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
