/**
 * `GET /dvr/search` as a TanStack Query option: one key per query text, and the
 * previous answer kept on screen while the next one loads, so results do not blink
 * away at every pause in typing.
 */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { api, queryString } from './http-client';
import type { SearchResults } from './server-types';

export const searchQueries = {
  search: (q: string) =>
    queryOptions({
      queryKey: ['search', q],
      queryFn: ({ signal }) => api<SearchResults>(`/dvr/search${queryString({ q })}`, { signal }),
      placeholderData: keepPreviousData,
    }),
};
