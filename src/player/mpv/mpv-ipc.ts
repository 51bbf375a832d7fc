/**
 * A client of mpv's JSON IPC (`--input-ipc-server`): one JSON object per line each
 * way, requests matched to replies by `request_id`, events and observed property
 * changes delivered as they come.
 *
 * Written here rather than taken from npm: the packages that wrap mpv (node-mpv,
 * mpv) are unmaintained, spawn mpv themselves with their own arguments and restart
 * policy, and hide the request/reply pairing this player needs to answer "the state
 * after the command". The protocol itself is a few lines of framing.
 */
import { EventEmitter } from 'node:events';
import net from 'node:net';

/** mpv answered a command with an error ("property unavailable", "invalid parameter", ...). */
export class MpvCommandError extends Error {
  override readonly name = 'MpvCommandError';
  constructor(
    readonly command: readonly unknown[],
    readonly reason: string,
    /** The answer's place among mpv's messages (see Ordered.seq); absent when mpv did not answer. */
    readonly seq?: number,
  ) {
    super(`mpv refused ${String(command[0])}: ${reason}`);
  }
}

/** The connection to mpv closed before it answered. */
export class MpvGoneError extends Error {
  override readonly name = 'MpvGoneError';
}

/** One message from mpv: a reply (`request_id`), an event (`event`), or something unknown. */
export interface MpvMessage {
  request_id?: number;
  error?: string;
  data?: unknown;
  event?: string;
  name?: string;
  id?: number;
  reason?: string;
  file_error?: string;
  playlist_entry_id?: number;
}

/**
 * Splits what arrived on the socket into complete lines; the unfinished tail is kept
 * for the next chunk. Lines that are not JSON objects are dropped (mpv writes only
 * JSON, so such a line can only be damage).
 */
export function takeMessages(pending: string, chunk: string): { messages: MpvMessage[]; rest: string } {
  const text = pending + chunk;
  const lines = text.split('\n');
  const rest = lines.pop() ?? '';
  const messages: MpvMessage[] = [];
  for (const line of lines) {
    if (line.trim() === '') continue;
    try {
      const parsed: unknown = JSON.parse(line);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) messages.push(parsed as MpvMessage);
    } catch {
      // not JSON: skipped
    }
  }
  return { messages, rest };
}

/** A reply with its place in the order of everything mpv sent. */
export interface Ordered {
  data: unknown;
  /** Messages are numbered as they arrive: a property-change numbered higher is newer than this reply. */
  seq: number;
}

interface Waiting {
  command: readonly unknown[];
  resolve: (reply: Ordered) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export interface MpvIpcEvents {
  /** An mpv event such as start-file, file-loaded, end-file, idle, seek. */
  event: [message: MpvMessage];
  /** An observed property changed; `seq` numbers it among all messages, as Ordered.seq does replies. */
  property: [name: string, value: unknown, seq: number];
  close: [];
}

export class MpvIpc extends EventEmitter<MpvIpcEvents> {
  private nextId = 1;
  private nextObserver = 1;
  private pending = '';
  private received = 0;
  private readonly waiting = new Map<number, Waiting>();
  private closed = false;

  private constructor(private readonly socket: net.Socket) {
    super();
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.receive(chunk));
    socket.on('error', () => undefined); // 'close' follows and says it
    socket.on('close', () => this.shutDown());
  }

  /** Connects to the socket mpv listens on; rejects if nothing listens there. */
  static connect(path: string): Promise<MpvIpc> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(path);
      socket.once('connect', () => {
        socket.removeListener('error', reject);
        resolve(new MpvIpc(socket));
      });
      socket.once('error', reject);
    });
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** Runs an mpv command and resolves with its `data`; rejects with MpvCommandError or MpvGoneError. */
  async command(command: readonly unknown[], timeoutMs = 5000): Promise<unknown> {
    return (await this.ordered(command, timeoutMs)).data;
  }

  /** As command(), with the reply's place in the order of mpv's messages. */
  ordered(command: readonly unknown[], timeoutMs = 5000): Promise<Ordered> {
    if (this.closed) return Promise.reject(new MpvGoneError('mpv is not running'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        // An mpv that does not answer is as good as gone (the backend restarts one that hangs for good).
        reject(new MpvGoneError(`mpv did not answer ${String(command[0])} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(id, { command, resolve, reject, timer });
      this.socket.write(`${JSON.stringify({ command, request_id: id })}\n`);
    });
  }

  /** Asks mpv to report every change of `name` (and its current value at once) as a 'property' event. */
  async observe(name: string): Promise<void> {
    await this.command(['observe_property', this.nextObserver++, name]);
  }

  close(): void {
    this.socket.destroy();
    this.shutDown();
  }

  private receive(chunk: string): void {
    const { messages, rest } = takeMessages(this.pending, chunk);
    this.pending = rest;
    for (const message of messages) {
      const seq = ++this.received;
      if (message.request_id !== undefined && message.event === undefined) {
        const waiting = this.waiting.get(message.request_id);
        if (!waiting) continue;
        this.waiting.delete(message.request_id);
        clearTimeout(waiting.timer);
        if (message.error === 'success') waiting.resolve({ data: message.data, seq });
        else waiting.reject(new MpvCommandError(waiting.command, message.error ?? 'unknown error', seq));
      } else if (message.event === 'property-change' && message.name !== undefined) {
        this.emit('property', message.name, message.data, seq);
      } else if (message.event !== undefined) {
        this.emit('event', message);
      }
    }
  }

  private shutDown(): void {
    if (this.closed) return;
    this.closed = true;
    for (const waiting of this.waiting.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(new MpvGoneError('mpv went away before it answered'));
    }
    this.waiting.clear();
    this.emit('close');
  }
}
