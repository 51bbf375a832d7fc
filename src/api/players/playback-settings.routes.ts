/**
 * Playback settings: the household's (GET/PUT /dvr/settings/playback) and a player's own
 * (PUT /dvr/clients/:device_id/settings). A player hears of a change in the answer to
 * its next heartbeat (15 s at most); the web app reads the household's.
 */
import type { FastifyInstance } from 'fastify';
import type { PlayerRegistry } from '../../devices/player-registry.service.js';
import { ClientInfoSchema, DeviceIdParams } from '../../model/players/client.schemas.js';
import {
  type PlaybackSettings,
  PlaybackSettingsSchema,
  type PlayerSettingsBody,
  PlayerSettingsBodySchema,
} from '../../model/players/playback-settings.schemas.js';
import { ErrorSchema, StorageErrors } from '../../http/error-reply.js';
import { TAGS } from '../openapi-tags.js';
import { jsonReply as json } from '../json-reply.js';

const Errors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, ...StorageErrors };

export function registerPlaybackSettingsRoutes(app: FastifyInstance, players: PlayerRegistry): void {
  const tags = [TAGS.players];
  app.get(
    '/dvr/settings/playback',
    {
      schema: {
        summary: "The household's playback settings, which every player without its own follows",
        tags,
        response: { 200: PlaybackSettingsSchema },
      },
    },
    (_request, reply) => json(reply, 200, players.playback.get()),
  );
  app.put(
    '/dvr/settings/playback',
    {
      schema: {
        summary: "Change the household's playback settings (players hear of it at their next heartbeat)",
        tags,
        body: PlaybackSettingsSchema,
        response: { 200: PlaybackSettingsSchema, ...Errors },
      },
    },
    (request, reply) => json(reply, 200, players.playback.put(request.body as PlaybackSettings)),
  );
  app.put(
    '/dvr/clients/:device_id/settings',
    {
      schema: {
        summary: "A player's own playback settings (null: the household's); the player after",
        tags,
        params: DeviceIdParams,
        body: PlayerSettingsBodySchema,
        response: { 200: ClientInfoSchema, ...Errors },
      },
    },
    (request, reply) => {
      const { device_id } = request.params as { device_id: string };
      return json(reply, 200, players.setOwnSettings(device_id, request.body as PlayerSettingsBody));
    },
  );
}
