/**
 * What Channels' remote-control apps and scripts read besides the players: the guide in
 * its shape (`/devices/{ANY|source}/guide/now`, `/guide?time=&duration=`) and the channel
 * collections (`/dvr/collections/channels`, favorites first; the user's own are made,
 * changed and removed here too).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DvrService } from '../../dvr/dvr.service.js';
import {
  type ChannelCollectionBody,
  ChannelCollectionBodySchema,
  ChannelCollectionSchema,
  ChannelsGuideEntrySchema,
  ChannelsGuideQuery,
} from '../../model/dvr/channels-guide.schemas.js';
import { CORS_HEADERS } from '../../http/cors.js';
import { ErrorSchema, StorageErrors } from '../../http/error-reply.js';
import { TAGS } from '../openapi-tags.js';
import { jsonReply as json } from '../json-reply.js';

const Errors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema };
const SourceParams = Type.Object({
  source: Type.String({ minLength: 1, maxLength: 100, description: 'ANY (each channel number once) or a source id' }),
});
const CollectionParams = Type.Object({
  id: Type.String({ maxLength: 20, description: '"favorites" or a collection number' }),
});
/** What /guide covers without a duration: the next four hours, as Channels' guide does. */
const GUIDE_DEFAULT_SECONDS = 4 * 3600;

export function registerRemoteAppRoutes(app: FastifyInstance, dvr: DvrService): void {
  const tags = [TAGS.dvr];
  const guide = (request: FastifyRequest, defaultSeconds: number) => {
    const query = request.query as ChannelsGuideQuery;
    const from = query.time ?? Math.floor(Date.now() / 1000);
    const source = (request.params as { source: string }).source;
    return dvr.lineup.guideEntries(from, from + (query.duration ?? defaultSeconds), source);
  };
  app.get(
    '/devices/:source/guide/now',
    {
      schema: {
        summary: "What airs now on every channel, in Channels' guide shape (Channel and Airings)",
        tags,
        params: SourceParams,
        querystring: ChannelsGuideQuery,
        response: { 200: Type.Array(ChannelsGuideEntrySchema), ...Errors },
      },
    },
    (request, reply) => json(reply, 200, guide(request, 1)),
  );
  app.get(
    '/devices/:source/guide',
    {
      schema: {
        summary:
          "The guide of every channel from `time` for `duration` seconds (default: the next 4 hours), in Channels' shape",
        tags,
        params: SourceParams,
        querystring: ChannelsGuideQuery,
        response: { 200: Type.Array(ChannelsGuideEntrySchema), ...Errors },
      },
    },
    (request, reply) => json(reply, 200, guide(request, GUIDE_DEFAULT_SECONDS)),
  );

  const collections = dvr.channelCollections;
  const id = (request: FastifyRequest) => (request.params as { id: string }).id;
  app.get(
    '/dvr/collections/channels',
    {
      schema: {
        summary: 'Channel collections: the favorites (starred channels), then those made in Settings',
        tags,
        response: { 200: Type.Array(ChannelCollectionSchema) },
      },
    },
    (_request, reply) => json(reply, 200, collections.list()),
  );
  app.get(
    '/dvr/collections/channels/:id',
    {
      schema: {
        summary: 'One channel collection',
        tags,
        params: CollectionParams,
        response: { 200: ChannelCollectionSchema, ...Errors },
      },
    },
    (request, reply) => json(reply, 200, collections.get(id(request))),
  );
  app.post(
    '/dvr/collections/channels',
    {
      schema: {
        summary: 'Make a channel collection (a name and channel numbers)',
        tags,
        body: ChannelCollectionBodySchema,
        response: { 201: ChannelCollectionSchema, ...Errors, ...StorageErrors },
      },
    },
    (request, reply) => json(reply, 201, collections.add(request.body as ChannelCollectionBody)),
  );
  app.put(
    '/dvr/collections/channels/:id',
    {
      schema: {
        summary: 'Replace a channel collection (favorites follow the stars: 409)',
        tags,
        params: CollectionParams,
        body: ChannelCollectionBodySchema,
        response: { 200: ChannelCollectionSchema, ...Errors, ...StorageErrors },
      },
    },
    (request, reply) => json(reply, 200, collections.replace(id(request), request.body as ChannelCollectionBody)),
  );
  app.delete(
    '/dvr/collections/channels/:id',
    {
      schema: {
        summary: 'Remove a channel collection (its channels stay)',
        tags,
        params: CollectionParams,
        response: { 204: Type.Null(), ...Errors, ...StorageErrors },
      },
    },
    (request, reply) => {
      collections.remove(id(request));
      return reply.headers(CORS_HEADERS).code(204).send();
    },
  );
}
