/**
 * What a file holds (`file.media` of `GET /dvr/files/:id`), said for people: "H.264 ·
 * 1920×1080 · 23.976 fps · HDR10", "AC-3 5.1 · German". Pure, unit-tested.
 */
import type {
  AudioDetails,
  MediaDetails,
  SubtitleDetails,
  VideoDetails,
} from '../../../src/model/library/media-details.schemas';

const CODECS: Record<string, string> = {
  h264: 'H.264',
  hevc: 'HEVC',
  av1: 'AV1',
  vp9: 'VP9',
  vp8: 'VP8',
  mpeg2video: 'MPEG-2',
  mpeg4: 'MPEG-4 Part 2',
  aac: 'AAC',
  ac3: 'AC-3',
  eac3: 'E-AC-3',
  truehd: 'TrueHD',
  dts: 'DTS',
  opus: 'Opus',
  mp3: 'MP3',
  mp2: 'MP2',
  flac: 'FLAC',
  vorbis: 'Vorbis',
  subrip: 'SubRip',
  ass: 'ASS',
  mov_text: 'timed text',
  webvtt: 'WebVTT',
  hdmv_pgs_subtitle: 'PGS',
  dvd_subtitle: 'VobSub',
  dvb_subtitle: 'DVB',
};
const CONTAINERS: Record<string, string> = {
  mp4: 'MP4',
  mov: 'QuickTime',
  matroska: 'Matroska',
  webm: 'WebM',
  avi: 'AVI',
  mpegts: 'MPEG-TS',
};
const CHANNELS: Record<number, string> = { 1: 'mono', 2: 'stereo', 6: '5.1', 8: '7.1' };

export function codecName(codec: string): string {
  return CODECS[codec] ?? codec.toUpperCase();
}

export function containerName(container: string): string {
  return CONTAINERS[container] ?? container.toUpperCase();
}

/** A language's English name ("ger" and "deu" are both German); the code itself when the browser does not know it. */
export function languageName(code: string | undefined): string | undefined {
  if (!code) return undefined;
  try {
    return new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' }).of(code) ?? code;
  } catch {
    return code; // not a well-formed tag: shown as given (React escapes it)
  }
}

export function videoLine(video: VideoDetails): string {
  const size = video.width > 0 && video.height > 0 ? `${video.width}×${video.height}` : '';
  const rate = video.frameRate ? `${Number(video.frameRate.toFixed(3))} fps` : '';
  return [codecName(video.codec), size, rate, video.hdr ?? ''].filter(Boolean).join(' · ');
}

export function audioLine(audio: AudioDetails): string {
  const channels = audio.channels ? (CHANNELS[audio.channels] ?? `${audio.channels} channels`) : '';
  return [[codecName(audio.codec), channels].filter(Boolean).join(' '), languageName(audio.language) ?? '']
    .filter(Boolean)
    .join(' · ');
}

export function subtitleLine(subtitle: SubtitleDetails): string {
  const name = languageName(subtitle.language) ?? 'Unknown language';
  return `${name} (${[subtitle.forced ? 'forced' : '', codecName(subtitle.codec)].filter(Boolean).join(', ')})`;
}

/** The rows the item page shows: [label, text]; none before the file has been probed. */
export function mediaRows(media: MediaDetails | undefined): [string, string][] {
  if (!media) return [];
  const rows: [string, string][] = [['File', containerName(media.container)]];
  if (media.video) rows.push(['Video', videoLine(media.video) + (media.closedCaptions ? ' · closed captions' : '')]);
  media.audio.forEach((audio, index) =>
    rows.push([media.audio.length > 1 ? `Audio ${index + 1}` : 'Audio', audioLine(audio)]),
  );
  if (media.subtitles.length > 0) rows.push(['Subtitles', media.subtitles.map(subtitleLine).join(', ')]);
  return rows;
}
