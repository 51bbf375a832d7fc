/**
 * Writes one imported file into the library: its show or video group, the item with
 * what its name and NFO say, its artwork, and its movie collection (an NFO `set`).
 * One writer per scan: it remembers which parents and show NFOs it already handled.
 * It reads no file itself: the NFO texts a batch needs (`nfoPathsFor`) are read
 * asynchronously beforehand and handed in (`provideNfo`), so writing stays one
 * synchronous transaction and a dead share never blocks the event loop.
 *
 * Only metadata is written. Watch state, playback position, favorites and labels
 * set by the user are never touched, so rescans and moves keep them.
 */
import { nfoSetCollectionIdFor, showIdFor, videoGroupIdFor } from '../model/ids.js';
import { basename, join } from 'node:path';
import type { Db } from '../db/database.js';
import { addCollectionMember, upsertCollection } from '../repositories/library/collections.repository.js';
import { upsertEpisode, upsertMovie, upsertVideo } from '../repositories/library/items.repository.js';
import type { ImportRoot } from '../model/import-root.js';
import { upsertShow, upsertVideoGroup } from '../repositories/library/parents.repository.js';
import { recordImportedParent, setArtwork } from '../repositories/library/import-files.repository.js';
import type { ParsedMedia } from './media-name.parser.js';
import { type NfoMetadata, parseNfo } from './nfo.parser.js';
import type { SidecarFiles } from './sidecar-files.js';

export type MediaItem = Exclude<ParsedMedia, { kind: 'ignored' }>;

const artworkUrl = (ownerId: string) => `/artwork/${encodeURIComponent(ownerId)}`;

/** An NFO file's text as read before a batch is written, or why it could not be used. */
export type NfoText = string | { problem: string };

export class ItemWriter {
  private readonly handledParents = new Set<string>();
  private readonly nfoCache = new Map<string, NfoMetadata>();
  private readonly nfoTexts = new Map<string, NfoText>();

  constructor(
    private readonly db: Db,
    private readonly now: number,
    /** Reports a problem with a file (once per file per scan). */
    private readonly problem: (path: string, reason: string) => void,
    /** Takes how to undo what this writer remembered, should the writes it made be rolled back (ImportRun). */
    private readonly journal: (undo: () => void) => void,
  ) {}

  /** The NFO files writing this file will read that are not read yet. */
  nfoPathsFor(sidecars: SidecarFiles): string[] {
    return [sidecars.nfo, sidecars.showNfo].filter(
      (path): path is string => path !== undefined && !this.nfoCache.has(path) && !this.nfoTexts.has(path),
    );
  }

  provideNfo(path: string, text: NfoText): void {
    this.nfoTexts.set(path, text);
  }

  write(id: string, root: ImportRoot, parsed: MediaItem, path: string, sidecars: SidecarFiles, isNew: boolean): void {
    const nfo = sidecars.nfo ? this.readNfo(sidecars.nfo) : {};
    const common = {
      id,
      source: 'imports' as const,
      path,
      completed: true,
      summary: nfo.summary ?? null,
      full_summary: nfo.fullSummary ?? null,
      genres: nfo.genres ?? null,
      content_rating: nfo.contentRating ?? null,
      // Clients key on program_id: the NFO's own id when it has one (interface A falls back to the item's id).
      program_id: nfo.uniqueId ?? null,
      image_url: sidecars.image ? artworkUrl(id) : null,
      // NFO tags become labels; without any, labels set by the user are left as they are.
      ...(nfo.labels ? { labels: nfo.labels } : {}),
      ...(isNew ? { created_at: this.now, processed: false } : {}),
      updated_at: this.now,
    };
    setArtwork(this.db, id, sidecars.image);
    if (parsed.kind === 'episode') {
      const showId = this.writeShow(parsed, sidecars);
      upsertEpisode(this.db, {
        ...common,
        show_id: showId,
        season_number: nfo.season ?? parsed.season ?? null,
        episode_number: nfo.episode ?? parsed.episodes?.[0] ?? null,
        episode_title: nfo.title ?? parsed.title ?? (parsed.date ? `${parsed.show} ${parsed.date}` : null),
        original_air_date: nfo.originalAirDate ?? parsed.date ?? null,
        cast: nfo.cast ?? null,
        directors: nfo.directors ?? null,
      });
    } else if (parsed.kind === 'movie') {
      upsertMovie(this.db, {
        ...common,
        title: nfo.title ?? parsed.title,
        release_year: nfo.releaseYear ?? parsed.year ?? null,
        release_date: nfo.releaseDate ?? null,
        cast: nfo.cast ?? null,
        directors: nfo.directors ?? null,
      });
      if (nfo.collection) this.addToCollection(nfo.collection, id);
    } else {
      const folder = parsed.group === null ? root.path : join(root.path, parsed.group);
      const groupId = videoGroupIdFor(folder);
      this.once(groupId, () => {
        upsertVideoGroup(this.db, { id: groupId, name: parsed.group ?? basename(root.path) });
        recordImportedParent(this.db, groupId, 'video_group');
      });
      upsertVideo(this.db, { ...common, video_group_id: groupId, video_title: nfo.title ?? parsed.title });
    }
  }

  private writeShow(parsed: Extract<MediaItem, { kind: 'episode' }>, sidecars: SidecarFiles): string {
    const showId = showIdFor(parsed);
    this.once(showId, () => {
      const nfo = sidecars.showNfo ? this.readNfo(sidecars.showNfo) : {};
      upsertShow(this.db, {
        id: showId,
        name: nfo.title ?? parsed.show,
        summary: nfo.fullSummary ?? nfo.summary ?? null,
        release_year: nfo.releaseYear ?? parsed.year ?? null,
        release_date: nfo.releaseDate ?? null,
        genres: nfo.genres ?? null,
        cast: nfo.cast ?? null,
        ...(nfo.labels ? { labels: nfo.labels } : {}),
        image_url: sidecars.showImage ? artworkUrl(showId) : null,
        created_at: this.now,
        updated_at: this.now,
      });
      setArtwork(this.db, showId, sidecars.showImage);
      recordImportedParent(this.db, showId, 'show');
    });
    return showId;
  }

  private addToCollection(name: string, movieId: string): void {
    const collectionId = nfoSetCollectionIdFor(name);
    this.once(collectionId, () => upsertCollection(this.db, { id: collectionId, collection_type: 'movies', name }));
    addCollectionMember(this.db, collectionId, movieId);
  }

  private once(id: string, write: () => void): void {
    if (this.handledParents.has(id)) return;
    write();
    this.handledParents.add(id);
    this.journal(() => this.handledParents.delete(id));
  }

  /** The NFO's metadata, or nothing (reported) when it cannot be used: the name alone then says what the file is. */
  private readNfo(path: string): NfoMetadata {
    const cached = this.nfoCache.get(path);
    if (cached) return cached;
    let metadata: NfoMetadata = {};
    const text = this.nfoTexts.get(path);
    this.nfoTexts.delete(path);
    // Before parsing: a parser that throws rolls the file back, and its retry finds the text again.
    this.journal(() => {
      this.nfoCache.delete(path);
      if (text !== undefined) this.nfoTexts.set(path, text);
    });
    const result =
      typeof text === 'string'
        ? parseNfo(text)
        : { ok: false as const, reason: text?.problem ?? 'NFO file not read; ignored' };
    if (result.ok) metadata = result.metadata;
    else this.problem(path, result.reason);
    this.nfoCache.set(path, metadata);
    return metadata;
  }
}
