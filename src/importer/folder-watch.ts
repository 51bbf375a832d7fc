/**
 * Watching the import roots (folder-watch.child.js, a process of its own: on a dead
 * share, watching blocks, and must not block the server). Changes come to `onChange`;
 * a watcher that dies is started again after a few seconds (the periodic rescan covers
 * the gap).
 */
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { type StartedProgram, startProgram } from '../common/external-program.js';

export interface WatchedChange {
  path: string;
  /** A folder (true), a file (false), or not known (a path that is gone). */
  folder: boolean | undefined;
  /** The path went (deleted, or the first half of a move). */
  removed: boolean;
}

type ChildMessage =
  | { type: 'ready' }
  | { type: 'change'; path: string; folder: boolean | null; removed: boolean }
  | { type: 'error'; message: string };

const CHILD_PATH = fileURLToPath(new URL('./folder-watch.child.js', import.meta.url));
const RESTART_MS = 5_000;

export class FolderWatch {
  private program: StartedProgram | undefined;
  private restart: NodeJS.Timeout | undefined;
  private closed = false;
  private markReady: () => void = () => undefined;
  /** Resolves once every folder is watched (the first time). */
  readonly ready = new Promise<void>((resolve) => (this.markReady = resolve));

  constructor(
    private readonly paths: readonly string[],
    private readonly options: { logger: Logger; writeFinishMs: number; onChange: (change: WatchedChange) => void },
  ) {
    this.start();
  }

  /** Ends the watcher at once (SIGKILL: one stuck in a dead share would not end otherwise). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.restart);
    const child = this.program?.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  private start(): void {
    const program = startProgram(process.execPath, [CHILD_PATH], { stdin: 'pipe', stdout: 'pipe' });
    this.program = program;
    const { child } = program;
    child.on('error', (error) =>
      this.options.logger.warn(
        { err: error },
        'watching the import roots could not start; periodic rescans still run (--rescan-interval): the error says why',
      ),
    );
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(JSON.stringify({ paths: this.paths, writeFinishMs: this.options.writeFinishMs }));
    let rest = '';
    // Decoded as a stream: a chunk may end inside a character of a path.
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) this.receive(line);
    });
    child.once('exit', (code, signal) => {
      if (this.closed) return;
      this.options.logger.warn(
        { code, signal, stderr: program.stderrTail().slice(-500) },
        'watching the import roots stopped; starting it again (periodic rescans still run): if it repeats, stderr says why; often fs.inotify.max_user_watches is too low (raise it with sysctl)',
      );
      this.restart = setTimeout(() => this.start(), RESTART_MS);
    });
  }

  private receive(line: string): void {
    let message: ChildMessage;
    try {
      message = JSON.parse(line) as ChildMessage;
    } catch {
      this.options.logger.warn(
        { line: line.slice(0, 200) },
        "the import roots' watcher wrote something that is not a message; ignored (a bug: report it with this line)",
      );
      return;
    }
    if (message.type === 'ready') this.markReady();
    else if (message.type === 'error')
      this.options.logger.warn(
        { reason: message.message },
        'watching the import roots failed; periodic rescans still run: the reason says why; when it speaks of watches or ENOSPC, raise fs.inotify.max_user_watches (sysctl)',
      );
    else this.options.onChange({ path: message.path, folder: message.folder ?? undefined, removed: message.removed });
  }
}
