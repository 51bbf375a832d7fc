/** What the player plays for a file or a channel, and the programme on a channel now. */
import { useQuery } from '@tanstack/react-query';
import { api, seg } from '../../api/http-client';
import type { Airing } from '../../api/server-types';

/** `ticket`: the player's number for the command that opened it, when one did (see player-bridge). */
export type PlayerSource = ({ kind: 'file'; id: string; start: number } | { kind: 'channel'; number: string }) & {
  ticket?: number | undefined;
};

/**
 * What plays: a file's HLS; a channel's live buffer (pause, rewind, start over), or, when the server says a browser
 * cannot play the channel as it is, the transcoding renditions of the same buffer (`fallback`: its master playlist,
 * whose renditions list the buffer's segments with their times, so pause and rewind work there too).
 */
export function hlsUrlOf(source: PlayerSource): { url: string; fallback?: string } {
  if (source.kind === 'file') return { url: `/dvr/files/${seg(source.id)}/hls/master.m3u8` };
  const channel = `/devices/ANY/channels/${seg(source.number)}`;
  return { url: `${channel}/buffer.m3u8?client=browser`, fallback: `${channel}/hls/master.m3u8` };
}

/** How far back the player asks for a channel's programmes: a live buffer's default depth. */
const GUIDE_BACK_SECONDS = 4 * 3600;

/**
 * A channel's programmes from the buffer's reach (four hours back) to the next hour, and the one on now (its start,
 * for "start over"); refreshed each minute.
 */
export function useChannelProgrammes(number: string | undefined): { now: Airing | undefined; airings: Airing[] } {
  // Whole minutes: the query's key changes once a minute, not at every render.
  const minute = Math.floor(Date.now() / 60_000) * 60;
  const guide = useQuery({
    queryKey: ['channel-guide-live', number, minute],
    queryFn: ({ signal }) =>
      api<Airing[]>(
        `/dvr/channels/${seg(number ?? '')}/guide?from=${minute - GUIDE_BACK_SECONDS}&to=${minute + 3600}`,
        { signal },
      ),
    enabled: number !== undefined,
    placeholderData: (previous) => previous,
    refetchInterval: 60_000,
  });
  const now = Date.now() / 1000;
  const airings = guide.data ?? [];
  return { now: airings.find((airing) => airing.start_time <= now && airing.end_time > now), airings };
}
