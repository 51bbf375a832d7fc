/**
 * How Settings words webhooks: what a receiver wants (the kinds in the words of
 * lib/event-kinds.ts), its health and a delivery's outcome. Pure, unit-tested.
 */
import type { EventKind, Webhook, WebhookDelivery } from '../../api/server-types';
import { EVENT_KIND_LIST, EVENT_KIND_TITLES } from '../../lib/event-kinds';

/** The kinds in people's words (shared with the notifications). */
export const KIND_LABELS = EVENT_KIND_TITLES;
export { EVENT_KIND_LIST };

/** "Every event", or the kinds it wants. */
export function kindsSummary(kinds: readonly EventKind[]): string {
  if (kinds.length === 0 || kinds.length === EVENT_KIND_LIST.length) return 'Every event';
  return kinds.map((kind) => KIND_LABELS[kind]).join(', ');
}

/** The receiver's state in a few words. */
export function healthText(hook: Pick<Webhook, 'enabled' | 'health' | 'last_error' | 'pending'>): string {
  if (!hook.enabled) return 'Paused';
  const waiting = hook.pending > 0 ? `, ${hook.pending} waiting` : '';
  if (hook.health === 'failing') return `Failing: ${hook.last_error ?? 'the last attempt failed'}${waiting}`;
  if (hook.health === 'ok') return `Delivering${waiting}`;
  return `Nothing sent yet${waiting}`;
}

/** One line of the delivery log. */
export function deliveryText(delivery: WebhookDelivery): string {
  const tries = delivery.attempts === 1 ? '1 attempt' : `${delivery.attempts} attempts`;
  switch (delivery.state) {
    case 'delivered':
      return `Delivered (${delivery.http_status ?? 'ok'}${delivery.attempts > 1 ? `, after ${tries}` : ''})`;
    case 'failed':
      return `Failed after ${tries}: ${delivery.error ?? ''}`;
    case 'dropped':
      return 'Dropped: the queue was full';
    default:
      return delivery.attempts === 0 ? 'Waiting' : `Retrying (${tries} so far): ${delivery.error ?? ''}`;
  }
}
