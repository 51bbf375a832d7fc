/**
 * The in-process readers (mp4box, ts-ebml, the TS reader, MediaInfo) against ffprobe
 * (issue 22), on files made with ffmpeg: for every container and codec the importer reads
 * in-process, and the odd cases (no audio, several audio tracks, subtitles, HDR, chapters,
 * files cut short or still being written, a TS joined mid-stream, garbage, an empty file),
 * what `probeMedia` says agrees with ffprobe's reading of the same file (duration within
 * 0.1 s or 0.5 %, the same tags, chapters, container, streams, codecs and languages, frame
 * rate within 1 %), and says which reader read it; what a reader cannot vouch for is
 * ffprobe's to read (the cases say why).
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type MediaDetails, tagsOf } from '../../src/media-tools/media-details.js';
import { HeaderReaderPool, type ProbeReader, probeMedia } from '../../src/media-tools/media-header.js';
import { type OpenedInput, probeFile } from '../../src/media-tools/media-probe.js';
import { type OpenedFile, PathBoundary } from '../../src/common/path-boundary.js';
import { makeCaptionedTsClip } from '../support/cea608-clip.js';

const SOURCES = {
  v320: ['-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=25:duration=4'],
  v720: ['-f', 'lavfi', '-i', 'testsrc=size=1280x720:rate=25:duration=4'],
  v2160: ['-f', 'lavfi', '-i', 'testsrc=size=3840x2160:rate=5:duration=2'],
  tone: ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=4'],
  tone2: ['-f', 'lavfi', '-i', 'sine=frequency=880:duration=4'],
};
const X264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
const hevc10 = (transfer: string) => [
  ...[
    '-c:v',
    'libx265',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p10le',
    '-x265-params',
    `log-level=error:colorprim=bt2020:transfer=${transfer}:colormatrix=bt2020nc`,
  ],
  ...['-color_primaries', 'bt2020', '-color_trc', transfer, '-colorspace', 'bt2020nc'],
];
const SRT = '1\n00:00:00,500 --> 00:00:02,000\nHello\n\n2\n00:00:02,500 --> 00:00:03,500\nAgain\n';
const CHAPTERS =
  ';FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=2000\ntitle=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=2000\nEND=4000\ntitle=Two\n';

interface Case {
  name: string;
  file: string;
  args: string[];
  /** Who should read it: mp4box, ts-ebml or the TS reader, MediaInfo behind them, ffprobe as the last resort. */
  reader: ProbeReader;
  /** Made from another case's file instead of by ffmpeg. */
  derive?: (dir: string) => void;
  /** Neither reader can read it: both say so. */
  unreadable?: boolean;
  /** A tag the file must get (agreement alone would pass if both missed it). */
  tag?: string;
  /**
   * ffprobe (5.1) misses the captions in the video unless it decodes every frame (test/e2e/cea608-clip.test.ts shows
   * them there); the TS reader sees them.
   */
  ffprobeMissesCaptions?: boolean;
  /**
   * Cut short: ffprobe repeats the length its container declares; ours is the length its data plays (issue 36), and it
   * is marked damaged.
   */
  damaged?: boolean;
}

const cut = (from: string, to: string, keep: (length: number) => [number, number]) => (dir: string) => {
  const whole = readFileSync(join(dir, from));
  writeFileSync(join(dir, to), whole.subarray(...keep(whole.length)));
};

const CASES: Case[] = [
  {
    name: 'MP4, H.264 + AAC',
    file: 'h264-aac.mp4',
    args: [...SOURCES.v320, ...SOURCES.tone, ...X264, '-c:a', 'aac'],
    reader: 'mp4box',
  },
  {
    name: 'MOV, H.264 + AAC',
    file: 'h264-aac.mov',
    args: [...SOURCES.v320, ...SOURCES.tone, ...X264, '-c:a', 'aac'],
    reader: 'mp4box',
  },
  {
    name: 'MP4 with the index at the front (faststart)',
    file: 'faststart.mp4',
    args: [...SOURCES.v320, ...SOURCES.tone, ...X264, '-c:a', 'aac', '-movflags', '+faststart'],
    reader: 'mp4box',
  },
  {
    name: 'Matroska, 720p H.264 + AC-3 5.1 (HD, Dolby Digital, 5.1)',
    file: 'hd-ac3.mkv',
    args: [...SOURCES.v720, ...SOURCES.tone, ...X264, '-c:a', 'ac3', '-ac', '6'],
    reader: 'ts-ebml',
    tag: '5.1',
  },
  {
    name: 'Matroska, E-AC-3 (Dolby Digital Plus)',
    file: 'eac3.mkv',
    args: [...SOURCES.v320, ...SOURCES.tone, ...X264, '-c:a', 'eac3'],
    reader: 'ts-ebml',
  },
  {
    name: 'MP4, E-AC-3 5.1',
    file: 'eac3.mp4',
    args: [...SOURCES.v320, ...SOURCES.tone, ...X264, '-c:a', 'eac3', '-ac', '6'],
    reader: 'mp4box',
  },
  {
    name: 'Matroska, 2160p HEVC without audio (4K)',
    file: 'uhd-hevc.mkv',
    args: [...SOURCES.v2160, '-c:v', 'libx265', '-preset', 'ultrafast', '-x265-params', 'log-level=error'],
    reader: 'ts-ebml',
  },
  {
    name: 'MP4, HEVC 10-bit HDR10 (PQ)',
    file: 'hdr10.mp4',
    args: [...SOURCES.v320, ...hevc10('smpte2084'), '-tag:v', 'hvc1'],
    reader: 'mp4box',
    tag: 'SD',
  },
  {
    name: 'Matroska, HEVC 10-bit HDR10 (PQ)',
    file: 'hdr10.mkv',
    args: [...SOURCES.v320, ...hevc10('smpte2084')],
    reader: 'ts-ebml',
  },
  {
    name: 'Matroska, HEVC 10-bit HLG',
    file: 'hlg.mkv',
    args: [...SOURCES.v320, ...hevc10('arib-std-b67')],
    reader: 'ts-ebml',
  },
  {
    name: 'Matroska, two audio tracks in two languages',
    file: 'two-audio.mkv',
    args: [
      ...SOURCES.v320,
      ...SOURCES.tone,
      ...SOURCES.tone2,
      '-map',
      '0',
      '-map',
      '1',
      '-map',
      '2',
      ...X264,
      '-c:a',
      'aac',
      '-metadata:s:a:0',
      'language=eng',
      '-metadata:s:a:1',
      'language=ger',
    ],
    reader: 'ts-ebml',
  },
  {
    name: 'Matroska, two subtitle tracks (one forced, in French)',
    file: 'subtitles.mkv',
    args: [],
    reader: 'ts-ebml',
    derive: (dir) => {
      writeFileSync(join(dir, 'subs.srt'), SRT);
      ffmpeg(
        [
          '-i',
          join(dir, 'h264-aac.mp4'),
          '-i',
          join(dir, 'subs.srt'),
          '-i',
          join(dir, 'subs.srt'),
          '-map',
          '0',
          '-map',
          '1',
          '-map',
          '2',
          '-c:v',
          'copy',
          '-c:a',
          'copy',
          '-c:s:0',
          'srt',
          '-c:s:1',
          'ass',
        ].concat([
          '-metadata:s:s:0',
          'language=fre',
          '-disposition:s:0',
          'forced',
          '-metadata:s:s:1',
          'language=spa',
          join(dir, 'subtitles.mkv'),
        ]),
      );
    },
  },
  {
    name: 'MP4, a timed-text subtitle track in Spanish',
    file: 'mov-text.mp4',
    args: [],
    reader: 'mp4box',
    derive: (dir) =>
      ffmpeg([
        '-i',
        join(dir, 'h264-aac.mp4'),
        '-i',
        join(dir, 'subs.srt'),
        '-map',
        '0',
        '-map',
        '1',
        '-c:v',
        'copy',
        '-c:a',
        'copy',
        '-c:s',
        'mov_text',
        '-metadata:s:s:0',
        'language=spa',
        join(dir, 'mov-text.mp4'),
      ]),
  },
  {
    name: 'WebM, VP9 + Opus',
    file: 'vp9-opus.webm',
    args: [
      ...SOURCES.v320,
      ...SOURCES.tone,
      '-c:v',
      'libvpx-vp9',
      '-deadline',
      'realtime',
      '-cpu-used',
      '8',
      '-c:a',
      'libopus',
    ],
    reader: 'ts-ebml',
  },
  {
    name: 'AVI, MPEG-4 Part 2 + MP3 (MediaInfo)',
    file: 'mpeg4-mp3.avi',
    args: [...SOURCES.v320, ...SOURCES.tone, '-c:v', 'mpeg4', '-c:a', 'libmp3lame'],
    reader: 'mediainfo',
  },
  { name: 'MP4 without audio', file: 'no-audio.mp4', args: [...SOURCES.v320, ...X264], reader: 'mp4box' },
  { name: 'MP4, audio only', file: 'audio-only.mp4', args: [...SOURCES.tone, '-c:a', 'aac'], reader: 'mp4box' },
  {
    name: 'MP4, AAC 5.1 and AC-3 stereo',
    file: 'aac51-ac3.mp4',
    args: [
      ...SOURCES.v320,
      ...SOURCES.tone,
      ...SOURCES.tone2,
      '-map',
      '0',
      '-map',
      '1',
      '-map',
      '2',
      ...X264,
      '-c:a:0',
      'aac',
      '-ac:a:0',
      '6',
      '-c:a:1',
      'ac3',
      '-ac:a:1',
      '2',
    ],
    reader: 'mp4box',
  },
  {
    name: 'MOV, PCM audio (ffprobe names PCM by its sample format)',
    file: 'pcm.mov',
    args: [...SOURCES.v320, ...SOURCES.tone, ...X264, '-c:a', 'pcm_s16le'],
    reader: 'ffprobe',
  },
  {
    name: 'MP4, Opus',
    file: 'opus.mp4',
    args: [...SOURCES.v320, ...SOURCES.tone, ...X264, '-c:a', 'libopus'],
    reader: 'mp4box',
  },
  {
    name: 'MPEG-TS, H.264 + AAC',
    file: 'h264.ts',
    args: [...SOURCES.v320, ...SOURCES.tone, ...X264, '-c:a', 'aac'],
    reader: 'ts-reader',
  },
  {
    name: 'MPEG-TS, MPEG-2 + AC-3 5.1 (a broadcast recording)',
    file: 'mpeg2-ac3.ts',
    args: [...SOURCES.v720, ...SOURCES.tone, '-c:v', 'mpeg2video', '-b:v', '4M', '-c:a', 'ac3', '-ac', '6'],
    reader: 'ts-reader',
    tag: '5.1',
  },
  {
    name: 'MPEG-TS with CEA-608 captions in its video (CC from the TS reader)',
    file: 'captioned.ts',
    args: [],
    reader: 'ts-reader',
    tag: 'CC',
    ffprobeMissesCaptions: true,
    derive: () => undefined,
  },
  {
    name: 'MPEG-TS, two audio tracks in two languages',
    file: 'two-audio.ts',
    args: [
      ...SOURCES.v320,
      ...SOURCES.tone,
      ...SOURCES.tone2,
      '-map',
      '0',
      '-map',
      '1',
      '-map',
      '2',
      ...X264,
      '-c:a',
      'aac',
      '-metadata:s:a:0',
      'language=eng',
      '-metadata:s:a:1',
      'language=fra',
    ],
    reader: 'ts-reader',
  },
  { name: 'MPEG-TS without audio', file: 'no-audio.ts', args: [...SOURCES.v320, ...X264], reader: 'ts-reader' },
  {
    name: 'MPEG-TS, HEVC + AAC',
    file: 'hevc.ts',
    args: [
      ...SOURCES.v320,
      ...SOURCES.tone,
      '-c:v',
      'libx265',
      '-preset',
      'ultrafast',
      '-x265-params',
      'log-level=error',
      '-c:a',
      'aac',
    ],
    reader: 'ts-reader',
  },
  {
    name: 'MPEG-TS, HEVC 10-bit HDR10 + E-AC-3 5.1',
    file: 'hdr10.ts',
    args: [...SOURCES.v320, ...SOURCES.tone, ...hevc10('smpte2084'), '-c:a', 'eac3', '-ac', '6'],
    reader: 'ts-reader',
    tag: 'Dolby Digital Plus',
  },
  // Cut mid-packet: the last packet is partial.
  {
    name: 'MPEG-TS cut short',
    file: 'truncated.ts',
    args: [],
    reader: 'ts-reader',
    derive: cut('h264.ts', 'truncated.ts', (length) => [0, Math.floor(length * 0.6) + 77]),
  },
  {
    // As a recorder streams it, and only its first half there yet (ending mid-packet), as a scan finds it.
    name: 'MPEG-TS still being written',
    file: 'being-written.ts',
    args: [],
    reader: 'ts-reader',
    derive: (dir) => {
      const streamed = execFileSync(
        'ffmpeg',
        [
          '-hide_banner',
          '-loglevel',
          'error',
          ...SOURCES.v320,
          ...SOURCES.tone,
          ...X264,
          '-c:a',
          'aac',
          '-shortest',
          '-f',
          'mpegts',
          'pipe:1',
        ],
        { maxBuffer: 64 * 1024 * 1024 },
      );
      writeFileSync(join(dir, 'being-written.ts'), streamed.subarray(0, Math.floor(streamed.length / 2) + 55));
    },
  },
  {
    // A recording joined mid-stream (mid-packet, mid-GOP), with a keyframe and its SPS every second as broadcasts have.
    name: 'MPEG-TS joined mid-stream',
    file: 'mid-stream.ts',
    args: [],
    reader: 'ts-reader',
    derive: (dir) => {
      ffmpeg([...SOURCES.v320, ...SOURCES.tone, ...X264, '-g', '25', '-c:a', 'aac', '-shortest', join(dir, 'gop.ts')]);
      cut('gop.ts', 'mid-stream.ts', (length) => [Math.floor(length * 0.3) + 101, length])(dir);
    },
  },
  // Cut mid-stream too, but its only SPS (x264 sends one per keyframe, here only the first) is gone: ffprobe reads the
  // picture as 0x0, the TS reader cannot vouch for the size and leaves it to ffprobe. No PAT, PMT or PCR at the start
  // either.
  {
    name: 'MPEG-TS without its sequence header (ffprobe)',
    file: 'no-pcr-start.ts',
    args: [],
    reader: 'ffprobe',
    derive: cut('h264.ts', 'no-pcr-start.ts', (length) => [188 * 41, length]),
  },
  // AAC at 22.05 kHz may be the core of HE-AAC v2, one channel to its header and two to ffprobe, which decodes it.
  {
    name: 'MPEG-TS, AAC at 22.05 kHz (ffprobe)',
    file: 'aac-22k.ts',
    args: [
      ...SOURCES.v320,
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:sample_rate=22050:duration=4',
      ...X264,
      '-c:a',
      'aac',
    ],
    reader: 'ffprobe',
  },
  {
    name: 'Matroska with chapters (read from its head)',
    file: 'chapters.mkv',
    args: [],
    reader: 'ts-ebml',
    derive: (dir) => {
      writeFileSync(join(dir, 'chapters.txt'), CHAPTERS);
      ffmpeg([
        ...['-i', join(dir, 'h264-aac.mp4'), '-i', join(dir, 'chapters.txt')],
        '-map_metadata',
        '1',
        '-map_chapters',
        '1',
        '-c',
        'copy',
        join(dir, 'chapters.mkv'),
      ]);
    },
  },
  {
    name: 'MP4 with chapters (ffprobe reads them)',
    file: 'chapters.mp4',
    args: [],
    reader: 'ffprobe',
    derive: (dir) =>
      ffmpeg([
        ...['-i', join(dir, 'h264-aac.mp4'), '-i', join(dir, 'chapters.txt')],
        '-map_metadata',
        '1',
        '-map_chapters',
        '1',
        '-c',
        'copy',
        join(dir, 'chapters.mp4'),
      ]),
  },
  {
    name: 'Matroska cut short (a copy that stopped)',
    file: 'truncated.mkv',
    args: [],
    reader: 'ffprobe',
    damaged: true,
    derive: cut('hd-ac3.mkv', 'truncated.mkv', (length) => [0, Math.floor(length / 3)]),
  },
  {
    name: 'MP4 cut short, index at the front',
    file: 'truncated-faststart.mp4',
    args: [],
    reader: 'ffprobe',
    damaged: true,
    derive: cut('faststart.mp4', 'truncated-faststart.mp4', (length) => [0, Math.floor(length / 2)]),
  },
  {
    name: 'MP4 cut short, index at the end (lost)',
    file: 'truncated.mp4',
    args: [],
    reader: 'ffprobe',
    unreadable: true,
    derive: cut('h264-aac.mp4', 'truncated.mp4', (length) => [0, Math.floor(length / 2)]),
  },
  {
    // Written to a pipe, as a recorder streams it (no Duration, no sizes), and only its first half there yet, as a scan
    // finds it.
    name: 'Matroska still being written',
    file: 'being-written.mkv',
    args: [],
    reader: 'ffprobe',
    derive: (dir) => {
      const streamed = execFileSync(
        'ffmpeg',
        [
          '-hide_banner',
          '-loglevel',
          'error',
          ...SOURCES.v320,
          ...SOURCES.tone,
          ...X264,
          '-c:a',
          'aac',
          '-shortest',
          '-f',
          'matroska',
          'pipe:1',
        ],
        { maxBuffer: 64 * 1024 * 1024 },
      );
      writeFileSync(join(dir, 'being-written.mkv'), streamed.subarray(0, Math.floor(streamed.length / 2)));
    },
  },
  {
    name: 'MP4 still being written (no index yet)',
    file: 'being-written.mp4',
    args: [],
    reader: 'ffprobe',
    unreadable: true,
    derive: cut('h264-aac.mp4', 'being-written.mp4', (length) => [0, Math.floor(length * 0.8)]),
  },
  {
    name: 'garbage with a video extension',
    file: 'garbage.mkv',
    args: [],
    reader: 'ffprobe',
    unreadable: true,
    derive: (dir) =>
      writeFileSync(join(dir, 'garbage.mkv'), Buffer.from(Array.from({ length: 30_000 }, (_, n) => (n * 7919) % 251))),
  },
  {
    name: 'garbage that starts like an MP4',
    file: 'fake.mp4',
    args: [],
    reader: 'ffprobe',
    unreadable: true,
    derive: (dir) =>
      writeFileSync(
        join(dir, 'fake.mp4'),
        Buffer.concat([Buffer.from('0000001866747970', 'hex'), Buffer.alloc(20_000, 7)]),
      ),
  },
  {
    name: 'an empty file',
    file: 'empty.mp4',
    args: [],
    reader: 'ffprobe',
    unreadable: true,
    derive: (dir) => writeFileSync(join(dir, 'empty.mp4'), ''),
  },
];

/**
 * The details with what may differ between readers set aside: WebM is Matroska to ffprobe; the frame rate is compared
 * within 1 %.
 */
function comparable(details: MediaDetails | undefined): unknown {
  if (!details) return undefined;
  const { video, ...rest } = details;
  const { frameRate: _frameRate, ...picture } = video ?? { frameRate: undefined };
  return {
    ...rest,
    container: rest.container === 'webm' ? 'matroska' : rest.container,
    video: video ? picture : undefined,
  };
}

function ffmpeg(args: string[]): void {
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
}

let dir: string;
let pool: HeaderReaderPool;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'antenna-mediainfo-'));
  for (const c of CASES.filter((c) => !c.derive)) ffmpeg([...c.args, '-shortest', join(dir, c.file)]);
  for (const c of CASES.filter((c) => c.derive)) c.derive?.(dir);
  await makeCaptionedTsClip(join(dir, 'captioned.ts'), { text: 'HELLO ANTENNA' });
  pool = new HeaderReaderPool(2);
}, 120_000);

/**
 * Files are opened as the importer opens them: checked against the boundary (here the test's folder), closed after each
 * test.
 */
const opened: OpenedFile[] = [];
async function checked(path: string): Promise<OpenedFile> {
  const opening = await new PathBoundary(() => [dir]).open(path);
  if (!opening.ok) throw new Error(`${path} not opened: ${opening.reason}`);
  opened.push(opening.file);
  return opening.file;
}
const ffprobeOf = async (path: string, signal?: AbortSignal) =>
  probeFile((await checked(path)) as OpenedInput, undefined, signal);
const probeOf = async (path: string) => probeMedia(await checked(path), pool, {}, new AbortController().signal);

afterEach(async () => {
  await Promise.all(opened.splice(0).map((file) => file.handle.close()));
});

afterAll(() => {
  pool?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('probeMedia (mp4box, ts-ebml, MediaInfo, ffprobe behind them) agrees with ffprobe', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const path = join(dir, c.file);
    const signal = new AbortController().signal;
    const [ours, reference] = await Promise.all([
      probeMedia(await checked(path), pool, {}, signal),
      ffprobeOf(path, signal),
    ]);
    expect(ours.reader).toBe(c.reader);
    if (c.unreadable) {
      expect([ours.ok, reference.ok]).toEqual([false, false]);
      return;
    }
    if (!ours.ok || !reference.ok) throw new Error(`not read: ${JSON.stringify({ ours, reference })}`);
    if (c.ffprobeMissesCaptions && reference.result.details) {
      expect(reference.result.tags).not.toContain('CC');
      reference.result.details.closedCaptions = true;
      reference.result.tags = tagsOf(reference.result.details);
    }
    const expected = reference.result.duration;
    expect(ours.result.damaged !== undefined).toBe(c.damaged === true);
    if (c.damaged) expect(ours.result.duration).toBeLessThan((expected ?? 0) * 0.8);
    else if (expected === null) expect(ours.result.duration).toBeNull();
    else expect(Math.abs((ours.result.duration ?? -1) - expected)).toBeLessThanOrEqual(Math.max(0.1, expected * 0.005));
    expect(ours.result.tags).toEqual(reference.result.tags);
    if (c.tag) expect(ours.result.tags).toContain(c.tag);
    expect(ours.result.chapters).toEqual(reference.result.chapters);
    expect(comparable(ours.result.details)).toEqual(comparable(reference.result.details));
    const [rate, referenceRate] = [ours.result.details?.video?.frameRate, reference.result.details?.video?.frameRate];
    if (referenceRate !== undefined)
      expect(Math.abs((rate ?? 0) - referenceRate)).toBeLessThanOrEqual(referenceRate * 0.01);
  });

  it('reads only the head and the tail of a large TS (10 MB at 20 Mbit/s, as broadcasts are sent)', async () => {
    const path = join(dir, 'large.ts');
    ffmpeg([
      ...SOURCES.v320,
      ...SOURCES.tone,
      ...X264,
      '-g',
      '25',
      '-c:a',
      'aac',
      '-muxrate',
      '20000k',
      '-shortest',
      path,
    ]);
    const answer = await pool.read(await checked(path));
    expect(answer?.ts?.size).toBeGreaterThan(9_000_000);
    expect(answer?.ts?.bytesRead).toBeLessThan(2_000_000);
    const [ours, reference] = await Promise.all([probeOf(path), ffprobeOf(path)]);
    if (!ours.ok || !reference.ok) throw new Error('not read');
    expect(ours.reader).toBe('ts-reader');
    expect(Math.abs((ours.result.duration ?? 0) - (reference.result.duration ?? 0))).toBeLessThanOrEqual(0.1);
  });

  it('reads a TS as it grows, as ffprobe does at each step', async () => {
    const whole = readFileSync(join(dir, 'gop.ts'));
    const path = join(dir, 'growing.ts');
    writeFileSync(path, '');
    for (const share of [0.35, 0.7, 1]) {
      appendFileSync(
        path,
        whole.subarray(readFileSync(path).length, Math.floor(whole.length * share) - (share < 1 ? 61 : 0)),
      );
      const [ours, reference] = await Promise.all([probeOf(path), ffprobeOf(path)]);
      if (!ours.ok || !reference.ok) throw new Error(`not read at ${share}`);
      expect(ours.reader).toBe('ts-reader');
      expect(comparable(ours.result.details)).toEqual(comparable(reference.result.details));
      expect(Math.abs((ours.result.duration ?? 0) - (reference.result.duration ?? 0))).toBeLessThanOrEqual(0.1);
    }
  });

  it('does not give mp4box a MOV whose audio counts millions of samples (PCM: an object each), MediaInfo reads it', async () => {
    const path = join(dir, 'long-pcm.mov');
    ffmpeg(['-f', 'lavfi', '-i', 'anullsrc=r=48000:cl=mono', '-t', '50', '-c:a', 'pcm_s16le', path]);
    const answer = await pool.read(await checked(path));
    expect(answer?.mp4).toBeUndefined();
    expect(answer?.tracks?.some((track) => track['@type'] === 'Audio')).toBe(true);
  });

  it('reads a file whose name holds a line separator (U+2028, which JSON leaves as it is)', async () => {
    const path = join(dir, 'odd\u2028name.mp4');
    copyFileSync(join(dir, 'h264-aac.mp4'), path);
    expect(await probeOf(path)).toMatchObject({ ok: true, reader: 'mp4box' });
  });

  it('leaves a file replaced after it was checked to ffprobe, which reads the file checked (the reading process refuses the other)', async () => {
    const path = join(dir, 'swapped.mp4');
    copyFileSync(join(dir, 'h264-aac.mp4'), path);
    const file = await checked(path);
    rmSync(path);
    writeFileSync(path, 'not the file that was checked');
    expect(await pool.read(file)).toBeUndefined();
    expect(await probeMedia(file, pool, {}, new AbortController().signal)).toMatchObject({
      ok: true,
      reader: 'ffprobe',
    });
  });
});
