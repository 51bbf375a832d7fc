/**
 * The lineup as the user shapes it (`/dvr/lineup`): every channel, hidden ones too, with
 * its source's values and the user's edits; the groups; and the changes: one channel
 * (PATCH), a group hidden, shown or renumbered, a guide's priority. A channel's answer
 * goes into the list at once (a row changes as soon as the server agrees), then
 * everything is fetched again: the order (by number), the groups' counts, and what the
 * guide, Live TV and the jobs show all follow from one change.
 */
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, seg } from './http-client';
import type { Guide, GuideEdit, LineupChannel, LineupEdit, LineupGroup, RenumberBody } from './server-types';

const CHANNELS = ['lineup', 'channels'] as const;

export const lineupQueries = {
  channels: () =>
    queryOptions({ queryKey: CHANNELS, queryFn: ({ signal }) => api<LineupChannel[]>('/dvr/lineup', { signal }) }),
  groups: () =>
    queryOptions({
      queryKey: ['lineup', 'groups'],
      queryFn: ({ signal }) => api<LineupGroup[]>('/dvr/lineup/groups', { signal }),
    }),
};

/** The channels the server answered, put in the cached list in place of the old ones. */
function useMerge() {
  const client = useQueryClient();
  return (changed: readonly LineupChannel[]) => {
    const byId = new Map(changed.map((channel) => [channel.id, channel]));
    client.setQueryData<LineupChannel[]>(CHANNELS, (list) => list?.map((channel) => byId.get(channel.id) ?? channel));
    return client.invalidateQueries();
  };
}

export type GroupAction =
  | { group: string; action: 'hide' | 'show' }
  | { group: string; action: 'renumber'; start: number };

export function useLineupChanges() {
  const merge = useMerge();
  const client = useQueryClient();
  return {
    /** One channel: each field given is set, null gives it back to the source. */
    edit: useMutation({
      mutationFn: ({ id, change }: { id: string; change: LineupEdit }) =>
        api<LineupChannel>(`/dvr/lineup/${seg(id)}`, { method: 'PATCH', body: change }),
      onSuccess: (channel) => merge([channel]),
    }),
    /** A group at once: hidden, shown, or its visible channels numbered from `start`. */
    group: useMutation({
      mutationFn: (change: GroupAction) =>
        api<LineupChannel[]>(`/dvr/lineup/groups/${seg(change.group)}/${change.action}`, {
          method: 'POST',
          ...(change.action === 'renumber' ? { body: { start: change.start } satisfies RenumberBody } : {}),
        }),
      onSuccess: (channels) => merge(channels),
    }),
    /** Where guides describe one channel, the one with the lowest priority gives its programmes. */
    guidePriority: useMutation({
      mutationFn: ({ id, priority }: { id: string; priority: number }) =>
        api<Guide>(`/dvr/guides/${seg(id)}`, { method: 'PATCH', body: { priority } satisfies GuideEdit }),
      onSettled: () => client.invalidateQueries(),
    }),
  };
}
