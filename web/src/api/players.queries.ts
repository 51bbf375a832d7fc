/**
 * The players the server knows (TVs running `antenna player`): the list, refreshed as
 * their heartbeats come, and what the app asks of them: play something there, forget one.
 */
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, seg } from './http-client';
import type { ClientInfo, PlayOnBody } from './server-types';

export const playersQueries = {
  list: () =>
    queryOptions({
      queryKey: ['dvr', 'clients'],
      queryFn: ({ signal }) => api<ClientInfo[]>('/dvr/clients/info', { signal }),
      refetchInterval: 10_000,
    }),
};

export function usePlayerChanges() {
  const client = useQueryClient();
  const settled = () => client.invalidateQueries({ queryKey: ['dvr', 'clients'] });
  return {
    playOn: useMutation({
      mutationFn: ({ deviceId, body }: { deviceId: string; body: PlayOnBody }) =>
        api<ClientInfo['status']>(`/dvr/clients/${seg(deviceId)}/play`, { method: 'POST', body }),
      onSettled: settled,
    }),
    forget: useMutation({
      mutationFn: (deviceId: string) => api<void>(`/dvr/clients/${seg(deviceId)}`, { method: 'DELETE' }),
      onSettled: settled,
    }),
  };
}
