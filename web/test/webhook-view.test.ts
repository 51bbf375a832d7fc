/** How Settings words webhooks: kinds, a receiver's health, a delivery's outcome. */
import { describe, expect, it } from 'vitest';
import type { WebhookDelivery } from '../src/api/server-types';
import {
  EVENT_KIND_LIST,
  KIND_LABELS,
  deliveryText,
  healthText,
  kindsSummary,
} from '../src/sections/settings/webhook-view';
import { EVENT_KINDS } from '../../src/model/events/event.schemas';

const delivery = (over: Partial<WebhookDelivery>): WebhookDelivery => ({
  id: 1,
  event_id: 1,
  kind: 'recording.failed',
  state: 'pending',
  attempts: 0,
  created_at: 0,
  ...over,
});

describe('webhook words', () => {
  it('has words for every kind the server tells', () => {
    expect([...EVENT_KIND_LIST].sort()).toEqual([...EVENT_KINDS].sort());
    expect(KIND_LABELS['disk.low']).toBe('Disk space low');
  });

  it('sums up the kinds a receiver wants', () => {
    expect(kindsSummary([])).toBe('Every event');
    expect(kindsSummary([...EVENT_KINDS])).toBe('Every event');
    expect(kindsSummary(['recording.failed', 'disk.full'])).toBe('Recording failed, Disk full');
  });

  it("says a receiver's health, paused first", () => {
    expect(healthText({ enabled: false, health: 'failing', pending: 3 })).toBe('Paused');
    expect(healthText({ enabled: true, health: 'failing', last_error: 'the receiver answered 500', pending: 2 })).toBe(
      'Failing: the receiver answered 500, 2 waiting',
    );
    expect(healthText({ enabled: true, health: 'ok', pending: 0 })).toBe('Delivering');
    expect(healthText({ enabled: true, health: 'idle', pending: 0 })).toBe('Nothing sent yet');
  });

  it("says each delivery's outcome", () => {
    expect(deliveryText(delivery({ state: 'delivered', attempts: 1, http_status: 204 }))).toBe('Delivered (204)');
    expect(deliveryText(delivery({ state: 'delivered', attempts: 3, http_status: 200 }))).toBe(
      'Delivered (200, after 3 attempts)',
    );
    expect(deliveryText(delivery({ state: 'failed', attempts: 6, error: 'no answer within 10 s' }))).toBe(
      'Failed after 6 attempts: no answer within 10 s',
    );
    expect(deliveryText(delivery({ state: 'dropped' }))).toBe('Dropped: the queue was full');
    expect(deliveryText(delivery({}))).toBe('Waiting');
    expect(deliveryText(delivery({ attempts: 1, error: 'the receiver answered 500' }))).toBe(
      'Retrying (1 attempt so far): the receiver answered 500',
    );
  });
});
