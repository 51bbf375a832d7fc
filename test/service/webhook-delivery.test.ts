/**
 * Webhook delivery on a real temp database to real HTTP receivers: each event reaches
 * each receiver that wants its kind, signed when a secret is set; a failing receiver is
 * retried (same delivery id, next attempt number) until it answers, and given up after
 * the last attempt; a receiver that never answers holds up nobody else; what is pending
 * at a stop is sent after the next start; an unreachable receiver's queue is bounded;
 * and /status's problems name a failing receiver once.
 */
import { createHmac } from 'node:crypto';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog } from '../../src/events/event-log.service.js';
import { WebhooksService } from '../../src/events/webhooks.service.js';
import type { NewEvent } from '../../src/model/events/event.schemas.js';
import { WEBHOOK_QUEUE_LIMIT } from '../../src/model/events/webhook.schemas.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';
import { type WebhookReceiver, startWebhookReceiver } from '../support/webhook-receiver.js';
import { until } from '../support/dvr-app.js';

const logger = pino({ level: 'silent' });
const server = { name: 'Antenna on test', version: '0.0.0' };
const failed: NewEvent = {
  kind: 'recording.failed',
  severity: 'error',
  message: 'Recording News failed: the source stopped.',
  data: { job_id: 'j1', title: 'News', reason: 'the source stopped' },
};
const completed: NewEvent = { kind: 'recording.completed', severity: 'info', message: 'Recorded News.', data: {} };

let temp: TempLibrary;
let events: EventLog;
let receivers: WebhookReceiver[];
let services: WebhooksService[];

function webhooks(options: { delays?: number[]; timeoutMs?: number } = {}): WebhooksService {
  const service = new WebhooksService(temp.db, { logger, server, delays: [50, 100], timeoutMs: 2000, ...options });
  services.push(service);
  events.subscribe(service.sender.take);
  return service;
}

async function receiver(): Promise<WebhookReceiver> {
  const made = await startWebhookReceiver();
  receivers.push(made);
  return made;
}

const got = (r: WebhookReceiver, n: number, what = `${n} POSTs`) =>
  until(
    () => r.received.length,
    (count) => count >= n,
    5000,
    what,
    20,
  );

beforeEach(() => {
  temp = createTempLibrary();
  events = new EventLog(temp.db, { logger });
  receivers = [];
  services = [];
});

afterEach(async () => {
  for (const service of services) await service.stop();
  for (const r of receivers) await r.close();
  temp.close();
});

describe('webhook delivery', () => {
  it('posts each event to the receivers that want its kind, signed with the secret', async () => {
    const all = await receiver();
    const failures = await receiver();
    const service = webhooks();
    service.start();
    const a = service.add({ url: all.url });
    const b = service.add({ url: failures.url, kinds: ['recording.failed'], secret: 'k3y' });
    events.emit(completed);
    const told = events.emit(failed);
    await got(all, 2);
    await got(failures, 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(failures.received).toHaveLength(1);
    const post = failures.received[0]!;
    expect(JSON.parse(post.body)).toEqual({ event: told, server });
    expect(post.headers['x-antenna-event']).toBe('recording.failed');
    expect(post.headers['x-antenna-attempt']).toBe('1');
    expect(post.headers['x-antenna-signature-256']).toBe(
      `sha256=${createHmac('sha256', 'k3y').update(post.body).digest('hex')}`,
    );
    expect(all.received[0]!.headers['x-antenna-signature-256']).toBeUndefined();
    expect(all.received.map((r) => r.headers['x-antenna-event'])).toEqual(['recording.completed', 'recording.failed']);
    await until(
      () => service.deliveries(b.id, 10),
      (log) => log[0]?.state === 'delivered',
      2000,
      'delivered',
      20,
    );
    expect(service.deliveries(b.id, 10)).toMatchObject([{ state: 'delivered', attempts: 1, http_status: 204 }]);
    expect(service.get(a.id)).toMatchObject({ health: 'ok', pending: 0, has_secret: false });
    expect(service.get(b.id)).toMatchObject({ has_secret: true, kinds: ['recording.failed'] });
    expect(JSON.stringify(service.list())).not.toContain('k3y');
  });

  it('retries a failing receiver with the same delivery id until it answers, and /status names it once meanwhile', async () => {
    const flaky = await receiver();
    flaky.answer = 500;
    const service = webhooks({ delays: [150, 150, 150] });
    service.start();
    const hook = service.add({ url: flaky.url });
    events.emit(failed);
    events.emit(failed);
    await got(flaky, 2);
    expect(service.problems()).toMatchObject([{ id: hook.id, error: 'the receiver answered 500', pending: 2 }]);
    expect(service.get(hook.id)).toMatchObject({ health: 'failing', last_error: 'the receiver answered 500' });
    flaky.answer = 200;
    await until(
      () => service.deliveries(hook.id, 10),
      (log) => log.length === 2 && log.every((d) => d.state === 'delivered'),
      5000,
      'both delivered',
      20,
    );
    const ids = flaky.received.map((r) => r.headers['x-antenna-delivery']);
    const retried = flaky.received.filter((r) => r.headers['x-antenna-attempt'] === '2');
    expect(retried).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    expect(service.problems()).toEqual([]);
    expect(service.get(hook.id).health).toBe('ok');
  });

  it('gives a delivery up after the last attempt, as failed with the reason', async () => {
    const broken = await receiver();
    broken.answer = 503;
    const service = webhooks({ delays: [30] });
    service.start();
    const hook = service.add({ url: broken.url });
    events.emit(failed);
    await until(
      () => service.deliveries(hook.id, 10),
      (log) => log[0]?.state === 'failed',
      3000,
      'failed',
      20,
    );
    expect(broken.received).toHaveLength(2);
    expect(service.deliveries(hook.id, 10)[0]).toMatchObject({
      state: 'failed',
      attempts: 2,
      http_status: 503,
      error: 'the receiver answered 503',
    });
  });

  it('a receiver that never answers holds up nobody else', async () => {
    const stuck = await receiver();
    stuck.answer = 'hang';
    const fine = await receiver();
    const service = webhooks({ timeoutMs: 60_000 });
    service.start();
    service.add({ url: stuck.url });
    service.add({ url: fine.url });
    for (let n = 0; n < 5; n++) events.emit(failed);
    await got(fine, 5);
    expect(stuck.received).toHaveLength(1);
  });

  it('sends after a restart what was pending at the stop', async () => {
    const later = await receiver();
    later.answer = 'hang';
    const first = webhooks({ timeoutMs: 60_000 });
    first.start();
    const hook = first.add({ url: later.url });
    events.emit(failed);
    await got(later, 1);
    await first.stop();
    expect(first.deliveries(hook.id, 10)).toMatchObject([{ state: 'pending', attempts: 0 }]);
    later.answer = 204;
    const second = new WebhooksService(temp.db, { logger, server });
    services.push(second);
    second.start();
    await got(later, 2);
    await until(
      () => second.deliveries(hook.id, 10),
      (log) => log[0]?.state === 'delivered',
      2000,
      'delivered',
      20,
    );
  });

  it('drops the oldest deliveries of a receiver unreachable past its queue bound', async () => {
    const stuck = await receiver();
    stuck.answer = 'hang';
    const service = webhooks({ timeoutMs: 60_000 });
    service.start();
    const hook = service.add({ url: stuck.url });
    for (let n = 0; n < WEBHOOK_QUEUE_LIMIT + 3; n++) events.emit(failed);
    const log = service.deliveries(hook.id, 200);
    expect(service.get(hook.id).pending).toBe(WEBHOOK_QUEUE_LIMIT);
    expect(log.filter((d) => d.state === 'dropped').length).toBe(0);
    // The three dropped are the oldest waiting (the first, in flight, is among them).
    const oldest = service.deliveries(hook.id, WEBHOOK_QUEUE_LIMIT + 3).slice(-3);
    expect(oldest.map((d) => d.state)).toEqual(['dropped', 'dropped', 'dropped']);
  });

  it('lets the attempt under way of a removed receiver touch nothing of one made after it', async () => {
    const stuck = await receiver();
    stuck.answer = 'hang';
    const fine = await receiver();
    const service = webhooks({ timeoutMs: 300 });
    service.start();
    const first = service.add({ url: stuck.url });
    events.emit(failed);
    await got(stuck, 1);
    service.remove(first.id);
    const second = service.add({ url: fine.url });
    expect(second.id).not.toBe(first.id);
    events.emit(completed);
    await got(fine, 1);
    // The removed one's attempt times out meanwhile; nothing is sent twice, nothing of it is logged on the new one.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(fine.received).toHaveLength(1);
    expect(stuck.received).toHaveLength(1);
    expect(service.deliveries(second.id, 10)).toMatchObject([{ kind: 'recording.completed', state: 'delivered' }]);
  });

  it('keeps a config webhook in step with the config, and refuses to change it over the API', async () => {
    const r = await receiver();
    const service = webhooks();
    service.start([{ url: r.url, kinds: ['disk.low'] }]);
    const [hook] = service.list();
    expect(hook).toMatchObject({ origin: 'config', kinds: ['disk.low'] });
    expect(() => service.remove(hook!.id)).toThrow(/config file/);
    expect(() => service.replace(hook!.id, { url: r.url })).toThrow(/config file/);
    service.start([]);
    expect(service.list()).toEqual([]);
  });
});
