/**
 * The server as a client of a player's interface B: "Play on…" and notifications. A
 * player that cannot be reached, answers late or fails is a 502/504 naming it; what it
 * refuses (an unknown recording, 404; a conflict, 409) is passed on with its message.
 */
import { BadRequestError, ConflictError, NotFoundError, UnavailableError } from '../common/errors.js';
import type { PlayOnBody } from '../model/players/client.schemas.js';
import type { PlayerStatusBody } from '../model/players/player-status.schemas.js';
import { interfaceBUrl } from './client-address.js';

/** A channel's tune waits for its first segment on the server (up to 15 s). */
const PLAYER_TIMEOUT_MS = 20_000;

/** Interface B's path for what to play (pure). */
export function playPath(what: PlayOnBody): string {
  if ((what.item_id === undefined) === (what.channel === undefined))
    throw new BadRequestError('item_id', 'Give either item_id (a recording, episode, movie or video) or channel.');
  return what.item_id !== undefined
    ? `/api/play/recording/${encodeURIComponent(what.item_id)}`
    : `/api/play/channel/${encodeURIComponent(what.channel as string)}`;
}

interface PlayerAddress {
  name: string;
  local_ip: string;
  port: number;
}

const isStatus = (body: unknown): body is PlayerStatusBody =>
  typeof body === 'object' &&
  body !== null &&
  typeof (body as { status?: unknown }).status === 'string' &&
  ['playing', 'paused', 'stopped'].includes((body as { status: string }).status) &&
  typeof (body as { muted?: unknown }).muted === 'boolean';

export async function callPlayer(player: PlayerAddress, path: string, body?: object): Promise<PlayerStatusBody> {
  const url = interfaceBUrl(player.local_ip, player.port, path);
  const where = `${player.name} (${player.local_ip}:${player.port})`;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: body ? { 'content-type': 'application/json' } : {},
      ...(body ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(PLAYER_TIMEOUT_MS),
      // A player answers; it never sends the server elsewhere.
      redirect: 'error',
    });
    text = await response.text();
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError')
      throw new UnavailableError(504, 'player_timeout', `The player ${where} did not answer within 20 s.`);
    const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : '';
    throw new UnavailableError(
      502,
      'player_unreachable',
      `The player ${where} cannot be reached (${cause}): check that it runs and is on the network.`,
    );
  }
  let answer: { message?: unknown; code?: unknown } | undefined;
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    answer = undefined;
  }
  if (response.ok && isStatus(answer)) return answer;
  if (response.ok)
    throw new UnavailableError(
      502,
      'player_failed',
      `The player ${where} answered with something other than a player status.`,
    );
  const message = typeof answer?.message === 'string' ? answer.message : `status ${response.status}`;
  if (response.status === 404)
    throw new NotFoundError(
      path.includes('/recording/') ? 'recording' : 'channel',
      decodeURIComponent(path.split('/').pop() ?? ''),
    );
  if (response.status === 400) throw new BadRequestError('player', `The player ${where} refused: ${message}`);
  if (response.status === 409)
    throw new ConflictError(typeof answer?.code === 'string' ? answer.code : 'player_conflict', message);
  throw new UnavailableError(502, 'player_failed', `The player ${where} refused: ${message}`);
}
