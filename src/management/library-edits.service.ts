/**
 * What users change in the library: favorites, labels, locked and verified on items;
 * favorites and labels on shows and video groups; collections and playlists. Every
 * change sets `updated_at`; derived fields (counts, last watched) are computed on
 * read, and interface A's cache follows the library's change counter, so the next
 * read shows the change.
 *
 * Names may repeat: two playlists called "Friday" are two playlists, told apart by id.
 */
import { randomUUID } from 'node:crypto';
import { BadRequestError, NotFoundError } from '../common/errors.js';
import type { Db } from '../db/database.js';
import {
  type CollectionType,
  addCollectionMember,
  deleteCollection,
  deletePlaylist,
  getCollection,
  getPlaylist,
  playlistItemIds,
  removeCollectionMember,
  setPlaylistItems,
  unknownItemIds,
  updateCollection,
  updatePlaylist,
  upsertCollection,
  upsertPlaylist,
} from '../repositories/library/collections.repository.js';
import type { ItemStateLog } from '../common/item-state-log.js';
import { trackItemState, updateItemFlags } from '../repositories/library/items.repository.js';
import { type ParentKind, updateParentFlags } from '../repositories/library/parents.repository.js';

export interface ItemFlags {
  favorited?: boolean;
  labels?: string[] | null;
  locked?: boolean;
  verified?: boolean;
}

export interface ParentFlags {
  favorited?: boolean;
  labels?: string[] | null;
}

/** The most items one playlist may hold: a bound on any one request's work. */
export const MAX_PLAYLIST_ITEMS = 10_000;

export class LibraryEditsService {
  /** `stateLog`: item edits are logged there, so interface A's cached lists are patched, not built again. */
  constructor(
    private readonly db: Db,
    private readonly stateLog?: ItemStateLog,
  ) {}

  editItem(id: string, flags: ItemFlags): void {
    if (!trackItemState(this.db, this.stateLog, id, () => updateItemFlags(this.db, id, flags)))
      throw new NotFoundError('file', id);
  }

  editParent(kind: ParentKind, id: string, flags: ParentFlags): void {
    if (!updateParentFlags(this.db, kind, id, flags))
      throw new NotFoundError(kind === 'show' ? 'show' : 'video group', id);
  }

  createCollection(input: {
    name: string;
    collection_type: CollectionType;
    image_url?: string | null;
    labels?: string[] | null;
  }): string {
    const id = `col-${randomUUID()}`;
    upsertCollection(this.db, { ...input, id });
    return id;
  }

  editCollection(id: string, fields: { name?: string; image_url?: string | null; labels?: string[] | null }): void {
    if (!updateCollection(this.db, id, fields)) throw new NotFoundError('collection', id);
  }

  deleteCollection(id: string): void {
    if (!deleteCollection(this.db, id)) throw new NotFoundError('collection', id);
  }

  /** Adds a movie (movies collection) or show (shows collection); adding one twice is harmless. */
  addMember(id: string, memberId: string): void {
    if (!getCollection(this.db, id)) throw new NotFoundError('collection', id);
    addCollectionMember(this.db, id, memberId);
  }

  removeMember(id: string, memberId: string): void {
    if (!getCollection(this.db, id)) throw new NotFoundError('collection', id);
    if (!removeCollectionMember(this.db, id, memberId)) throw new NotFoundError('member of this collection', memberId);
  }

  createPlaylist(input: { name: string; labels?: string[] | null; item_ids?: string[] }): string {
    const id = `pl-${randomUUID()}`;
    this.db
      .transaction(() => {
        upsertPlaylist(this.db, { id, name: input.name, labels: input.labels ?? null });
        if (input.item_ids) this.replaceItems(id, input.item_ids);
      })
      .immediate();
    return id;
  }

  editPlaylist(id: string, fields: { name?: string; labels?: string[] | null }): void {
    if (!updatePlaylist(this.db, id, fields)) throw new NotFoundError('playlist', id);
  }

  deletePlaylist(id: string): void {
    if (!deletePlaylist(this.db, id)) throw new NotFoundError('playlist', id);
  }

  /**
   * Inserts items at `position` (0 is the start; omitted or past the end: appended).
   * Read, change and write happen in one immediate transaction (it waits for the write
   * lock before reading), so concurrent edits of one playlist apply one after the other:
   * none is lost.
   */
  addItems(id: string, itemIds: readonly string[], position?: number): void {
    this.db
      .transaction(() => {
        const current = this.itemsOf(id);
        const at = position === undefined ? current.length : Math.min(position, current.length);
        this.replaceItems(id, [...current.slice(0, at), ...itemIds, ...current.slice(at)]);
      })
      .immediate();
  }

  /** Removes the entry at `position` (an item can be in a playlist more than once). */
  removeItemAt(id: string, position: number): void {
    this.db
      .transaction(() => {
        const current = this.itemsOf(id);
        if (position >= current.length) {
          throw new BadRequestError(
            'position',
            `The playlist has ${current.length} entries: give a position from 0 to ${current.length - 1}.`,
          );
        }
        this.replaceItems(id, [...current.slice(0, position), ...current.slice(position + 1)]);
      })
      .immediate();
  }

  /** Replaces the playlist's content, in the order given: reordering is this with the same items. */
  setItems(id: string, itemIds: readonly string[]): void {
    this.db
      .transaction(() => {
        this.itemsOf(id);
        this.replaceItems(id, itemIds);
      })
      .immediate();
  }

  private itemsOf(id: string): string[] {
    if (!getPlaylist(this.db, id)) throw new NotFoundError('playlist', id);
    return playlistItemIds(this.db, id);
  }

  private replaceItems(id: string, itemIds: readonly string[]): void {
    if (itemIds.length > MAX_PLAYLIST_ITEMS) {
      throw new BadRequestError('item_ids', `A playlist holds at most ${MAX_PLAYLIST_ITEMS} items.`);
    }
    const unknown = unknownItemIds(this.db, itemIds);
    if (unknown.length > 0) {
      throw new BadRequestError(
        'item_ids',
        `No playable item with id '${unknown[0]}'; a playlist holds episodes, movies and videos.`,
      );
    }
    setPlaylistItems(this.db, id, itemIds);
  }
}
