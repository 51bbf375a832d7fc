/**
 * The players the server knows: a player's registration and heartbeat
 * (PUT /dvr/clients/:device_id), the list remote-control apps read
 * (GET /dvr/clients/info, Channels' path), forgetting one, and "Play on…" and
 * notifications sent to one over its interface B.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PlayerRegistry } from '../../devices/player-registry.service.js';
import {
  ClientInfoSchema,
  ClientNotifyBodySchema,
  type ClientRegistration,
  ClientRegistrationSchema,
  DeviceIdParams,
  type PlayOnBody,
  PlayOnBodySchema,
} from '../../model/players/client.schemas.js';
import { PlayerStatusSchema } from '../../model/players/player-status.schemas.js';
import { CORS_HEADERS } from '../../http/cors.js';
import { ErrorSchema, StorageErrors } from '../../http/error-reply.js';
import { TAGS } from '../openapi-tags.js';
import { jsonReply as json } from '../json-reply.js';

const Errors = {
  400: ErrorSchema,
  401: ErrorSchema,
  403: ErrorSchema,
  404: ErrorSchema,
  409: ErrorSchema,
  502: ErrorSchema,
  504: ErrorSchema,
  ...StorageErrors,
};

const deviceId = (request: FastifyRequest) => (request.params as { device_id: string }).device_id;

export function registerClientRoutes(app: FastifyInstance, players: PlayerRegistry): void {
  const tags = [TAGS.players];
  app.get(
    '/dvr/clients/info',
    {
      schema: {
        summary:
          'The players this server knows, online or not, with what each plays now (Channels remote-control apps find the TVs here)',
        tags,
        response: { 200: Type.Array(ClientInfoSchema) },
      },
    },
    (_request, reply) => json(reply, 200, players.list()),
  );
  app.get(
    '/dvr/clients/:device_id',
    {
      schema: {
        summary: 'One player',
        tags,
        params: DeviceIdParams,
        response: { 200: ClientInfoSchema, ...Errors },
      },
    },
    (request, reply) => json(reply, 200, players.get(deviceId(request))),
  );
  app.put(
    '/dvr/clients/:device_id',
    {
      schema: {
        summary:
          "A player's registration and heartbeat (every 15 s; offline after 45 s without one): what it is and plays",
        tags,
        params: DeviceIdParams,
        body: ClientRegistrationSchema,
        response: { 200: ClientInfoSchema, ...Errors },
      },
    },
    (request, reply) =>
      json(
        reply,
        200,
        players.register(deviceId(request), request.body as ClientRegistration, request.socket.remoteAddress ?? ''),
      ),
  );
  app.delete(
    '/dvr/clients/:device_id',
    {
      schema: {
        summary: 'Forget a player (one that still runs is back at its next heartbeat)',
        tags,
        params: DeviceIdParams,
        response: { 204: Type.Null(), ...Errors },
      },
    },
    (request, reply) => {
      players.forget(deviceId(request));
      return reply.headers(CORS_HEADERS).code(204).send();
    },
  );
  app.post(
    '/dvr/clients/:device_id/play',
    {
      schema: {
        summary: 'Play an item or a channel on the player (over its interface B); its status after',
        tags,
        params: DeviceIdParams,
        body: PlayOnBodySchema,
        response: { 200: PlayerStatusSchema, ...Errors },
      },
    },
    async (request, reply) => json(reply, 200, await players.playOn(deviceId(request), request.body as PlayOnBody)),
  );
  app.post(
    '/dvr/clients/:device_id/notify',
    {
      schema: {
        summary: 'Show a notification on the player',
        tags,
        params: DeviceIdParams,
        body: ClientNotifyBodySchema,
        response: { 200: PlayerStatusSchema, ...Errors },
      },
    },
    async (request, reply) => {
      const { title, message } = request.body as { title: string; message: string };
      return json(reply, 200, await players.notify(deviceId(request), title, message));
    },
  );
}
