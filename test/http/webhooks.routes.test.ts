/**
 * Webhooks over HTTP on a real temp database: made, read, changed and removed through
 * /dvr/webhooks; the secret is never answered and kept when a change leaves it out; a
 * bad URL or kind is a 400 saying what to fix, an unknown id 404; reads need the token
 * when one is set and carry no CORS header; any body is answered 201 or 400, never 500;
 * /status lists a failing receiver once.
 */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PathBoundary } from '../../src/common/path-boundary.js';
import { EventLog } from '../../src/events/event-log.service.js';
import { WebhooksService } from '../../src/events/webhooks.service.js';
import { LibraryEditsService } from '../../src/management/library-edits.service.js';
import { MediaFilesService } from '../../src/management/media-files.service.js';
import { type TempLibrary, buildTestApp, createTempLibrary } from '../support/temp-library.js';
import { type WebhookReceiver, startWebhookReceiver } from '../support/webhook-receiver.js';
import { until } from '../support/dvr-app.js';

const logger = pino({ level: 'silent' });
const TOKEN = 'a-token-of-sixteen-or-more';
const auth = { authorization: `Bearer ${TOKEN}` };
let temp: TempLibrary;
let events: EventLog;
let webhooks: WebhooksService;
let app: FastifyInstance;
let receiver: WebhookReceiver;

beforeAll(async () => {
  temp = createTempLibrary();
  events = new EventLog(temp.db, { logger });
  webhooks = new WebhooksService(temp.db, { logger, server: { name: 'test', version: '0' }, delays: [60_000] });
  webhooks.start();
  events.subscribe(webhooks.sender.take);
  receiver = await startWebhookReceiver();
  app = await buildTestApp(temp, {
    management: {
      files: new MediaFilesService(temp.db, { recordingsDir: join(temp.dir, 'r'), boundary: PathBoundary.closed() }),
      edits: new LibraryEditsService(temp.db),
      token: TOKEN,
      roots: () => [],
      events,
      webhooks,
    },
    eventsStatus: () => ({ webhooks_failing: webhooks.problems() }),
  });
});

afterAll(async () => {
  await app.close();
  await webhooks.stop();
  await receiver.close();
  temp.close();
});

const post = (payload: unknown) =>
  app.inject({ method: 'POST', url: '/dvr/webhooks', payload: payload as object, headers: auth });

describe('/dvr/webhooks', () => {
  it('makes a webhook and answers it without its secret, with credentials in its URL redacted', async () => {
    const made = await post({
      url: 'http://user:pw@ha.local:8123/api/webhook/antenna?token=abc',
      kinds: ['recording.failed'],
      secret: 'the-secret',
    });
    expect(made.statusCode).toBe(201);
    const hook = made.json();
    expect(hook).toMatchObject({
      kinds: ['recording.failed'],
      has_secret: true,
      enabled: true,
      origin: 'managed',
      health: 'idle',
      pending: 0,
    });
    expect(made.body).not.toContain('the-secret');
    expect(made.body).not.toContain('pw@');
    expect(hook.url).not.toContain('abc');
    const listed = await app.inject({ method: 'GET', url: '/dvr/webhooks', headers: auth });
    expect(listed.statusCode).toBe(200);
    expect(listed.headers['access-control-allow-origin']).toBeUndefined();
    expect(listed.json()).toEqual([hook]);
    // Sent back as shown (redacted), the URL keeps what it hid; the secret stays when left out.
    const changed = await app.inject({
      method: 'PUT',
      url: `/dvr/webhooks/${hook.id}`,
      payload: { url: hook.url, kinds: [], enabled: false },
      headers: auth,
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({ url: hook.url, kinds: [], enabled: false, has_secret: true });
    const cleared = await app.inject({
      method: 'PUT',
      url: `/dvr/webhooks/${hook.id}`,
      payload: { url: hook.url, secret: '' },
      headers: auth,
    });
    expect(cleared.json()).toMatchObject({ has_secret: false, enabled: true });
    expect((await app.inject({ method: 'DELETE', url: `/dvr/webhooks/${hook.id}`, headers: auth })).statusCode).toBe(
      204,
    );
    expect((await app.inject({ method: 'GET', url: `/dvr/webhooks/${hook.id}`, headers: auth })).statusCode).toBe(404);
  });

  it('refuses a bad URL or kind with a 400 saying what to fix', async () => {
    const notUrl = await post({ url: 'homeassistant.local/hook' });
    expect(notUrl.statusCode).toBe(400);
    expect(notUrl.json()).toMatchObject({ status: 400, code: expect.any(String) });
    expect(notUrl.json().message).toMatch(/not a URL/);
    const ftp = await post({ url: 'ftp://x/y' });
    expect(ftp.json().message).toMatch(/http:\/\/ or https:\/\//);
    const kind = await post({ url: 'http://x.local/', kinds: ['recording.exploded'] });
    expect(kind.statusCode).toBe(400);
    expect(kind.json().message).toMatch(/recording\.failed/);
    const unknown = await app.inject({ method: 'GET', url: '/dvr/webhooks/9999/deliveries', headers: auth });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toMatch(/webhook/);
  });

  it('shows webhooks only with the token, and takes changes only with it', async () => {
    const read = await app.inject({ method: 'GET', url: '/dvr/webhooks' });
    expect(read.statusCode).toBe(401);
    expect(read.json().message).toMatch(/token/);
    expect((await app.inject({ method: 'POST', url: '/dvr/webhooks', payload: { url: 'http://x/' } })).statusCode).toBe(
      401,
    );
  });

  it('answers any body with 201 or 400, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            url: fc.oneof(fc.string(), fc.webUrl()),
            kinds: fc.array(fc.oneof(fc.constant('disk.low'), fc.string()), { maxLength: 3 }),
            secret: fc.string(),
            enabled: fc.oneof(fc.boolean(), fc.string()),
          },
          { requiredKeys: [] },
        ),
        async (body) => {
          const answer = await post(body);
          expect([201, 400]).toContain(answer.statusCode);
          if (answer.statusCode === 201)
            await app.inject({ method: 'DELETE', url: `/dvr/webhooks/${answer.json().id}`, headers: auth });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('logs deliveries, and /status names a failing receiver once', async () => {
    receiver.answer = 500;
    const hook = (await post({ url: receiver.url })).json();
    events.emit({ kind: 'disk.low', severity: 'warning', message: 'Disk low.', data: {} });
    events.emit({ kind: 'disk.low', severity: 'warning', message: 'Disk low.', data: {} });
    await until(
      () => receiver.received.length,
      (n) => n >= 2,
      5000,
      'two POSTs',
      20,
    );
    const log = await app.inject({ method: 'GET', url: `/dvr/webhooks/${hook.id}/deliveries?limit=5`, headers: auth });
    expect(log.json()).toMatchObject([
      { kind: 'disk.low', state: 'pending', attempts: 1, http_status: 500, error: 'the receiver answered 500' },
      { kind: 'disk.low', state: 'pending', attempts: 1 },
    ]);
    const status = (await app.inject({ method: 'GET', url: '/status' })).json();
    expect(status.events.webhooks_failing).toEqual([
      expect.objectContaining({ id: hook.id, error: 'the receiver answered 500', pending: 2 }),
    ]);
    // /status is open to any reader: the receiver by its origin only (a path can be its key).
    expect(status.events.webhooks_failing[0].url).toBe(`${new URL(receiver.url).origin}/…`);
  });
});
