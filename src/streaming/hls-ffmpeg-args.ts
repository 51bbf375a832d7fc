/**
 * ffmpeg's command lines for HLS, as pure functions (unit-tested): a file from a given
 * segment on (remux or transcode) and a growing recording, each writing MPEG-TS segments
 * `seg-<n>.ts` into the session's folder, renamed into place only when complete
 * (`temp_file`), so a segment that exists is whole; one segment of a channel's live
 * buffer transcoded; and a text subtitle stream of a file as one WebVTT file.
 */
import { join } from 'node:path';
import { mediaInputLimits } from '../media-tools/library-input.js';
import type { Variant } from './hls-variants.js';

export const HLS_ENCODERS = ['software', 'vaapi', 'nvenc', 'qsv'] as const;
export type HlsEncoder = (typeof HLS_ENCODERS)[number];

export interface FileHlsJob {
  /**
   * The file as the program reads it: INPUT_PATH, the descriptor opened after the boundary's check (library-input.ts).
   */
  input: string;
  variant: Variant;
  /** The first segment to write; ffmpeg seeks to its start. */
  startSegment: number;
  segmentSeconds: number;
  outDir: string;
  encoder: HlsEncoder;
  /** A recording still being written: read on at the end of the file until it stops growing. */
  growing?: boolean;
  /** An EVENT playlist of what exists so far (a growing recording, or a file whose length is unknown). */
  event?: boolean;
}

const QUIET = ['-hide_banner', '-nostats', '-nostdin', '-loglevel', 'warning', '-y'];

/** The video encoder's arguments for one transcode rendition. */
export function videoEncoderArgs(variant: Variant, encoder: HlsEncoder): string[] {
  const height = variant.height ?? 720;
  const kbps = variant.videoKbps ?? 3000;
  const rate = ['-b:v', `${kbps}k`, '-maxrate', `${Math.round(kbps * 1.5)}k`, '-bufsize', `${kbps * 2}k`];
  switch (encoder) {
    case 'vaapi':
      return ['-vf', `format=nv12,hwupload,scale_vaapi=w=-2:h=${height}`, '-c:v', 'h264_vaapi', ...rate];
    case 'nvenc':
      return ['-vf', `scale=-2:${height}`, '-c:v', 'h264_nvenc', '-preset', 'p4', '-profile:v', 'high', ...rate];
    case 'qsv':
      return [
        '-vf',
        `scale=-2:${height},format=nv12`,
        '-c:v',
        'h264_qsv',
        '-preset',
        'veryfast',
        '-profile:v',
        'high',
        ...rate,
      ];
    case 'software':
      return [
        '-vf',
        `scale=-2:${height}`,
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-profile:v',
        'high',
        '-pix_fmt',
        'yuv420p',
        ...rate,
      ];
  }
}

/** Arguments that must come before `-i` for an encoder (the device a hardware encoder uses). */
export function encoderInputArgs(encoder: HlsEncoder): string[] {
  if (encoder === 'vaapi') return ['-vaapi_device', '/dev/dri/renderD128'];
  if (encoder === 'qsv') return ['-init_hw_device', 'qsv=hw', '-filter_hw_device', 'hw'];
  return [];
}

function codecArgs(variant: Variant, encoder: HlsEncoder, segmentSeconds: number): string[] {
  if (variant.kind === 'remux') return ['-c', 'copy'];
  const audio = ['-c:a', 'aac', '-b:a', '128k', '-ac', '2'];
  if (variant.name === 'audio') return ['-vn', ...audio];
  // A keyframe at every segment boundary (counted from where this run starts), so segments cut where the playlist says.
  const keyframes = ['-force_key_frames', `expr:gte(t,n_forced*${segmentSeconds})`];
  return [...videoEncoderArgs(variant, encoder), ...keyframes, ...audio];
}

function hlsOutputArgs(
  outDir: string,
  options: { segmentSeconds: number; startNumber: number; playlist: string; extra?: string[] },
): string[] {
  return [
    '-f',
    'hls',
    '-hls_time',
    String(options.segmentSeconds),
    '-hls_segment_type',
    'mpegts',
    '-start_number',
    String(options.startNumber),
    '-hls_segment_filename',
    join(outDir, 'seg-%d.ts'),
    ...(options.extra ?? []),
    join(outDir, options.playlist),
  ];
}

/**
 * A file from `startSegment` on. Its output times start at the segment's place in the
 * file (`-output_ts_offset`), so segments written by different runs (after a seek) line
 * up in the player. Not `-copyts`: ffmpeg then keeps the jumps a transport stream's
 * clock makes (a recording of a looped or spliced channel), and a segment never ends.
 */
export function fileHlsArgs(job: FileHlsJob): string[] {
  const start = job.startSegment * job.segmentSeconds;
  return [
    ...QUIET,
    ...(job.variant.kind === 'transcode' ? encoderInputArgs(job.encoder) : []),
    ...(start > 0 ? ['-ss', String(start)] : []),
    // `follow` is the file protocol's: read on at the end; rw_timeout ends it once the file has not grown for 30 s
    // (longer than the recorder's reconnect waits).
    ...(job.growing ? ['-follow', '1', '-rw_timeout', '30000000'] : []),
    ...mediaInputLimits(),
    // `file:` keeps a name that starts with a dash or names a protocol a plain file.
    '-i',
    `file:${job.input}`,
    ...(start > 0 ? ['-output_ts_offset', String(start)] : []),
    '-map',
    '0:v:0?',
    '-map',
    '0:a:0?',
    ...codecArgs(job.variant, job.encoder, job.segmentSeconds),
    ...hlsOutputArgs(job.outDir, {
      segmentSeconds: job.segmentSeconds,
      startNumber: job.startSegment,
      playlist: 'ffmpeg.m3u8',
      extra: [
        '-hls_list_size',
        '0',
        '-hls_flags',
        'temp_file',
        ...(job.growing || job.event ? ['-hls_playlist_type', 'event'] : []),
      ],
    }),
  ];
}

/**
 * Where a file's time 0 lands on its segments' 90 kHz clock: ffmpeg's MPEG-TS muxer
 * starts its timestamps 1.4 s in (twice its 0.7 s default max_delay) when neither
 * -copyts, -muxdelay nor -output_ts_offset moves them. fileHlsArgs keeps that: a run
 * from segment N sets -output_ts_offset N*6, so every run's file time t is at
 * 126000 + 90000 t (measured with ffprobe on remux and transcode segments, from 0 and
 * after a seek: within the encoders' few hundredths of a second). WebVTT cues are tied
 * to it by X-TIMESTAMP-MAP.
 */
export const FILE_TS_START_PTS = 126_000;

export interface SubtitleVttJob {
  /** The file as the program reads it: INPUT_PATH (library-input.ts). */
  input: string;
  /** The stream's index among the file's subtitle streams. */
  subtitleIndex: number;
  output: string;
}

/**
 * One text subtitle stream of a file as WebVTT. Its cue times are the file's times
 * from its start (ffmpeg shifts them by the file's start time, as it does for the
 * segments), which X-TIMESTAMP-MAP then places on the segments' clock.
 */
export function subtitleVttArgs(job: SubtitleVttJob): string[] {
  return [
    ...QUIET,
    ...mediaInputLimits(),
    '-i',
    `file:${job.input}`,
    '-map',
    `0:s:${job.subtitleIndex}`,
    '-c:s',
    'webvtt',
    '-f',
    'webvtt',
    job.output,
  ];
}

/**
 * One segment of a channel's live buffer (MPEG-TS on stdin: it begins with the tables and a keyframe) transcoded to
 * one rendition, written to `output` (MPEG-TS). `-copyts` and no mux delay keep the source's timestamps, so the
 * transcoded segments of a buffer follow each other as the buffer's own do, whichever run made each, and a player
 * switching renditions finds the same times (measured: video within 0.5 ms, AAC 21 ms earlier: its priming).
 */
export function bufferSegmentArgs(job: { variant: Variant; encoder: HlsEncoder; output: string }): string[] {
  const audio = ['-c:a', 'aac', '-b:a', '128k', '-ac', '2'];
  const codecs =
    job.variant.name === 'audio' ? ['-vn', ...audio] : [...videoEncoderArgs(job.variant, job.encoder), ...audio];
  return [
    ...QUIET.filter((arg) => arg !== '-nostdin'),
    ...encoderInputArgs(job.encoder),
    '-copyts',
    '-fflags',
    '+genpts+discardcorrupt',
    '-f',
    'mpegts',
    '-i',
    'pipe:0',
    '-map',
    '0:v:0?',
    '-map',
    '0:a:0?',
    ...codecs,
    '-muxdelay',
    '0',
    '-muxpreload',
    '0',
    '-f',
    'mpegts',
    job.output,
  ];
}
