/**
 * A file session's subtitle renditions as WebVTT: each text subtitle stream turned
 * into one `subs-<index>.vtt` in the session's folder by one ffmpeg run, made when a
 * player first asks for it and shared by every request for it after (or during) that
 * run. Its header gets the X-TIMESTAMP-MAP that puts its cues on the segments' clock.
 *
 * A failure is the subtitle's alone: the session and its video go on. ffmpeg refusing
 * the stream is remembered for the session (asking again would not help: a 502);
 * a run that timed out or could not start is forgotten, so the next request tries
 * again (a 503).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { NotFoundError, UnavailableError } from '../common/errors.js';
import { lastLine, type ProgramOutcome, type ProgramRunner } from '../common/external-program.js';
import type { SubtitleStreamInfo } from '../media-tools/stream-info.js';
import { INPUT_PATH } from '../media-tools/library-input.js';
import type { OpenedInput } from '../media-tools/media-probe.js';
import { FILE_TS_START_PTS, subtitleVttArgs } from './hls-ffmpeg-args.js';
import { withTimestampMap } from './hls-playlists.js';

/**
 * ffmpeg reads the whole file to collect one stream's cues: seconds for a film on a
 * local disk, longer on a slow share. Past this it is stopped (a 503, tried again).
 */
export const SUBTITLE_TIMEOUT_MS = 120_000;

export interface SubtitleFilesOptions {
  sessionId: string;
  /** The file, opened after the boundary's check: ffmpeg reads this descriptor (library-input.ts). */
  input: OpenedInput;
  /** The session's folder. */
  dir: string;
  ffmpeg: string;
  runner: ProgramRunner;
  logger?: Logger | undefined;
  timeoutMs?: number;
}

export class SubtitleFiles {
  /** One run per subtitle stream: what every request for it waits on. */
  private readonly runs = new Map<number, Promise<string>>();
  private readonly abort = new AbortController();

  constructor(private readonly options: SubtitleFilesOptions) {}

  /** Starts making the stream's WebVTT if nobody has yet; a failure waits for the request that asks for the file. */
  prepare(subtitle: SubtitleStreamInfo): void {
    this.vtt(subtitle).catch(() => undefined);
  }

  /** The path of the stream's WebVTT once made; throws a 502 or 503 when it cannot be, a 404 once the session ended. */
  vtt(subtitle: SubtitleStreamInfo): Promise<string> {
    let run = this.runs.get(subtitle.index);
    if (!run) {
      run = this.make(subtitle);
      this.runs.set(subtitle.index, run);
      // Worth another try later: forgotten, so the next request starts a new run.
      run.catch((error: unknown) => {
        if (error instanceof UnavailableError && error.status === 503) this.runs.delete(subtitle.index);
      });
    }
    return run;
  }

  /** Stops runs still going (the session is ending) and waits for them to exit. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.allSettled(this.runs.values());
  }

  private async make(subtitle: SubtitleStreamInfo): Promise<string> {
    const { dir, input, ffmpeg, runner } = this.options;
    const final = join(dir, `subs-${subtitle.index}.vtt`);
    // ffmpeg writes beside it; the file the route sends appears whole, with its map, or not at all.
    const raw = join(dir, `subs-${subtitle.index}.ffmpeg.vtt`);
    mkdirSync(dir, { recursive: true });
    const outcome = await runner.run(
      ffmpeg,
      subtitleVttArgs({ input: INPUT_PATH, subtitleIndex: subtitle.index, output: raw }),
      {
        inputFd: input.fd,
        timeoutMs: this.options.timeoutMs ?? SUBTITLE_TIMEOUT_MS,
        signal: this.abort.signal,
        collectStdout: false,
      },
    );
    if (this.abort.signal.aborted) throw new NotFoundError('session', this.options.sessionId);
    if (outcome.kind !== 'ok' || !existsSync(raw)) throw this.failed(subtitle, outcome);
    try {
      const part = `${final}.part`;
      writeFileSync(part, withTimestampMap(readFileSync(raw, 'utf8'), FILE_TS_START_PTS));
      renameSync(part, final);
      rmSync(raw, { force: true });
    } catch (error) {
      // The folder went (the session ended meanwhile), or the disk is full.
      if (this.abort.signal.aborted) throw new NotFoundError('session', this.options.sessionId);
      this.options.logger?.warn(
        { session: this.options.sessionId, subtitle: subtitle.index, err: error },
        'could not write WebVTT subtitles; check the free space and permissions of the data directory (DATA/hls)',
      );
      throw new UnavailableError(
        503,
        'subtitles_not_ready',
        'The server could not store the subtitles (its log says why; is its data folder full?); ask again in a moment.',
      );
    }
    return final;
  }

  /** The error a failed run answers, logged with ffmpeg's own words. */
  private failed(subtitle: SubtitleStreamInfo, outcome: ProgramOutcome): UnavailableError {
    const reason = lastLine(outcome.stderrTail) || (outcome.kind === 'ok' ? 'it wrote nothing' : outcome.reason);
    this.options.logger?.warn(
      { session: this.options.sessionId, subtitle: subtitle.index, codec: subtitle.codec, reason },
      'ffmpeg could not make WebVTT subtitles; play without this track (the reason says what is wrong with it; check the file with ffprobe)',
    );
    if (outcome.kind === 'transient') {
      const why = outcome.cause === 'timeout' ? 'took too long' : 'could not run';
      return new UnavailableError(
        503,
        'subtitles_not_ready',
        `Converting subtitle track ${subtitle.index} ${why} (${reason}); ask again in a moment, or play without subtitles.`,
      );
    }
    return new UnavailableError(
      502,
      'subtitles_failed',
      `Subtitle track ${subtitle.index} (${subtitle.codec}) could not be converted to WebVTT (ffmpeg: ${reason}); play without it, or choose another track.`,
    );
  }
}
