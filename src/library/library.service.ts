/**
 * Interface A's reads: one method per endpoint, each a query on the store and a
 * mapping to resources. Playable items (episodes, movies, videos) come back as the
 * JSON bytes SQLite wrote for them (see item-projection.ts); the other resources as
 * objects. Unknown ids raise NotFoundError.
 */
import type { Db } from '../db/database.js';
import type { ItemStateLog } from '../common/item-state-log.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../common/errors.js';
import { PathBoundary, type ServedFile } from '../common/path-boundary.js';
import { imageTypeOf, readLeadingBytes } from '../common/file-signature.js';
import {
  countJobsByState,
  getJobJson,
  type JobCountState,
  jobWriteCount,
  listJobsJson,
} from '../repositories/dvr/jobs.repository.js';
import { checkDatabaseReadable } from '../repositories/health.repository.js';
import { listChannels } from '../repositories/dvr/channels.repository.js';
import {
  type CollectionType,
  getCollection,
  getPlaylist,
  listCollections,
  listPlaylists,
} from '../repositories/library/collections.repository.js';
import {
  getItemJson,
  type ItemScope,
  listItemsJson,
  type ListShape,
} from '../repositories/library/items.repository.js';
import type { Channel, Collection, Playlist, Show, VideoGroup } from '../model/library/library.schemas.js';
import type {
  DefaultItemOrder,
  ItemFilter,
  ItemSort,
  ParentFilter,
  ParentSort,
  SortRequest,
} from '../model/list-query.js';
import {
  getArtworkPath,
  getThumbnailPath,
  listNotMediaFiles,
  type NotMediaFile,
} from '../repositories/library/import-files.repository.js';
import {
  countLibrary,
  dataVersion,
  type LibraryCounts,
  totalChanges,
} from '../repositories/library/library-state.repository.js';
import { getParent, listParents, type ParentKind } from '../repositories/library/parents.repository.js';
import { matchExpression, searchLibrary } from '../repositories/library/search.repository.js';
import { type MapContext, toChannel, toCollection, toPlaylist, toShow, toVideoGroup } from './resource-mappers.js';

export type ItemQuery = ItemFilter & SortRequest<ItemSort>;

/** How long a read of another process's commits stays valid. */
export const DEFAULT_EXTERNAL_CHECK_INTERVAL_MS = 500;

export interface LibraryServiceOptions {
  /** Re-read data_version (other processes' commits) at most this often; 0: on every call. */
  externalCheckIntervalMs?: number;
  /** Monotonic milliseconds; tests replace it. */
  now?: () => number;
  /**
   * Item state writes left out of the generation (their answers are patched in the cache): see
   * common/item-state-log.ts.
   */
  stateLog?: ItemStateLog;
  /** Where artwork may be read from (the import roots); default: nowhere. */
  boundary?: PathBoundary;
}
export type ParentQuery = ParentFilter & SortRequest<ParentSort>;

/** What a search found in the library: parents as resources, playable items as their JSON bytes. */
export interface LibraryMatches {
  shows: Show[];
  video_groups: VideoGroup[];
  episodes: Buffer[];
  movies: Buffer[];
  videos: Buffer[];
}

export class LibraryService {
  /**
   * Moves when another connection's commit was seen (data_version changed), unless it was said to be unseen by readers.
   */
  private externalEpoch = 0;
  /**
   * Moves when a commit not said to be this process's was seen: what jobsGeneration follows beside this process's own
   * writes.
   */
  private otherProcessEpoch = 0;
  private lastDataVersion: number | undefined;
  private externalCheckedAt = Number.NEGATIVE_INFINITY;
  private readonly externalCheckIntervalMs: number;
  private readonly now: () => number;
  private readonly boundary: PathBoundary;
  readonly stateLog: ItemStateLog | undefined;

  constructor(
    private readonly db: Db,
    options: LibraryServiceOptions = {},
  ) {
    this.externalCheckIntervalMs = options.externalCheckIntervalMs ?? DEFAULT_EXTERNAL_CHECK_INTERVAL_MS;
    this.now = options.now ?? (() => performance.now());
    this.boundary = options.boundary ?? PathBoundary.closed();
    this.stateLog = options.stateLog;
  }

  /**
   * A value that changes whenever the library may have changed, so caches keyed on it
   * never serve stale data and no write path has to remember to invalidate anything.
   * Every row this process writes bumps total_changes() at once (a 0.1 µs read).
   * Commits by other processes move data_version, whose read opens a read
   * transaction with file-lock system calls: per request, that alone halved the
   * throughput of small answers, so it is read at most once per interval. Antenna
   * itself writes only through this process; another process's writes (a user's
   * sqlite3 shell, say) show within the interval. Item state writes logged in
   * `stateLog` are left out: the cache patches the answers holding those items.
   */
  generation(): string {
    this.checkExternalWrites();
    return `${totalChanges(this.db) - (this.stateLog?.rowsChanged ?? 0)}.${this.externalEpoch}`;
  }

  /**
   * generation() for the answers built from the jobs table alone (/api/v1/jobs): it moves
   * when this process writes that table (jobs.repository.ts counts its writes) or another
   * process's commit is seen, not at other writes, nor at a guide refresh's swap (its
   * thread never writes jobs). A re-plan after a refresh would otherwise find the list
   * built again two or three times over, each a stall of every request behind it.
   */
  jobsGeneration(): string {
    this.checkExternalWrites();
    return `jobs.${jobWriteCount(this.db)}.${this.otherProcessEpoch}`;
  }

  private checkExternalWrites(): void {
    const now = this.now();
    if (now - this.externalCheckedAt < this.externalCheckIntervalMs) return;
    const version = dataVersion(this.db);
    if (version !== this.lastDataVersion) {
      this.externalEpoch++;
      this.otherProcessEpoch++;
    }
    this.lastDataVersion = version;
    this.externalCheckedAt = now;
  }

  /**
   * Other connections' commits so far changed nothing a list shows: this process's guide
   * refresh thread writing rows no reader sees until its swap (repositories/dvr/guide-writer.ts).
   * Without this, each of its commits (every ~40 ms for half a minute) would throw away
   * every cached list. A commit by another process in the same moment is taken for the
   * refresh's until the refresh says it has ended (externalWritesSeen, whatever came of it).
   */
  externalWritesUnseen(): void {
    this.lastDataVersion = dataVersion(this.db);
    this.externalCheckedAt = this.now();
  }

  /**
   * Another connection of this process committed what lists may show (a guide refresh's swap), or has ended (what it
   * took for its own may not all have been): the cached lists are stale.
   */
  externalWritesSeen(): void {
    this.externalEpoch++;
    // Its commits are accounted for here: the jobs' answers (jobsGeneration), which no such connection writes, stay.
    this.lastDataVersion = dataVersion(this.db);
    this.externalCheckedAt = this.now();
  }

  /**
   * The real path of the image behind an item's or show's `/artwork/<id>` URL, if the
   * importer found one (undefined when not). Checked at every request, since the file
   * may have changed since the scan: it must resolve inside the library (403) and its
   * bytes must be a JPEG or PNG (409); one gone from disk is a 404.
   */
  artworkFile(id: string): ServedFile | undefined {
    const path = getArtworkPath(this.db, id);
    if (path === undefined) return undefined;
    const resolved = this.boundary.resolveFile(path);
    if (!resolved.ok) {
      if (resolved.reason === 'outside')
        throw new ForbiddenError(
          'outside_library',
          `The artwork of '${id}' leads outside the library folders; Antenna serves only files inside its import roots.`,
        );
      if (resolved.reason === 'not_a_file')
        throw new ConflictError(
          'not_an_image',
          `The artwork of '${id}' is not a regular file; replace it with a JPEG or PNG image and rescan.`,
        );
      throw new NotFoundError('artwork file on disk for item', id);
    }
    let leading: Buffer;
    try {
      leading = readLeadingBytes(resolved.realPath, 8);
    } catch {
      throw new NotFoundError('readable artwork file for item', id);
    }
    if (!imageTypeOf(leading))
      throw new ConflictError(
        'not_an_image',
        `The artwork file of '${id}' is not a JPEG or PNG image; replace it with one and rescan.`,
      );
    return { path: resolved.realPath, knownAs: path, ...(resolved.identity ? { identity: resolved.identity } : {}) };
  }

  /** The thumbnail Antenna made for an item, if any. */
  thumbnailPath(id: string): string | undefined {
    return getThumbnailPath(this.db, id);
  }

  /** Imported files that are not media (ffprobe could not read them): listed for the user, never served. */
  notMediaFiles(limit: number): { count: number; files: NotMediaFile[] } {
    return listNotMediaFiles(this.db, limit);
  }

  counts(): LibraryCounts {
    return countLibrary(this.db);
  }

  /** Throws when the database cannot be read (GET /health): one read, under a short busy timeout. */
  checkReadable(): void {
    checkDatabaseReadable(this.db);
  }

  /** The recording jobs by state (GET /metrics); the jobs interface A lists, so the library's to count. */
  jobCounts(): Record<JobCountState, number> {
    return countJobsByState(this.db);
  }

  listShows(query: ParentQuery, context: MapContext): Show[] {
    return listParents(this.db, 'show', query, query).map((row) => toShow(row, context));
  }

  getShow(id: string, context: MapContext): Show {
    return toShow(this.requireParent('show', id), context);
  }

  listShowEpisodes(id: string, query: ItemQuery, context: MapContext): Buffer {
    this.requireParent('show', id);
    return this.items({ showId: id }, query, 'natural', 'episode', context);
  }

  listEpisodes(query: ItemQuery, context: MapContext): Buffer {
    return this.items({ kind: 'episode' }, query, 'date_added', 'episode', context);
  }

  getEpisode(id: string, context: MapContext): Buffer {
    return this.item('episode', id, context);
  }

  listMovies(query: ItemQuery, context: MapContext): Buffer {
    return this.items({ kind: 'movie' }, query, 'alpha', 'movie', context);
  }

  getMovie(id: string, context: MapContext): Buffer {
    return this.item('movie', id, context);
  }

  listVideoGroups(query: ParentQuery, context: MapContext): VideoGroup[] {
    return listParents(this.db, 'video_group', query, query).map((row) => toVideoGroup(row, context));
  }

  getVideoGroup(id: string, context: MapContext): VideoGroup {
    return toVideoGroup(this.requireParent('video_group', id), context);
  }

  listGroupVideos(id: string, query: ItemQuery, context: MapContext): Buffer {
    this.requireParent('video_group', id);
    return this.items({ videoGroupId: id }, query, 'natural', 'video', context);
  }

  listVideos(query: ItemQuery, context: MapContext): Buffer {
    return this.items({ kind: 'video' }, query, 'date_added', 'video', context);
  }

  getVideo(id: string, context: MapContext): Buffer {
    return this.item('video', id, context);
  }

  /** Every episode, movie and video, each in the shape its own endpoint gives it. */
  listAll(query: ItemQuery, context: MapContext): Buffer {
    return this.items({ all: true }, query, 'date_added', { mixed: 'movie' }, context);
  }

  listCollections(type: CollectionType | undefined, context: MapContext): Collection[] {
    return listCollections(this.db, type).map((row) => toCollection(row, context));
  }

  getCollection(id: string, context: MapContext): Collection {
    return toCollection(this.requireCollection(id), context);
  }

  /** A movies collection's movies, or the episodes of a shows collection's shows. */
  listCollectionContent(id: string, query: ItemQuery, context: MapContext): Buffer {
    const collection = this.requireCollection(id);
    const scope = { collectionId: id, collectionType: collection.collection_type };
    const fallback = collection.collection_type === 'movies' ? 'alpha' : 'show_natural';
    return this.items(scope, query, fallback, { mixed: 'content_movie' }, context);
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
  listPlaylistContent(id: string, query: ItemQuery, context: MapContext): Buffer {
    this.getPlaylist(id);
    return this.items({ playlistId: id }, query, 'position', { mixed: 'content_movie' }, context);
  }

  /** The jobs as interface A's JSON bytes (written by SQLite: job-projection.ts). */
  listJobs(context: MapContext): Buffer {
    return listJobsJson(this.db, context.baseUrl);
  }

  getJob(id: string, context: MapContext): Buffer {
    const json = getJobJson(this.db, id, context.baseUrl);
    if (!json) throw new NotFoundError('job', id);
    return json;
  }

  listChannels(context: MapContext): Channel[] {
    return listChannels(this.db).map((row) => toChannel(row, context));
  }

  /**
   * Shows, video groups, episodes, movies and videos whose names hold every word of
   * `text` (up to `limit` of each, best first); items as interface A writes them.
   */
  search(text: string, limit: number, context: MapContext): LibraryMatches {
    const match = matchExpression(text);
    if (match === undefined) return { shows: [], video_groups: [], episodes: [], movies: [], videos: [] };
    const hits = searchLibrary(this.db, match, limit, context.baseUrl);
    return {
      shows: hits.shows.map((row) => toShow(row, context)),
      video_groups: hits.videoGroups.map((row) => toVideoGroup(row, context)),
      episodes: hits.episodes,
      movies: hits.movies,
      videos: hits.videos,
    };
  }

  private items(
    scope: ItemScope,
    query: ItemQuery,
    fallback: ItemSort | DefaultItemOrder,
    shape: ListShape,
    context: MapContext,
  ): Buffer {
    return listItemsJson(this.db, scope, query, query, fallback, shape, context.baseUrl);
  }

  private item(kind: 'episode' | 'movie' | 'video', id: string, context: MapContext): Buffer {
    const json = getItemJson(this.db, id, kind, context.baseUrl);
    if (!json) throw new NotFoundError(kind, id);
    return json;
  }

  private requireParent(kind: ParentKind, id: string) {
    const row = getParent(this.db, kind, id);
    if (!row) throw new NotFoundError(kind === 'show' ? 'show' : 'video group', id);
    return row;
  }

  private requireCollection(id: string) {
    const row = getCollection(this.db, id);
    if (!row) throw new NotFoundError('collection', id);
    return row;
  }
}
