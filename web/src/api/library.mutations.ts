/**
 * The changes the app makes to the library: watch state, favorites, deleting a
 * recording. Each refreshes what it may have changed once the server confirms it.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, seg } from './http-client';
import type { PlayableItem } from './server-types';

export function useItemChanges(id: string) {
  const client = useQueryClient();
  // Lists, counts and the item itself may all show the change: refetch what is on screen.
  const settled = () => client.invalidateQueries();
  return {
    watched: useMutation({
      mutationFn: (watched: boolean) =>
        api<PlayableItem>(`/dvr/files/${seg(id)}/${watched ? 'watch' : 'unwatch'}`, { method: 'PUT' }),
      onSettled: settled,
    }),
    favorite: useMutation({
      mutationFn: (favorited: boolean) =>
        api<PlayableItem>(`/dvr/files/${seg(id)}`, { method: 'PATCH', body: { favorited } }),
      onSettled: settled,
    }),
    // The deleted item's own query is dropped, not fetched again for a 404 while the page leaves.
    remove: useMutation({
      mutationFn: () => api<void>(`/dvr/files/${seg(id)}`, { method: 'DELETE' }),
      onSuccess: () => client.removeQueries({ queryKey: ['files', id] }),
      onSettled: () =>
        client.invalidateQueries({
          predicate: (query) => !(query.queryKey[0] === 'files' && query.queryKey[1] === id),
        }),
    }),
  };
}

/** Where playback stands, as the player reports it (interface A's playback_time). */
export function reportPosition(id: string, seconds: number): Promise<unknown> {
  return api(`/dvr/files/${seg(id)}/playback_time/${Math.max(0, seconds).toFixed(1)}`, {
    method: 'PUT',
    interactive: false,
  });
}

export function reportWatched(id: string): Promise<unknown> {
  return api(`/dvr/files/${seg(id)}/watch`, { method: 'PUT', interactive: false });
}
