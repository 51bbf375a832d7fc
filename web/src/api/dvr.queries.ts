/**
 * The DVR's reads as TanStack Query options: passes (rules), sources, guides and the
 * recordings folder. Jobs and the server's status are the library's queries (one
 * cache entry each, whichever section shows them).
 */
import { queryOptions } from '@tanstack/react-query';
import { ApiError, api, seg } from './http-client';
import type { DvrInfo, Guide, JobRefBody, RuleTypeInfo, Source, StoredRule } from './server-types';

export const dvrQueries = {
  rules: () =>
    queryOptions({ queryKey: ['dvr', 'rules'], queryFn: ({ signal }) => api<StoredRule[]>('/dvr/rules', { signal }) }),
  /** The kinds of pass and their fields: the server's table, fixed while it runs. */
  ruleTypes: () =>
    queryOptions({
      queryKey: ['dvr', 'rule-types'],
      queryFn: ({ signal }) => api<RuleTypeInfo[]>('/dvr/rule-types', { signal }),
      staleTime: Infinity,
    }),
  sources: () =>
    queryOptions({ queryKey: ['dvr', 'sources'], queryFn: ({ signal }) => api<Source[]>('/dvr/sources', { signal }) }),
  guides: () =>
    queryOptions({ queryKey: ['dvr', 'guides'], queryFn: ({ signal }) => api<Guide[]>('/dvr/guides', { signal }) }),
  /** What records a channel now: its job, or null when nothing does (the server's 404 not_recording). */
  recordingOn: (channel: string) =>
    queryOptions({
      queryKey: ['dvr', 'recording-on', channel],
      queryFn: ({ signal }) =>
        api<JobRefBody>(`/dvr/channels/${seg(channel)}/recording`, { signal }).catch((error: unknown) => {
          if (error instanceof ApiError && error.status === 404) return null;
          throw error;
        }),
      refetchInterval: 15_000,
    }),
  /** Where it records and the free space there: refreshed now and then, as recordings fill the disk. */
  info: () =>
    queryOptions({
      queryKey: ['dvr', 'info'],
      queryFn: ({ signal }) => api<DvrInfo>('/dvr', { signal }),
      refetchInterval: 30_000,
    }),
};
