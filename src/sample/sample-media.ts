/**
 * The sample library for a first start with nothing configured: a few seconds of
 * ffmpeg test-pattern video per item, laid out as a user's folders would be (a show
 * with seasons, movies in their own folders, a folder of videos), with Kodi NFO files
 * and artwork, under `<data>/sample-media`. The server then imports it like any
 * other root, so a new user sees every part working: names, NFO metadata, posters,
 * probing, thumbnails.
 *
 * Made once: a `.complete` marker says the set is whole. Each file is written under
 * a hidden temporary name and renamed when done, so neither the importer nor the
 * watcher ever sees half a file.
 */
import { lastLine, runProgram } from '../common/external-program.js';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ImportRoot } from '../model/import-root.js';

export const SAMPLE_MEDIA_DIR = 'sample-media';
const MARKER = '.complete';

export function sampleMediaDir(data: string): string {
  return join(data, SAMPLE_MEDIA_DIR);
}

export function sampleRoots(data: string): ImportRoot[] {
  const dir = sampleMediaDir(data);
  return [
    { kind: 'tv', path: join(dir, 'TV') },
    { kind: 'movies', path: join(dir, 'Movies') },
    { kind: 'videos', path: join(dir, 'Videos') },
  ];
}

interface SampleClip {
  path: string;
  /** An ffmpeg lavfi video source. */
  source: string;
  seconds: number;
  frequency: number;
}

type SampleFile = { path: string; text: string } | { path: string; image: string };

const SHOW = 'TV/The Lighthouse Keepers (2021)';
const EPISODES = ['Arrival', 'The Fog', 'Relief Boat'];

const CLIPS: SampleClip[] = [
  ...EPISODES.map((title, index) => ({
    path: `${SHOW}/Season 01/The Lighthouse Keepers - S01E0${index + 1} - ${title}.mkv`,
    source: ['testsrc2', 'smptebars', 'rgbtestsrc'][index] ?? 'testsrc2',
    seconds: 4,
    frequency: 330 + index * 110,
  })),
  { path: 'Movies/Quiet Harbor (1999)/Quiet Harbor (1999).mkv', source: 'testsrc', seconds: 5, frequency: 440 },
  {
    path: 'Movies/Northern Lights (2012)/Northern Lights (2012).mkv',
    source: 'smptehdbars',
    seconds: 5,
    frequency: 523,
  },
  { path: 'Videos/Holidays/Beach day.mp4', source: 'testsrc2', seconds: 3, frequency: 587 },
  { path: 'Videos/Holidays/Lighthouse tour.mp4', source: 'pal100bars', seconds: 3, frequency: 659 },
];

const FILES: SampleFile[] = [
  {
    path: `${SHOW}/tvshow.nfo`,
    text:
      '<tvshow><title>The Lighthouse Keepers</title><plot>Two keepers, one island, and the weather. ' +
      'A sample show made by Antenna from test patterns.</plot><genre>Drama</genre><premiered>2021-09-14</premiered>' +
      '<actor><name>Ada Byrne</name></actor><actor><name>Tom Ellery</name></actor></tvshow>',
  },
  { path: `${SHOW}/poster.jpg`, image: 'testsrc2=size=400x600' },
  ...EPISODES.map((title, index) => ({
    path: `${SHOW}/Season 01/The Lighthouse Keepers - S01E0${index + 1} - ${title}.nfo`,
    text: `<episodedetails><title>${title}</title><season>1</season><episode>${index + 1}</episode><aired>2021-09-${14 + index * 7}</aired><plot>Episode ${index + 1} of the sample show.</plot></episodedetails>`,
  })),
  {
    path: 'Movies/Quiet Harbor (1999)/movie.nfo',
    text: '<movie><title>Quiet Harbor</title><outline>A calm film about a harbour.</outline><plot>A calm film about a harbour, made of test patterns.</plot><mpaa>PG</mpaa><premiered>1999-05-01</premiered><genre>Drama</genre><set><name>Harbour Films</name></set></movie>',
  },
  { path: 'Movies/Quiet Harbor (1999)/poster.jpg', image: 'testsrc=size=400x600' },
  {
    path: 'Movies/Northern Lights (2012)/movie.nfo',
    text: '<movie><title>Northern Lights</title><plot>Colour bars under an arctic sky.</plot><genre>Documentary</genre><premiered>2012-11-02</premiered><set><name>Harbour Films</name></set></movie>',
  },
  { path: 'Movies/Northern Lights (2012)/poster.jpg', image: 'smptehdbars=size=400x600' },
];

/** ffmpeg arguments for one sample clip: 640×360 test pattern and a tone, written as `format`. */
export function sampleClipArgs(
  clip: Pick<SampleClip, 'source' | 'seconds' | 'frequency'>,
  output: string,
  format: 'matroska' | 'mp4',
): string[] {
  return [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `${clip.source}=size=640x360:rate=25:duration=${clip.seconds}`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=${clip.frequency}:duration=${clip.seconds}`,
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-b:a',
    '96k',
    '-shortest',
    '-f',
    format,
    `file:${output}`,
  ];
}

export function sampleImageArgs(source: string, output: string): string[] {
  return [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    '-y',
    '-f',
    'lavfi',
    '-i',
    source,
    '-frames:v',
    '1',
    '-f',
    'image2',
    `file:${output}`,
  ];
}

async function run(ffmpeg: string, args: string[], signal?: AbortSignal): Promise<void> {
  const outcome = await runProgram(ffmpeg, args, { timeoutMs: 60_000, signal });
  if (outcome.kind !== 'ok') throw new Error(`ffmpeg failed: ${lastLine(outcome.stderrTail) || outcome.reason}`);
}

/** A hidden sibling name: invisible to the importer and the watcher until renamed. */
function temporaryName(path: string): string {
  return join(dirname(path), `.making-${Date.now()}-${path.split('/').at(-1) ?? 'file'}`);
}

/** Makes the sample media under `<data>/sample-media` unless it is already whole. */
export async function ensureSampleMedia(
  data: string,
  options: { ffmpeg?: string; signal?: AbortSignal } = {},
): Promise<'made' | 'present'> {
  const dir = sampleMediaDir(data);
  if (existsSync(join(dir, MARKER))) return 'present';
  const ffmpeg = options.ffmpeg ?? 'ffmpeg';
  for (const file of FILES) {
    const path = join(dir, file.path);
    mkdirSync(dirname(path), { recursive: true });
    if ('text' in file) writeFileSync(path, `<?xml version="1.0" encoding="UTF-8"?>\n${file.text}\n`);
    else {
      const temporary = temporaryName(path);
      await run(ffmpeg, sampleImageArgs(file.image, temporary), options.signal);
      renameSync(temporary, path);
    }
  }
  for (const clip of CLIPS) {
    const path = join(dir, clip.path);
    if (existsSync(path)) continue;
    mkdirSync(dirname(path), { recursive: true });
    const temporary = temporaryName(path);
    try {
      await run(ffmpeg, sampleClipArgs(clip, temporary, path.endsWith('.mp4') ? 'mp4' : 'matroska'), options.signal);
      renameSync(temporary, path);
    } finally {
      rmSync(temporary, { force: true });
    }
  }
  writeFileSync(join(dir, MARKER), 'The sample media is complete. Delete this folder to have it made again.\n');
  return 'made';
}
