/**
 * The guide as Channels' remote-control apps and scripts read it:
 * `GET /devices/{ANY|source}/guide/now` and `/guide?time=&duration=` answer one entry per
 * channel, `Channel` (its number, name, logo) and `Airings` (what airs in the window), in
 * Channels' PascalCase field names; `GET /dvr/collections/channels` the channel
 * collections, favorites first. `ChannelID` is the channel number (collections list
 * numbers, and the scripts we know match the two); `Station` is the guide's channel id.
 */
import { type Static, Type } from '@sinclair/typebox';
import { ChannelNumberSchema } from './lineup.schemas.js';

/** The longest window one guide request covers (seconds): a day, as the app's grid. */
export const CHANNELS_GUIDE_MAX_DURATION = 86_400;

export const ChannelsGuideQuery = Type.Object(
  {
    time: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 253402300799, description: 'epoch seconds the window begins (default now)' }),
    ),
    duration: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: CHANNELS_GUIDE_MAX_DURATION,
        description: `seconds the window lasts (default 14400 for /guide, 1 for /guide/now; at most ${CHANNELS_GUIDE_MAX_DURATION})`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type ChannelsGuideQuery = Static<typeof ChannelsGuideQuery>;

export const ChannelsGuideChannelSchema = Type.Object(
  {
    Number: Type.String(),
    Name: Type.String(),
    ChannelID: Type.String({ description: 'the channel number again (what channel collections list)' }),
    Station: Type.Optional(Type.String({ description: "the guide's id of the channel (XMLTV channel id)" })),
    CallSign: Type.Optional(Type.String()),
    Image: Type.Optional(Type.String()),
    HD: Type.Boolean(),
    Favorite: Type.Boolean(),
  },
  { title: 'Channels guide channel' },
);

export const ChannelsAiringSchema = Type.Object(
  {
    Channel: Type.String({ description: 'the channel number' }),
    Time: Type.Integer({ description: 'epoch seconds it starts' }),
    Duration: Type.Integer({ description: 'seconds' }),
    Title: Type.String(),
    EpisodeTitle: Type.Optional(Type.String()),
    Summary: Type.Optional(Type.String()),
    Image: Type.Optional(Type.String()),
    SeasonNumber: Type.Optional(Type.Integer()),
    EpisodeNumber: Type.Optional(Type.Integer()),
    OriginalDate: Type.Optional(Type.String()),
    ReleaseYear: Type.Optional(Type.Integer()),
    Rating: Type.Optional(Type.String()),
    Categories: Type.Array(Type.String(), { description: 'Series, Movie, Sports or News, as the guide tells' }),
    Genres: Type.Array(Type.String(), { description: "the guide's categories" }),
    Tags: Type.Array(Type.String(), { description: 'New when the guide marks it so' }),
    SeriesID: Type.Optional(Type.String()),
    ProgramID: Type.Optional(Type.String()),
  },
  { title: 'Channels airing' },
);

export const ChannelsGuideEntrySchema = Type.Object(
  { Channel: ChannelsGuideChannelSchema, Airings: Type.Array(ChannelsAiringSchema) },
  { title: 'Channels guide entry' },
);
export type ChannelsGuideEntry = Static<typeof ChannelsGuideEntrySchema>;
export type ChannelsAiring = Static<typeof ChannelsAiringSchema>;

export const ChannelCollectionSchema = Type.Object(
  {
    id: Type.String({ description: '"favorites", or the number of a collection made in Settings' }),
    name: Type.String(),
    items: Type.Array(Type.String(), { description: 'channel numbers, in the order the collection keeps them' }),
  },
  { title: 'Channel collection' },
);
export type ChannelCollection = Static<typeof ChannelCollectionSchema>;

export const ChannelCollectionBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    items: Type.Array(ChannelNumberSchema, { maxItems: 5000, description: 'channel numbers' }),
  },
  { additionalProperties: false, title: 'Channel collection (new or replaced)' },
);
export type ChannelCollectionBody = Static<typeof ChannelCollectionBodySchema>;
