/** Interface A's query and path parameters, with the values the compatibility notes fix. */
import { Type, type Static } from '@sinclair/typebox';
import {
  COLLECTION_TYPES,
  ITEM_SORTS,
  MOVIE_SORTS,
  ORDERS,
  PARENT_SORTS,
  SOURCES,
  parseBooleanParam,
  type ItemSort,
  type Order,
  type Source,
} from '../model/list-query.js';
import type { ItemQuery, ParentQuery } from '../library/library.service.js';
import { StringEnum } from '../common/string-enum.js';

const BooleanParam = StringEnum(['true', 'false']);
const order = Type.Optional(StringEnum(ORDERS, { description: 'asc or desc; the default depends on the sort' }));

const itemFilters = {
  watched: Type.Optional({ ...BooleanParam, description: 'only watched (true) or unwatched (false) items' }),
  favorited: Type.Optional({ ...BooleanParam, description: 'only favorited (true) or other (false) items' }),
  verified: Type.Optional({ ...BooleanParam, description: 'only items whose commercials were verified, or not' }),
};
const source = Type.Optional(StringEnum(SOURCES, { description: 'recordings (made by the DVR) or imports' }));

/** `/episodes`, `/all`, show episodes, collection and playlist content. */
export const ItemQuerySchema = Type.Object({
  ...itemFilters,
  source,
  sort: Type.Optional(StringEnum(ITEM_SORTS)),
  order,
});

export const MovieQuerySchema = Type.Object({
  ...itemFilters,
  source,
  sort: Type.Optional(StringEnum(MOVIE_SORTS, { description: 'default alpha' })),
  order,
});

/** `/videos` and a group's videos: no source filter (videos are always imported). */
export const VideoQuerySchema = Type.Object({
  ...itemFilters,
  sort: Type.Optional(StringEnum(ITEM_SORTS)),
  order,
});

export const ParentQuerySchema = Type.Object({
  watched: Type.Optional({ ...BooleanParam, description: 'true: every episode/video watched; false: some unwatched' }),
  favorited: itemFilters.favorited,
  sort: Type.Optional(StringEnum(PARENT_SORTS, { description: 'default alpha' })),
  order,
});

export const CollectionQuerySchema = Type.Object({
  collection_type: Type.Optional(StringEnum(COLLECTION_TYPES)),
});

export const IdParamsSchema = Type.Object({ id: Type.String({ description: 'the resource id' }) });

type BooleanText = 'true' | 'false';
interface RawItemQuery {
  watched?: BooleanText;
  favorited?: BooleanText;
  verified?: BooleanText;
  source?: Source;
  sort?: ItemSort;
  order?: Order;
}
type RawParentQuery = Static<typeof ParentQuerySchema>;

export function toItemQuery(raw: RawItemQuery): ItemQuery {
  return {
    watched: parseBooleanParam(raw.watched),
    favorited: parseBooleanParam(raw.favorited),
    verified: parseBooleanParam(raw.verified),
    source: raw.source,
    sort: raw.sort,
    order: raw.order,
  };
}

export function toParentQuery(raw: RawParentQuery): ParentQuery {
  return {
    watched: parseBooleanParam(raw.watched),
    favorited: parseBooleanParam(raw.favorited),
    sort: raw.sort,
    order: raw.order,
  };
}
