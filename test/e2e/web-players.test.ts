/**
 * The players the server knows, in the Antenna app in real headless Chromium against a
 * real server: a TV that registered (a stand-in interface B on loopback, registered as
 * `antenna player` does) is listed in Settings as online with what it plays; "Play on…"
 * on a movie's page sends the movie to it (the stand-in receives interface B's
 * POST /api/play/recording/ID) and the page says so; a TV that cannot be reached is
 * said in words. A channel collection is made in Settings by ticking channels and is
 * what GET /dvr/collections/channels answers after the favorites. axe-core finds no
 * serious violation. A webhook made in Settings (a URL, a secret, the kinds ticked) gets
 * the event it wants, signed, and its delivery log says so.
 * Screenshots: test-output/web/settings-players.png, play-on-menu.png, play-on-sent.png,
 * settings-collection-form.png, settings-collections.png, settings-webhook-form.png,
 * settings-webhooks.png.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, until } from '../support/dvr-app.js';
import { type WebApp, clickText, pageText, startWebApp, waitForText } from '../support/web-app-fixture.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

let web: WebApp;
let tv: Server;
let tvPort: number;
const received: string[] = [];

const registration = (name: string, port: number) => ({
  name,
  hostname: 'tv-box',
  port,
  platform: 'Linux',
  app_version: '0.1.0',
  backend: 'browser',
  local_ip: '127.0.0.1',
  status: {
    status: 'playing',
    muted: false,
    channel: { number: '5', name: 'Five' },
    now_playing: { title: 'Evening News', type: 'live' },
  },
});

beforeAll(async () => {
  web = await startWebApp();
  tv = createServer((request, response) => {
    received.push(`${request.method} ${request.url}`);
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ status: 'playing', muted: false, playback_time: 0 }));
  });
  await new Promise<void>((resolve) => tv.listen(0, '127.0.0.1', resolve));
  tvPort = (tv.address() as AddressInfo).port;
  expect((await web.api('PUT', '/dvr/clients/livingroom0001', registration('Living Room', tvPort))).status).toBe(200);
}, 120_000);

afterAll(async () => {
  tv?.close();
  await web?.close();
});

describe('players in the app', () => {
  it('lists a registered TV in Settings, online, with what it plays', async () => {
    const page = await web.open('/settings');
    await waitForText(page, 'Living Room');
    const text = await pageText(page);
    expect(text).toMatch(/Online\s*Living Room/);
    expect(text).toMatch(/127\.0\.0\.1:\d+ · Linux · TV app · version 0\.1\.0/);
    expect(text).toMatch(/Playing channel 5 Five: Evening News/);
    await page.evaluate(`document.getElementById('players-title').scrollIntoView()`);
    await web.shot(page, 'settings-players');
    expect(await web.seriousViolations(page)).toEqual([]);
    await page.close();
  });

  it('plays a movie on the TV from its page, and says a TV that cannot be reached in words', async () => {
    const movies = (await web.api('GET', '/api/v1/movies')).json as unknown as Json[];
    const movie = movies[0];
    expect(movie).toBeDefined();
    const page = await web.open(`/library/items/${String(movie?.id)}`);
    await page.waitForSelector('button[aria-label^="Play on… a TV: "]');
    await page.click('button[aria-label^="Play on… a TV: "]');
    await waitForText(page, 'Living Room');
    await web.shot(page, 'play-on-menu');
    received.length = 0;
    await clickText(page, 'button', 'Living Room');
    await waitForText(page, 'on Living Room.');
    expect(received).toEqual([`POST /api/play/recording/${String(movie?.id)}`]);
    await web.shot(page, 'play-on-sent');

    // The TV goes away (its port closed) but is still listed online until its heartbeats stop.
    tv.closeAllConnections();
    await new Promise<void>((resolve) => tv.close(() => resolve()));
    await page.click('button[aria-label^="Play on… a TV: "]');
    await clickText(page, 'button', 'Living Room');
    await until(
      () => pageText(page),
      (text) => /cannot be reached/.test(text),
      10_000,
      'the unreachable TV said',
    );
    expect(await pageText(page)).toMatch(/The player Living Room \(127\.0\.0\.1:\d+\) cannot be reached/);
    await page.close();
  });
});

describe('channel collections in Settings', () => {
  it('makes a collection from the channels ticked, which remote apps then read', async () => {
    const page = await web.open('/settings');
    await waitForText(page, 'Channel collections');
    expect(await pageText(page)).toMatch(/Favorites\s*No favorites yet/);
    await clickText(page, 'button', 'New collection');
    await page.waitForSelector('form[aria-label="New channel collection"]');
    await page.type('form[aria-label="New channel collection"] input[type="text"]', 'Kids');
    const channels = (await web.api('GET', '/api/v1/channels')).json as unknown as Json[];
    const [first, second] = channels.map((channel) => `${String(channel.number)} ${String(channel.name)}`);
    await clickText(page, 'label', String(first));
    await clickText(page, 'label', String(second));
    await page.evaluate(`document.getElementById('collections-title').scrollIntoView()`);
    await web.shot(page, 'settings-collection-form');
    expect(await web.seriousViolations(page)).toEqual([]);
    await clickText(page, 'button', 'Save collection');
    await waitForText(page, '2 channels:');
    await web.shot(page, 'settings-collections');
    const collections = (await web.api('GET', '/dvr/collections/channels')).json as unknown as Json[];
    expect(collections).toEqual([
      { id: 'favorites', name: 'Favorites', items: [] },
      { id: expect.any(String), name: 'Kids', items: [String(channels[0]?.number), String(channels[1]?.number)] },
    ]);
    await page.close();
  });
});

describe('webhooks in Settings', () => {
  it('makes a webhook that gets, signed, the kinds ticked, and shows its delivery log', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const page = await web.open('/settings');
      await waitForText(page, 'No webhooks yet.');
      await clickText(page, 'button', 'Add webhook');
      const form = 'form[aria-label="New webhook"]';
      await page.waitForSelector(form);
      await page.type(`${form} input[type="text"]`, receiver.url);
      await page.type(`${form} input[type="password"]`, 'a-secret');
      await clickText(page, 'label', 'Player online');
      await page.evaluate(`document.getElementById('webhooks-title').scrollIntoView()`);
      await web.shot(page, 'settings-webhook-form');
      expect(await web.seriousViolations(page)).toEqual([]);
      await clickText(page, 'button', 'Save webhook');
      await waitForText(page, 'Player online · signed');
      expect(await pageText(page)).toMatch(/Nothing sent yet/);

      // A player that registers is a player.online event: POSTed to the webhook.
      expect((await web.api('PUT', '/dvr/clients/kitchen000001', registration('Kitchen', tvPort))).status).toBe(200);
      await until(
        () => receiver.received.length,
        (n) => n >= 1,
        10_000,
        'the webhook POST',
      );
      const post = receiver.received[0]!;
      expect(post.headers['x-antenna-event']).toBe('player.online');
      expect(post.headers['x-antenna-signature-256']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(JSON.parse(post.body).event).toMatchObject({ kind: 'player.online', data: { player_name: 'Kitchen' } });

      await page.reload();
      await waitForText(page, 'Player online · signed');
      await clickText(page, 'button', 'Deliveries');
      await waitForText(page, 'Delivered (204)');
      expect(await pageText(page)).toMatch(/Delivering/);
      await page.evaluate(`document.getElementById('webhooks-title').scrollIntoView()`);
      await web.shot(page, 'settings-webhooks');
      await page.close();
    } finally {
      await receiver.close();
    }
  });
});
