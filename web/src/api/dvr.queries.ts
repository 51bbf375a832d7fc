/**
 * The DVR's reads as TanStack Query options: passes (rules), sources, guides and the
 * recordings folder. Jobs and the server's status are the library's queries (one
 * cache entry each, whichever section shows them).
 */
import { queryOptions } from '@tanstack/react-query';
import { api } from './http-client';
import type { DvrInfo, Guide, RuleTypeInfo, Source, StoredRule } from './server-types';

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
  /** Where it records and the free space there: refreshed now and then, as recordings fill the disk. */
  info: () =>
    queryOptions({
      queryKey: ['dvr', 'info'],
      queryFn: ({ signal }) => api<DvrInfo>('/dvr', { signal }),
      refetchInterval: 30_000,
    }),
};
