/**
 * The webhooks domain: receivers made in Settings or over the API (and those --webhook
 * and the config file name, changed only there), their delivery logs, and what GET
 * /status says of a failing one. Delivery itself is the sender's (webhook-sender.ts).
 */
import type { Logger } from 'pino';
import { ConflictError, NotFoundError } from '../common/errors.js';
import { redactUrl } from '../common/url-redaction.js';
import type { Db } from '../db/database.js';
import type { EventKind } from '../model/events/event.schemas.js';
import type {
  Webhook,
  WebhookBody,
  WebhookDelivery,
  WebhookPost,
  WebhookSpec,
} from '../model/events/webhook.schemas.js';
import {
  type DeliveryRow,
  type WebhookRow,
  deleteWebhook,
  getWebhook,
  insertWebhook,
  listWebhooks,
  pendingCount,
  recentDeliveries,
  replaceConfigWebhooks,
  updateWebhook,
} from '../repositories/events/webhooks.repository.js';
import { checkedWebhookUrl, shownWebhook, storedKinds } from './webhook-request.js';
import { WebhookSender } from './webhook-sender.js';

export interface WebhooksOptions {
  logger: Logger;
  server: WebhookPost['server'];
  now?: () => number;
  delays?: readonly number[];
  timeoutMs?: number;
}

const deliveryOf = (row: DeliveryRow): WebhookDelivery => ({
  id: row.id,
  event_id: row.event_id,
  kind: row.kind as EventKind,
  state: row.state,
  attempts: row.attempts,
  ...(row.state === 'pending' ? { next_at: row.next_at } : {}),
  ...(row.http_status === null ? {} : { http_status: row.http_status }),
  ...(row.error === null ? {} : { error: row.error }),
  ...(row.duration_ms === null ? {} : { duration_ms: row.duration_ms }),
  created_at: row.created_at,
  ...(row.done_at === null ? {} : { done_at: row.done_at }),
});

export class WebhooksService {
  readonly sender: WebhookSender;
  private readonly now: () => number;

  constructor(
    private readonly db: Db,
    options: WebhooksOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.sender = new WebhookSender(db, options);
  }

  /** The config's receivers become exactly `specs` (those made over the API stay), then pending ones are sent. */
  start(specs: readonly WebhookSpec[] = []): void {
    replaceConfigWebhooks(
      this.db,
      specs.map((spec) => ({
        url: checkedWebhookUrl(spec.url),
        kinds: JSON.stringify(storedKinds(spec.kinds)),
        secret: spec.secret || null,
      })),
      this.now(),
    );
    this.sender.start();
  }

  stop(): Promise<void> {
    return this.sender.stop();
  }

  list(): Webhook[] {
    return listWebhooks(this.db).map((row) => this.webhookOf(row));
  }

  get(id: number): Webhook {
    return this.webhookOf(this.row(id));
  }

  add(body: WebhookBody): Webhook {
    const id = insertWebhook(this.db, {
      url: checkedWebhookUrl(body.url),
      kinds: JSON.stringify(storedKinds(body.kinds)),
      secret: body.secret || null,
      enabled: body.enabled === false ? 0 : 1,
      origin: 'managed',
      created_at: this.now(),
    });
    return this.get(id);
  }

  /** Replaces its URL, kinds and enabled; the secret stays unless given ("" removes it). */
  replace(id: number, body: WebhookBody): Webhook {
    const row = this.editable(id);
    updateWebhook(this.db, {
      id,
      // The app sends back the URL it was shown: a redacted one keeps the credentials it hides.
      url: body.url === redactUrl(row.url) ? row.url : checkedWebhookUrl(body.url),
      kinds: JSON.stringify(storedKinds(body.kinds)),
      secret: body.secret === undefined ? row.secret : body.secret || null,
      enabled: body.enabled === false ? 0 : 1,
    });
    this.sender.kick(id);
    return this.get(id);
  }

  remove(id: number): void {
    this.editable(id);
    deleteWebhook(this.db, id);
    this.sender.forget(id);
  }

  deliveries(id: number, limit: number): WebhookDelivery[] {
    this.row(id);
    return recentDeliveries(this.db, id, limit).map(deliveryOf);
  }

  /** The receivers failing now, each once, named by origin (GET /status is open to every reader). */
  problems(): { id: number; url: string; error: string; failing_since: number; pending: number }[] {
    return listWebhooks(this.db).flatMap((row) => {
      const lane = this.sender.health(row.id);
      return lane.health === 'failing'
        ? [
            {
              id: row.id,
              url: shownWebhook(row.url),
              error: lane.lastError ?? '',
              failing_since: lane.failingSince ?? 0,
              pending: pendingCount(this.db, row.id),
            },
          ]
        : [];
    });
  }

  private row(id: number): WebhookRow {
    const row = getWebhook(this.db, id);
    if (!row) throw new NotFoundError('webhook', String(id));
    return row;
  }

  private editable(id: number): WebhookRow {
    const row = this.row(id);
    if (row.origin === 'config')
      throw new ConflictError(
        'webhook_from_config',
        'This webhook comes from --webhook or the config file: change it there (and restart the server).',
      );
    return row;
  }

  private webhookOf(row: WebhookRow): Webhook {
    const lane = this.sender.health(row.id);
    return {
      id: row.id,
      url: redactUrl(row.url),
      kinds: JSON.parse(row.kinds) as EventKind[],
      has_secret: row.secret !== null,
      enabled: row.enabled === 1,
      origin: row.origin,
      created_at: row.created_at,
      health: lane.health,
      pending: pendingCount(this.db, row.id),
      ...(lane.lastError ? { last_error: lane.lastError } : {}),
      ...(lane.failingSince ? { failing_since: lane.failingSince } : {}),
    };
  }
}
