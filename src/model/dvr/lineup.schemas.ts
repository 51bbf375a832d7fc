/**
 * The lineup as the user shapes it (management interface, `/dvr/lineup`): each channel
 * as its source offers it and the user's edits over that, which are stored apart and
 * kept across every refresh (dvr/lineup/lineup-edits.ts says how a refreshed channel finds its
 * edits again). `/api/v1/channels`, the guide, live TV, recording and the exports all
 * show the result: the channel with its edits, hidden ones left out.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';

/** A channel number as people type it: 12, 12.1 (12-1 and 12_1 are read as 12.1). */
export const ChannelNumberSchema = Type.String({
  pattern: '^\\d{1,5}([.-]\\d{1,5})?$',
  description: 'a channel number such as "12" or "12.1" (12-1 is read as 12.1), as rules name channels',
});

const GuideChannelRef = Type.Object(
  { guide_id: Type.String({ minLength: 1, maxLength: 100 }), xmltv_id: Type.String({ minLength: 1, maxLength: 200 }) },
  {
    additionalProperties: false,
    description:
      "a guide's channel: the guide's id (GET /dvr/guides) and the channel's XMLTV id (GET /dvr/guide/channels)",
  },
);

const OffSource = Type.Object(
  {
    number: Type.String(),
    name: Type.String(),
    logo: Type.Optional(Type.String()),
    group: Type.Optional(Type.String({ description: "the playlist's group-title" })),
    guide_id: Type.Optional(Type.String({ description: "the playlist's tvg-id" })),
  },
  { description: 'the channel as its source offers it at the last good refresh' },
);

export const LineupChannelSchema = Type.Object(
  {
    id: Type.String({
      description: "stable while the source keeps offering the channel (the source's id and its number there)",
    }),
    source_id: Type.String(),
    number: Type.String({ description: 'the number it has: the user’s when renumbered, else the source’s' }),
    name: Type.String(),
    logo: Type.Optional(Type.String()),
    group: Type.Optional(Type.String({ description: "the user's group, else the source's group-title" })),
    hidden: Type.Boolean({ description: 'left out of every list, the guide, live TV, recording and the exports' }),
    favorite: Type.Boolean(),
    guide: Type.Optional(
      Type.Object(
        { guide_id: Type.String(), xmltv_id: Type.String() },
        {
          description:
            'the guide channel its programmes come from now (absent for a hidden channel and one no guide describes)',
        },
      ),
    ),
    placeholder: Type.Boolean({
      description: 'no guide describes it: the guide shows it in hour blocks named after it, which can be recorded',
    }),
    guide_channel: Type.Optional(GuideChannelRef),
    guide_priority: Type.Optional(
      Type.Array(Type.String(), { description: 'guide ids tried first for this channel, in order' }),
    ),
    source: OffSource,
    edited: Type.Array(Type.String(), {
      description:
        'the fields the user set (number, name, logo, group, hidden, favorite, guide_channel, guide_priority)',
    }),
    number_clash: Type.Optional(
      Type.String({
        description:
          'the id of a visible channel that has this number too and is not this channel at another source (a refresh brought it): the lineup lists one of them; renumber one',
      }),
    ),
  },
  { title: 'Lineup channel' },
);
export type LineupChannel = Static<typeof LineupChannelSchema>;

/** A field of an edit: the user's value, or null to give the field back to the source. */
function orNull<T extends TSchema>(schema: T, description: string) {
  return Type.Optional(Type.Union([schema, Type.Null()], { description }));
}

/** `PATCH /dvr/lineup/:id`: each field given is set; null gives the field back to the source. */
export const LineupEditSchema = Type.Object(
  {
    number: orNull(ChannelNumberSchema, 'renumber (409 when a visible channel has it); null: the source’s number'),
    name: orNull(Type.String({ minLength: 1, maxLength: 200 }), 'rename; null: the source’s name'),
    logo: orNull(
      Type.String({ pattern: '^https?://', maxLength: 2000 }),
      'an http(s) image URL; null: the source’s logo',
    ),
    group: orNull(Type.String({ minLength: 1, maxLength: 100 }), 'the user’s group; null: the source’s group-title'),
    hidden: Type.Optional(Type.Boolean()),
    favorite: Type.Optional(Type.Boolean()),
    guide_channel: orNull(GuideChannelRef, 'the guide channel to take programmes from; null: matched as usual'),
    guide_priority: orNull(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 }),
      'guide ids tried first for this channel; null: the guides’ own order',
    ),
  },
  { additionalProperties: false, minProperties: 1, title: 'Lineup edit' },
);
export type LineupEdit = Static<typeof LineupEditSchema>;

export const LineupGroupSchema = Type.Object(
  {
    name: Type.String(),
    channels: Type.Integer(),
    hidden: Type.Integer({ description: 'how many of them are hidden' }),
  },
  { title: 'Channel group' },
);

/** `POST /dvr/lineup/groups/:group/renumber`. */
export const RenumberBodySchema = Type.Object(
  {
    start: Type.Integer({
      minimum: 1,
      maximum: 99999,
      description:
        'the first number; the group’s visible channels get start, start+1, … in their order (at most 99999, as rules name channels)',
    }),
  },
  { additionalProperties: false },
);

/** `PATCH /dvr/guides/:id`. */
export const GuideEditSchema = Type.Object(
  {
    priority: Type.Integer({
      minimum: 1,
      maximum: 1000,
      description: 'lower first: where guides describe one channel, the first in this order gives its programmes',
    }),
  },
  { additionalProperties: false },
);
