/**
 * The guide's reads and writes: pages of `GET /dvr/guide` (channels × a window of
 * time), recording rules made from a programme, favorites and skipping a job. Every
 * change refetches the guide pages on screen, so their job marks follow.
 */
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, queryString, seg } from './http-client';
import type { GuidePage, RuleBody } from './server-types';

export interface GuideWindow {
  start: number;
  end: number;
  offset: number;
  limit: number;
  favorites?: boolean;
}

export const guideQueries = {
  page: (w: GuideWindow) =>
    queryOptions({
      queryKey: ['guide', w.start, w.end, w.offset, w.limit, Boolean(w.favorites)],
      queryFn: ({ signal }) =>
        api<GuidePage>(
          `/dvr/guide${queryString({ start: w.start, end: w.end, offset: w.offset, limit: w.limit, favorites: w.favorites || undefined })}`,
          { signal },
        ),
      // The guide changes at a refresh (twice a day) or when a rule is added (refetched then).
      staleTime: 60_000,
    }),
};

function useGuideRefresh() {
  const client = useQueryClient();
  return () =>
    Promise.all([
      client.invalidateQueries({ queryKey: ['guide'] }),
      client.invalidateQueries({ queryKey: ['jobs'] }),
      client.invalidateQueries({ queryKey: ['channels'] }),
    ]);
}

/** Adds a recording rule (`POST /dvr/rules`); the server plans its jobs at once. */
export function useAddRule() {
  const refresh = useGuideRefresh();
  return useMutation({
    mutationFn: (body: RuleBody) => api<unknown>('/dvr/rules', { method: 'POST', body }),
    onSuccess: refresh,
  });
}

/** Skips a planned job, or stops one recording (`DELETE /dvr/jobs/:id`). */
export function useSkipJob() {
  const refresh = useGuideRefresh();
  return useMutation({
    mutationFn: (id: string) => api<void>(`/dvr/jobs/${seg(id)}`, { method: 'DELETE' }),
    onSuccess: refresh,
  });
}

/** Makes a channel a favorite or not (`PUT`/`DELETE /dvr/channels/:number/favorite`). */
export function useFavoriteChannel() {
  const refresh = useGuideRefresh();
  return useMutation({
    mutationFn: ({ number, favorite }: { number: string; favorite: boolean }) =>
      api<void>(`/dvr/channels/${seg(number)}/favorite`, { method: favorite ? 'PUT' : 'DELETE' }),
    onSettled: refresh,
  });
}
