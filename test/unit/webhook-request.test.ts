/**
 * What a webhook POST is: accepted URLs (and a 400 naming the problem for the rest, for
 * any text), the kinds a receiver wants, the body and its HMAC signature (checked the way
 * a receiver checks it), the headers, the retry schedule and failures told in a sentence.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../src/common/errors.js';
import {
  RETRY_DELAYS_MS,
  answerProblem,
  checkedWebhookUrl,
  fetchProblem,
  retryDelay,
  shownWebhook,
  signatureOf,
  storedKinds,
  wantsKind,
  webhookHeaders,
  webhookPostBody,
} from '../../src/events/webhook-request.js';
import type { AntennaEvent } from '../../src/model/events/event.schemas.js';

const event: AntennaEvent = {
  id: 7,
  kind: 'recording.failed',
  at: 1_700_000_000_000,
  severity: 'error',
  message: 'Recording News failed: the source stopped.',
  data: { job_id: 'j1', title: 'News', reason: 'the source stopped' },
};

describe('checkedWebhookUrl', () => {
  it('keeps http and https URLs, normalised', () => {
    expect(checkedWebhookUrl(' http://ha.local:8123/api/webhook/antenna ')).toBe(
      'http://ha.local:8123/api/webhook/antenna',
    );
    expect(checkedWebhookUrl('https://EXAMPLE.org')).toBe('https://example.org/');
  });

  it('refuses link-local receivers and a URL still holding the redaction mark', () => {
    expect(() => checkedWebhookUrl('http://169.254.169.254/latest/meta-data')).toThrow(/link-local/);
    expect(() => checkedWebhookUrl('http://[fe80::1]:8123/hook')).toThrow(/link-local/);
    expect(() => checkedWebhookUrl('http://[Redacted]@ha.local/hook')).toThrow(/give the whole URL again/);
    expect(checkedWebhookUrl('http://192.168.1.5:8123/api/webhook/x')).toBe('http://192.168.1.5:8123/api/webhook/x');
  });

  it('names a receiver by its origin only where anyone may read it (the path can be its key)', () => {
    expect(shownWebhook('http://ha.local:8123/api/webhook/SECRETID?x=1')).toBe('http://ha.local:8123/…');
    expect(shownWebhook('https://ntfy.sh/')).toBe('https://ntfy.sh/');
    expect(shownWebhook('not a url')).toBe('(an invalid URL)');
  });

  it('refuses what is not an http(s) URL with a 400 saying what to give', () => {
    for (const bad of ['ha.local/hook', 'ftp://x/y', 'file:///etc/passwd', 'javascript:alert(1)', '']) {
      const attempt = () => checkedWebhookUrl(bad);
      expect(attempt).toThrow(BadRequestError);
      expect(attempt).toThrow(/http/);
    }
  });

  it('either accepts a text as an http(s) URL or refuses it with a BadRequestError, for any text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.webUrl(),
          fc.string().map((s) => `http://${s}`),
        ),
        (text) => {
          try {
            const url = new URL(checkedWebhookUrl(text));
            expect(['http:', 'https:']).toContain(url.protocol);
          } catch (error) {
            expect(error).toBeInstanceOf(BadRequestError);
          }
        },
      ),
    );
  });
});

describe('kinds', () => {
  it('an empty list wants every kind; otherwise only those named', () => {
    expect(wantsKind([], 'disk.low')).toBe(true);
    expect(wantsKind(['recording.failed'], 'recording.failed')).toBe(true);
    expect(wantsKind(['recording.failed'], 'recording.completed')).toBe(false);
    expect(storedKinds(['disk.low', 'disk.low', 'disk.full'])).toEqual(['disk.low', 'disk.full']);
    expect(storedKinds(undefined)).toEqual([]);
  });
});

describe('body, signature and headers', () => {
  const server = { name: 'Antenna on den', version: '0.1.0' };

  it('posts the event and the server, as JSON', () => {
    expect(JSON.parse(webhookPostBody(event, server))).toEqual({ event, server });
  });

  it('signs the exact body with HMAC-SHA256 as a receiver verifies it', () => {
    const body = webhookPostBody(event, server);
    const headers = webhookHeaders({
      kind: event.kind,
      deliveryId: 3,
      attempt: 2,
      body,
      secret: 's3cret',
      version: '0.1.0',
    });
    const expected = `sha256=${createHmac('sha256', 's3cret').update(body).digest('hex')}`;
    const given = headers['x-antenna-signature-256'] ?? '';
    expect(timingSafeEqual(Buffer.from(given), Buffer.from(expected))).toBe(true);
    expect(signatureOf('other', body)).not.toBe(expected);
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Antenna/0.1.0',
      'x-antenna-event': 'recording.failed',
      'x-antenna-delivery': '3',
      'x-antenna-attempt': '2',
    });
  });

  it('sends no signature without a secret', () => {
    const headers = webhookHeaders({
      kind: event.kind,
      deliveryId: 1,
      attempt: 1,
      body: '{}',
      secret: null,
      version: '1',
    });
    expect(headers).not.toHaveProperty('x-antenna-signature-256');
  });
});

describe('retries and failures', () => {
  it('waits longer after each failed attempt, and stops after the last', () => {
    expect(RETRY_DELAYS_MS.length).toBe(5);
    expect(retryDelay(1)).toBe(10_000);
    expect(retryDelay(5)).toBe(1_800_000);
    expect(retryDelay(6)).toBeUndefined();
    expect(retryDelay(0)).toBeUndefined();
    for (let n = 2; n <= RETRY_DELAYS_MS.length; n++) expect(retryDelay(n)!).toBeGreaterThan(retryDelay(n - 1)!);
    expect(retryDelay(2, [5, 6])).toBe(6);
    expect(retryDelay(3, [5, 6])).toBeUndefined();
  });

  it('a 2xx is a delivery; a redirect or an error status is told', () => {
    expect(answerProblem(200)).toBeUndefined();
    expect(answerProblem(204)).toBeUndefined();
    expect(answerProblem(302)).toMatch(/redirected \(302\): give the URL it redirects to/);
    expect(answerProblem(500)).toBe('the receiver answered 500');
    expect(answerProblem(404)).toBe('the receiver answered 404');
  });

  it('a fetch that threw is told by its cause', () => {
    const refused = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    expect(fetchProblem(refused)).toMatch(/refused/);
    const unknown = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ENOTFOUND' } });
    expect(fetchProblem(unknown)).toMatch(/does not resolve/);
    expect(fetchProblem(new DOMException('late', 'TimeoutError'))).toMatch(/no answer within 10 s/);
    expect(fetchProblem(new Error('boom'))).toBe('could not reach it: boom');
  });
});
