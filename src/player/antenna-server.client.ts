/**
 * The player's view of an Antenna server: items to play (`/dvr/files/:id`), channels
 * (`/api/v1/channels`), the guide, live streams, watch progress and record-now.
 * Failures become the player's JSON errors: an unknown id is 404, a server that
 * cannot be reached or that fails is 502 naming it, one that stays silent past the
 * answer window 504, no server known yet is 503.
 */
import { ConflictError, NotFoundError, UnavailableError } from '../common/errors.js';

export interface ServerItem {
  id: string;
  /** Episodes have a show, videos a group; the rest are movies. */
  show_id?: string;
  video_group_id?: string;
  title?: string;
  episode_title?: string;
  video_title?: string;
  season_number?: number;
  episode_number?: number;
  summary?: string;
  image_url?: string;
  duration?: number;
  playback_time?: number;
  commercials?: number[];
  file: { available: boolean; chapters: { start: number; end: number }[] };
}

export interface ServerChannel {
  id: string;
  number: string;
  name: string;
  call_sign?: string;
  image_url?: string;
  hd?: boolean;
  favorited?: boolean;
}

export interface Programme {
  start_time: number;
  end_time: number;
  title: string;
  episode_title?: string;
  season_number?: number;
  episode_number?: number;
  summary?: string;
  image_url?: string;
}

export interface ServerClientOptions {
  /** The server's base URL now (configured, or found on the network), or undefined while none is known. */
  locate: () => string | undefined;
  /** Bearer token the server wants for changes; give it only for a server named by the user, never one merely found. */
  token?: string | undefined;
  /** For requests a remote-control press waits on: short enough that an answer still fits in the client's second. */
  timeoutMs?: number;
  /** For progress reports, which nobody waits on. */
  backgroundTimeoutMs?: number;
}

/** A server on the local network answers in milliseconds; past this the player answers 504 (server_timeout), within the client's second. */
export const INTERACTIVE_TIMEOUT_MS = 700;

/** What a failed fetch of the server becomes: 504 when nothing (or not the whole answer) came in time, else 502 (refused, no such host, reset). */
function unreachable(error: unknown, base: string, timeoutMs: number): UnavailableError {
  // Silence is not a refusal: a busy or hung server, or a machine that is off or off the network (its connect stalls rather than fails), so "check that it runs" alone would mislead.
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new UnavailableError(
      504,
      'server_timeout',
      `The Antenna server at ${base} did not answer within ${timeoutMs / 1000} s: it may be busy, or its machine may be off or off the network. Try again, and check the server and its log if this lasts.`,
    );
  }
  const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
  return new UnavailableError(502, 'server_unreachable', `The Antenna server at ${base} cannot be reached (${cause}); check that it runs.`);
}

interface Answer {
  status: number;
  body: unknown;
}

export class AntennaServerClient {
  constructor(private readonly options: ServerClientOptions) {}

  /** The server's base URL; 503 while no server is configured or found. */
  baseUrl(): string {
    const url = this.options.locate();
    if (!url) {
      throw new UnavailableError(503, 'no_server', 'No Antenna server found on the network yet (looking for _antenna_dvr._tcp); start one, or give the player --server URL.');
    }
    return url;
  }

  private async request(method: string, path: string, background = false): Promise<Answer> {
    const base = this.baseUrl();
    const headers: Record<string, string> = { accept: 'application/json' };
    if (method !== 'GET' && this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    const timeoutMs = background ? (this.options.backgroundTimeoutMs ?? 10_000) : (this.options.timeoutMs ?? INTERACTIVE_TIMEOUT_MS);
    let response: Response;
    let text: string;
    try {
      response = await fetch(base + path, { method, headers, signal: AbortSignal.timeout(timeoutMs) });
      // The body is read under the same deadline.
      text = await response.text();
    } catch (error) {
      throw unreachable(error, base, timeoutMs);
    }
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const message = (body as { message?: unknown } | undefined)?.message;
    if (response.status === 401 || response.status === 403) {
      throw new UnavailableError(502, 'server_refused', `The Antenna server at ${base} refused the player: ${typeof message === 'string' ? message : response.status} Give the player the server's token (--token).`);
    }
    if (response.status >= 500) {
      throw new UnavailableError(502, 'server_error', `The Antenna server at ${base} failed (${response.status}${typeof message === 'string' ? `: ${message}` : ''}).`);
    }
    return { status: response.status, body };
  }

  async file(id: string): Promise<ServerItem> {
    const answer = await this.request('GET', `/dvr/files/${encodeURIComponent(id)}`);
    if (answer.status === 404) throw new NotFoundError('recording', id);
    return this.ok(answer, 'recording', id) as ServerItem;
  }

  async channels(): Promise<ServerChannel[]> {
    return this.ok(await this.request('GET', '/api/v1/channels'), 'channel list', '') as ServerChannel[];
  }

  /** What is on `number` at `at` (epoch seconds), if the guide knows. */
  async programmeAt(number: string, at: number): Promise<Programme | undefined> {
    const answer = await this.request('GET', `/dvr/channels/${encodeURIComponent(number)}/guide?from=${at}&to=${at + 1}`);
    if (answer.status !== 200 || !Array.isArray(answer.body)) return undefined;
    return (answer.body as Programme[])[0];
  }

  liveStreamUrl(number: string): string {
    return `${this.baseUrl()}/devices/ANY/channels/${encodeURIComponent(number)}/stream.mpg`;
  }

  /**
   * Where an item streams from: always this server's own stream route, never a URL an
   * answer names (mpv would open anything it is given: local files, other protocols).
   */
  itemStreamUrl(id: string): string {
    return `${this.baseUrl()}/dvr/files/${encodeURIComponent(id)}/stream`;
  }

  async setPlaybackTime(id: string, seconds: number): Promise<void> {
    this.ok(await this.request('PUT', `/dvr/files/${encodeURIComponent(id)}/playback_time/${seconds}`, true), 'recording', id);
  }

  async markWatched(id: string): Promise<void> {
    this.ok(await this.request('PUT', `/dvr/files/${encodeURIComponent(id)}/watch`, true), 'recording', id);
  }

  /** Whether the server's DVR is recording `number` now. */
  async isRecording(number: string): Promise<boolean> {
    const answer = await this.request('GET', `/dvr/channels/${encodeURIComponent(number)}/recording`);
    if (answer.status === 404) return false;
    this.ok(answer, 'channel', number);
    return true;
  }

  async startRecording(number: string): Promise<void> {
    this.ok(await this.request('POST', `/dvr/channels/${encodeURIComponent(number)}/recording`), 'channel', number);
  }

  async stopRecording(number: string): Promise<void> {
    const answer = await this.request('DELETE', `/dvr/channels/${encodeURIComponent(number)}/recording`);
    if (answer.status !== 404) this.ok(answer, 'channel', number);
  }

  /** The body of a 2xx answer; a 409 is the server's conflict (no tuner free), a 404 the named thing unknown. */
  private ok(answer: Answer, resource: string, id: string): unknown {
    if (answer.status >= 200 && answer.status < 300) return answer.body;
    const body = answer.body as { code?: unknown; message?: unknown } | undefined;
    const message = typeof body?.message === 'string' ? body.message : `status ${answer.status}`;
    if (answer.status === 409) throw new ConflictError(typeof body?.code === 'string' ? body.code : 'server_conflict', message);
    if (answer.status === 404) throw new NotFoundError(resource, id);
    throw new UnavailableError(502, 'server_error', `The Antenna server refused a request about ${resource} '${id}': ${message}`);
  }
}
