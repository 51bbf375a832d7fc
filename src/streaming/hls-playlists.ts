/**
 * The playlists Antenna writes itself (RFC 8216): the master, listing a session's
 * variants, and a file's VOD media playlist, which lists every segment of the whole
 * item up front so a player can seek anywhere. (A growing recording's EVENT playlist
 * and a channel's sliding window are ffmpeg's own, served as it writes them.) Pure.
 */
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

/** The master playlist: one entry per variant, its media playlist at `<prefix><variant>/stream.m3u8`. */
export function masterPlaylist(variants: readonly Variant[], prefix: string): string {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-INDEPENDENT-SEGMENTS'];
  for (const variant of variants) {
    const attributes = [`BANDWIDTH=${variant.bandwidth}`];
    if (variant.width && variant.height) attributes.push(`RESOLUTION=${variant.width}x${variant.height}`);
    if (variant.codecs) attributes.push(`CODECS="${variant.codecs}"`);
    attributes.push(`NAME="${variant.name}"`);
    lines.push(`#EXT-X-STREAM-INF:${attributes.join(',')}`, `${prefix}${variant.name}/stream.m3u8`);
  }
  return `${lines.join('\n')}\n`;
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
export function vodPlaylist(duration: number, options: { segmentSeconds?: number; targetSeconds?: number } = {}): string {
  const seconds = options.segmentSeconds ?? SEGMENT_SECONDS;
  const count = segmentCount(duration, seconds);
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', `#EXT-X-TARGETDURATION:${options.targetSeconds ?? seconds}`, '#EXT-X-MEDIA-SEQUENCE:0', '#EXT-X-PLAYLIST-TYPE:VOD'];
  for (let index = 0; index < count; index++) {
    const length = index === count - 1 ? duration - index * seconds : seconds;
    lines.push(`#EXTINF:${Math.max(0.001, length).toFixed(3)},`, segmentName(index));
  }
  lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}

/** The segment names a playlist ffmpeg wrote lists, in order. */
export function listedSegments(playlist: string): string[] {
  return playlist.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
}
