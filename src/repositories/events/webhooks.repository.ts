/**
 * Webhooks and their deliveries. A delivery row is the queue and the log at once: pending
 * rows are sent oldest-due first, one receiver's never waiting on another's.
 */
import type { Db } from '../../db/database.js';
import { statement } from '../../db/row-codec.js';
import type { DeliveryState } from '../../model/events/webhook.schemas.js';

export interface WebhookRow {
  id: number;
  url: string;
  /** JSON array of kinds. */
  kinds: string;
  secret: string | null;
  enabled: number;
  origin: 'config' | 'managed';
  created_at: number;
}

export interface DeliveryRow {
  id: number;
  webhook_id: number;
  event_id: number;
  kind: string;
  state: DeliveryState;
  attempts: number;
  next_at: number;
  body: string;
  http_status: number | null;
  error: string | null;
  duration_ms: number | null;
  created_at: number;
  done_at: number | null;
}

const HOOK = 'id, url, kinds, secret, enabled, origin, created_at';
const DELIVERY =
  'id, webhook_id, event_id, kind, state, attempts, next_at, body, http_status, error, duration_ms, created_at, done_at';

export function listWebhooks(db: Db): WebhookRow[] {
  return statement(db, `SELECT ${HOOK} FROM webhooks ORDER BY id`).all() as WebhookRow[];
}

export function getWebhook(db: Db, id: number): WebhookRow | undefined {
  return statement(db, `SELECT ${HOOK} FROM webhooks WHERE id = ?`).get(id) as WebhookRow | undefined;
}

export function insertWebhook(db: Db, row: Omit<WebhookRow, 'id'>): number {
  return Number(
    statement(
      db,
      `INSERT INTO webhooks (url, kinds, secret, enabled, origin, created_at)
       VALUES (@url, @kinds, @secret, @enabled, @origin, @created_at)`,
    ).run(row).lastInsertRowid,
  );
}

export function updateWebhook(db: Db, row: Pick<WebhookRow, 'id' | 'url' | 'kinds' | 'secret' | 'enabled'>): boolean {
  return (
    statement(
      db,
      'UPDATE webhooks SET url = @url, kinds = @kinds, secret = @secret, enabled = @enabled WHERE id = @id',
    ).run(row).changes > 0
  );
}

export function deleteWebhook(db: Db, id: number): boolean {
  return statement(db, 'DELETE FROM webhooks WHERE id = ?').run(id).changes > 0;
}

/** The config's webhooks become exactly `wanted` (matched by URL); managed ones stay. */
export function replaceConfigWebhooks(
  db: Db,
  wanted: readonly { url: string; kinds: string; secret: string | null }[],
  now: number,
): void {
  db.transaction(() => {
    const existing = listWebhooks(db).filter((hook) => hook.origin === 'config');
    for (const hook of existing) if (!wanted.some((want) => want.url === hook.url)) deleteWebhook(db, hook.id);
    for (const want of wanted) {
      const found = existing.find((hook) => hook.url === want.url);
      if (found) updateWebhook(db, { id: found.id, url: want.url, kinds: want.kinds, secret: want.secret, enabled: 1 });
      else insertWebhook(db, { ...want, enabled: 1, origin: 'config', created_at: now });
    }
  }).immediate();
}

export function insertDelivery(
  db: Db,
  row: Pick<DeliveryRow, 'webhook_id' | 'event_id' | 'kind' | 'body' | 'next_at' | 'created_at'>,
): number {
  return Number(
    statement(
      db,
      `INSERT INTO webhook_deliveries (webhook_id, event_id, kind, state, next_at, body, created_at)
       VALUES (@webhook_id, @event_id, @kind, 'pending', @next_at, @body, @created_at)`,
    ).run(row).lastInsertRowid,
  );
}

/** The pending delivery of `webhookId` due first (a retry's next_at is in the future until then). */
export function firstPending(db: Db, webhookId: number): DeliveryRow | undefined {
  return statement(
    db,
    `SELECT ${DELIVERY} FROM webhook_deliveries WHERE webhook_id = ? AND state = 'pending'
     ORDER BY next_at, id LIMIT 1`,
  ).get(webhookId) as DeliveryRow | undefined;
}

export function pendingCount(db: Db, webhookId: number): number {
  return (
    statement(db, "SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ? AND state = 'pending'").get(
      webhookId,
    ) as { n: number }
  ).n;
}

/** What an attempt came to: still pending (a retry at next_at) or done; one dropped meanwhile stays dropped. */
export function recordAttempt(
  db: Db,
  row: Pick<DeliveryRow, 'id' | 'state' | 'attempts' | 'next_at' | 'http_status' | 'error' | 'duration_ms' | 'done_at'>,
): void {
  statement(
    db,
    `UPDATE webhook_deliveries SET state = @state, attempts = @attempts, next_at = @next_at, http_status = @http_status,
       error = @error, duration_ms = @duration_ms, done_at = @done_at WHERE id = @id AND state = 'pending'`,
  ).run(row);
}

/** Drops the oldest pending deliveries of `webhookId` past `limit`; how many it dropped. */
export function dropOverflow(db: Db, webhookId: number, limit: number, now: number): number {
  return statement(
    db,
    `UPDATE webhook_deliveries SET state = 'dropped', done_at = @now,
       error = 'the queue was full: the receiver was unreachable for too long'
     WHERE id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = @webhookId AND state = 'pending'
                  ORDER BY id DESC LIMIT -1 OFFSET @limit)`,
  ).run({ webhookId, limit, now }).changes;
}

/** The newest deliveries of `webhookId`, newest first. */
export function recentDeliveries(db: Db, webhookId: number, limit: number): DeliveryRow[] {
  return statement(db, `SELECT ${DELIVERY} FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id DESC LIMIT ?`).all(
    webhookId,
    limit,
  ) as DeliveryRow[];
}

/** Keeps the newest `keep` finished deliveries of `webhookId` (pending ones always stay). */
export function trimDeliveries(db: Db, webhookId: number, keep: number): void {
  statement(
    db,
    `DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries
       WHERE webhook_id = @webhookId AND state != 'pending' ORDER BY id DESC LIMIT -1 OFFSET @keep)`,
  ).run({ webhookId, keep });
}
