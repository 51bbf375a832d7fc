/**
 * Webhooks over HTTP: the receivers (GET/POST /dvr/webhooks, GET/PUT/DELETE
 * /dvr/webhooks/:id) and each one's delivery log. Their reads need what writes need (a
 * webhook URL may hold the receiver's key) and carry no CORS header.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebhooksService } from '../../events/webhooks.service.js';
import {
  type WebhookBody,
  WebhookBodySchema,
  WebhookDeliverySchema,
  WebhookIdParams,
  WebhookPostSchema,
  WebhookSchema,
} from '../../model/events/webhook.schemas.js';
import { ErrorSchema, StorageErrors } from '../../http/error-reply.js';
import { TAGS } from '../openapi-tags.js';
import { guardedRead } from '../write-access.js';

const Errors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema };

const DeliveriesQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })) },
  { additionalProperties: false },
);

const send = (reply: FastifyReply, status: number, body: unknown) =>
  reply.code(status).header('cache-control', 'no-store').send(body);
const idOf = (request: FastifyRequest) => (request.params as { id: number }).id;

export function registerWebhookRoutes(
  app: FastifyInstance,
  deps: { webhooks: WebhooksService; token: string | undefined },
): void {
  const { webhooks } = deps;
  const tags = [TAGS.players];
  const onRequest = guardedRead(deps);
  app.get(
    '/dvr/webhooks',
    {
      onRequest,
      schema: {
        summary: `The webhooks events are POSTed to. Each POST's JSON body is a "${WebhookPostSchema.title}"`,
        description:
          'Each POST carries X-Antenna-Event (the kind), X-Antenna-Delivery (the same at every retry), X-Antenna-Attempt and, with a secret, X-Antenna-Signature-256: sha256=<hex HMAC-SHA256 of the body>. A 2xx answer is a delivery; anything else is tried again after 10 s, 30 s, 2 min, 10 min and 30 min.',
        tags,
        response: { 200: Type.Array(WebhookSchema), 401: ErrorSchema },
      },
    },
    (_request, reply) => send(reply, 200, webhooks.list()),
  );
  app.get(
    '/dvr/webhooks/:id',
    {
      onRequest,
      schema: { summary: 'One webhook', tags, params: WebhookIdParams, response: { 200: WebhookSchema, ...Errors } },
    },
    (request, reply) => send(reply, 200, webhooks.get(idOf(request))),
  );
  app.get(
    '/dvr/webhooks/:id/deliveries',
    {
      onRequest,
      schema: {
        summary: "A webhook's delivery log, newest first: pending (and retries), delivered, failed, dropped",
        tags,
        params: WebhookIdParams,
        querystring: DeliveriesQuery,
        response: { 200: Type.Array(WebhookDeliverySchema), ...Errors },
      },
    },
    (request, reply) =>
      send(reply, 200, webhooks.deliveries(idOf(request), (request.query as { limit?: number }).limit ?? 50)),
  );
  app.post(
    '/dvr/webhooks',
    {
      schema: {
        summary: 'Add a webhook: a URL, the event kinds it wants (none: all), a secret to sign with',
        tags,
        body: WebhookBodySchema,
        response: { 201: WebhookSchema, ...Errors, ...StorageErrors },
      },
    },
    (request, reply) => send(reply, 201, webhooks.add(request.body as WebhookBody)),
  );
  app.put(
    '/dvr/webhooks/:id',
    {
      schema: {
        summary: 'Change a webhook (the secret stays unless given; "" removes it). One from the config: 409',
        tags,
        params: WebhookIdParams,
        body: WebhookBodySchema,
        response: { 200: WebhookSchema, ...Errors, ...StorageErrors },
      },
    },
    (request, reply) => send(reply, 200, webhooks.replace(idOf(request), request.body as WebhookBody)),
  );
  app.delete(
    '/dvr/webhooks/:id',
    {
      schema: {
        summary: 'Remove a webhook and its delivery log. One from the config: 409',
        tags,
        params: WebhookIdParams,
        response: { 204: Type.Null(), ...Errors, ...StorageErrors },
      },
    },
    (request, reply) => {
      webhooks.remove(idOf(request));
      return reply.code(204).send();
    },
  );
}
