/**
 * Webhooks: the receivers events are posted to (set in Settings, over the API, or with
 * --webhook and the config file), what is posted, and the delivery log. The secret is
 * written, never read back: answers say only whether one is set.
 */
import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from '../../common/string-enum.js';
import { EVENT_KINDS, type EventKind, EventSchema } from './event.schemas.js';

/** Deliveries an unreachable receiver may have waiting; past it the oldest is dropped (and logged as such). */
export const WEBHOOK_QUEUE_LIMIT = 1000;
/** Delivery-log rows kept per receiver, besides those still pending. */
export const WEBHOOK_LOG_KEEP = 200;

const Kinds = Type.Array(StringEnum(EVENT_KINDS), {
  maxItems: EVENT_KINDS.length,
  uniqueItems: true,
  description: 'the event kinds it wants; empty (or absent) is every kind',
});

export const WebhookIdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

export const WebhookBodySchema = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2000,
      description: 'an http:// or https:// URL events are POSTed to',
    }),
    kinds: Type.Optional(Kinds),
    secret: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          'the HMAC-SHA256 key: each POST then carries X-Antenna-Signature-256: sha256=<hex of the body signed>; "" removes it',
      }),
    ),
    enabled: Type.Optional(Type.Boolean({ description: 'false pauses it (events meanwhile are not queued)' })),
  },
  { additionalProperties: false, title: 'Webhook body' },
);
export type WebhookBody = Static<typeof WebhookBodySchema>;

export const WEBHOOK_HEALTH = ['idle', 'ok', 'failing'] as const;

export const WebhookSchema = Type.Object(
  {
    id: Type.Integer(),
    url: Type.String({ description: 'as given, with credentials in it shown as [Redacted]' }),
    kinds: Kinds,
    has_secret: Type.Boolean(),
    enabled: Type.Boolean(),
    origin: StringEnum(['config', 'managed'] as const, {
      description: 'config: from --webhook or the config file, changed there; managed: made here',
    }),
    created_at: Type.Integer({ description: 'epoch ms' }),
    health: StringEnum(WEBHOOK_HEALTH, {
      description: 'idle: nothing sent yet; ok: the last attempt was answered 2xx; failing: the last attempt failed',
    }),
    pending: Type.Integer({ minimum: 0, description: 'deliveries waiting (a retry included)' }),
    last_error: Type.Optional(Type.String({ description: "the last failed attempt's reason, while failing" })),
    failing_since: Type.Optional(Type.Integer({ description: 'epoch ms of the first failure in a row' })),
  },
  { title: 'Webhook' },
);
export type Webhook = Static<typeof WebhookSchema>;

export const DELIVERY_STATES = ['pending', 'delivered', 'failed', 'dropped'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export const WebhookDeliverySchema = Type.Object(
  {
    id: Type.Integer(),
    event_id: Type.Integer(),
    kind: StringEnum(EVENT_KINDS),
    state: StringEnum(DELIVERY_STATES, {
      description:
        'pending: waiting or to be retried; delivered: answered 2xx; failed: out of attempts; dropped: the queue was full',
    }),
    attempts: Type.Integer({ minimum: 0 }),
    next_at: Type.Optional(Type.Integer({ description: 'epoch ms of the next attempt (pending)' })),
    http_status: Type.Optional(Type.Integer({ description: "the receiver's last answer" })),
    error: Type.Optional(Type.String({ description: 'why the last attempt failed' })),
    duration_ms: Type.Optional(Type.Integer({ minimum: 0, description: 'how long the last attempt took' })),
    created_at: Type.Integer({ description: 'epoch ms' }),
    done_at: Type.Optional(Type.Integer({ description: 'epoch ms it was delivered, failed or dropped' })),
  },
  { title: 'Webhook delivery' },
);
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;

/**
 * What each POST carries (Content-Type: application/json). Headers beside it:
 * X-Antenna-Event (the kind), X-Antenna-Delivery (the delivery id: the same at each
 * retry, so a receiver can drop a repeat), X-Antenna-Attempt, and
 * X-Antenna-Signature-256 when a secret is set.
 */
export const WebhookPostSchema = Type.Object(
  {
    event: EventSchema,
    server: Type.Object({ name: Type.String(), version: Type.String() }),
  },
  { title: 'Webhook POST body' },
);
export type WebhookPost = Static<typeof WebhookPostSchema>;

/** A webhook named by --webhook or the config file (a URL alone wants every kind). */
export interface WebhookSpec {
  url: string;
  kinds?: EventKind[] | undefined;
  secret?: string | undefined;
}

/** One receiver in GET /status: listed while failing, once however many deliveries failed. */
export const WebhookProblemSchema = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  error: Type.String(),
  failing_since: Type.Integer(),
  pending: Type.Integer(),
});
