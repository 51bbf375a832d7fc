/**
 * Probing without a process per file: MediaInfo (mediainfo.js) reads the headers of
 * MP4/MOV, Matroska/WebM and AVI files in a few long-lived processes
 * (media-info.child.js), a few milliseconds a file where an ffprobe process costs about
 * seventy. What it cannot vouch for goes to ffprobe, which stays the reference:
 * - files it cannot read, or reads as truncated, or without a duration or any stream;
 * - MPEG-TS (a recording's captions sit in the video stream, which ffprobe reads);
 * - files with chapters (MediaInfo lists them in a form Antenna does not map yet).
 * The result says which one read it.
 *
 * `readMediaInfo` (tracks -> ProbeResult) is pure and table-tested against ffprobe's
 * reading of the same files (test/unit/media-info.test.ts).
 */
import { fileURLToPath } from 'node:url';
import { type StartedProgram, startProgram } from '../common/external-program.js';
import { type ProbeOutcome, type ProbeResult, probeFile } from './media-probe.js';

/** A track as media-info.child.js sends it: MediaInfo's own field names. */
export type MediaInfoTrack = Record<string, unknown> & { '@type'?: string };

export type ProbeReader = 'mediainfo' | 'ffprobe';

const CHILD_PATH = fileURLToPath(new URL('./media-info.child.js', import.meta.url));
/** A file MediaInfo has not answered for in this long is left to ffprobe (and its process started again). */
const READ_TIMEOUT_MS = 20_000;
/** Files read before a second process is worth its start. */
const FILES_BEFORE_ANOTHER_PROCESS = 32;

function numberOf(value: unknown): number | undefined {
  const number = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isFinite(number) && number >= 0 ? number : undefined;
}

/** What MediaInfo found, as ffprobe's reading would say it; undefined when ffprobe should read the file instead. */
export function readMediaInfo(tracks: readonly MediaInfoTrack[]): ProbeResult | undefined {
  const general = tracks.find((track) => track['@type'] === 'General');
  if (!general) return undefined;
  const extra = (general.extra ?? {}) as Record<string, unknown>;
  if (extra.IsTruncated === 'Yes' || general.Format === 'MPEG-TS' || general.Format === 'BDAV') return undefined;
  if (tracks.some((track) => track['@type'] === 'Menu')) return undefined;
  const video = tracks.find((track) => track['@type'] === 'Video' && track.Format !== 'JPEG' && track.Format !== 'PNG');
  const audio = tracks.filter((track) => track['@type'] === 'Audio');
  if (!video && audio.length === 0) return undefined;
  const seconds = numberOf(general.Duration) ?? numberOf(video?.Duration) ?? numberOf(audio[0]?.Duration);
  if (seconds === undefined) return undefined;
  const tags: string[] = [];
  const height = numberOf(video?.Height) ?? 0;
  if (video && height > 0) tags.push(height >= 1800 ? '4K' : height >= 720 ? 'HD' : 'SD');
  if (tracks.some((track) => track['@type'] === 'Text' && typeof track.Format === 'string' && /^EIA-(608|708)$/.test(track.Format))) tags.push('CC');
  if (audio.some((track) => track.Format === 'E-AC-3')) tags.push('Dolby Digital Plus');
  else if (audio.some((track) => track.Format === 'AC-3')) tags.push('Dolby Digital');
  if (audio.some((track) => numberOf(track.Channels) === 6)) tags.push('5.1');
  return { duration: Math.round(seconds * 1000) / 1000, tags, chapters: [] };
}

interface Pending {
  resolve: (tracks: MediaInfoTrack[] | undefined) => void;
  timer: NodeJS.Timeout;
}

/** One media-info.child.js: requests answered in order. */
class MediaInfoProcess {
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
          this.answer(JSON.parse(line) as { id: number; tracks?: MediaInfoTrack[] });
        } catch {
          // Not an answer (the library printing something): ignored; an unanswered read times out to ffprobe.
        }
      }
    });
  }

  get load(): number {
    return this.pending.size;
  }

  read(path: string): Promise<MediaInfoTrack[] | undefined> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      // Stuck (a dead share, a pathological file): this process goes, its files to ffprobe.
      const timer = setTimeout(() => this.kill(), READ_TIMEOUT_MS);
      this.pending.set(id, { resolve, timer });
      this.program.child.stdin?.write(`${JSON.stringify({ id, path })}\n`);
    });
  }

  kill(): void {
    this.program.child.kill('SIGKILL');
    this.end();
  }

  private answer(message: { id: number; tracks?: MediaInfoTrack[] }): void {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    clearTimeout(pending.timer);
    pending.resolve(message.tracks);
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
 * A few MediaInfo processes, started as the work asks for them: a second one only once
 * a few files have been read and every process has reads waiting (starting one costs
 * about 0.2 s of a core, more than a small batch of files takes), and again after one
 * dies.
 */
export class MediaInfoPool {
  private processes: MediaInfoProcess[] = [];
  private reads = 0;

  constructor(private readonly size: number) {}

  /** MediaInfo's tracks for a file, or undefined when it could not read it. */
  read(path: string): Promise<MediaInfoTrack[] | undefined> {
    this.processes = this.processes.filter((worker) => !worker.dead);
    const busy = this.processes.every((worker) => worker.load > 0);
    if (this.processes.length === 0 || (this.processes.length < this.size && busy && this.reads >= FILES_BEFORE_ANOTHER_PROCESS)) {
      this.processes.push(new MediaInfoProcess());
    }
    this.reads++;
    const least = this.processes.reduce((best, worker) => (worker.load < best.load ? worker : best));
    return least.read(path);
  }

  close(): void {
    for (const worker of this.processes) worker.kill();
    this.processes = [];
  }
}

/**
 * Probes a file: MediaInfo first when a pool is given, ffprobe for what it cannot vouch
 * for (see the top of this file). Never throws.
 */
export async function probeMedia(
  path: string,
  pool: MediaInfoPool | undefined,
  ffprobePath: string | undefined,
  signal: AbortSignal,
): Promise<ProbeOutcome & { reader: ProbeReader }> {
  const tracks = pool ? await pool.read(path) : undefined;
  const result = tracks ? readMediaInfo(tracks) : undefined;
  if (result) return { ok: true, result, reader: 'mediainfo' };
  return { ...(await probeFile(path, ffprobePath, signal)), reader: 'ffprobe' };
}
