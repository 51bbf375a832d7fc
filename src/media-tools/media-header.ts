/**
 * Probing without a process per file: a few long-lived processes (media-read.child.js)
 * read MP4/MOV indexes with mp4box.js, Matroska/WebM heads with ts-ebml, and an MPEG-TS's
 * tables and the timestamps of its head and tail with a reader of its own (a fraction of
 * a millisecond to a few a file), and what those cannot vouch for (AVI, odd files) with
 * MediaInfo (a few milliseconds), where an ffprobe process costs about seventy. What none
 * of them vouches for goes to ffprobe, which stays the reference (see each parser's top
 * for its cases). The result says which one read it.
 *
 * The parsers (mp4-header, matroska-header, mpeg-ts and elementary-stream, media-info)
 * are pure and table-tested; their agreement with ffprobe on real files is
 * test/e2e/media-info-agreement.test.ts.
 */
import { fileURLToPath } from 'node:url';
import { type StartedProgram, startProgram } from '../common/external-program.js';
import { type OpenedInput, type ProbeOutcome, measurePlayableLength, probeFile } from './media-probe.js';
import { type HeaderReading, tagsOf } from './media-details.js';
import { type Mp4Summary, mp4CutShort, readMp4Header } from './mp4-header.parser.js';
import { type MatroskaSummary, matroskaCutShort, readMatroskaHeader } from './matroska-header.parser.js';
import { type MediaInfoTrack, mediaInfoCutShort, readMediaInfo, seesCaptions } from './media-info.parser.js';

import { type MpegTsSummary, readMpegTsHeader, tsSeesCaptions } from './mpeg-ts.parser.js';

/**
 * Who read a file: 'ts-reader' is Antenna's own MPEG-TS reader (mpeg-ts.parser.ts), the others the libraries and tools
 * named.
 */
export type ProbeReader = 'mp4box' | 'ts-ebml' | 'ts-reader' | 'mediainfo' | 'ffprobe';

/** A reading process's answer: one of the four readers' summaries, or nothing (it could not open or read the file). */
export interface HeaderAnswer {
  mp4?: Mp4Summary;
  matroska?: MatroskaSummary;
  ts?: MpegTsSummary;
  tracks?: MediaInfoTrack[];
}

const CHILD_PATH = fileURLToPath(new URL('./media-read.child.js', import.meta.url));
/** A file not answered for in this long is left to ffprobe (and its process started again). */
const READ_TIMEOUT_MS = 20_000;
/** Files read before a second process is worth its start. */
const FILES_BEFORE_ANOTHER_PROCESS = 32;

interface Pending {
  resolve: (answer: HeaderAnswer | undefined) => void;
  timer: NodeJS.Timeout;
}

/**
 * A file the library's boundary admitted (PathBoundary.open): the reading process opens
 * its real path and reads it only when it is still the same file (`identity`); ffprobe
 * and ffmpeg get the descriptor itself.
 */
export interface CheckedFile extends OpenedInput {
  realPath: string;
  identity: string;
}

/** The programs probing may run: ffprobe, and ffmpeg to measure a damaged file. */
export interface ProbePrograms {
  ffprobe?: string | undefined;
  ffmpeg?: string | undefined;
}

/** One media-read.child.js: requests answered in order. */
class ReadingProcess {
  private readonly program: StartedProgram;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  dead = false;

  constructor() {
    this.program = startProgram(process.execPath, [CHILD_PATH], { stdin: 'pipe', stdout: 'pipe' });
    const { child } = this.program;
    child.on('error', () => this.end());
    child.once('exit', () => this.end());
    child.stdin?.on('error', () => undefined);
    let rest = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        try {
          this.answer(JSON.parse(line) as HeaderAnswer & { id: number; error?: string });
        } catch {
          // Not an answer (the library printing something): ignored; an unanswered read times out to ffprobe.
        }
      }
    });
  }

  get load(): number {
    return this.pending.size;
  }

  read(file: CheckedFile, reader: 'mediainfo' | undefined): Promise<HeaderAnswer | undefined> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      // Stuck (a dead share, a pathological file): this process goes, its files to ffprobe.
      const timer = setTimeout(() => this.kill(), READ_TIMEOUT_MS);
      this.pending.set(id, { resolve, timer });
      this.program.child.stdin?.write(
        `${JSON.stringify({ id, path: file.realPath, identity: file.identity, reader })}\n`,
      );
    });
  }

  kill(): void {
    this.program.child.kill('SIGKILL');
    this.end();
  }

  private answer(message: HeaderAnswer & { id: number; error?: string }): void {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    clearTimeout(pending.timer);
    pending.resolve(message.error === undefined ? message : undefined);
  }

  private end(): void {
    this.dead = true;
    for (const { resolve, timer } of this.pending.values()) {
      clearTimeout(timer);
      resolve(undefined);
    }
    this.pending.clear();
  }
}

/**
 * A few reading processes, started as the work asks for them: a second one only once
 * a few files have been read and every process has reads waiting (starting one costs
 * about 0.2 s of a core, more than a small batch of files takes), and again after one
 * dies.
 */
export class HeaderReaderPool {
  private processes: ReadingProcess[] = [];
  private reads = 0;
  /** Closed (a stop): later reads get nothing rather than start a process again. */
  private closed = false;

  constructor(private readonly size: number) {}

  /** A reader's summary of a file (MediaInfo's when `reader` says so), or undefined when none could read it. */
  read(file: CheckedFile, reader?: 'mediainfo'): Promise<HeaderAnswer | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    this.processes = this.processes.filter((worker) => !worker.dead);
    const busy = this.processes.every((worker) => worker.load > 0);
    if (
      this.processes.length === 0 ||
      (this.processes.length < this.size && busy && this.reads >= FILES_BEFORE_ANOTHER_PROCESS)
    ) {
      this.processes.push(new ReadingProcess());
    }
    this.reads++;
    const least = this.processes.reduce((best, worker) => (worker.load < best.load ? worker : best));
    return least.read(file, reader);
  }

  close(): void {
    this.closed = true;
    for (const worker of this.processes) worker.kill();
    this.processes = [];
  }
}

function readAnswer(answer: HeaderAnswer | undefined): { reading: HeaderReading | undefined; reader: ProbeReader } {
  if (answer?.mp4) return { reading: readMp4Header(answer.mp4), reader: 'mp4box' };
  if (answer?.matroska) return { reading: readMatroskaHeader(answer.matroska), reader: 'ts-ebml' };
  if (answer?.ts) return { reading: readMpegTsHeader(answer.ts), reader: 'ts-reader' };
  return { reading: answer?.tracks ? readMediaInfo(answer.tracks) : undefined, reader: 'mediainfo' };
}

/**
 * Probes a file: mp4box, ts-ebml or the TS reader, then MediaInfo (not for a TS: it would
 * read half of it), then ffprobe, each for what the one before could not vouch for (see
 * the top of this file). Never throws.
 */
export async function probeMedia(
  file: CheckedFile,
  pool: HeaderReaderPool | undefined,
  programs: ProbePrograms,
  signal: AbortSignal,
): Promise<ProbeOutcome & { reader: ProbeReader }> {
  if (pool) {
    let answer = await pool.read(file);
    if (answer && cutShort(answer)) return probeDamaged(file, programs, signal);
    let { reading, reader } = readAnswer(answer);
    if (!reading && (answer?.mp4 || answer?.matroska) && !signal.aborted) {
      answer = await pool.read(file, 'mediainfo');
      if (answer && cutShort(answer)) return probeDamaged(file, programs, signal);
      ({ reading, reader } = readAnswer(answer));
    }
    if (reading)
      return {
        ok: true,
        result: {
          duration: reading.duration,
          tags: tagsOf(reading.details),
          chapters: reading.chapters,
          details: reading.details,
        },
        reader,
      };
    if ((answer?.ts && tsSeesCaptions(answer.ts)) || (answer?.tracks && seesCaptions(answer.tracks)))
      return withCaptions(await probeFile(file, programs.ffprobe, signal));
  }
  return { ...(await probeFile(file, programs.ffprobe, signal)), reader: 'ffprobe' };
}

/**
 * True when a reader found the container claiming more than the file holds (an MPEG-TS has no declared length: never).
 */
export function cutShort(answer: HeaderAnswer): boolean {
  if (answer.mp4) return mp4CutShort(answer.mp4);
  if (answer.matroska) return matroskaCutShort(answer.matroska);
  return answer.tracks !== undefined && mediaInfoCutShort(answer.tracks);
}

/**
 * A file cut short: ffprobe says what streams it has, ffmpeg how long its data plays
 * (ffprobe repeats the declared duration). It plays, so it stays in the library, marked
 * damaged with the length it has.
 */
async function probeDamaged(
  file: CheckedFile,
  programs: ProbePrograms,
  signal: AbortSignal,
): Promise<ProbeOutcome & { reader: ProbeReader }> {
  const probed = await probeFile(file, programs.ffprobe, signal);
  if (!probed.ok || signal.aborted) return { ...probed, reader: 'ffprobe' };
  const played = await measurePlayableLength(file, programs.ffmpeg, signal);
  if (!played.ok)
    return {
      ok: false,
      reason: `the file is cut short and ${played.reason}`,
      transient: signal.aborted || played.transient,
      reader: 'ffprobe',
    };
  const declared = probed.result.duration;
  const duration = declared === null ? played.seconds : Math.min(declared, played.seconds);
  const damaged = `the file is cut short: its data ends at ${duration} s${declared === null ? '' : ` of the ${declared} s its container declares`} (an interrupted copy or download?); it plays that far`;
  return {
    ok: true,
    result: {
      ...probed.result,
      duration,
      chapters: probed.result.chapters.filter((chapter) => chapter.start < duration),
      damaged,
    },
    reader: 'ffprobe',
  };
}

/**
 * ffprobe's reading, with the captions the TS reader or MediaInfo saw in the video (ffprobe 5.1 reports them only when
 * decoding every frame).
 */
function withCaptions(outcome: ProbeOutcome): ProbeOutcome & { reader: ProbeReader } {
  if (!outcome.ok || !outcome.result.details) return { ...outcome, reader: 'ffprobe' };
  const details = { ...outcome.result.details, closedCaptions: true };
  return { ok: true, result: { ...outcome.result, details, tags: tagsOf(details) }, reader: 'ffprobe' };
}
