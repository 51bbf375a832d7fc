/**
 * How Settings words webhooks: the event kinds in people's words (a Record, so a kind
 * the server adds fails the build here until it has its words), what a receiver wants,
 * its health and a delivery's outcome. Pure, unit-tested.
 */
import type { EventKind, Webhook, WebhookDelivery } from '../../api/server-types';

export const KIND_LABELS: Record<EventKind, string> = {
  'recording.scheduled': 'Recording scheduled',
  'recording.started': 'Recording started',
  'recording.completed': 'Recording completed',
  'recording.failed': 'Recording failed',
  'recording.skipped': 'Recording skipped',
  'recording.conflict': 'Conflict',
  'disk.low': 'Disk low',
  'disk.full': 'Disk full',
  'source.failing': 'Source failing',
  'source.back': 'Source back',
  'guide.failed': 'Guide refresh failed',
  'guide.applied': 'Guide refreshed',
  'library.scanned': 'Library scanned',
  'player.online': 'Player online',
  'player.offline': 'Player offline',
  'playback.started': 'Playback started',
  'playback.stopped': 'Playback stopped',
};

export const EVENT_KIND_LIST = Object.keys(KIND_LABELS) as EventKind[];

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
