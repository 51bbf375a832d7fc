/**
 * Commercial marks while recording, with the real comskip: a clip with two breaks
 * (test/support/commercial-clip.ts) written into a growing file at twelve times its
 * pace, as a recorder would write it (287 s of video in about 24 s), followed by
 * LiveCommercials; then the final pass on the finished file. And a comskip that fails:
 * told once, no marks, and through RecordingsService a finished recording that still
 * plays, its file saying why (GET /dvr/files/:id's file.commercial_detection).
 */
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectCommercials } from '../../src/dvr/recording/comskip.js';
import { LiveCommercials } from '../../src/dvr/recording/live-commercials.js';
import { RecordingsService } from '../../src/dvr/recording/recordings.service.js';
import { StreamHub } from '../../src/dvr/recording/stream-hub.js';
import { PathBoundary } from '../../src/common/path-boundary.js';
import { MediaFilesService } from '../../src/management/media-files.service.js';
import type { NewEvent } from '../../src/model/events/event.schemas.js';
import { upsertMovie } from '../../src/repositories/library/items.repository.js';
import { finishRecording, getRecording, insertRecording } from '../../src/repositories/dvr/recordings.repository.js';
import { makeClipWithTwoBreaks } from '../support/commercial-clip.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

/** comskip cuts inside the black separators; the clip's breaks are their outer edges. */
const TOLERANCE_S = 3;
const SPEED = 12;
/** What the module claims: a break's marks come at most this long (video seconds) after it ends. */
const TRAIL_S = 180;

let temp: TempLibrary;
let recordings: string;
let clip: { path: string; breaks: [number, number][] };
let clipBytes: Buffer;
let failing: string;
const CLIP_SECONDS = 287;

beforeAll(async () => {
  temp = createTempLibrary();
  recordings = join(temp.dir, 'recordings');
  mkdirSync(recordings, { recursive: true });
  clip = await makeClipWithTwoBreaks(join(temp.dir, 'clip'));
  clipBytes = readFileSync(clip.path);
  // A comskip that cannot read the recording, the way the real one says so.
  failing = join(temp.dir, 'failing-comskip');
  writeFileSync(failing, '#!/bin/sh\necho "Can not open file" >&2\nexit 255\n');
  chmodSync(failing, 0o755);
}, 60_000);

afterAll(() => temp?.close());

/** Writes the clip into `path` at SPEED times its pace; `edge()` says how many seconds of it are written. */
function growFile(path: string): { edge: () => number; done: Promise<void> } {
  const fd = openSync(path, 'w');
  const started = Date.now();
  let written = 0;
  const bytesPerMs = (clipBytes.length / (CLIP_SECONDS * 1000)) * SPEED;
  const done = new Promise<void>((resolve) => {
    const tick = () => {
      const want = Math.min(clipBytes.length, Math.floor((Date.now() - started) * bytesPerMs));
      if (want > written) written += writeSync(fd, clipBytes, written, want - written);
      if (written < clipBytes.length) setTimeout(tick, 100);
      else {
        closeSync(fd);
        resolve();
      }
    };
    tick();
  });
  return { edge: () => (written / clipBytes.length) * CLIP_SECONDS, done };
}

const near = (mark: [number, number], truth: [number, number]) =>
  Math.abs(mark[0] - truth[0]) <= TOLERANCE_S && Math.abs(mark[1] - truth[1]) <= TOLERANCE_S;

const pairs = (flat: number[]) => flat.flatMap((n, i) => (i % 2 === 0 ? [[n, flat[i + 1]!] as [number, number]] : []));

describe('commercial marks while recording', () => {
  it('finds a break while the file grows, never tells an open one, and the final pass refines them', async () => {
    const path = join(recordings, 'growing.ts');
    const growing = growFile(path);
    const told: { marks: number[]; edge: number }[] = [];
    const failures: string[] = [];
    const live = new LiveCommercials({
      workDir: join(temp.dir, 'work'),
      recordingsDir: recordings,
      program: 'comskip',
      pollMs: 500,
      minBytes: 500_000,
      onRunning: () => undefined,
      onMarks: (_item, marks) => told.push({ marks, edge: growing.edge() }),
      onFailed: (_item, reason) => failures.push(reason),
    });
    live.begin('rec-growing', path);
    await growing.done;
    const edgeAtEnd = growing.edge();
    await live.end('rec-growing');
    expect(live.running()).toBe(0);
    expect(failures).toEqual([]);

    // Before the recording ended: the first break, whole, soon after it ended.
    const first = told.find((t) => t.marks.length > 0);
    expect(first, JSON.stringify(told)).toBeDefined();
    expect(first!.edge).toBeLessThan(edgeAtEnd);
    const [firstBreak] = clip.breaks as [[number, number]];
    expect(near(pairs(first!.marks)[0]!, firstBreak), JSON.stringify(told)).toBe(true);
    expect(first!.edge - firstBreak[1]).toBeLessThanOrEqual(TRAIL_S);
    // Every break told is one of the clip's, whole: an open one at the live edge is held back.
    for (const { marks } of told) {
      for (const mark of pairs(marks))
        expect(
          clip.breaks.some((truth) => near(mark, truth)),
          JSON.stringify(told),
        ).toBe(true);
    }

    // The final pass on the finished file: both breaks.
    const final = await detectCommercials(path, { workDir: join(temp.dir, 'work', 'final') });
    expect(pairs(final)).toHaveLength(2);
    pairs(final).forEach((mark, i) => expect(near(mark, clip.breaks[i]!), `${mark}`).toBe(true));
    expect(final.length).toBeGreaterThan(told.at(-1)!.marks.length);
  }, 90_000);

  it('tells a comskip that fails once, with its reason, and no marks', async () => {
    const path = join(recordings, 'failing.ts');
    writeFileSync(path, clipBytes.subarray(0, 2_000_000));
    const failures: string[] = [];
    const marks: number[][] = [];
    const live = new LiveCommercials({
      workDir: join(temp.dir, 'work'),
      recordingsDir: recordings,
      program: failing,
      pollMs: 100,
      minBytes: 1,
      onRunning: () => undefined,
      onMarks: (_item, found) => marks.push(found),
      onFailed: (_item, reason) => failures.push(reason),
    });
    live.begin('rec-failing', path);
    const deadline = Date.now() + 10_000;
    while (failures.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 500));
    await live.end('rec-failing');
    expect(failures).toEqual(['comskip failed: Can not open file']);
    expect(marks).toEqual([]);
  }, 20_000);

  it('leaves a recording whose detection fails playable, without marks, its file saying why', async () => {
    const path = join(recordings, 'finished.ts');
    writeFileSync(path, clipBytes);
    upsertMovie(temp.db, { id: 'rec-finished', source: 'recordings', title: 'Finished', path });
    insertRecording(temp.db, {
      item_id: 'rec-finished',
      job_id: '1-finished',
      rule_id: null,
      channel: '5',
      source_id: null,
      episode_key: null,
      started_at: Date.now(),
    });
    finishRecording(temp.db, 'rec-finished', { bytes: clipBytes.length, endedAt: Date.now() });
    const events: NewEvent[] = [];
    const hub = new StreamHub({ limitOf: () => 1 });
    const service = new RecordingsService(temp.db, hub, {
      recordingsDir: recordings,
      thumbnailsDir: join(temp.dir, 'thumbnails'),
      workDir: join(temp.dir, 'work'),
      programs: { ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', comskip: failing },
      emit: (event) => events.push(event),
    });
    service.resumePostProcessing();
    await service.whenPostProcessed();
    await service.stop();
    hub.stop();

    expect(getRecording(temp.db, 'rec-finished')?.state).toBe('processed');
    const files = new MediaFilesService(temp.db, {
      recordingsDir: recordings,
      boundary: new PathBoundary(() => [recordings]),
    });
    const item = JSON.parse(files.item('rec-finished', 'http://x').toString()) as Record<string, unknown>;
    expect(item).toMatchObject({ processed: true });
    expect(item.commercials).toBeUndefined();
    expect(Math.abs((item.duration as number) - CLIP_SECONDS)).toBeLessThan(2);
    const facts = files.facts('rec-finished', 'http://x');
    expect(facts).toMatchObject({
      available: true,
      commercial_detection: { state: 'failed', error: 'comskip failed: Can not open file' },
    });
    expect(events).toEqual([
      expect.objectContaining({
        kind: 'recording.commercials',
        severity: 'warning',
        data: expect.objectContaining({
          item_id: 'rec-finished',
          commercials: [],
          commercial_detection: 'failed',
          reason: 'comskip failed: Can not open file',
        }),
      }),
    ]);
    rmSync(path);
  }, 60_000);
});
