/**
 * Recordings from start to finish: a due job becomes a library item (visible in
 * interface A at once, `source=recordings`) and a Recorder writing its file; when the
 * recorder is done the item gets its flags and the job its result; then, a few at a
 * time, ffprobe, a thumbnail and comskip, and the rule's auto-prune.
 */
import { type OpenedFile, PathBoundary } from '../../common/path-boundary.js';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Logger } from 'pino';
import type { EventSink } from '../../model/events/event.schemas.js';
import type { Db } from '../../db/database.js';
import { HeaderReaderPool, probeMedia } from '../../media-tools/media-header.js';
import { makeThumbnail } from '../../media-tools/thumbnail-maker.js';
import { upsertShow } from '../../repositories/library/parents.repository.js';
import { setThumbnailUrl, upsertEpisode, upsertMovie } from '../../repositories/library/items.repository.js';
import type { JobItem } from '../../model/library/library.schemas.js';
import { detectCommercials } from './comskip.js';
import { CommercialMarks, type CommercialMarksOptions } from './commercial-marks.js';
import { PROGRAMS_ON_PATH, type ProgramPaths } from '../../common/external-program.js';
import {
  type DvrJobRow,
  finishJob,
  markJobRecording,
  patchJobItem,
  setRecordingEnd,
} from '../../repositories/dvr/jobs.repository.js';
import { episodeKeys, recordingData, whatOf } from './job-item.js';
import { type Backlog, Recorder, judgeRecording } from './recorder.js';
import { recordingRelativePath, uniquePath } from './recording-paths.js';
import { measureRecordingDuration, recordingDuration } from './recording-duration.js';
import {
  deleteRecordingItem,
  finishRecording,
  getRecording,
  getRecordingOfJob,
  insertRecording,
  isItemDelayed,
  listRecordingsInState,
  markRecordingProcessed,
  recordingsToPrune,
  rememberRecordedEpisode,
  type RecordingRow,
  setRecordingFlags,
  setRecordingPostResults,
} from '../../repositories/dvr/recordings.repository.js';
import { getRule } from '../../repositories/dvr/rules.repository.js';
import type { StreamHub, StreamTarget } from './stream-hub.js';

interface PostResults {
  probe: Awaited<ReturnType<typeof probeMedia>>;
  duration: number | null;
  tags: string[] | null;
  thumbnail: string | null;
  commercials: number[] | null;
  /** What the final pass tells of detection: undefined when it is off. */
  detection: { commercials: number[] } | { error: string } | undefined;
}

export interface RecordingsOptions {
  recordingsDir: string;
  thumbnailsDir: string;
  /** Scratch space for comskip's output. */
  workDir: string;
  logger?: Logger;
  now?: () => number;
  /** Recordings post-processed at once (ffprobe, thumbnail, comskip). */
  postConcurrency?: number;
  /** Set false to leave commercials undetected (comskip missing). */
  comskip?: boolean;
  /** ffmpeg, ffprobe and comskip; default: their names on PATH. */
  programs?: ProgramPaths;
  /** Called whenever a recording starts or ends (the planner then re-plans). */
  onChange?: () => void;
  /** Where a recording's start and end are told (recording.started, .completed, .failed). */
  emit?: EventSink | undefined;
  /** The live buffers: a recording that starts late begins with what one held since its start. */
  backlog?: Backlog;
  /** Commercial detection while recording (commercial-marks.ts): runs at once (default 2; 0: off), poll interval. */
  liveCommercials?: CommercialMarksOptions['live'];
}

/** First bytes later than this after the start make a recording `delayed`. */
const DELAY_GRACE_MS = 5000;

interface Active {
  recorder: Recorder;
  itemId: string;
  path: string;
}

export class RecordingsService {
  private readonly active = new Map<string, Active>();
  private readonly postQueue: string[] = [];
  private postRunning = 0;
  private readonly postAbort = new AbortController();
  private readonly finishing = new Set<Promise<void>>();
  private postIdle: Promise<void> = Promise.resolve();
  private resolvePostIdle: (() => void) | undefined;
  /** Live marks, the detection's state and recording.commercials. */
  private readonly marks: CommercialMarks;

  constructor(
    private readonly db: Db,
    private readonly hub: StreamHub,
    private readonly options: RecordingsOptions,
  ) {
    const program = options.comskip === false ? undefined : (options.programs ?? PROGRAMS_ON_PATH).comskip;
    this.marks = new CommercialMarks(db, {
      workDir: options.workDir,
      recordingsDir: options.recordingsDir,
      program,
      logger: options.logger,
      emit: options.emit,
      ...(options.liveCommercials ? { live: options.liveCommercials } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
  }

  /** Live commercial detections running now. */
  liveDetections(): number {
    return this.marks.running();
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  isRecording(jobId: string): boolean {
    return this.active.has(jobId);
  }

  /** Whether the item is a recording still being written (HLS plays it as a growing EVENT playlist). */
  isRecordingItem(itemId: string): boolean {
    const recording = getRecording(this.db, itemId);
    return recording !== undefined && this.active.has(recording.job_id);
  }

  activeJobIds(): string[] {
    return [...this.active.keys()];
  }

  /** The library items (files) being written now. */
  activeItemIds(): string[] {
    return [...this.active.values()].map((active) => active.itemId);
  }

  /** Starts a due job (or resumes one Antenna was recording when it stopped). */
  start(job: DvrJobRow, targets: readonly StreamTarget[]): void {
    if (this.active.has(job.id)) return;
    const item = JSON.parse(job.item) as JobItem;
    const existing = getRecordingOfJob(this.db, job.id);
    const resume = existing !== undefined && existing.path !== null && existsSync(existing.path);
    const itemId = existing?.item_id ?? `rec-${job.id}`;
    // A job that was recording keeps its path, even when the earlier file is gone.
    const path = existing?.path ?? this.newPath(job, item);
    const startedAt = this.now();
    mkdirSync(dirname(path), { recursive: true });
    if (!existing) {
      this.db
        .transaction(() => {
          this.writeItem(itemId, job, item, path);
          insertRecording(this.db, {
            item_id: itemId,
            job_id: job.id,
            rule_id: job.rule_id,
            channel: job.channel,
            source_id: job.source_id,
            episode_key: job.episode_key,
            started_at: startedAt,
          });
          markJobRecording(
            this.db,
            job.id,
            {
              channel: job.channel ?? targets[0]?.number ?? '',
              sourceId: job.source_id ?? targets[0]?.sourceId ?? '',
              recordingId: itemId,
            },
            startedAt,
          );
        })
        .immediate();
    }
    // Antenna was down for part of it (a crash, a stop, a power cut): the file has a gap, and
    // says so from now, not only at its end. Before the recorder starts, and never fatal: a
    // disk too full for the flag must not leave a recorder running that nothing follows.
    if (resume) this.markCorrupted(job.id, itemId);
    const recorder = new Recorder(
      { path, startAt: job.start_time * 1000, endAt: job.end_time * 1000, targets, resume },
      {
        hub: this.hub,
        ...(this.options.logger ? { logger: this.options.logger } : {}),
        ...(this.options.now ? { now: this.options.now } : {}),
        ...(this.options.backlog ? { backlog: this.options.backlog } : {}),
        // Late first bytes show as `delayed` while the recording still runs (bytes a live buffer held are on time).
        onFirstBytes: (_target, firstByteAt) => {
          if (!resume && firstByteAt > job.start_time * 1000 + DELAY_GRACE_MS) this.markDelayed(job.id);
        },
      },
    );
    this.active.set(job.id, { recorder, itemId, path });
    this.marks.recordingStarted(itemId, path);
    this.options.emit?.({
      kind: 'recording.started',
      severity: 'info',
      message: `Recording ${whatOf(job, item)}${job.channel ? ` from channel ${job.channel}` : ''}${resume ? ' (resumed after a restart)' : ''}.`,
      data: { ...recordingData(job, item), item_id: itemId },
    });
    this.options.logger?.info(
      { job: job.id, path, resume },
      resume ? 'recording resumed after a restart' : 'recording started',
    );
    const finishing = recorder.done
      .then((outcome) => this.finish(job, itemId, item, outcome, resume, existing))
      .catch((error: unknown) =>
        this.options.logger?.error({ job: job.id, err: error }, 'recording could not be finished'),
      )
      .finally(() => {
        this.active.delete(job.id);
        this.finishing.delete(finishing);
        this.options.onChange?.();
      });
    this.finishing.add(finishing);
  }

  private newPath(job: DvrJobRow, item: JobItem): string {
    const relativePath = recordingRelativePath({
      kind: item.show_id ? 'episode' : 'movie',
      title: item.title ?? job.name,
      episodeTitle: item.episode_title,
      season: item.season_number,
      episode: item.episode_number,
      year: item.release_year,
      start: job.start_time,
    });
    // Two jobs starting together may want one name: a path a recorder holds is taken, file or not yet.
    const held = new Set([...this.active.values()].map((active) => active.path));
    return uniquePath(
      join(this.options.recordingsDir, relativePath),
      (candidate) => existsSync(candidate) || held.has(candidate),
    );
  }

  private writeItem(itemId: string, job: DvrJobRow, item: JobItem, path: string): void {
    const common = {
      id: itemId,
      source: 'recordings' as const,
      path,
      channel: job.channel,
      program_id: item.program_id ?? null,
      summary: item.summary ?? null,
      full_summary: item.full_summary ?? null,
      content_rating: item.content_rating ?? null,
      image_url: item.image_url ?? null,
      genres: item.genres ?? null,
      categories: item.categories ?? null,
      tags: ['Live'],
    };
    if (item.show_id) {
      upsertShow(this.db, { id: item.show_id, name: item.title ?? job.name });
      upsertEpisode(this.db, {
        ...common,
        show_id: item.show_id,
        season_number: item.season_number ?? null,
        episode_number: item.episode_number ?? null,
        episode_title: item.episode_title ?? null,
        original_air_date: item.original_air_date ?? null,
      });
    } else {
      upsertMovie(this.db, { ...common, title: item.title ?? job.name, release_year: item.release_year ?? null });
    }
  }

  private finish(
    job: DvrJobRow,
    itemId: string,
    item: JobItem,
    outcome: Awaited<Recorder['done']>,
    resumed: boolean,
    before: RecordingRow | undefined,
  ): void {
    if (outcome.stoppedBy === 'shutdown') return; // still 'recording': the next start resumes it
    const wasDelayed = before !== undefined && isItemDelayed(this.db, itemId);
    const verdict = judgeRecording(outcome, job.start_time * 1000, { resumed, wasDelayed });
    const endedAt = this.now();
    const path = getRecording(this.db, itemId)?.path ?? null;
    if (verdict.failed) {
      void this.marks.recordingEnded(itemId, false);
      this.db
        .transaction(() => {
          deleteRecordingItem(this.db, itemId);
          finishJob(this.db, job.id, { failed: true, error: verdict.error }, endedAt);
        })
        .immediate();
      if (path) this.removeOwnFile(path);
      this.options.emit?.({
        kind: 'recording.failed',
        severity: 'error',
        message: `Recording ${whatOf(job, item)} failed: ${verdict.error ?? 'no reason given'}.`,
        data: { ...recordingData(job, item), reason: verdict.error ?? 'no reason given' },
      });
      this.options.logger?.warn(
        { job: job.id, err: verdict.error },
        "recording failed; the error says why: check the channel's source, and the free space of the recordings folder",
      );
      return;
    }
    const flags = {
      delayed: verdict.delayed,
      cancelled: verdict.cancelled,
      corrupted: verdict.corrupted,
      completed: verdict.completed,
    };
    this.db
      .transaction(() => {
        rememberRecordedEpisode(
          this.db,
          episodeKeys({
            programId: item.program_id,
            title: item.title ?? job.name,
            season: item.season_number,
            episode: item.episode_number,
          }),
          endedAt,
        );
        setRecordingFlags(this.db, itemId, flags);
        finishRecording(this.db, itemId, { bytes: outcome.bytes, error: verdict.error, endedAt });
        finishJob(this.db, job.id, { failed: false, error: verdict.error, item: { ...item, ...flags } }, endedAt);
      })
      .immediate();
    this.options.logger?.info(
      { job: job.id, bytes: outcome.bytes, ...flags, err: verdict.error },
      'recording finished',
    );
    const flaws = [flags.cancelled && 'stopped early', flags.delayed && 'started late', flags.corrupted && 'with gaps']
      .filter(Boolean)
      .join(', ');
    this.options.emit?.({
      kind: 'recording.completed',
      severity: flaws ? 'warning' : 'info',
      message: `Recorded ${whatOf(job, item)}${flaws ? ` (${flaws}${verdict.error ? `: ${verdict.error}` : ''})` : ''}.`,
      data: { ...recordingData(job, item), item_id: itemId, ...(verdict.error ? { reason: verdict.error } : {}) },
    });
    void this.marks.recordingEnded(itemId);
    this.enqueuePost(itemId);
  }

  private markCorrupted(jobId: string, itemId: string): void {
    try {
      setRecordingFlags(this.db, itemId, { corrupted: true });
      patchJobItem(this.db, jobId, { corrupted: true }, this.now());
    } catch (error) {
      // The verdict at its end flags it again.
      this.options.logger?.warn(
        { job: jobId, err: error },
        'a resumed recording could not be flagged corrupted yet (is the data disk full?); it will be when it ends',
      );
    }
  }

  /** The recording's first bytes came late: the flag shows while it still records. */
  markDelayed(jobId: string): void {
    const active = this.active.get(jobId);
    if (!active) return;
    setRecordingFlags(this.db, active.itemId, { delayed: true });
    patchJobItem(this.db, jobId, { delayed: true }, this.now());
  }

  /** Stops the recording writing this item, if one is, and waits until its file is closed (before a delete). */
  async stopItem(itemId: string): Promise<void> {
    for (const [jobId, active] of this.active) {
      if (active.itemId !== itemId) continue;
      active.recorder.stop('user');
      await active.recorder.done;
      await this.marks.recordingEnded(itemId, false);
      // Let its finishing (flags, job result) land before the item goes.
      await new Promise((resolve) => setImmediate(resolve));
      this.active.delete(jobId);
    }
  }

  /** Moves a running recording's end later (the guide extended its programme); false when it is not recording here. */
  extend(jobId: string, end: number): boolean {
    const active = this.active.get(jobId);
    if (!active) return false;
    setRecordingEnd(this.db, jobId, end, this.now());
    active.recorder.extendTo(end * 1000);
    this.options.logger?.info(
      { job: jobId, end: new Date(end * 1000).toISOString() },
      'the guide extended a programme that is recording: recording on to its new end',
    );
    return true;
  }

  /** The file a job is writing now and the moment (epoch ms) it begins with, once bytes came. */
  activeFile(jobId: string): { itemId: string; beginsAt: number } | undefined {
    const active = this.active.get(jobId);
    const beginsAt = active?.recorder.fileBeginsAt;
    return active && beginsAt !== undefined ? { itemId: active.itemId, beginsAt } : undefined;
  }

  /** Stops a recording early at the user's request; it keeps what was written, flagged cancelled. */
  cancel(jobId: string): boolean {
    const active = this.active.get(jobId);
    if (!active) return false;
    active.recorder.stop('user');
    return true;
  }

  /** Queues every finished recording not yet processed (after a restart). */
  resumePostProcessing(): void {
    for (const row of listRecordingsInState(this.db, 'finished')) this.enqueuePost(row.item_id);
  }

  private enqueuePost(itemId: string): void {
    if (this.postQueue.includes(itemId)) return;
    this.postQueue.push(itemId);
    if (this.postRunning === 0 && this.postQueue.length === 1)
      this.postIdle = new Promise((r) => (this.resolvePostIdle = r));
    this.pumpPost();
  }

  private pumpPost(): void {
    const limit = this.options.postConcurrency ?? 1;
    while (this.postRunning < limit && this.postQueue.length > 0 && !this.postAbort.signal.aborted) {
      const itemId = this.postQueue.shift() as string;
      this.postRunning++;
      this.postProcess(itemId)
        .catch((error: unknown) =>
          this.options.logger?.warn(
            { item: itemId, err: error },
            'post-processing failed; the recording is kept as it is: the error says why (check ffprobe, ffmpeg and comskip, and the free space)',
          ),
        )
        .finally(() => {
          this.postRunning--;
          if (this.postRunning === 0 && this.postQueue.length === 0) this.resolvePostIdle?.();
          this.pumpPost();
        });
    }
  }

  /** Resolves when nothing waits for post-processing (tests and shutdown use it). */
  whenPostProcessed(): Promise<void> {
    return this.postIdle;
  }

  private async postProcess(itemId: string): Promise<void> {
    const recording = getRecording(this.db, itemId);
    if (!recording?.path) return;
    const signal = this.postAbort.signal;
    // Opened once after the check that it is still in the recordings folder (not a link swapped in): every reader gets
    // this file.
    const opening = await new PathBoundary(() => [this.options.recordingsDir]).open(recording.path);
    if (!opening.ok) {
      this.options.logger?.warn(
        { item: itemId, reason: opening.reason },
        'a recording could not be post-processed: its file is gone or no longer a file in the recordings folder; it is kept as it is',
      );
      return;
    }
    let results: PostResults | undefined;
    try {
      results = await this.readRecording(itemId, opening.file, signal);
    } finally {
      await opening.file.handle.close().catch(() => undefined);
    }
    if (!results || signal.aborted) return;
    const { probe, duration, tags, thumbnail, commercials, detection } = results;
    this.db
      .transaction(() => {
        setRecordingPostResults(this.db, itemId, {
          duration,
          tags,
          commercials,
          thumbnail,
          probeFailed: !probe.ok && !probe.transient,
        });
        if (thumbnail) setThumbnailUrl(this.db, itemId, `/thumbnails/${encodeURIComponent(itemId)}`);
        markRecordingProcessed(this.db, itemId);
        patchJobItem(
          this.db,
          recording.job_id,
          { processed: true, ...(duration !== null ? { duration } : {}) },
          this.now(),
        );
      })
      .immediate();
    this.marks.finalDone(itemId, detection);
    this.options.logger?.info(
      { item: itemId, duration, commercials: (commercials?.length ?? 0) / 2 },
      'recording processed',
    );
    if (recording.rule_id !== null) this.prune(recording.rule_id);
  }

  /** Probe, thumbnail and commercials of an opened recording; undefined when stopped. */
  private async readRecording(itemId: string, file: OpenedFile, signal: AbortSignal): Promise<PostResults | undefined> {
    const programs = this.options.programs ?? PROGRAMS_ON_PATH;
    // A reading process of its own for this one file: the TS reader reads a recording, captions in its video included
    // (media-header.ts).
    const readers = new HeaderReaderPool(1);
    const probe = await probeMedia(file, readers, programs, signal).finally(() => readers.close());
    if (signal.aborted) return undefined;
    // The probe spans a TS from its head's timestamps to its tail's: wrong where a resumed recording's reset between
    // (recording-duration.ts).
    const duration = recordingDuration(
      probe.ok ? probe.result.duration : null,
      await measureRecordingDuration(file.handle, signal),
    );
    if (signal.aborted) return undefined;
    const tags = probe.ok ? ['Live', ...probe.result.tags] : null;
    let thumbnail: string | null = null;
    mkdirSync(this.options.thumbnailsDir, { recursive: true });
    const thumbnailPath = join(this.options.thumbnailsDir, `${itemId}.jpg`);
    if ((await makeThumbnail(file, thumbnailPath, duration, programs.ffmpeg, signal)).ok) thumbnail = thumbnailPath;
    if (signal.aborted) return undefined;
    let commercials: number[] | null = null;
    let detection: PostResults['detection'];
    if (this.marks.enabled && programs.comskip !== undefined) {
      this.marks.finalStarted(itemId);
      try {
        commercials = await detectCommercials(file.realPath, {
          workDir: join(this.options.workDir, itemId),
          signal,
          program: programs.comskip,
          inputFd: file.fd,
        });
        detection = { commercials };
      } catch (error) {
        if (signal.aborted) return undefined;
        detection = { error: (error as Error).message };
        this.options.logger?.warn(
          { item: itemId, err: (error as Error).message },
          'commercial detection failed; the recording is kept without commercial marks: check that comskip runs (--comskip-path)',
        );
      }
    }
    return { probe, duration, tags, thumbnail, commercials, detection };
  }

  /** Keeps a rule's newest N recordings (its `keep`), deleting older unlocked ones and their files. */
  prune(ruleId: number): void {
    // Read from the stored JSON as it is: a rule of a type this version does not know still keeps its count.
    const keep = (getRule(this.db, ruleId)?.definition as { keep?: unknown } | null | undefined)?.keep;
    if (typeof keep !== 'number') return;
    if (!keep) return;
    for (const row of recordingsToPrune(this.db, ruleId, keep)) {
      deleteRecordingItem(this.db, row.item_id);
      if (row.path) this.removeOwnFile(row.path);
      this.options.logger?.info({ item: row.item_id, rule: ruleId }, 'auto-pruned a recording');
    }
  }

  /** Deletes a file only when it lies inside the recordings directory: the DVR never touches anything else. */
  private removeOwnFile(path: string): void {
    const root = resolve(this.options.recordingsDir);
    const rel = relative(root, resolve(path));
    if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) return;
    try {
      if (statSync(path).isFile()) rmSync(path);
    } catch {
      // already gone
    }
  }

  /** Stops recorders (they stay 'recording' and resume at the next start) and post-processing. */
  async stop(): Promise<void> {
    this.postAbort.abort();
    for (const { recorder } of this.active.values()) recorder.stop('shutdown');
    await Promise.allSettled([...this.finishing, this.marks.stop()]);
  }
}
