/**
 * Channel collections (Channels' `/dvr/collections/channels`): the favorites, which follow
 * the channels' stars and cannot be edited here, then the collections the user makes in
 * Settings: a name (unique, any case) and channel numbers. A collection keeps a number
 * the lineup no longer has (a refresh may bring it back); a new or changed one must name
 * channels that exist now.
 */
import { BadRequestError, ConflictError, NotFoundError } from '../../common/errors.js';
import type { Db } from '../../db/database.js';
import type { ChannelCollection, ChannelCollectionBody } from '../../model/dvr/channels-guide.schemas.js';
import {
  channelCollectionNamed,
  deleteChannelCollection,
  getChannelCollection,
  insertChannelCollection,
  listChannelCollections,
  updateChannelCollection,
} from '../../repositories/dvr/channel-collections.repository.js';
import { firstPerNumber, lineupSnapshot } from './lineup-snapshot.js';

export const FAVORITES_ID = 'favorites';

export class ChannelCollectionsService {
  constructor(private readonly db: Db) {}

  list(): ChannelCollection[] {
    const favorites = firstPerNumber(lineupSnapshot(this.db).channels)
      .filter((channel) => channel.favorited === 1)
      .map((channel) => channel.number);
    return [
      { id: FAVORITES_ID, name: 'Favorites', items: favorites },
      ...listChannelCollections(this.db).map((row) => ({ id: String(row.id), name: row.name, items: row.items })),
    ];
  }

  get(id: string): ChannelCollection {
    const found = this.list().find((collection) => collection.id === id);
    if (!found) throw new NotFoundError('channel collection', id);
    return found;
  }

  add(body: ChannelCollectionBody): ChannelCollection {
    const { name, items } = this.checked(body, undefined);
    return { id: String(insertChannelCollection(this.db, name, items)), name, items };
  }

  replace(id: string, body: ChannelCollectionBody): ChannelCollection {
    const number = this.editableId(id);
    const { name, items } = this.checked(body, number);
    if (!updateChannelCollection(this.db, number, name, items)) throw new NotFoundError('channel collection', id);
    return { id, name, items };
  }

  remove(id: string): void {
    if (!deleteChannelCollection(this.db, this.editableId(id))) throw new NotFoundError('channel collection', id);
  }

  private editableId(id: string): number {
    if (id === FAVORITES_ID)
      throw new ConflictError(
        'favorites_follow_stars',
        'Favorites are the channels with a star: star or unstar a channel (PUT or DELETE /dvr/channels/N/favorite) instead.',
      );
    const number = /^\d{1,15}$/.test(id) ? Number(id) : Number.NaN;
    if (!Number.isSafeInteger(number) || !getChannelCollection(this.db, number))
      throw new NotFoundError('channel collection', id);
    return number;
  }

  /** The name trimmed and free, the numbers as the lineup writes them (12-1 is 12.1), each once and each a channel. */
  private checked(body: ChannelCollectionBody, id: number | undefined): ChannelCollectionBody {
    const name = body.name.trim();
    if (name === '') throw new BadRequestError('name', 'Give the collection a name.');
    if (name.toLowerCase() === 'favorites')
      throw new ConflictError('name_taken', '"Favorites" is the collection of starred channels: choose another name.');
    const holder = channelCollectionNamed(this.db, name);
    if (holder !== undefined && holder !== id)
      throw new ConflictError('name_taken', `A channel collection is already called "${name}": choose another name.`);
    const items = [...new Set(body.items.map((number) => number.replace('-', '.')))];
    const known = new Set(lineupSnapshot(this.db).channels.map((channel) => channel.number));
    const unknown = items.filter((number) => !known.has(number));
    if (unknown.length > 0)
      throw new BadRequestError(
        'items',
        `No channel ${unknown.slice(0, 5).join(', ')}${unknown.length > 5 ? ', …' : ''} in the lineup: give numbers GET /api/v1/channels lists.`,
      );
    return { name, items };
  }
}
