/**
 * The players a server knows (Channels' remote-control apps read GET /dvr/clients/info
 * to find the TVs): what a player says of itself when it registers and at each heartbeat,
 * and what the server lists. The field names Channels' own list uses (`id`, `device`,
 * `seen_at`, `connected`, `remote_ip`) are given beside Antenna's, so scripts written for
 * either read it unchanged.
 */
import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from '../../common/string-enum.js';
import { ITEM_ID_PATTERN } from '../ids.js';
import { PlayerStatusSchema } from './player-status.schemas.js';
import { CommercialSkipSchema } from './playback-settings.schemas.js';

/** How often a player sends its heartbeat; three missed and it is offline. */
export const HEARTBEAT_MS = 15_000;
export const OFFLINE_AFTER_MS = 3 * HEARTBEAT_MS;

/** A player's device id: made once, kept in its data directory (a restart is the same player). */
export const DEVICE_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_-]{7,63}$';
export const DeviceIdParams = Type.Object({
  device_id: Type.String({ pattern: DEVICE_ID_PATTERN, description: "a player's device id" }),
});

export const PLAYER_BACKEND_NAMES = ['browser', 'mpv'] as const;

export const ClientRegistrationSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 63, description: 'the name it is advertised under' }),
    hostname: Type.String({ minLength: 1, maxLength: 253 }),
    port: Type.Integer({ minimum: 1, maximum: 65535, description: "interface B's port" }),
    platform: Type.String({ minLength: 1, maxLength: 64, description: 'the operating system, such as Linux' }),
    app_version: Type.String({ minLength: 1, maxLength: 32 }),
    backend: StringEnum(PLAYER_BACKEND_NAMES),
    local_ip: Type.Optional(
      Type.String({
        pattern: '^([0-9]{1,3}(\\.[0-9]{1,3}){3}|[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*)$',
        maxLength: 45,
        description:
          'the address interface B listens on, when it listens on one; else the server takes the address the player reached it from',
      }),
    ),
    status: PlayerStatusSchema,
  },
  { additionalProperties: false, title: 'Player registration' },
);
export type ClientRegistration = Static<typeof ClientRegistrationSchema>;

export const ClientInfoSchema = Type.Object(
  {
    device_id: Type.String(),
    id: Type.String({ description: 'the device id again (the name Channels uses)' }),
    name: Type.String(),
    device: Type.String({ description: 'what kind of player, such as "Antenna player (mpv)"' }),
    hostname: Type.String(),
    local_ip: Type.String({ description: 'the address interface B is reached at: http://local_ip:port/api/status' }),
    remote_ip: Type.String({ description: 'the address its last heartbeat came from' }),
    port: Type.Integer(),
    platform: Type.String(),
    app_version: Type.String(),
    backend: StringEnum(PLAYER_BACKEND_NAMES),
    first_seen_at: Type.Integer({ description: 'epoch ms' }),
    last_seen_at: Type.Integer({ description: 'epoch ms of its last heartbeat' }),
    seen_at: Type.Integer({ description: 'last_seen_at again (the name Channels uses)' }),
    online: Type.Boolean({ description: 'a heartbeat came within the timeout (45 s)' }),
    connected: Type.Boolean({ description: 'online again (the name Channels uses)' }),
    status: PlayerStatusSchema,
    commercial_skip: {
      ...CommercialSkipSchema,
      description: "what it does at a commercial break: its own mode, else the household's",
    },
    own_commercial_skip: Type.Union([CommercialSkipSchema, Type.Null()], {
      description: "its own mode; null: it follows the household's (GET /dvr/settings/playback)",
    }),
  },
  { title: 'Client' },
);
export type ClientInfo = Static<typeof ClientInfoSchema>;

export const PlayOnBodySchema = Type.Object(
  {
    item_id: Type.Optional(
      Type.String({ pattern: ITEM_ID_PATTERN, description: 'a recording, episode, movie or video' }),
    ),
    channel: Type.Optional(
      Type.String({ pattern: '^\\d{1,5}([.-]\\d{1,5})?$', description: 'a channel number such as 12 or 12.1' }),
    ),
  },
  { additionalProperties: false, title: 'Play on a player', description: 'give item_id or channel' },
);
export type PlayOnBody = Static<typeof PlayOnBodySchema>;

export const ClientNotifyBodySchema = Type.Object(
  {
    title: Type.String({ maxLength: 100 }),
    message: Type.String({ minLength: 1, maxLength: 500 }),
  },
  { additionalProperties: false, title: 'Notification for a player' },
);
