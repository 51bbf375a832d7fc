/**
 * Antenna as a source for other players (issue 21): the lineup as an M3U playlist, the
 * guide of its channels as XMLTV, and the lineup as an HDHomeRun tuner describes it
 * (discover.json, lineup.json), so Plex, Jellyfin, Emby or any IPTV player can use the
 * channels Antenna manages. Pure writers; lineup.service.ts reads what they write.
 *
 * Every stream URL is Antenna's own live route: viewers from other players share the
 * upstream connection with Antenna's recordings and viewers (one per channel).
 */
import type { Airing } from './airing.js';

/** A channel of the lineup, as exported. */
export interface ExportChannel {
  number: string;
  name: string;
  logo?: string | undefined;
  hd: boolean;
  group?: string | undefined;
}

/**
 * The channel's id in the exported M3U (`tvg-id`) and XMLTV (`<channel id>`): its number, which is unique in the
 * lineup.
 */
export const exportId = (number: string) => `${number}.antenna`;

/** Whatever some player's reader takes for a line's end (Unicode's line and paragraph separators too). */
const LINE_ENDS = /[\r\n\v\f\u0085\u2028\u2029]/g;
/** M3U attribute values: quotes and line ends would end the attribute or the entry. */
const attribute = (value: string) => value.replace(LINE_ENDS, ' ').replace(/"/g, ' ');
/** The title after the comma ends at the line's end. */
const lineText = (value: string) => value.replace(LINE_ENDS, ' ');

/**
 * The lineup as an extended M3U playlist (the attributes IPTV players read: tvg-id, tvg-chno, tvg-name, tvg-logo,
 * group-title).
 */
export function m3uOf(channels: readonly ExportChannel[], streamUrl: (number: string) => string): string {
  const lines = ['#EXTM3U'];
  for (const channel of channels) {
    const attributes = [
      `tvg-id="${attribute(exportId(channel.number))}"`,
      `tvg-chno="${attribute(channel.number)}"`,
      `tvg-name="${attribute(channel.name)}"`,
    ];
    if (channel.logo) attributes.push(`tvg-logo="${attribute(channel.logo)}"`);
    if (channel.group) attributes.push(`group-title="${attribute(channel.group)}"`);
    lines.push(`#EXTINF:-1 ${attributes.join(' ')},${lineText(channel.name)}`, streamUrl(channel.number));
  }
  return `${lines.join('\n')}\n`;
}

// XML 1.0 allows neither these control characters nor lone surrogates, whatever a playlist or guide held.
const NOT_XML =
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text and attribute values made safe for XML. */
export function xmlText(value: string): string {
  return value.replace(NOT_XML, '').replace(/[&<>"']/g, (c) => ENTITY[c] as string);
}

const two = (n: number) => (n < 10 ? `0${n}` : String(n));

/** An XMLTV time: `YYYYMMDDhhmmss +0000`. */
export function xmltvTime(epochSeconds: number): string {
  const d = new Date(epochSeconds * 1000);
  return `${d.getUTCFullYear()}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())} +0000`;
}

/** The channel elements, in lineup order. */
export function xmltvChannels(channels: readonly ExportChannel[]): string {
  return channels
    .map((channel) => {
      const icon = channel.logo ? `\n    <icon src="${xmlText(channel.logo)}"/>` : '';
      return `  <channel id="${xmlText(exportId(channel.number))}">\n    <display-name>${xmlText(channel.name)}</display-name>\n    <display-name>${xmlText(channel.number)}</display-name>${icon}\n  </channel>\n`;
    })
    .join('');
}

/** A Gracenote programme id (`EP012345670012`) as the `dd_progid` episode number (`EP01234567.0012`). */
function ddProgId(programId: string): string | undefined {
  const match = /^([A-Z]{2}\d{8})(\d{4})$/.exec(programId);
  return match ? `${match[1]}.${match[2]}` : undefined;
}

/** One programme element on channel `number`: the fields Antenna keeps, in the order the XMLTV DTD gives. */
export function xmltvProgramme(number: string, airing: Airing): string {
  const parts = [
    `  <programme start="${xmltvTime(airing.start)}" stop="${xmltvTime(airing.stop)}" channel="${xmlText(exportId(number))}">\n`,
    `    <title>${xmlText(airing.title)}</title>\n`,
  ];
  if (airing.episodeTitle) parts.push(`    <sub-title>${xmlText(airing.episodeTitle)}</sub-title>\n`);
  if (airing.summary) parts.push(`    <desc>${xmlText(airing.summary)}</desc>\n`);
  if (airing.year !== undefined) parts.push(`    <date>${airing.year}</date>\n`);
  for (const category of airing.categories ?? []) parts.push(`    <category>${xmlText(category)}</category>\n`);
  if (airing.image) parts.push(`    <icon src="${xmlText(airing.image)}"/>\n`);
  const { season, episode } = airing;
  if ((season ?? 1) >= 1 && (episode ?? 1) >= 1 && (season !== undefined || episode !== undefined)) {
    // xmltv_ns counts from 0.
    parts.push(
      `    <episode-num system="xmltv_ns">${season !== undefined ? season - 1 : ''}.${episode !== undefined ? episode - 1 : ''}.</episode-num>\n`,
    );
  } else if (season !== undefined && episode !== undefined) {
    // A season or episode 0 (specials), which xmltv_ns cannot say.
    parts.push(`    <episode-num system="onscreen">S${two(season)}E${two(episode)}</episode-num>\n`);
  }
  const progId = airing.programId && ddProgId(airing.programId);
  if (progId) parts.push(`    <episode-num system="dd_progid">${progId}</episode-num>\n`);
  if (!airing.isNew && airing.originalAirDate)
    parts.push(`    <previously-shown start="${xmlText(airing.originalAirDate.replace(/-/g, ''))}"/>\n`);
  if (airing.isNew) parts.push('    <new/>\n');
  if (airing.rating) parts.push(`    <rating>\n      <value>${xmlText(airing.rating)}</value>\n    </rating>\n`);
  parts.push('  </programme>\n');
  return parts.join('');
}

/** Bytes gathered before a piece of the XMLTV document is handed on. */
const PIECE = 64 * 1024;

/** The XMLTV document, in pieces of about 64 KB: the channels, then each channel's programmes. */
export function* xmltvDocument(
  channels: readonly ExportChannel[],
  programmes: Iterable<{ number: string; airing: Airing }>,
): Generator<string> {
  let piece = `<?xml version="1.0" encoding="UTF-8"?>\n<tv generator-info-name="Antenna">\n${xmltvChannels(channels)}`;
  for (const { number, airing } of programmes) {
    piece += xmltvProgramme(number, airing);
    if (piece.length >= PIECE) {
      yield piece;
      piece = '';
    }
  }
  yield `${piece}</tv>\n`;
}

/** What an HDHomeRun tuner says of itself (discover.json), as Plex, Jellyfin and Emby read it. */
export interface TunerDescription {
  FriendlyName: string;
  Manufacturer: string;
  ModelNumber: string;
  FirmwareName: string;
  FirmwareVersion: string;
  DeviceID: string;
  DeviceAuth: string;
  BaseURL: string;
  LineupURL: string;
  TunerCount: number;
}

export function tunerDescription(
  baseUrl: string,
  deviceId: string,
  tunerCount: number,
  version: string,
): TunerDescription {
  return {
    FriendlyName: 'Antenna',
    Manufacturer: 'Antenna',
    ModelNumber: 'HDTC-2US',
    FirmwareName: 'hdhomeruntc_atsc',
    FirmwareVersion: version,
    DeviceID: deviceId,
    DeviceAuth: 'antenna',
    BaseURL: baseUrl,
    LineupURL: `${baseUrl}/lineup.json`,
    TunerCount: tunerCount,
  };
}

/** The lineup as an HDHomeRun tuner lists it (lineup.json). */
export function hdhomerunLineup(
  channels: readonly ExportChannel[],
  streamUrl: (number: string) => string,
): { GuideNumber: string; GuideName: string; URL: string; HD?: 1 }[] {
  return channels.map((channel) => ({
    GuideNumber: channel.number,
    GuideName: channel.name,
    URL: streamUrl(channel.number),
    ...(channel.hd ? { HD: 1 as const } : {}),
  }));
}
