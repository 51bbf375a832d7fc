/**
 * Interface B's player status: what a player answers at GET /api/status and after every
 * command, and what it tells its server when it registers (GET /dvr/clients/info shows
 * it). One schema for both sides, so the server's copy is the player's own words.
 */
import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from '../../common/string-enum.js';

const PlayerChannelSchema = Type.Object(
  { number: Type.String(), name: Type.String(), image_url: Type.Optional(Type.String()) },
  { title: 'Player channel', description: 'the channel being watched' },
);

const NowPlayingSchema = Type.Object(
  {
    title: Type.Optional(
      Type.String({
        description: "a movie's title, an episode's show, a video's group, or the programme on a channel",
      }),
    ),
    episode_title: Type.Optional(Type.String()),
    season_number: Type.Optional(Type.Integer()),
    episode_number: Type.Optional(Type.Integer()),
    summary: Type.Optional(Type.String()),
    image_url: Type.Optional(Type.String()),
    duration: Type.Optional(Type.Number({ description: 'seconds' })),
    type: Type.Optional(StringEnum(['movie', 'episode', 'video', 'live'])),
  },
  { title: 'Now playing' },
);

export const PLAYBACK_STATES = ['playing', 'paused', 'stopped'] as const;

export const PlayerStatusSchema = Type.Object(
  {
    status: StringEnum(PLAYBACK_STATES),
    muted: Type.Boolean(),
    channel: Type.Optional(PlayerChannelSchema),
    now_playing: Type.Optional(NowPlayingSchema),
    playback_time: Type.Optional(Type.Number({ description: 'seconds into what is loaded' })),
  },
  { title: 'Player status' },
);
export type PlayerStatusBody = Static<typeof PlayerStatusSchema>;
