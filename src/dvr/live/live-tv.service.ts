/**
 * Channels as a person meets them: the list, favorites, the guide of one channel,
 * watching live (sharing the recordings' connection), and one-touch "record what is on
 * now" and its stop.
 */
import { BadRequestError, ConflictError, NotFoundError } from '../../common/errors.js';
import type { Db } from '../../db/database.js';
import { type Airing, ProgrammeAiring } from '../lineup/airing.js';
import { listGuideChannels, programmesBetween } from '../../repositories/dvr/guide.repository.js';
import { type DvrJobRow, getDvrJob, listJobsInState } from '../../repositories/dvr/jobs.repository.js';
import type { StreamableChannel } from '../../repositories/dvr/sources.repository.js';
import { type GuidePage, guidePageOf, type GuidePageRequest } from '../lineup/guide-page.js';
import { firstPerNumber, lineupSnapshot } from '../lineup/lineup-snapshot.js';
import { isPlaceholder, placeholderAirings } from '../lineup/placeholder-airings.js';
import type { RecordingsService } from '../recording/recordings.service.js';
import type { RulesService } from '../planning/rules.service.js';
import type { RuleDefinition } from '../planning/rules/rule-types.js';
import { oneTimeSlot } from '../planning/rules/slot.rule.js';
import { recordingStartFrom } from './record-from-start.js';
import {
  type StreamConsumer,
  type StreamHub,
  StreamUnavailableError,
  type Subscription,
} from '../recording/stream-hub.js';

/** Without a guide, "record now" records this long. */
const RECORD_NOW_DEFAULT_SECONDS = 3600;

export class LiveTvService {
  private readonly recordNowPending = new Map<string, Promise<DvrJobRow>>();

  constructor(
    private readonly db: Db,
    private readonly parts: {
      hub: StreamHub;
      recordings: RecordingsService;
      rules: RulesService;
      /** The DVR's one way to plan again (DvrService.replan), at once: the job must be there to answer. */
      replan: () => void;
      now: () => number;
      /** Epoch ms of the oldest moment a live buffer of the channel holds (a recording now starts from there). */
      heldSince?: (number: string) => number | undefined;
    },
  ) {}

  private nowSeconds(): number {
    return Math.floor(this.parts.now() / 1000);
  }

  /** Each channel number once (the first source that carries it), favorites resolved: what a player lists. */
  channels(): StreamableChannel[] {
    return firstPerNumber(lineupSnapshot(this.db).channels);
  }

  /** The guides' channels: what each guide describes (matched to channel numbers by guide-match.ts). */
  guideChannels(): { guide_id: string; id: string; names: string[]; number?: string; icon?: string }[] {
    return listGuideChannels(this.db).map((row) => ({
      guide_id: row.guide_id,
      id: row.xmltv_id,
      names: JSON.parse(row.display_names) as string[],
      ...(row.number ? { number: row.number } : {}),
      ...(row.icon ? { icon: row.icon } : {}),
    }));
  }

  /** Channel `number` as `source` carries it ('ANY': the first source that does); 404 when none does. */
  channelOn(number: string, source: string): StreamableChannel {
    const channels = this.sourcesOf(number);
    const found = source === 'ANY' ? channels[0] : channels.find((c) => c.source_id === source);
    if (!found) throw new NotFoundError('channel', `${number} on source ${source}`);
    return found;
  }

  /** The guide for one channel between two times (epoch seconds); placeholder hours when no guide describes it. */
  guide(number: string, from: number, to: number): Airing[] {
    const channels = this.sourcesOf(number);
    if (to <= from) throw new BadRequestError('to', '"to" must be after "from".');
    for (const [key, numbers] of lineupSnapshot(this.db).guideMap) {
      if (!numbers.includes(number)) continue;
      const [guideId, xmltvId] = key.split('\t') as [string, string];
      return programmesBetween(this.db, guideId, xmltvId, from, to).map((row) =>
        ProgrammeAiring.fromRow(row, [number]),
      );
    }
    return placeholderAirings(number, channels[0]?.name ?? number, from, to);
  }

  /**
   * A page of the guide grid: channels offset..offset+limit (favorites only, if asked)
   * with their programmes overlapping [start, end) and the jobs that record them.
   */
  guidePage(request: GuidePageRequest): GuidePage {
    if (request.end <= request.start) throw new BadRequestError('end', '"end" must be after "start".');
    const lineup = lineupSnapshot(this.db);
    return guidePageOf(this.db, firstPerNumber(lineup.channels), lineup.guideMap, request);
  }

  /** Joins channel `number` for a live viewer; the connection is shared with recordings of it. */
  watch(number: string, consumer: StreamConsumer): Promise<Subscription> {
    const channels = this.sourcesOf(number);
    return this.parts.hub.join(
      channels.map((c) => ({ sourceId: c.source_id, number: c.number, url: c.stream_url })),
      consumer,
    );
  }

  /**
   * Records what is on channel `number` now, until its programme ends (an hour without
   * a guide), from the programme's start when the channel's live buffer holds it. The
   * channel's stream is tried first, so a source that is down or full is a 409 now rather
   * than a recording that fails later.
   */
  recordNow(number: string): Promise<DvrJobRow> {
    // Two presses at once (a remote's repeat) make one recording, not two.
    const pending = this.recordNowPending.get(number);
    if (pending) return pending;
    const started = this.startRecordingNow(number).finally(() => this.recordNowPending.delete(number));
    this.recordNowPending.set(number, started);
    return started;
  }

  /** Stops whatever is recording channel `number` now; false when nothing was. */
  stopRecording(number: string): boolean {
    const active = this.activeJobOn(number);
    if (!active) return false;
    this.parts.recordings.cancel(active.id);
    return true;
  }

  /** The job recording `number` now, if one is (the player's toggle_record asks before it toggles). */
  recordingOn(number: string): DvrJobRow | undefined {
    this.sourcesOf(number);
    return this.activeJobOn(number);
  }

  /**
   * The file a job records into now and the moment it begins with (epoch seconds): "start over" plays it from the
   * programme's start when the live buffer no longer holds that.
   */
  recordingFile(jobId: string): { file_id: string; file_begins_at: number } | undefined {
    const file = this.parts.recordings.activeFile(jobId);
    return file ? { file_id: file.itemId, file_begins_at: Math.floor(file.beginsAt / 1000) } : undefined;
  }

  private async startRecordingNow(number: string): Promise<DvrJobRow> {
    const channels = this.sourcesOf(number);
    const active = this.activeJobOn(number);
    if (active) return active;
    // Holding the stream while the job starts keeps the tuner for the recorder, which joins the same connection.
    let probe: Subscription;
    try {
      probe = await this.watch(number, { kind: 'recording', data: () => undefined, ended: () => undefined });
    } catch (error) {
      if (error instanceof StreamUnavailableError)
        throw new ConflictError(
          error.reason === 'no_tuner' ? 'no_tuner' : 'stream_unavailable',
          `Cannot record channel ${number}: ${error.message}.`,
        );
      throw error;
    }
    try {
      return await this.recordFromNow(number, channels[0]?.name);
    } finally {
      probe.leave();
    }
  }

  /**
   * A one-time slot rule to the programme's end, at top priority, from its start when a live buffer holds it (the
   * recorder then reads the buffer: record-from-start.ts); its job, which is recording.
   */
  private async recordFromNow(number: string, channelName: string | undefined): Promise<DvrJobRow> {
    const now = this.nowSeconds();
    // A placeholder hour is not a programme: without a guide, "record now" records its own length.
    const current = this.guide(number, now, now + 1).find((airing) => !isPlaceholder(airing));
    const end = current && current.stop - now >= 60 ? current.stop : now + RECORD_NOW_DEFAULT_SECONDS;
    const start = recordingStartFrom(now, current?.start, this.parts.heldSince?.(number));
    const definition: RuleDefinition = oneTimeSlot({
      channel: number,
      start,
      duration: end - start,
      name: current?.title ?? `${channelName ?? 'Channel'} ${number}`,
      priority: 1000,
    });
    const ruleId = this.parts.rules.insertOwn(definition);
    this.parts.replan();
    const job = getDvrJob(this.db, `${start}-${ruleId}`);
    if (!job || job.state !== 'recording') {
      this.parts.rules.removeOwn(ruleId);
      this.parts.replan();
      throw new ConflictError(
        'no_tuner',
        job?.error ? `Cannot record channel ${number}: ${job.error}.` : `Cannot record channel ${number} now.`,
      );
    }
    // Let the recorder's own join happen before the probe lets go of the connection.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return job;
  }

  /** The channels (one per source) that carry `number`; 404 when none does. */
  private sourcesOf(number: string): StreamableChannel[] {
    const channels = lineupSnapshot(this.db).channels.filter((c) => c.number === number);
    if (channels.length === 0) throw new NotFoundError('channel', number);
    return channels;
  }

  private activeJobOn(number: string): DvrJobRow | undefined {
    return listJobsInState(this.db, 'recording').find(
      (job) => job.channel === number && this.parts.recordings.isRecording(job.id),
    );
  }
}
