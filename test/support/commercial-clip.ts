/**
 * Recordings with and without a commercial break, made by ffmpeg like a DVR recording
 * (MPEG-2 video and MP2 audio in MPEG-TS), small and quick: 320x240, under three minutes,
 * about three seconds to make.
 *
 * The show is a moving test pattern with a 440 Hz tone. The break is three "ads", each a
 * different picture and tone, 14 s long, with a second of black and silence before,
 * between and after them, the way broadcasters separate spots: so comskip sees blocks of
 * a standard commercial length (15 s from one black to the next) between long show blocks.
 */
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const SIZE = '320x240';
const RATE = 25;

interface Segment {
  video: string;
  /** Sine frequency in Hz; null for silence. */
  tone: number | null;
  seconds: number;
}

const show = (seconds: number): Segment => ({ video: `testsrc2=size=${SIZE}:rate=${RATE}`, tone: 440, seconds });
const black = (seconds = 1): Segment => ({ video: `color=black:size=${SIZE}:rate=${RATE}`, tone: null, seconds });
// Deterministic sources only (cellauto and life are seeded randomly), each unlike the show.
const ADS: Segment[] = [
  { video: `smptebars=size=${SIZE}:rate=${RATE}`, tone: 1000, seconds: 14 },
  { video: `mandelbrot=size=${SIZE}:rate=${RATE}`, tone: 700, seconds: 14 },
  { video: `rgbtestsrc=size=${SIZE}:rate=${RATE}`, tone: 1500, seconds: 14 },
];

/** One filter graph of lavfi sources joined by concat: no input files, the same bytes every time. */
function segmentsGraph(segments: Segment[]): string {
  const chains = segments.flatMap(({ video, tone, seconds }, i) => [
    `${video},trim=duration=${seconds},format=yuv420p,setsar=1[v${i}]`,
    (tone === null ? 'anullsrc=r=48000:cl=mono' : `sine=frequency=${tone}:sample_rate=48000`) +
      `,atrim=duration=${seconds},aformat=sample_fmts=fltp:channel_layouts=mono[a${i}]`,
  ]);
  const inputs = segments.map((_, i) => `[v${i}][a${i}]`).join('');
  // The MP2 encoder wants whole 1152-sample frames; concat hands over whatever it has.
  return `${chains.join(';')};${inputs}concat=n=${segments.length}:v=1:a=1[v][joined];[joined]asetnsamples=n=1152:p=0[a]`;
}

async function makeSegmentClip(path: string, segments: Segment[]): Promise<void> {
  await run('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    '-y',
    '-filter_complex',
    segmentsGraph(segments),
    '-map',
    '[v]',
    '-map',
    '[a]',
    '-c:v',
    'mpeg2video',
    '-b:v',
    '800k',
    '-c:a',
    'mp2',
    '-b:a',
    '128k',
    '-f',
    'mpegts',
    `file:${path}`,
  ]);
}

/** 65 s of show, a 46 s break (three ads between black + silence), 65 s of show: 176 s. */
export async function makeClipWithBreak(dir: string): Promise<{ path: string; breaks: [number, number][] }> {
  mkdirSync(dir, { recursive: true });
  const before = show(65);
  const breakSegments = ADS.flatMap((ad) => [black(), ad]).concat(black());
  const path = join(dir, 'with-break.ts');
  await makeSegmentClip(path, [before, ...breakSegments, show(65)]);
  const start = before.seconds;
  const end = start + breakSegments.reduce((sum, s) => sum + s.seconds, 0);
  return { path, breaks: [[start, end]] };
}

/** 141 s of show with one second of black and silence in the middle (a fade, not a break). */
export async function makeClipWithoutBreak(dir: string): Promise<{ path: string; breaks: [number, number][] }> {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'without-break.ts');
  await makeSegmentClip(path, [show(70), black(), show(70)]);
  return { path, breaks: [] };
}

/**
 * 65 s of show, a 46 s break, 65 s of show, another 46 s break, 65 s of show: 287 s, for detection while recording
 * (the second break tells the first one ended).
 */
export async function makeClipWithTwoBreaks(dir: string): Promise<{ path: string; breaks: [number, number][] }> {
  mkdirSync(dir, { recursive: true });
  const breakSegments = ADS.flatMap((ad) => [black(), ad]).concat(black());
  const breakLength = breakSegments.reduce((sum, s) => sum + s.seconds, 0);
  const path = join(dir, 'two-breaks.ts');
  await makeSegmentClip(path, [show(65), ...breakSegments, show(65), ...breakSegments, show(65)]);
  return {
    path,
    breaks: [
      [65, 65 + breakLength],
      [130 + breakLength, 130 + 2 * breakLength],
    ],
  };
}
