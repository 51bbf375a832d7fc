/**
 * Interface A's reads: one method per endpoint, each a query on the store and a
 * mapping to resources. Unknown ids raise NotFoundError.
 */
import type { Db } from '../db/database.js';
import { NotFoundError } from '../common/errors.js';
import { getJob, listJobs } from '../dvr/jobs.repository.js';
import { listChannels } from '../dvr/channels.repository.js';
import { type CollectionType, getCollection, getPlaylist, listCollections, listPlaylists } from './collections.repository.js';
import { getItem, type ItemKind, type ItemScope, listItems } from './items.repository.js';
import type {
  Channel,
  Collection,
  ContentItem,
  Episode,
  Job,
  Movie,
  Playlist,
  Show,
  Video,
  VideoGroup,
} from './library.schemas.js';
import type { DefaultItemOrder, ItemFilter, ItemSort, ParentFilter, ParentSort, SortRequest } from './list-query.js';
import { countLibrary, type LibraryCounts, libraryGeneration } from './library-state.repository.js';
import { getParent, listParents, type ParentKind } from './parents.repository.js';
import {
  type MapContext,
  toChannel,
  toCollection,
  toContentItem,
  toEpisode,
  toJob,
  toMovie,
  toPlaylist,
  toShow,
  toVideo,
  toVideoGroup,
} from './resource-mappers.js';

export type ItemQuery = ItemFilter & SortRequest<ItemSort>;
export type ParentQuery = ParentFilter & SortRequest<ParentSort>;

export class LibraryService {
  constructor(private readonly db: Db) {}

  /** Changes whenever anything in the library may have changed (see libraryGeneration). */
  generation(): string {
    return libraryGeneration(this.db);
  }

  counts(): LibraryCounts {
    return countLibrary(this.db);
  }

  listShows(query: ParentQuery, context: MapContext): Show[] {
    return listParents(this.db, 'show', query, query).map((row) => toShow(row, context));
  }

  getShow(id: string, context: MapContext): Show {
    return toShow(this.requireParent('show', id), context);
  }

  listShowEpisodes(id: string, query: ItemQuery, context: MapContext): Episode[] {
    this.requireParent('show', id);
    return this.items({ showId: id }, query, 'natural').map((row) => toEpisode(row, context));
  }

  listEpisodes(query: ItemQuery, context: MapContext): Episode[] {
    return this.items({ kind: 'episode' }, query, 'date_added').map((row) => toEpisode(row, context));
  }

  getEpisode(id: string, context: MapContext): Episode {
    return toEpisode(this.requireItem('episode', id), context);
  }

  listMovies(query: ItemQuery, context: MapContext): Movie[] {
    return this.items({ kind: 'movie' }, query, 'alpha').map((row) => toMovie(row, context));
  }

  getMovie(id: string, context: MapContext): Movie {
    return toMovie(this.requireItem('movie', id), context);
  }

  listVideoGroups(query: ParentQuery, context: MapContext): VideoGroup[] {
    return listParents(this.db, 'video_group', query, query).map((row) => toVideoGroup(row, context));
  }

  getVideoGroup(id: string, context: MapContext): VideoGroup {
    return toVideoGroup(this.requireParent('video_group', id), context);
  }

  listGroupVideos(id: string, query: ItemQuery, context: MapContext): Video[] {
    this.requireParent('video_group', id);
    return this.items({ videoGroupId: id }, query, 'natural').map((row) => toVideo(row, context));
  }

  listVideos(query: ItemQuery, context: MapContext): Video[] {
    return this.items({ kind: 'video' }, query, 'date_added').map((row) => toVideo(row, context));
  }

  getVideo(id: string, context: MapContext): Video {
    return toVideo(this.requireItem('video', id), context);
  }

  /** Every episode, movie and video, each in its own shape. */
  listAll(query: ItemQuery, context: MapContext): ContentItem[] {
    return this.items({ all: true }, query, 'date_added').map((row) => toContentItem(row, context));
  }

  listCollections(type: CollectionType | undefined, context: MapContext): Collection[] {
    return listCollections(this.db, type).map((row) => toCollection(row, context));
  }

  getCollection(id: string, context: MapContext): Collection {
    return toCollection(this.requireCollection(id), context);
  }

  /** A movies collection's movies, or the episodes of a shows collection's shows. */
  listCollectionContent(id: string, query: ItemQuery, context: MapContext): ContentItem[] {
    const collection = this.requireCollection(id);
    const scope = { collectionId: id, collectionType: collection.collection_type };
    const fallback = collection.collection_type === 'movies' ? 'alpha' : 'show_natural';
    return this.items(scope, query, fallback).map((row) => toContentItem(row, context));
  }

  listPlaylists(): Playlist[] {
    return listPlaylists(this.db).map(toPlaylist);
  }

  getPlaylist(id: string): Playlist {
    const row = getPlaylist(this.db, id);
    if (!row) throw new NotFoundError('playlist', id);
    return toPlaylist(row);
  }

  /** The playlist's items in its own order, unless a sort is given. */
  listPlaylistContent(id: string, query: ItemQuery, context: MapContext): ContentItem[] {
    this.getPlaylist(id);
    return this.items({ playlistId: id }, query, 'position').map((row) => toContentItem(row, context));
  }

  listJobs(context: MapContext): Job[] {
    return listJobs(this.db).map((row) => toJob(row, context));
  }

  getJob(id: string, context: MapContext): Job {
    const row = getJob(this.db, id);
    if (!row) throw new NotFoundError('job', id);
    return toJob(row, context);
  }

  listChannels(context: MapContext): Channel[] {
    return listChannels(this.db).map((row) => toChannel(row, context));
  }

  private items(scope: ItemScope, query: ItemQuery, fallback: ItemSort | DefaultItemOrder) {
    return listItems(this.db, scope, query, query, fallback);
  }

  private requireParent(kind: ParentKind, id: string) {
    const row = getParent(this.db, kind, id);
    if (!row) throw new NotFoundError(kind === 'show' ? 'show' : 'video group', id);
    return row;
  }

  private requireItem(kind: ItemKind, id: string) {
    const row = getItem(this.db, id, kind);
    if (!row) throw new NotFoundError(kind, id);
    return row;
  }

  private requireCollection(id: string) {
    const row = getCollection(this.db, id);
    if (!row) throw new NotFoundError('collection', id);
    return row;
  }
}
