/**
 * MediaInfo in-process against ffprobe (issue 22), on files made with ffmpeg: for every
 * container and codec the importer reads in-process, and the odd cases (no audio,
 * several audio tracks, chapters, a truncated file, garbage, an empty file, MPEG-TS),
 * what `probeMedia` says agrees with ffprobe's reading of the same file (duration
 * within 0.1 s or 0.5 %, the same tags), and says which reader read it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaInfoPool, probeMedia } from '../../src/media-tools/media-info.js';
import { probeFile } from '../../src/media-tools/media-probe.js';

const SOURCES = {
  v320: ['-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=25:duration=4'],
  v720: ['-f', 'lavfi', '-i', 'testsrc=size=1280x720:rate=25:duration=4'],
  v2160: ['-f', 'lavfi', '-i', 'testsrc=size=3840x2160:rate=5:duration=2'],
  tone: ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=4'],
  tone2: ['-f', 'lavfi', '-i', 'sine=frequency=880:duration=4'],
};
const X264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];

interface Case {
  name: string;
  file: string;
  args: string[];
  /** Who should read it: MediaInfo, or ffprobe as the fallback. */
  reader: 'mediainfo' | 'ffprobe';
  /** Made from another case's file instead of by ffmpeg. */
  derive?: (dir: string) => void;
  /** Neither reader can read it: both say so. */
  unreadable?: boolean;
}

const CASES: Case[] = [
  { name: 'MP4, H.264 + AAC', file: 'h264-aac.mp4', args: [...SOURCES.v320, ...SOURCES.tone, ...X264, '-c:a', 'aac'], reader: 'mediainfo' },
  { name: 'MOV, H.264 + AAC', file: 'h264-aac.mov', args: [...SOURCES.v320, ...SOURCES.tone, ...X264, '-c:a', 'aac'], reader: 'mediainfo' },
  { name: 'MP4 with the index at the front (faststart)', file: 'faststart.mp4', args: [...SOURCES.v320, ...SOURCES.tone, ...X264, '-c:a', 'aac', '-movflags', '+faststart'], reader: 'mediainfo' },
  { name: 'Matroska, 720p H.264 + AC-3 5.1 (HD, Dolby Digital, 5.1)', file: 'hd-ac3.mkv', args: [...SOURCES.v720, ...SOURCES.tone, ...X264, '-c:a', 'ac3', '-ac', '6'], reader: 'mediainfo' },
  { name: 'Matroska, E-AC-3 (Dolby Digital Plus)', file: 'eac3.mkv', args: [...SOURCES.v320, ...SOURCES.tone, ...X264, '-c:a', 'eac3'], reader: 'mediainfo' },
  { name: 'Matroska, 2160p HEVC without audio (4K)', file: 'uhd-hevc.mkv', args: [...SOURCES.v2160, '-c:v', 'libx265', '-preset', 'ultrafast', '-x265-params', 'log-level=error'], reader: 'mediainfo' },
  {
    name: 'Matroska, two audio tracks in two languages',
    file: 'two-audio.mkv',
    args: [...SOURCES.v320, ...SOURCES.tone, ...SOURCES.tone2, '-map', '0', '-map', '1', '-map', '2', ...X264, '-c:a', 'aac', '-metadata:s:a:0', 'language=eng', '-metadata:s:a:1', 'language=ger'],
    reader: 'mediainfo',
  },
  { name: 'WebM, VP9 + Opus', file: 'vp9-opus.webm', args: [...SOURCES.v320, ...SOURCES.tone, '-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-c:a', 'libopus'], reader: 'mediainfo' },
  { name: 'AVI, MPEG-4 Part 2 + MP3', file: 'mpeg4-mp3.avi', args: [...SOURCES.v320, ...SOURCES.tone, '-c:v', 'mpeg4', '-c:a', 'libmp3lame'], reader: 'mediainfo' },
  { name: 'MP4 without audio', file: 'no-audio.mp4', args: [...SOURCES.v320, ...X264], reader: 'mediainfo' },
  { name: 'MP4, audio only', file: 'audio-only.mp4', args: [...SOURCES.tone, '-c:a', 'aac'], reader: 'mediainfo' },
  { name: 'MPEG-TS (captions live in its video: ffprobe)', file: 'h264.ts', args: [...SOURCES.v320, ...SOURCES.tone, ...X264, '-c:a', 'aac'], reader: 'ffprobe' },
  {
    name: 'Matroska with chapters (ffprobe reads them)',
    file: 'chapters.mkv',
    args: [],
    reader: 'ffprobe',
    derive: (dir) => {
      writeFileSync(join(dir, 'chapters.txt'), ';FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=2000\ntitle=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=2000\nEND=4000\ntitle=Two\n');
      ffmpeg([...['-i', join(dir, 'h264-aac.mp4'), '-i', join(dir, 'chapters.txt')], '-map_metadata', '1', '-map_chapters', '1', '-c', 'copy', join(dir, 'chapters.mkv')]);
    },
  },
  {
    name: 'Matroska cut short (a copy that stopped)',
    file: 'truncated.mkv',
    args: [],
    reader: 'ffprobe',
    derive: (dir) => {
      const whole = readFileSync(join(dir, 'hd-ac3.mkv'));
      writeFileSync(join(dir, 'truncated.mkv'), whole.subarray(0, Math.floor(whole.length / 3)));
    },
  },
  { name: 'garbage with a video extension', file: 'garbage.mkv', args: [], reader: 'ffprobe', unreadable: true, derive: (dir) => writeFileSync(join(dir, 'garbage.mkv'), Buffer.from(Array.from({ length: 30_000 }, (_, n) => (n * 7919) % 251))) },
  { name: 'an empty file', file: 'empty.mp4', args: [], reader: 'ffprobe', unreadable: true, derive: (dir) => writeFileSync(join(dir, 'empty.mp4'), '') },
];

function ffmpeg(args: string[]): void {
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
}

let dir: string;
let pool: MediaInfoPool;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'antenna-mediainfo-'));
  for (const c of CASES.filter((c) => !c.derive)) ffmpeg([...c.args, '-shortest', join(dir, c.file)]);
  for (const c of CASES.filter((c) => c.derive)) c.derive?.(dir);
  pool = new MediaInfoPool(2);
}, 120_000);

afterAll(() => {
  pool?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('probeMedia (MediaInfo, ffprobe behind it) agrees with ffprobe', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const path = join(dir, c.file);
    const signal = new AbortController().signal;
    const [ours, reference] = await Promise.all([probeMedia(path, pool, undefined, signal), probeFile(path, undefined, signal)]);
    expect(ours.reader).toBe(c.reader);
    if (c.unreadable) {
      expect([ours.ok, reference.ok]).toEqual([false, false]);
      return;
    }
    if (!ours.ok || !reference.ok) throw new Error(`not read: ${JSON.stringify({ ours, reference })}`);
    const expected = reference.result.duration ?? 0;
    expect(Math.abs((ours.result.duration ?? -1) - expected)).toBeLessThanOrEqual(Math.max(0.1, expected * 0.005));
    expect(ours.result.tags).toEqual(reference.result.tags);
    expect(ours.result.chapters).toEqual(reference.result.chapters);
  });

  it('leaves a file that vanished to ffprobe, which reports it', async () => {
    const outcome = await probeMedia(join(dir, 'not-there.mp4'), pool, undefined, new AbortController().signal);
    expect(outcome).toMatchObject({ ok: false, reader: 'ffprobe' });
  });
});
