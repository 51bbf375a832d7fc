/**
 * A log file rotated by size, as logrotate names them: FILE is always the current one
 * (so `tail -F FILE` follows it), FILE.1 the one before, up to FILE.<keep>.
 *
 * Every line is written with one synchronous write. Written here rather than with
 * rotating-file-stream or pino-roll: both write asynchronously, so the lines still in
 * their buffers are lost when the process exits right after "shutting down" (signals.ts
 * calls process.exit) or crashes, which is when the log matters most; and pino-roll
 * numbers files upward (FILE.1.log, FILE.2.log, ...) so the current file's name
 * changes. Antenna logs a few lines a minute, so a synchronous write costs nothing.
 */
import { closeSync, fstatSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The renames that make room for a new FILE, in the order they must happen:
 * FILE.<keep-1> -> FILE.<keep> (replacing the oldest), ..., FILE.1 -> FILE.2, FILE -> FILE.1 (pure).
 * None when nothing is kept: FILE is then emptied.
 */
export function rotationRenames(file: string, keep: number): [from: string, to: string][] {
  const renames: [string, string][] = [];
  for (let n = keep - 1; n >= 1; n--) renames.push([`${file}.${n}`, `${file}.${n + 1}`]);
  if (keep > 0) renames.push([file, `${file}.1`]);
  return renames;
}

export interface RotatingLogFileOptions {
  /** FILE is rotated before a line would take it past this size (a single longer line is still written whole). */
  maxBytes: number;
  /** Rotated files kept: FILE.1 to FILE.<keep>. */
  keep: number;
  /** Told once per spell of failing writes or rotations; default: a line on stderr. */
  onProblem?: (message: string) => void;
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);

export class RotatingLogFile {
  private fd: number;
  private size: number;
  /**
   * Rotate before a write would pass this; pushed further after a rotation that failed, so a failing one is not retried
   * on every line.
   */
  private limit: number;
  private lost = 0;
  private lostCode = '';
  private rotationFailing = false;

  /** Opens (creating its folder and itself) FILE for appending; throws the system error when it cannot. */
  constructor(
    readonly file: string,
    private readonly options: RotatingLogFileOptions,
  ) {
    mkdirSync(dirname(file), { recursive: true });
    this.fd = openSync(file, 'a', 0o640);
    this.size = fstatSync(this.fd).size;
    this.limit = options.maxBytes;
  }

  /**
   * pino's destination: one line (ending in a newline) per call. Never throws: a logger must not break what it logs.
   */
  write(line: string): void {
    const data = Buffer.from(line);
    try {
      if (this.fd < 0 || (this.size > 0 && this.size + data.length > this.limit)) this.rotate();
      if (this.lost > 0) this.writeAll(Buffer.from(`${JSON.stringify(this.lostNote())}\n`));
      this.writeAll(data);
      this.lost = 0;
    } catch (error) {
      if (this.lost++ === 0) {
        this.lostCode = codeOf(error);
        this.report(
          `antenna: cannot write the log file ${this.file} (${this.lostCode}); lines are lost until it can: free space on its disk or give --log-file a file this user can write.`,
        );
      }
    }
  }

  /** Closes FILE (tests; the process's end closes it otherwise). */
  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }

  private writeAll(data: Buffer): void {
    // A regular file takes a whole write unless its disk is full (which throws below).
    for (let offset = 0; offset < data.length; ) offset += writeSync(this.fd, data, offset, data.length - offset);
    this.size += data.length;
  }

  private lostNote(): Record<string, unknown> {
    return {
      level: 40,
      time: Date.now(),
      pid: process.pid,
      msg: `${this.lost} log lines were lost while ${this.file} could not be written (${this.lostCode}); check the free space on its disk`,
    };
  }

  private rotate(): void {
    try {
      if (this.fd >= 0) closeSync(this.fd);
    } catch {
      // Reopened below whatever became of it.
    }
    // Closed: its number may be another file's from now on, and must never be written or closed again.
    this.fd = -1;
    try {
      for (const [from, to] of rotationRenames(this.file, this.options.keep)) {
        try {
          renameSync(from, to);
        } catch (error) {
          // Fewer rotated files than `keep` so far.
          if (codeOf(error) !== 'ENOENT' || from === this.file) throw error;
        }
      }
      this.fd = openSync(this.file, this.options.keep > 0 ? 'a' : 'w', 0o640);
      this.limit = this.options.maxBytes;
      this.rotationFailing = false;
    } catch (error) {
      // Writing goes on in FILE, which grows past its size until a rotation works (should this
      // open fail too, fd stays -1 and each write tries again, losing lines, counted, meanwhile).
      this.fd = openSync(this.file, 'a', 0o640);
      this.limit = fstatSync(this.fd).size + this.options.maxBytes;
      if (!this.rotationFailing)
        this.report(
          `antenna: cannot rotate the log file ${this.file} (${codeOf(error)}); it grows until it can: let this user rename files in ${dirname(this.file)}.`,
        );
      this.rotationFailing = true;
    }
    this.size = fstatSync(this.fd).size;
  }

  private report(message: string): void {
    (this.options.onProblem ?? ((text) => process.stderr.write(`${text}\n`)))(message);
  }
}
