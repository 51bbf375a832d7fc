/**
 * The DVR's recorder and stream hub when things go wrong, with real paced MPEG-TS over
 * loopback (test/support/ts-stream-server.ts) and real files: a full disk, a shared
 * connection, a source out of tuners, a source down for a while or for good, and a
 * user who stops a recording. Each test uses its own channel names, so the stream
 * server's counters are its own.
 */
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  judgeRecording,
  type RecordingOutcome,
  Recorder,
  type RecordingPlan,
} from '../../src/dvr/recording/recorder.js';
import {
  type StreamConsumer,
  StreamHub,
  type StreamTarget,
  StreamUnavailableError,
} from '../../src/dvr/recording/stream-hub.js';
import { tempDir } from '../support/temp-library.js';
import { makeTsClip, type StreamServer, startStreamServer } from '../support/ts-stream-server.js';

let work: string;
let streams: StreamServer;
const hubs: StreamHub[] = [];

beforeAll(async () => {
  work = tempDir('antenna-dvr-faults-');
  // Longer than any one connection below: a loop of the clip would restart its continuity counters.
  const clip = await makeTsClip(join(work, 'clip.ts'), { seconds: 15, muxrateKbps: 2000 });
  streams = await startStreamServer(clip.path);
}, 60_000);

afterAll(async () => {
  for (const hub of hubs) hub.stop();
  await streams?.close();
  if (work) rmSync(work, { recursive: true, force: true }); // the /dev/full link goes, not /dev/full
});

const SOURCE = 'm3u-test';

function target(name: string, number = name): StreamTarget {
  return { sourceId: SOURCE, number, url: streams.url(name) };
}

function hubWithLimit(limit: number): StreamHub {
  const hub = new StreamHub({ limitOf: () => limit, connectTimeoutMs: 5000 });
  hubs.push(hub);
  return hub;
}

function plan(path: string, name: string, startAt: number, endAt: number): RecordingPlan {
  return { path, startAt, endAt, targets: [target(name)], resume: false };
}

/** A live-TV viewer: keeps what it receives and why it was ended. */
function viewer() {
  const chunks: Buffer[] = [];
  let endedWith!: (why: string) => void;
  const ended = new Promise<string>((resolve) => (endedWith = resolve));
  const consumer: StreamConsumer = {
    kind: 'viewer',
    data: (chunk) => chunks.push(chunk),
    ended: (why) => endedWith(why),
  };
  return { consumer, ended, bytes: () => Buffer.concat(chunks) };
}

async function until<T>(read: () => T, ok: (value: T) => boolean, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} not met in ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const fileSize = (path: string) => (existsSync(path) ? statSync(path).size : 0);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function ffprobeDuration(path: string): number {
  return Number(
    execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', path])
      .toString()
      .trim(),
  );
}

/** Seconds of stream in `bytes` at the server's pace. */
const secondsOf = (bytes: number) => bytes / streams.byteRate;
/**
 * Seconds of stream a recording ending at `endAt` had from its first byte, less 0.5 s: connecting on a busy machine is
 * not the recorder's loss.
 */
const streamedFor = (outcome: RecordingOutcome, endAt: number) => (endAt - (outcome.firstByteAt ?? endAt)) / 1000 - 0.5;

describe('a full disk', () => {
  it('stops only the recording that cannot write, with a clear error; the other on the same channel records to its end', async () => {
    const hub = hubWithLimit(4);
    const full = join(work, 'full.ts');
    symlinkSync('/dev/full', full); // every write fails with ENOSPC
    const healthyPath = join(work, 'healthy.ts');
    const start = Date.now();
    const failing = new Recorder(plan(full, 'disk', start, start + 3000), { hub });
    const healthy = new Recorder(plan(healthyPath, 'disk', start, start + 3000), { hub });
    let failedAt = 0;
    const bad = await failing.done.then((outcome) => {
      failedAt = Date.now();
      return outcome;
    });
    const good = await healthy.done;

    expect(bad.diskError).toMatch(/disk is full/);
    expect(bad).toMatchObject({ reachedEnd: false, lostForGood: false, damaged: true });
    expect(bad.stoppedBy).toBeUndefined();
    // It stopped at the first write, not at the end time.
    expect(failedAt - start).toBeLessThan(2000);
    expect(judgeRecording(bad, start)).toMatchObject({
      failed: true,
      cancelled: true,
      completed: false,
      error: expect.stringMatching(/disk is full/),
    });

    expect(good).toMatchObject({
      reachedEnd: true,
      lostForGood: false,
      damaged: false,
      gaps: 0,
      continuityErrors: 0,
      channel: 'disk',
      sourceId: SOURCE,
    });
    expect(good.diskError).toBeUndefined();
    expect(good.bytes).toBe(statSync(healthyPath).size);
    expect(secondsOf(good.bytes)).toBeGreaterThan(streamedFor(good, start + 3000));
    expect(good.bytes).toBeGreaterThan(0);
    expect(judgeRecording(good, start)).toMatchObject({
      failed: false,
      completed: true,
      cancelled: false,
      corrupted: false,
    });
    expect(streams.totalConnections('disk')).toBe(1);
  });
});

describe('one connection per channel', () => {
  it('serves two recordings and a viewer of a channel from one upstream connection, with the same bytes', async () => {
    const hub = hubWithLimit(4);
    const start = Date.now();
    const [a, b] = [join(work, 'shared-a.ts'), join(work, 'shared-b.ts')];
    const first = new Recorder(plan(a, 'shared', start, start + 3000), { hub });
    const second = new Recorder(plan(b, 'shared', start, start + 3000), { hub });
    const watcher = viewer();
    const watching = await hub.join([target('shared')], watcher.consumer);
    await until(
      () => streams.connections('shared'),
      (n) => n === 1,
      2000,
      'connected',
    );
    expect(hub.usage().get(SOURCE)).toBe(1);
    expect(hub.describe()).toEqual([expect.objectContaining({ channel: 'shared', recordings: 2, viewers: 1 })]);
    const [one, two] = await Promise.all([first.done, second.done]);
    // The viewer still watches: the connection stays open for it alone, then closes when it leaves.
    expect(streams.connections('shared')).toBe(1);
    watching.leave();
    await until(
      () => streams.connections('shared'),
      (n) => n === 0,
      2000,
      'closed after the last consumer left',
    );
    expect(hub.usage().size).toBe(0);
    expect(streams.totalConnections('shared')).toBe(1);

    for (const outcome of [one, two]) {
      expect(outcome).toMatchObject({ reachedEnd: true, damaged: false, gaps: 0, continuityErrors: 0 });
      expect(secondsOf(outcome.bytes)).toBeGreaterThan(streamedFor(outcome, start + 3000));
      expect(outcome.bytes).toBeGreaterThan(0);
    }
    // Both joined before the first byte: the same stream from its first byte. Their end
    // timers fire a moment apart, so one may hold a chunk more than the other.
    const [fileA, fileB, seen] = [readFileSync(a), readFileSync(b), watcher.bytes()];
    const shorter = Math.min(fileA.length, fileB.length);
    expect(Math.abs(fileA.length - fileB.length)).toBeLessThan(0.05 * shorter);
    expect(fileA.subarray(0, shorter).equals(fileB.subarray(0, shorter))).toBe(true);
    expect(seen.length).toBeGreaterThanOrEqual(shorter);
    expect(seen.subarray(0, shorter).equals(fileA.subarray(0, shorter))).toBe(true);
    expect(ffprobeDuration(a)).toBeGreaterThan(2);
    expect(ffprobeDuration(b)).toBeGreaterThan(2);
  });
});

describe('a source with one tuner', () => {
  it('ends live TV to free the tuner for a recording, and refuses another viewer while it records', async () => {
    const hub = hubWithLimit(1);
    const watcherA = viewer();
    const watchingA = await hub.join([target('tuner-a')], watcherA.consumer);
    await until(
      () => watcherA.bytes().length,
      (n) => n > 10_000,
      3000,
      'viewer A gets video',
    );

    const start = Date.now();
    const path = join(work, 'tuner-b.ts');
    const recorder = new Recorder(plan(path, 'tuner-b', start, start + 3000), { hub });
    expect(await watcherA.ended).toBe('the tuner was needed for a recording');
    watchingA.leave(); // what the viewer's answer does when it ends: harmless now
    await until(
      () => fileSize(path),
      (n) => n > 10_000,
      3000,
      'recording gets video',
    );
    await until(
      () => streams.connections('tuner-a'),
      (n) => n === 0,
      2000,
      'viewer connection closed upstream',
    );
    expect(hub.usage().get(SOURCE)).toBe(1);

    const watcherC = viewer();
    const refused = await hub.join([target('tuner-c')], watcherC.consumer).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StreamUnavailableError);
    expect(refused).toMatchObject({ reason: 'no_tuner', message: expect.stringMatching(/no free tuner/) });
    expect(streams.totalConnections('tuner-c')).toBe(0);
    // The channel being recorded can still be watched: it shares the recording's connection.
    const watcherB = viewer();
    const watchingB = await hub.join([target('tuner-b')], watcherB.consumer);
    await until(
      () => watcherB.bytes().length,
      (n) => n > 0,
      2000,
      'viewer B shares the recording',
    );
    expect(streams.totalConnections('tuner-b')).toBe(1);
    watchingB.leave();

    const outcome = await recorder.done;
    expect(outcome).toMatchObject({ reachedEnd: true, damaged: false, gaps: 0, channel: 'tuner-b' });
    expect(outcome.streamError).toBeUndefined();
    expect(secondsOf(outcome.bytes)).toBeGreaterThan(streamedFor(outcome, start + 3000));
    expect(outcome.bytes).toBeGreaterThan(0);
  });
});

describe('where a recording goes: the source the planner chose', () => {
  /** A hub with two sources of one stream each, logging its warnings. */
  function twoSources() {
    const warnings: string[] = [];
    const logger = {
      info: () => undefined,
      warn: (_fields: unknown, message: string) => warnings.push(message),
    } as unknown as Logger;
    const hub = new StreamHub({ limitOf: () => 1, connectTimeoutMs: 5000, logger });
    hubs.push(hub);
    const on = (sourceId: string, name: string): StreamTarget => ({ sourceId, number: '12', url: streams.url(name) });
    return { hub, warnings, on };
  }
  const recordingConsumer = (): StreamConsumer => ({
    kind: 'recording',
    data: () => undefined,
    ended: () => undefined,
  });

  it('frees the planned source from live TV rather than take the other source’s free tuner', async () => {
    const { hub, warnings, on } = twoSources();
    const watcher = viewer();
    // Another channel on the planned source: its only stream.
    const watching = await hub.join([{ ...on('planned', 'place-live'), number: '11' }], watcher.consumer);
    const recording = await hub.join([on('planned', 'place-rec'), on('other', 'place-other')], recordingConsumer());
    expect(recording.target.sourceId).toBe('planned');
    expect(await watcher.ended).toBe('the tuner was needed for a recording');
    watching.leave();
    expect(streams.totalConnections('place-other')).toBe(0);
    expect(warnings).toEqual([]);
    recording.leave();
  });

  it('goes to the other source only when the planned one fails or is full of recordings, and logs why', async () => {
    const { hub, warnings, on } = twoSources();
    streams.set('place-broken', { kind: 'status', status: 404 });
    const spilled = await hub.join([on('planned', 'place-broken'), on('other', 'place-spill')], recordingConsumer());
    expect(spilled.target.sourceId).toBe('other');
    expect(warnings).toEqual([
      expect.stringMatching(
        /^recording channel 12 on other, not on planned as planned: channel 12 \(planned\) answered HTTP 404/,
      ),
    ]);
    spilled.leave();

    const first = await hub.join([{ ...on('planned', 'place-first'), number: '13' }], recordingConsumer());
    const second = await hub.join(
      [on('planned', 'place-second'), on('other', 'place-second-other')],
      recordingConsumer(),
    );
    expect(second.target.sourceId).toBe('other');
    expect(warnings[1]).toMatch(
      /not on planned as planned: planned had no free stream \(every one it allows is recording\)/,
    );
    // Nowhere to go: the error says what was tried.
    const third = await hub
      .join(
        [
          { ...on('planned', 'place-third'), number: '14' },
          { ...on('other', 'place-third'), number: '14' },
        ],
        recordingConsumer(),
      )
      .catch((error: unknown) => error);
    expect(third).toMatchObject({
      reason: 'no_tuner',
      message: 'no free tuner on planned, other: every stream it allows is in use',
    });
    first.leave();
    second.leave();
  });
});

describe('a source that is down', () => {
  it('retries with backoff while the source refuses, then records: late, so delayed, but whole', async () => {
    const hub = hubWithLimit(4);
    streams.set('down', { failConnections: 3 });
    const start = Date.now();
    // Backoff 1 + 2 + 4 s after the three refusals: video from about start + 7 s.
    const outcome = await new Recorder(plan(join(work, 'down.ts'), 'down', start, start + 9500), { hub }).done;
    expect(streams.totalConnections('down')).toBe(4);
    expect(outcome).toMatchObject({
      reachedEnd: true,
      lostForGood: false,
      damaged: false,
      gaps: 0,
      continuityErrors: 0,
    });
    expect(outcome.streamError).toMatch(/HTTP 503/);
    expect(outcome.firstByteAt! - start).toBeGreaterThan(6500);
    expect(secondsOf(outcome.bytes)).toBeGreaterThan(1.5);
    expect(judgeRecording(outcome, start)).toMatchObject({
      delayed: true,
      completed: true,
      corrupted: false,
      cancelled: false,
      failed: false,
    });
  }, 30_000);

  it('keeps trying a source that went away until the end: a short loss at the end is an interruption', async () => {
    const hub = hubWithLimit(4);
    const start = Date.now();
    const recorder = new Recorder(plan(join(work, 'gone.ts'), 'gone', start, start + 5000), { hub });
    await until(
      () => streams.connections('gone'),
      (n) => n === 1,
      2000,
      'connected',
    );
    await sleep(1500);
    streams.set('gone', { kind: 'status', status: 404 });
    streams.dropAll('gone');
    const outcome = await recorder.done;
    // The first connection, then 404s at 1 s and 3 s after the drop (the end comes before the next).
    expect(streams.totalConnections('gone')).toBeGreaterThanOrEqual(2);
    expect(outcome).toMatchObject({ reachedEnd: true, lostForGood: false, damaged: true, gaps: 1 });
    expect(outcome.streamError).toMatch(/HTTP 404/);
    expect(judgeRecording(outcome, start)).toMatchObject({
      completed: true,
      corrupted: true,
      cancelled: false,
      error: expect.stringMatching(/1 interruption/),
    });
  });

  it('calls a recording whose source was gone for the last 30 s and more lost for good', async () => {
    // LOST_FOR_GOOD_MS is 30 s: the recorder's own clock jumps 36 s instead of the test waiting.
    const hub = hubWithLimit(4);
    let skipped = 0;
    const now = () => Date.now() + skipped;
    const start = now();
    const recorder = new Recorder(plan(join(work, 'lost.ts'), 'lost', start, start + 40_000), { hub, now });
    await until(
      () => streams.connections('lost'),
      (n) => n === 1,
      2000,
      'connected',
    );
    await sleep(1500);
    streams.set('lost', { kind: 'status', status: 404 });
    streams.dropAll('lost');
    // The recorder has seen its last byte: the connection is gone and the file has stopped growing.
    await until(
      () => streams.connections('lost'),
      (n) => n === 0,
      5000,
      'dropped',
    );
    const lostPath = join(work, 'lost.ts');
    await until(
      async () => {
        const before = statSync(lostPath).size;
        await sleep(300);
        return statSync(lostPath).size === before;
      },
      Boolean,
      10_000,
      'the file no longer growing',
    );
    skipped = 36_000;
    const outcome = await recorder.done;
    expect(streams.totalConnections('lost')).toBeGreaterThanOrEqual(2);
    expect(outcome).toMatchObject({ reachedEnd: true, lostForGood: true, damaged: true, gaps: 1 });
    expect(outcome.bytes).toBeGreaterThan(0);
    expect(outcome.streamError).toMatch(/HTTP 404/);
    expect(judgeRecording(outcome, start)).toMatchObject({
      failed: false,
      completed: false,
      cancelled: true,
      corrupted: true,
      error: expect.stringMatching(/lost before the end: .*HTTP 404/),
    });
  });
});

describe('review fixes', () => {
  it('treats a source that keeps the connection open but stops sending as dropped: reconnects and counts the gap', async () => {
    const hub = new StreamHub({ limitOf: () => 4, connectTimeoutMs: 5000, idleTimeoutMs: 1000 });
    hubs.push(hub);
    // About 1 s of video, then silence on an open connection.
    streams.set('stall', { stallAfterBytes: 250_000 });
    const start = Date.now();
    const outcome = await new Recorder(plan(join(work, 'stall.ts'), 'stall', start, start + 4500), { hub }).done;
    expect(streams.totalConnections('stall')).toBeGreaterThan(1);
    expect(outcome.streamError).toMatch(/sent nothing for 1 s/);
    expect(outcome.gaps).toBeGreaterThanOrEqual(1);
    expect(judgeRecording(outcome, start)).toMatchObject({ corrupted: true });
  }, 20_000);

  it('follows a redirect to the stream, as IPTV providers answer', async () => {
    const redirector = createServer((_request, response) => {
      response.writeHead(302, { location: streams.url('redirected') });
      response.end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    try {
      const port = (redirector.address() as { port: number }).port;
      const hub = hubWithLimit(1);
      const seen = viewer();
      const subscription = await hub.join(
        [{ sourceId: SOURCE, number: '30', url: `http://127.0.0.1:${port}/live/30.ts` }],
        seen.consumer,
      );
      await until(
        () => seen.bytes().length,
        (n) => n > 188 * 20,
        5000,
        'video through the redirect',
      );
      subscription.leave();
      expect(seen.bytes()[0]).toBe(0x47);
    } finally {
      await new Promise((resolve) => redirector.close(resolve));
    }
  });

  it('does not let a stream URL it cannot open (udp://) hold a tuner', async () => {
    const hub = hubWithLimit(1);
    await expect(
      hub.join([{ sourceId: SOURCE, number: '40', url: 'udp://239.0.0.1:1234' }], viewer().consumer),
    ).rejects.toBeInstanceOf(StreamUnavailableError);
    expect(hub.usage().get(SOURCE) ?? 0).toBe(0);
    const seen = viewer();
    const subscription = await hub.join([target('after-udp')], seen.consumer);
    subscription.leave();
  });
});

describe('stopping', () => {
  it('stops at the user’s request, keeps what was written, and closes the connection', async () => {
    const hub = hubWithLimit(4);
    const path = join(work, 'stopped.ts');
    const start = Date.now();
    const recorder = new Recorder(plan(path, 'stop', start, start + 60_000), { hub });
    await until(
      () => streams.connections('stop'),
      (n) => n === 1,
      2000,
      'connected',
    );
    await sleep(1500);
    recorder.stop('user');
    const outcome: RecordingOutcome = await recorder.done;
    // Stopped at once, not at the end an hour out (10 s: connecting and 1.5 s of stream on a busy machine included).
    expect(Date.now() - start).toBeLessThan(10_000);
    expect(outcome).toMatchObject({ stoppedBy: 'user', reachedEnd: false, lostForGood: false, damaged: false });
    expect(outcome.bytes).toBe(statSync(path).size);
    expect(secondsOf(outcome.bytes)).toBeGreaterThan(1);
    await until(
      () => streams.connections('stop'),
      (n) => n === 0,
      2000,
      'connection closed',
    );
    expect(judgeRecording(outcome, start)).toMatchObject({
      cancelled: true,
      completed: false,
      failed: false,
      corrupted: false,
      error: 'stopped by the user',
    });
  });
});

describe('the recorder’s bookkeeping', () => {
  it('reports its first bytes once, with the channel, also when it opened the connection itself', async () => {
    const hub = hubWithLimit(4);
    const start = Date.now();
    const opener: StreamTarget[] = [];
    const joiner: StreamTarget[] = [];
    const first = new Recorder(plan(join(work, 'first-bytes-a.ts'), 'first-bytes', start, start + 2000), {
      hub,
      onFirstBytes: (t) => opener.push(t),
    });
    await until(
      () => streams.connections('first-bytes'),
      (n) => n === 1,
      2000,
      'connected',
    );
    await sleep(300);
    const second = new Recorder(plan(join(work, 'first-bytes-b.ts'), 'first-bytes', start, start + 2000), {
      hub,
      onFirstBytes: (t) => joiner.push(t),
    });
    const [one, two] = await Promise.all([first.done, second.done]);
    expect(one.firstByteAt).toBeDefined();
    expect(two.firstByteAt).toBeDefined();
    expect(streams.totalConnections('first-bytes')).toBe(1);
    // The one that joined a flowing connection hears of its first bytes...
    expect(joiner.map((t) => t.number)).toEqual(['first-bytes']);
    // ...and so must the one whose join opened it (RecordingsService shows `delayed` from this while recording).
    expect(opener.map((t) => t.number)).toEqual(['first-bytes']);
  });

  it('counts every recording that ran until its end time as having reached it', async () => {
    // The end timer is set for endAt - now() ms; Node may fire it a millisecond before
    // Date.now() reaches endAt. Many recordings, ends spread over a second, catch that.
    const hub = hubWithLimit(4);
    const start = Date.now();
    const recorders = Array.from(
      { length: 120 },
      // The first end 3 s out: every one has bytes by then, however long connecting takes on a busy machine.
      (_, i) => new Recorder(plan(join(work, `end-${i}.ts`), 'many', start, start + 3000 + i * 9), { hub }),
    );
    const outcomes = await Promise.all(recorders.map((r) => r.done));
    expect(streams.totalConnections('many')).toBe(1);
    for (const outcome of outcomes) expect(outcome.bytes).toBeGreaterThan(0);
    const short = outcomes.map((o, i) => (o.reachedEnd ? -1 : i)).filter((i) => i >= 0);
    expect(short, 'recordings that ran to their end but say reachedEnd: false').toEqual([]);
    expect(outcomes.every((o) => judgeRecording(o, start).completed)).toBe(true);
  });
});
