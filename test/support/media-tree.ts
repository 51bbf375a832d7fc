/**
 * Small real media for end-to-end tests, made with ffmpeg: test-pattern video of a
 * second or two, in the TV, movie and video layouts, with NFO files and artwork.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

export interface ClipOptions {
  width?: number;
  height?: number;
  seconds?: number;
  /** 'ac3-5.1' makes AC-3 audio with six channels; default stereo AAC. */
  audio?: 'aac' | 'ac3-5.1';
  chapters?: boolean;
}

/** The ffmpeg arguments for a test clip (lavfi test sources, no input files). */
export function clipArgs(out: string, options: ClipOptions = {}): string[] {
  const { width = 320, height = 240, seconds = 1, audio = 'aac' } = options;
  const args = ['-hide_banner', '-loglevel', 'error', '-y'];
  args.push('-f', 'lavfi', '-i', `testsrc=size=${width}x${height}:rate=10:duration=${seconds}`);
  args.push('-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`);
  args.push('-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p');
  if (audio === 'ac3-5.1') args.push('-c:a', 'ac3', '-ac', '6');
  else args.push('-c:a', 'aac', '-ac', '2');
  args.push('-shortest', out);
  return args;
}

export function makeClip(out: string, options: ClipOptions = {}): void {
  mkdirSync(dirname(out), { recursive: true });
  if (options.chapters) {
    const plain = `${out}.plain.mkv`;
    execFileSync('ffmpeg', clipArgs(plain, options));
    const meta = `${out}.chapters.txt`;
    writeFileSync(
      meta,
      ';FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=500\ntitle=Cold open\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=500\nEND=1000\ntitle=Story\n',
    );
    execFileSync('ffmpeg', [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-i',
      plain,
      '-i',
      meta,
      '-map_metadata',
      '1',
      '-map_chapters',
      '1',
      '-c',
      'copy',
      out,
    ]);
    execFileSync('rm', ['-f', plain, meta]);
    return;
  }
  execFileSync('ffmpeg', clipArgs(out, options));
}

export function makeImage(out: string, width = 200, height = 300): void {
  mkdirSync(dirname(out), { recursive: true });
  execFileSync('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=${width}x${height}`,
    '-frames:v',
    '1',
    out,
  ]);
}

export function writeText(out: string, text: string): void {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
}

export interface TreeSnapshot {
  [relativePath: string]: { sha1: string | null; mtimeMs: number; mode: number };
}

/** Every entry under `root` with its bytes' hash (files), mtime and mode: a scan must leave this unchanged. */
export function snapshotTree(root: string): TreeSnapshot {
  const snapshot: TreeSnapshot = {};
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const stats = statSync(path);
      const isFile = entry.isFile();
      snapshot[relative(root, path)] = {
        sha1: isFile ? createHash('sha1').update(readFileSync(path)).digest('hex') : null,
        mtimeMs: stats.mtimeMs,
        mode: stats.mode,
      };
      if (entry.isDirectory()) visit(path);
    }
  };
  snapshot['.'] = { sha1: null, mtimeMs: statSync(root).mtimeMs, mode: statSync(root).mode };
  visit(root);
  return snapshot;
}
