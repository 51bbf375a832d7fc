/**
 * The player's view of an Antenna server: items to play (`/dvr/files/:id`), channels
 * (`/api/v1/channels`), the guide, live streams, watch progress and record-now.
 * Failures become the player's JSON errors: an unknown id is 404, a server that
 * cannot be reached or that fails is 502 naming it, one that stays silent past the
 * answer window 504, no server known yet is 503. What a server answers is checked
 * against the fields the player reads before it is used: anything else (not an
 * Antenna server, another route's answer) is 502 `bad_server_answer`, never a crash.
 */
import { type Static, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ConflictError, NotFoundError, UnavailableError } from '../common/errors.js';
import { redactUrl, redactUrlsInText } from '../common/url-redaction.js';
import { AiringSchema } from '../model/dvr/dvr.schemas.js';
import { FileFacts } from '../model/library/file-item.schemas.js';
import { ChannelSchema } from '../model/library/library.schemas.js';
import { type CommercialSkipMode, isCommercialSkipMode } from '../model/players/commercial-skip-modes.js';
import type { ClientRegistration } from '../model/players/client.schemas.js';
import { bufferSpanOf, PLAYER_USER_AGENT } from './live-position.js';

// What the player reads of the server's answers, taken from the server's own schemas
// (src/model) where they name the fields; an item's fields come from the episode, movie
// or video it is, of which these are the ones the player reads. More fields are welcome.
const ServerItemSchema = Type.Object({
  id: Type.String(),
  /** Episodes have a show, videos a group; the rest are movies. */
  show_id: Type.Optional(Type.String()),
  video_group_id: Type.Optional(Type.String()),
  title: Type.Optional(Type.String()),
  episode_title: Type.Optional(Type.String()),
  video_title: Type.Optional(Type.String()),
  season_number: Type.Optional(Type.Number()),
  episode_number: Type.Optional(Type.Number()),
  summary: Type.Optional(Type.String()),
  image_url: Type.Optional(Type.String()),
  duration: Type.Optional(Type.Number()),
  playback_time: Type.Optional(Type.Number()),
  commercials: Type.Optional(Type.Array(Type.Number())),
  file: Type.Composite([
    Type.Pick(FileFacts, ['available', 'chapters']),
    // Where a recording's commercial detection stands: its marks may change until it is done. A plain string here
    // (the compiled checker knows no enum of ours), read by marksMayChange.
    Type.Object({ commercial_detection: Type.Optional(Type.Object({ state: Type.String() })) }),
  ]),
});
export type ServerItem = Static<typeof ServerItemSchema>;

const ServerChannelSchema = Type.Composite([
  Type.Required(Type.Pick(ChannelSchema, ['id', 'number', 'name'])),
  Type.Pick(ChannelSchema, ['call_sign', 'image_url', 'hd', 'favorited']),
]);
export type ServerChannel = Static<typeof ServerChannelSchema>;

const ProgrammeSchema = Type.Pick(AiringSchema, [
  'start_time',
  'end_time',
  'title',
  'episode_title',
  'season_number',
  'episode_number',
  'summary',
  'image_url',
]);
export type Programme = Static<typeof ProgrammeSchema>;

// Compiled once: a channel list is checked at every channel key press.
const isServerItem = TypeCompiler.Compile(ServerItemSchema);
const isChannelList = TypeCompiler.Compile(Type.Array(ServerChannelSchema));
const isProgrammeList = TypeCompiler.Compile(Type.Array(ProgrammeSchema));

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

/**
 * A server on the local network answers in milliseconds; past this the player answers 504 (server_timeout), within the
 * client's second.
 */
export const INTERACTIVE_TIMEOUT_MS = 700;
/** A channel being tuned answers its playlist once its first segment came (the server waits up to 15 s). */
const LIVE_ORIGIN_TIMEOUT_MS = 20_000;

/**
 * What a failed fetch of the server becomes: 504 when nothing (or not the whole answer) came in time, else 502
 * (refused, no such host, reset).
 */
function unreachable(error: unknown, base: string, timeoutMs: number): UnavailableError {
  // Messages go to clients and logs: the server's URL without credentials it may carry (user:password@).
  const shown = redactUrl(base);
  // Silence is not a refusal: a busy or hung server, or a machine that is off or off the network (its connect stalls
  // rather than fails), so "check that it runs" alone would mislead.
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new UnavailableError(
      504,
      'server_timeout',
      `The Antenna server at ${shown} did not answer within ${timeoutMs / 1000} s: it may be busy, or its machine may be off or off the network. Try again, and check the server and its log if this lasts.`,
    );
  }
  // fetch's own messages may name the URL too (one with credentials it refuses).
  const cause = redactUrlsInText(
    error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error),
  );
  return new UnavailableError(
    502,
    'server_unreachable',
    `The Antenna server at ${shown} cannot be reached (${cause}); check that it runs.`,
  );
}

interface Answer {
  status: number;
  body: unknown;
}

/** A clock nearer the server's than this is taken as the same (NTP keeps both better than a Date header tells). */
const SAME_CLOCK_MS = 2000;

/**
 * How far the server's clock is ahead of this machine's (ms), from an answer's `Date` header (whole seconds: the
 * server's time was within that second when it answered, taken at the request's midpoint); 0 when the two agree within
 * SAME_CLOCK_MS or the header says nothing. Live TV's "now" is the server's: its buffer's times are. Pure.
 */
export function serverClockOffset(date: string | null, sentAt: number, receivedAt: number): number {
  const at = date === null ? Number.NaN : Date.parse(date);
  if (!Number.isFinite(at)) return 0;
  const offset = at + 500 - (sentAt + receivedAt) / 2;
  return Math.abs(offset) <= SAME_CLOCK_MS ? 0 : Math.round(offset);
}

export class AntennaServerClient {
  /** The server's clock minus this machine's, ms (its answers' Date headers). */
  private clockOffsetMs = 0;

  constructor(private readonly options: ServerClientOptions) {}

  /** The server's time now (epoch ms), as its last answer told: a player whose clock is off tunes live all the same. */
  serverNow(): number {
    return Date.now() + this.clockOffsetMs;
  }

  /** An answer that took longer than a second (the server tuning a channel) says too little of when it was made. */
  private noteClock(response: Response, sentAt: number): void {
    const receivedAt = Date.now();
    if (receivedAt - sentAt <= 1000)
      this.clockOffsetMs = serverClockOffset(response.headers.get('date'), sentAt, receivedAt);
  }

  /** The server's base URL; 503 while no server is configured or found. */
  baseUrl(): string {
    const url = this.options.locate();
    if (!url) {
      throw new UnavailableError(
        503,
        'no_server',
        'No Antenna server found on the network yet (looking for _antenna_dvr._tcp); start one, or give the player --server URL.',
      );
    }
    return url;
  }

  private async request(method: string, path: string, background = false, json?: object): Promise<Answer> {
    const base = this.baseUrl();
    const headers: Record<string, string> = { accept: 'application/json' };
    if (json) headers['content-type'] = 'application/json';
    if (method !== 'GET' && this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    const timeoutMs = background
      ? (this.options.backgroundTimeoutMs ?? 10_000)
      : (this.options.timeoutMs ?? INTERACTIVE_TIMEOUT_MS);
    let response: Response;
    let text: string;
    try {
      const sentAt = Date.now();
      response = await fetch(base + path, {
        method,
        headers,
        ...(json ? { body: JSON.stringify(json) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
      this.noteClock(response, sentAt);
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
    const shown = redactUrl(base);
    if (response.status === 401 || response.status === 403) {
      throw new UnavailableError(
        502,
        'server_refused',
        `The Antenna server at ${shown} refused the player: ${typeof message === 'string' ? message : response.status} Give the player the server's token (--token).`,
      );
    }
    if (response.status >= 500) {
      throw new UnavailableError(
        502,
        'server_error',
        `The Antenna server at ${shown} failed (${response.status}${typeof message === 'string' ? `: ${message}` : ''}).`,
      );
    }
    return { status: response.status, body };
  }

  async file(id: string): Promise<ServerItem> {
    const path = `/dvr/files/${encodeURIComponent(id)}`;
    const answer = await this.request('GET', path);
    if (answer.status === 404) throw new NotFoundError('recording', id);
    const item = this.ok(answer, 'recording', id);
    // Another item's answer is as wrong as no item: what plays must be what was asked for.
    if (!isServerItem.Check(item) || item.id !== id) throw this.badAnswer(path, `the recording '${id}'`);
    return item;
  }

  async channels(): Promise<ServerChannel[]> {
    const path = '/api/v1/channels';
    const channels = this.ok(await this.request('GET', path), 'channel list', '');
    if (!isChannelList.Check(channels)) throw this.badAnswer(path, 'a list of channels');
    return channels;
  }

  /**
   * What is on `number` at `at` (epoch seconds), if the guide knows; nothing when the answer is not a guide (now
   * playing is only a nicety).
   */
  async programmeAt(number: string, at: number): Promise<Programme | undefined> {
    const answer = await this.request(
      'GET',
      `/dvr/channels/${encodeURIComponent(number)}/guide?from=${at}&to=${at + 1}`,
    );
    if (answer.status !== 200 || !isProgrammeList.Check(answer.body)) return undefined;
    return answer.body[0];
  }

  /**
   * A channel as the player plays it: its live buffer on the server (HLS of everything since it was tuned), so a pause
   * resumes behind live from the server's disk, not from the player's memory.
   */
  liveStreamUrl(number: string, from?: number): string {
    const query = from !== undefined ? `?from=${Math.max(0, Math.round(from))}` : '';
    return `${this.baseUrl()}/devices/ANY/channels/${encodeURIComponent(number)}/buffer.m3u8${query}`;
  }

  /**
   * The start (epoch ms) of the first segment of the channel's buffer playlist from `from`: where a player given that
   * URL starts. Asked as the player's mpv asks (its user agent), so the server counts both as one device.
   */
  async liveOrigin(number: string, from: number): Promise<number | undefined> {
    const url = this.liveStreamUrl(number, from);
    try {
      const sentAt = Date.now();
      const response = await fetch(url, {
        headers: { 'user-agent': PLAYER_USER_AGENT },
        // The channel may be tuning: the server waits for its first segment.
        signal: AbortSignal.timeout(LIVE_ORIGIN_TIMEOUT_MS),
      });
      if (!response.ok) return undefined;
      this.noteClock(response, sentAt);
      return bufferSpanOf(await response.text())?.starts[0];
    } catch {
      return undefined;
    }
  }

  /**
   * Where an item streams from: always this server's own stream route, never a URL an
   * answer names (mpv would open anything it is given: local files, other protocols).
   */
  itemStreamUrl(id: string): string {
    return `${this.baseUrl()}/dvr/files/${encodeURIComponent(id)}/stream`;
  }

  async setPlaybackTime(id: string, seconds: number): Promise<void> {
    this.ok(
      await this.request('PUT', `/dvr/files/${encodeURIComponent(id)}/playback_time/${seconds}`, true),
      'recording',
      id,
    );
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

  /**
   * The file the DVR records `number` into now and the moment (epoch seconds) it begins with; undefined when nothing
   * records it, or no bytes came yet (start over plays it when the live buffer does not reach the programme's start).
   */
  async recordingFileOn(number: string): Promise<{ id: string; beginsAt: number } | undefined> {
    const answer = await this.request('GET', `/dvr/channels/${encodeURIComponent(number)}/recording`);
    if (answer.status === 404) return undefined;
    const body = this.ok(answer, 'channel', number) as { file_id?: unknown; file_begins_at?: unknown };
    return typeof body.file_id === 'string' && typeof body.file_begins_at === 'number'
      ? { id: body.file_id, beginsAt: body.file_begins_at }
      : undefined;
  }

  /**
   * The player's registration or heartbeat (GET /dvr/clients/info lists it). The answer says what the player does at a
   * commercial break (undefined from a server too old to say).
   */
  async register(deviceId: string, body: ClientRegistration): Promise<{ commercialSkip?: CommercialSkipMode }> {
    const answer = this.ok(
      await this.request('PUT', `/dvr/clients/${encodeURIComponent(deviceId)}`, true, body),
      'player',
      deviceId,
    ) as { commercial_skip?: unknown } | undefined;
    const mode = answer?.commercial_skip;
    return isCommercialSkipMode(mode) ? { commercialSkip: mode } : {};
  }

  async startRecording(number: string): Promise<void> {
    this.ok(await this.request('POST', `/dvr/channels/${encodeURIComponent(number)}/recording`), 'channel', number);
  }

  async stopRecording(number: string): Promise<void> {
    const answer = await this.request('DELETE', `/dvr/channels/${encodeURIComponent(number)}/recording`);
    if (answer.status !== 404) this.ok(answer, 'channel', number);
  }

  /** A 2xx answer that is not what `path` gives: not an Antenna server, or not the version this player knows. */
  private badAnswer(path: string, expected: string): UnavailableError {
    return new UnavailableError(
      502,
      'bad_server_answer',
      `The Antenna server at ${redactUrl(this.baseUrl())} answered GET ${path} with something other than ${expected}: check that the player's --server is an Antenna server, and that both run the same version.`,
    );
  }

  /** The body of a 2xx answer; a 409 is the server's conflict (no tuner free), a 404 the named thing unknown. */
  private ok(answer: Answer, resource: string, id: string): unknown {
    if (answer.status >= 200 && answer.status < 300) return answer.body;
    const body = answer.body as { code?: unknown; message?: unknown } | undefined;
    const message = typeof body?.message === 'string' ? body.message : `status ${answer.status}`;
    if (answer.status === 409)
      throw new ConflictError(typeof body?.code === 'string' ? body.code : 'server_conflict', message);
    if (answer.status === 404) throw new NotFoundError(resource, id);
    throw new UnavailableError(
      502,
      'server_error',
      `The Antenna server refused a request about ${resource} '${id}': ${message}`,
    );
  }
}
