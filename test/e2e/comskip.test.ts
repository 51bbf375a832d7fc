/**
 * Commercial detection end to end: recordings made by ffmpeg (test/support/commercial-clip.ts),
 * the real comskip, our settings. Also what must hold when it goes wrong: a clear error,
 * a stopped process, and no file left behind, beside the recording or in the work directory.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectCommercials } from '../../src/dvr/recording/comskip.js';
import { makeClipWithBreak, makeClipWithoutBreak } from '../support/commercial-clip.js';

/** comskip cuts in the middle of the black separators; the truth is their outer edges. */
const TOLERANCE_S = 2;

let root: string;
let recordings: string;
let workDir: string;
let withBreak: { path: string; breaks: [number, number][] };
let withoutBreak: { path: string; breaks: [number, number][] };
/** How long a whole detection of the clip with a break took in this run (a busy machine is slower at both). */
let fullRunMs = 2000;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'antenna-comskip-'));
  recordings = join(root, 'recordings');
  workDir = join(root, 'work');
  [withBreak, withoutBreak] = await Promise.all([makeClipWithBreak(recordings), makeClipWithoutBreak(recordings)]);
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function expectNothingLeftBehind(): void {
  expect(readdirSync(recordings).sort()).toEqual(['with-break.ts', 'without-break.ts']);
  expect(readdirSync(workDir)).toEqual([]);
}

describe('detectCommercials', () => {
  it('finds the break between show segments, within two seconds at each end', async () => {
    const [[start, end]] = withBreak.breaks as [[number, number]];
    const began = Date.now();
    const found = await detectCommercials(withBreak.path, { workDir });
    fullRunMs = Date.now() - began;
    expect(found).toHaveLength(2);
    expect(Math.abs(found[0]! - start)).toBeLessThanOrEqual(TOLERANCE_S);
    expect(Math.abs(found[1]! - end)).toBeLessThanOrEqual(TOLERANCE_S);
    expectNothingLeftBehind();
  });

  it('finds nothing in a show without a break, even with a fade to black and silence in it', async () => {
    expect(await detectCommercials(withoutBreak.path, { workDir })).toEqual([]);
    expectNothingLeftBehind();
  });

  it('fails with a short reason when the file is not a recording, is missing, or comskip is not installed', async () => {
    const html = join(root, 'error-page.ts');
    writeFileSync(html, '<html><body>503 Service Unavailable</body></html>\n'.repeat(100));
    await expect(detectCommercials(html, { workDir })).rejects.toThrow(/^comskip failed: .*Can not open file/);
    await expect(detectCommercials(join(root, 'missing.ts'), { workDir })).rejects.toThrow(
      /^comskip failed: cannot read the recording \(ENOENT\)/,
    );
    const path = process.env.PATH;
    process.env.PATH = join(root, 'no-such-dir');
    try {
      await expect(detectCommercials(withBreak.path, { workDir })).rejects.toThrow(
        /^comskip could not start: .*ENOENT/,
      );
    } finally {
      process.env.PATH = path;
    }
    expectNothingLeftBehind();
  });

  it('stops comskip at the time limit and when aborted, and cleans up', async () => {
    // A full detection takes about two seconds (measured above): a rejection well before
    // means comskip was stopped, and detectCommercials only settles once the process has exited.
    const wellBefore = Math.max(1200, fullRunMs / 2);
    let started = Date.now();
    await expect(detectCommercials(withBreak.path, { workDir, timeoutMs: 200 })).rejects.toThrow(
      'comskip timed out after 200 ms',
    );
    expect(Date.now() - started).toBeLessThan(wellBefore);
    const controller = new AbortController();
    started = Date.now();
    const running = detectCommercials(withBreak.path, { workDir, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('recording deleted')), 200);
    await expect(running).rejects.toThrow('recording deleted');
    expect(Date.now() - started).toBeLessThan(wellBefore);
    expectNothingLeftBehind();
    await expect(detectCommercials(withBreak.path, { workDir, signal: AbortSignal.abort() })).rejects.toThrow();
  });
});
