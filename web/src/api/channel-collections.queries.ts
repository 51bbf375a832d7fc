/** Channel collections: the favorites, then those the user makes in Settings, and the changes to them. */
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, seg } from './http-client';
import type { ChannelCollection, ChannelCollectionBody } from './server-types';

const KEY = ['dvr', 'channel-collections'] as const;

export const channelCollectionQueries = {
  list: () =>
    queryOptions({
      queryKey: KEY,
      queryFn: ({ signal }) => api<ChannelCollection[]>('/dvr/collections/channels', { signal }),
    }),
};

export function useChannelCollectionChanges() {
  const client = useQueryClient();
  const settled = () => client.invalidateQueries({ queryKey: KEY });
  return {
    save: useMutation({
      mutationFn: ({ id, body }: { id?: string; body: ChannelCollectionBody }) =>
        id === undefined
          ? api<ChannelCollection>('/dvr/collections/channels', { method: 'POST', body })
          : api<ChannelCollection>(`/dvr/collections/channels/${seg(id)}`, { method: 'PUT', body }),
      onSettled: settled,
    }),
    remove: useMutation({
      mutationFn: (id: string) => api<void>(`/dvr/collections/channels/${seg(id)}`, { method: 'DELETE' }),
      onSettled: settled,
    }),
  };
}
