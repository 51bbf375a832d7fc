/**
 * What a media file holds, as every reader says it (mp4box, ts-ebml, MediaInfo, ffprobe):
 * codec names are ffprobe's (`h264`, `eac3`, `subrip`...), languages ISO 639-2 as the
 * container gives them ("und" dropped), so the readers can be compared with ffprobe
 * (test/e2e/media-info-agreement.test.ts) and the stored values do not depend on which
 * one read a file (but for WebM, which ffprobe calls Matroska, and MediaInfo's two-letter
 * languages). The interface A tags are derived from here, in one place.
 */

import type { HdrFormat, MediaDetails } from '../model/library/media-details.schemas.js';
import type { Chapter } from './media-probe.js';

export type {
  AudioDetails,
  HdrFormat,
  MediaDetails,
  SubtitleDetails,
  VideoDetails,
} from '../model/library/media-details.schemas.js';

/** What a header reader (mp4box, ts-ebml, MediaInfo) makes of a file it can vouch for. */
export interface HeaderReading {
  duration: number;
  details: MediaDetails;
  chapters: Chapter[];
}

/** A language as the container gives it; "und" (undetermined), empty and malformed ones are dropped. */
export function languageOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const language = value.trim().toLowerCase();
  return /^[a-z]{2,3}(-[a-z0-9]{1,8})*$/.test(language) && language !== 'und' ? language : undefined;
}

/** A finite number, from a number or numeric text. */
function finiteNumber(value: unknown): number | undefined {
  const number =
    typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  return Number.isFinite(number) ? number : undefined;
}

/** A positive finite number, from a number or numeric text. */
export function positiveNumber(value: unknown): number | undefined {
  const number = finiteNumber(value);
  return number !== undefined && number > 0 ? number : undefined;
}

/** A finite number ≥ 0, from a number or numeric text. */
export function nonNegativeNumber(value: unknown): number | undefined {
  const number = finiteNumber(value);
  return number !== undefined && number >= 0 ? number : undefined;
}

export function roundTo(value: number, places: number): number {
  const scale = 10 ** places;
  const scaled = Math.round(value * scale) / scale;
  // A value so large that scaling overflows has no decimals left to round.
  return Number.isFinite(scaled) ? scaled : value;
}

/**
 * The HDR format from the video's transfer characteristics (ITU-T H.273: 16 is PQ, 18 is HLG) and a Dolby Vision
 * record.
 */
export function hdrOf(transfer: number | undefined, dolbyVision: boolean): HdrFormat | undefined {
  if (dolbyVision) return 'Dolby Vision';
  if (transfer === 16) return 'HDR10';
  if (transfer === 18) return 'HLG';
  return undefined;
}

/** Interface A's tags: SD/HD/4K, CC, Dolby Digital (Plus), 5.1. */
export function tagsOf(details: MediaDetails): string[] {
  const tags: string[] = [];
  const height = details.video?.height ?? 0;
  if (height > 0) tags.push(height >= 1800 ? '4K' : height >= 720 ? 'HD' : 'SD');
  if (details.closedCaptions) tags.push('CC');
  if (details.audio.some((audio) => audio.codec === 'eac3')) tags.push('Dolby Digital Plus');
  else if (details.audio.some((audio) => audio.codec === 'ac3')) tags.push('Dolby Digital');
  if (details.audio.some((audio) => audio.channels === 6)) tags.push('5.1');
  return tags;
}
