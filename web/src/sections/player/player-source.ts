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
 * cannot play the channel as it is, its transcoding renditions (`fallback`, without rewinding).
 */
export function hlsUrlOf(source: PlayerSource): { url: string; fallback?: string } {
  if (source.kind === 'file') return { url: `/dvr/files/${seg(source.id)}/hls/master.m3u8` };
  const channel = `/devices/ANY/channels/${seg(source.number)}`;
  return { url: `${channel}/buffer.m3u8?client=browser`, fallback: `${channel}/hls/master.m3u8` };
}

/** The programme on a channel now (its start, for "start over"); refreshed each minute. */
export function useProgrammeNow(number: string | undefined): Airing | undefined {
  const guide = useQuery({
    queryKey: ['channel-guide-now', number],
    queryFn: ({ signal }) => api<Airing[]>(`/dvr/channels/${seg(number ?? '')}/guide`, { signal }),
    enabled: number !== undefined,
    refetchInterval: 60_000,
  });
  const now = Date.now() / 1000;
  return guide.data?.find((airing) => airing.start_time <= now && airing.end_time > now);
}
