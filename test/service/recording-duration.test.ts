/**
 * A resumed recording's duration, through RecordingsService's post-processing on a real
 * temp SQLite file: recordings made the way a resumed one is (two ffmpeg-made MPEG-TS
 * pieces one after the other, the second's clock starting anew or far ahead, the first
 * maybe cut mid-packet where Antenna stopped) are processed as finished recordings, and
 * their items get the duration they play. ffprobe (and the head-and-tail TS reader) say
 * last minus first timestamp: 12 s or 1012 s for these 27 s.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureRecordingDuration } from '../../src/dvr/recording/recording-duration.js';
import { RecordingsService } from '../../src/dvr/recording/recordings.service.js';
import { StreamHub } from '../../src/dvr/recording/stream-hub.js';
import { upsertMovie } from '../../src/repositories/library/items.repository.js';
import { finishRecording, getRecording, insertRecording } from '../../src/repositories/dvr/recordings.repository.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

let temp: TempLibrary;
let recordings: string;
/** ffmpeg-made pieces, as a source sends them: 15 s and 12 s from 1.4 s, 12 s from 1001.4 s. */
const piece: Record<'first' | 'second' | 'ahead', Buffer> = {
  first: Buffer.alloc(0),
  second: Buffer.alloc(0),
  ahead: Buffer.alloc(0),
};

function makePiece(path: string, seconds: number, offset: number): Buffer {
  execFileSync('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=320x240:rate=25:duration=${seconds}`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:duration=${seconds}`,
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    '-g',
    '25',
    '-c:a',
    'aac',
    '-b:a',
    '64k',
    '-ac',
    '2',
    '-shortest',
    '-output_ts_offset',
    String(offset),
    '-f',
    'mpegts',
    path,
  ]);
  return readFileSync(path);
}

function ffprobeDuration(path: string): number {
  return Number(
    execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', path])
      .toString()
      .trim(),
  );
}

beforeAll(() => {
  temp = createTempLibrary();
  recordings = join(temp.dir, 'recordings');
  mkdirSync(recordings, { recursive: true });
  piece.first = makePiece(join(temp.dir, 'first.ts'), 15, 0);
  piece.second = makePiece(join(temp.dir, 'second.ts'), 12, 0);
  piece.ahead = makePiece(join(temp.dir, 'ahead.ts'), 12, 1000);
}, 60_000);

afterAll(() => temp?.close());

/** A finished recording of these bytes, as the recorder leaves it for post-processing. */
function finishedRecording(name: string, bytes: Buffer): string {
  const path = join(recordings, `${name}.ts`);
  writeFileSync(path, bytes);
  upsertMovie(temp.db, { id: `rec-${name}`, source: 'recordings', title: name, path });
  insertRecording(temp.db, {
    item_id: `rec-${name}`,
    job_id: `1-${name}`,
    rule_id: null,
    channel: '5',
    source_id: null,
    episode_key: null,
    started_at: Date.now(),
  });
  finishRecording(temp.db, `rec-${name}`, { bytes: bytes.length, endedAt: Date.now() });
  return path;
}

async function postProcessAll(): Promise<void> {
  const hub = new StreamHub({ limitOf: () => 1 });
  const service = new RecordingsService(temp.db, hub, {
    recordingsDir: recordings,
    thumbnailsDir: join(temp.dir, 'thumbnails'),
    workDir: join(temp.dir, 'work'),
    comskip: false,
  });
  service.resumePostProcessing();
  await service.whenPostProcessed();
  await service.stop();
  hub.stop();
}

const durationOf = (name: string) =>
  temp.db.prepare('SELECT duration FROM items WHERE id = ?').pluck().get(`rec-${name}`) as number | null;

describe('the duration of a resumed recording', () => {
  it('is the time its pieces play, whichever way the second connection’s clock went', async () => {
    const lower = finishedRecording('lower', Buffer.concat([piece.first, piece.second]));
    const higher = finishedRecording('higher', Buffer.concat([piece.first, piece.ahead]));
    // Where Antenna stopped, the first run's last packet may be cut short.
    finishedRecording('cut', Buffer.concat([piece.first, piece.first.subarray(0, 100), piece.second]));
    const whole = finishedRecording('whole', piece.first);
    // The files fool a reading of the head and tail timestamps (ffprobe's here): that is the bug.
    expect(ffprobeDuration(lower)).toBeLessThan(13);
    expect(ffprobeDuration(higher)).toBeGreaterThan(1000);

    await postProcessAll();

    for (const name of ['lower', 'higher', 'cut']) {
      expect(getRecording(temp.db, `rec-${name}`)?.state, name).toBe('processed');
      expect(durationOf(name), name).toBeGreaterThan(26.5);
      expect(durationOf(name), name).toBeLessThan(27.5);
    }
    // One continuous run keeps the probe's reading: ffprobe's, to the millisecond.
    expect(durationOf('whole')).toBeCloseTo(ffprobeDuration(whole), 2);
  }, 60_000);

  it('is measured over the file in one walk: the pieces’ own lengths add up', async () => {
    const [first, second] = [join(temp.dir, 'first.ts'), join(temp.dir, 'second.ts')];
    const walkedFirst = await measureRecordingDuration(first);
    const walkedSecond = await measureRecordingDuration(second);
    expect(walkedFirst).toMatchObject({ stream: 'video', runs: 1 });
    expect(walkedFirst!.seconds).toBeCloseTo(ffprobeDuration(first), 1);
    expect(walkedSecond!.seconds).toBeCloseTo(ffprobeDuration(second), 1);
    const joined = join(temp.dir, 'joined.ts');
    writeFileSync(joined, Buffer.concat([piece.first, piece.second]));
    expect(await measureRecordingDuration(joined)).toEqual({
      stream: 'video',
      seconds: walkedFirst!.seconds + walkedSecond!.seconds,
      runs: 2,
    });
    expect(await measureRecordingDuration(join(temp.dir, 'missing.ts'))).toBeUndefined();
  });
});
