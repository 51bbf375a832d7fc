/**
 * The DVR's changes: passes, jobs, recordings in progress, sources, guides, refreshes
 * and scans. Each refreshes what it may have changed once the server answers (a rule
 * change re-plans the jobs; a source change, the channels).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, queryString, seg } from './http-client';
import type {
  GuideRefresh,
  JobRefBody,
  RefreshResult,
  RuleBody,
  ScansQueued,
  Source,
  SourceBody,
  SourceRefresh,
  Guide,
  StoredRule,
} from './server-types';

/** Everything the DVR shows may follow from one change: refetch what is on screen. */
function useSettled() {
  const client = useQueryClient();
  return () => client.invalidateQueries();
}

export function useRuleChanges() {
  const settled = useSettled();
  return {
    save: useMutation({
      mutationFn: ({ id, body }: { id?: string; body: RuleBody }) =>
        id === undefined
          ? api<StoredRule>('/dvr/rules', { method: 'POST', body })
          : api<StoredRule>(`/dvr/rules/${seg(id)}`, { method: 'PUT', body }),
      onSettled: settled,
    }),
    remove: useMutation({
      mutationFn: (id: string) => api<void>(`/dvr/rules/${seg(id)}`, { method: 'DELETE' }),
      onSettled: settled,
    }),
  };
}

export function useJobChanges() {
  const settled = useSettled();
  return {
    /** Skips a planned job (it stays skipped), or stops it when it records. */
    cancel: useMutation({
      mutationFn: (id: string) => api<void>(`/dvr/jobs/${seg(id)}`, { method: 'DELETE' }),
      onSettled: settled,
    }),
    /** Records what is on a channel now, from its start when the channel's live buffer holds it. */
    record: useMutation({
      mutationFn: (channel: string) => api<JobRefBody>(`/dvr/channels/${seg(channel)}/recording`, { method: 'POST' }),
      onSettled: settled,
    }),
    /** Stops what records a channel now; what it wrote is kept. */
    stop: useMutation({
      mutationFn: (channel: string) => api<void>(`/dvr/channels/${seg(channel)}/recording`, { method: 'DELETE' }),
      onSettled: settled,
    }),
  };
}

export function useSourceChanges() {
  const settled = useSettled();
  return {
    addSource: useMutation({
      mutationFn: (body: SourceBody) => api<Source>('/dvr/sources', { method: 'POST', body }),
      onSettled: settled,
    }),
    removeSource: useMutation({
      mutationFn: (id: string) => api<void>(`/dvr/sources/${seg(id)}`, { method: 'DELETE' }),
      onSettled: settled,
    }),
    addGuide: useMutation({
      mutationFn: (location: string) => api<Guide>('/dvr/guides', { method: 'POST', body: { location } }),
      onSettled: settled,
    }),
    removeGuide: useMutation({
      mutationFn: (id: string) => api<void>(`/dvr/guides/${seg(id)}`, { method: 'DELETE' }),
      onSettled: settled,
    }),
    refresh: useMutation({
      mutationFn: () => api<RefreshResult>('/dvr/refresh', { method: 'POST' }),
      onSettled: settled,
    }),
    scan: useMutation({
      mutationFn: () => api<ScansQueued>('/dvr/scans', { method: 'POST', body: {} }),
      onSettled: settled,
    }),
  };
}

interface EntryRefreshes {
  source: SourceRefresh;
  guide: GuideRefresh;
}

/**
 * One source's or guide's refresh. The server answers 200 whether it applied it or not
 * (`error`, `rejected`, `needs_confirmation`); `accept` applies one held back only because
 * it empties the source or guide or removes more than half of it.
 */
export function useEntryRefresh<K extends keyof EntryRefreshes>(kind: K) {
  const settled = useSettled();
  return useMutation({
    mutationFn: ({ id, accept }: { id: string; accept?: boolean }) =>
      api<EntryRefreshes[K]>(`/dvr/${kind}s/${seg(id)}/refresh${queryString({ accept: accept || undefined })}`, {
        method: 'POST',
      }),
    onSettled: settled,
  });
}
