/**
 * The reads the app makes, as TanStack Query options: one key per resource and
 * filter, so a section opened twice is answered from the cache while it refreshes.
 */
import { queryOptions } from '@tanstack/react-query';
import { api, queryString, seg } from './http-client';
import type {
  Channel,
  Collection,
  FileItem,
  Episode,
  Job,
  Movie,
  Playlist,
  PlayableItem,
  ServerStatus,
  Show,
  Video,
  VideoGroup,
} from './server-types';

export type LibraryList = 'recordings' | 'shows' | 'movies' | 'videos' | 'collections' | 'playlists';

export const libraryQueries = {
  recordings: () =>
    queryOptions({
      queryKey: ['all', 'recordings'],
      queryFn: ({ signal }) =>
        api<PlayableItem[]>(`/api/v1/all${queryString({ source: 'recordings', sort: 'date_added', order: 'desc' })}`, {
          signal,
        }),
    }),
  shows: () => queryOptions({ queryKey: ['shows'], queryFn: ({ signal }) => api<Show[]>('/api/v1/shows', { signal }) }),
  show: (id: string) =>
    queryOptions({
      queryKey: ['shows', id],
      queryFn: ({ signal }) => api<Show>(`/api/v1/shows/${seg(id)}`, { signal }),
    }),
  showEpisodes: (id: string) =>
    queryOptions({
      queryKey: ['shows', id, 'episodes'],
      queryFn: ({ signal }) => api<Episode[]>(`/api/v1/shows/${seg(id)}/episodes`, { signal }),
    }),
  movies: () =>
    queryOptions({ queryKey: ['movies'], queryFn: ({ signal }) => api<Movie[]>('/api/v1/movies', { signal }) }),
  videoGroups: () =>
    queryOptions({
      queryKey: ['video_groups'],
      queryFn: ({ signal }) => api<VideoGroup[]>('/api/v1/video_groups', { signal }),
    }),
  videoGroup: (id: string) =>
    queryOptions({
      queryKey: ['video_groups', id],
      queryFn: ({ signal }) => api<VideoGroup>(`/api/v1/video_groups/${seg(id)}`, { signal }),
    }),
  groupVideos: (id: string) =>
    queryOptions({
      queryKey: ['video_groups', id, 'videos'],
      queryFn: ({ signal }) => api<Video[]>(`/api/v1/video_groups/${seg(id)}/videos`, { signal }),
    }),
  collections: () =>
    queryOptions({
      queryKey: ['collections'],
      queryFn: ({ signal }) => api<Collection[]>('/api/v1/collections', { signal }),
    }),
  collection: (id: string) =>
    queryOptions({
      queryKey: ['collections', id],
      queryFn: ({ signal }) => api<Collection>(`/api/v1/collections/${seg(id)}`, { signal }),
    }),
  collectionContent: (id: string) =>
    queryOptions({
      queryKey: ['collections', id, 'content'],
      queryFn: ({ signal }) => api<Array<PlayableItem | Show>>(`/api/v1/collections/${seg(id)}/content`, { signal }),
    }),
  playlists: () =>
    queryOptions({
      queryKey: ['playlists'],
      queryFn: ({ signal }) => api<Playlist[]>('/api/v1/playlists', { signal }),
    }),
  playlist: (id: string) =>
    queryOptions({
      queryKey: ['playlists', id],
      queryFn: ({ signal }) => api<Playlist>(`/api/v1/playlists/${seg(id)}`, { signal }),
    }),
  playlistContent: (id: string) =>
    queryOptions({
      queryKey: ['playlists', id, 'content'],
      queryFn: ({ signal }) => api<PlayableItem[]>(`/api/v1/playlists/${seg(id)}/content`, { signal }),
    }),
  /** One playable item by id, whatever its kind (the player view's). */
  file: (id: string) =>
    queryOptions({
      queryKey: ['files', id],
      queryFn: ({ signal }) => api<FileItem>(`/dvr/files/${seg(id)}`, { signal }),
    }),
  channels: () =>
    queryOptions({ queryKey: ['channels'], queryFn: ({ signal }) => api<Channel[]>('/api/v1/channels', { signal }) }),
  jobs: () => queryOptions({ queryKey: ['jobs'], queryFn: ({ signal }) => api<Job[]>('/api/v1/jobs', { signal }) }),
  status: () =>
    queryOptions({
      queryKey: ['status'],
      queryFn: ({ signal }) => api<ServerStatus>('/status', { signal }),
      refetchInterval: 10_000,
    }),
};
