/**
 * `GET /dvr/guide`: one page of the programme guide, channels × a window of time, as
 * the app's guide grid and Live TV list read it. The server validates the query and
 * serializes the answer with these schemas; the web app takes its types from them.
 */
import { Type } from '@sinclair/typebox';

/** The longest window one request may ask for (seconds): a grid asks for a few hours at a time. */
export const GUIDE_MAX_WINDOW = 86400;
/** The most channels one page holds. */
export const GUIDE_MAX_LIMIT = 100;
export const GUIDE_DEFAULT_LIMIT = 50;

const Epoch = Type.Integer({ minimum: 0, maximum: 253402300799, description: 'epoch seconds' });

export const GuidePageQuery = Type.Object(
  {
    start: Type.Optional({ ...Epoch, description: 'epoch seconds; the window begins here (default: now)' }),
    end: Type.Optional({
      ...Epoch,
      description: `epoch seconds; the window ends here, at most ${GUIDE_MAX_WINDOW} s after start (default: start + 1, i.e. what is on at start)`,
    }),
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100_000,
        description: 'channels to skip, in channel-number order (default 0)',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: GUIDE_MAX_LIMIT,
        description: `channels in this page (default ${GUIDE_DEFAULT_LIMIT})`,
      }),
    ),
    favorites: Type.Optional(Type.Boolean({ description: 'only favorite channels' })),
  },
  { additionalProperties: false },
);

export const GuideAiringSchema = Type.Object(
  {
    start_time: Type.Integer({ description: 'epoch seconds' }),
    end_time: Type.Integer({ description: 'epoch seconds' }),
    title: Type.String(),
    episode_title: Type.Optional(Type.String()),
    season_number: Type.Optional(Type.Integer()),
    episode_number: Type.Optional(Type.Integer()),
    summary: Type.Optional(Type.String()),
    new: Type.Boolean({ description: 'the guide marks it as a new episode' }),
    program_id: Type.Optional(Type.String()),
    series_id: Type.Optional(Type.String()),
    job_id: Type.Optional(
      Type.String({ description: 'the job that records it (scheduled, recording or done), if one does' }),
    ),
    recording: Type.Optional(Type.Boolean({ description: 'true while its job is recording' })),
    placeholder: Type.Optional(
      Type.Boolean({
        description: 'true for an hour block named after a channel no guide describes (recordable by its time)',
      }),
    ),
  },
  { title: 'Guide airing' },
);

export const GuideChannelSchema = Type.Object(
  {
    number: Type.String(),
    name: Type.String(),
    image_url: Type.Optional(Type.String()),
    favorited: Type.Boolean(),
    airings: Type.Array(GuideAiringSchema, { description: 'programmes overlapping the window, in time order' }),
  },
  { title: 'Guide channel' },
);

export const GuidePageSchema = Type.Object(
  {
    start: Type.Integer({ description: 'epoch seconds' }),
    end: Type.Integer({ description: 'epoch seconds' }),
    offset: Type.Integer(),
    limit: Type.Integer(),
    total: Type.Integer({ description: 'channels in all (favorites only when asked)' }),
    channels: Type.Array(GuideChannelSchema),
  },
  { title: 'Guide page' },
);
