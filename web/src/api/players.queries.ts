/**
 * The players the server knows (TVs running `antenna player`): the list, refreshed as
 * their heartbeats come, and what the app asks of them: play something there, forget one.
 */
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, seg } from './http-client';
import type { ClientInfo, PlaybackSettings, PlayerSettingsBody, PlayOnBody } from './server-types';

export const playersQueries = {
  list: () =>
    queryOptions({
      queryKey: ['dvr', 'clients'],
      queryFn: ({ signal }) => api<ClientInfo[]>('/dvr/clients/info', { signal }),
      refetchInterval: 10_000,
    }),
  /** The household's playback settings (what the app does at a commercial break). */
  playback: () =>
    queryOptions({
      queryKey: ['dvr', 'settings', 'playback'],
      queryFn: ({ signal }) => api<PlaybackSettings>('/dvr/settings/playback', { signal }),
      staleTime: 60_000,
    }),
};

export function usePlaybackSettingsChanges() {
  const client = useQueryClient();
  return {
    household: useMutation({
      mutationFn: (body: PlaybackSettings) => api<PlaybackSettings>('/dvr/settings/playback', { method: 'PUT', body }),
      onSuccess: (settings) => {
        client.setQueryData(playersQueries.playback().queryKey, settings);
        // A player without its own mode follows the household's: the list shows it.
        void client.invalidateQueries({ queryKey: ['dvr', 'clients'] });
      },
    }),
    player: useMutation({
      mutationFn: ({ deviceId, body }: { deviceId: string; body: PlayerSettingsBody }) =>
        api<ClientInfo>(`/dvr/clients/${seg(deviceId)}/settings`, { method: 'PUT', body }),
      onSettled: () => client.invalidateQueries({ queryKey: ['dvr', 'clients'] }),
    }),
  };
}

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
