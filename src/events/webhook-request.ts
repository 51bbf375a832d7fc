/**
 * What a webhook POST is, as pure functions: the URL accepted, the body and its
 * signature, the headers, when a failed attempt is tried again, and a failure told in
 * a sentence. No I/O (webhook-sender.ts sends).
 */
import { createHmac } from 'node:crypto';
import { BadRequestError } from '../common/errors.js';
import { REDACTED } from '../common/url-redaction.js';
import type { AntennaEvent, EventKind } from '../model/events/event.schemas.js';
import type { WebhookPost } from '../model/events/webhook.schemas.js';

/** After the first attempt fails: the waits before the next ones (six attempts over about 43 minutes). */
export const RETRY_DELAYS_MS: readonly number[] = [10_000, 30_000, 120_000, 600_000, 1_800_000];
/** An attempt not answered by then failed (the receiver is slow, or the address swallows packets). */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/** The URL as stored: http(s), with a host; anything else is a 400 saying what to give. */
export function checkedWebhookUrl(text: string): string {
  const trimmed = text.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new BadRequestError(
      'url',
      `'${trimmed.slice(0, 100)}' is not a URL: give the receiver's address, such as http://homeassistant.local:8123/api/webhook/antenna.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new BadRequestError('url', `A webhook URL starts with http:// or https://, not ${url.protocol}//.`);
  if (url.hostname === '') throw new BadRequestError('url', 'The webhook URL needs a host name.');
  // Link-local addresses are the machine's own (a cloud's metadata service): no receiver of events lives there.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host.startsWith('169.254.') || /^fe[89ab][0-9a-f]:/i.test(host))
    throw new BadRequestError('url', `${host} is a link-local address: give the receiver's network address or name.`);
  if (text.includes(REDACTED))
    throw new BadRequestError(
      'url',
      `The URL still holds ${REDACTED} where credentials were hidden: give the whole URL again, credentials included.`,
    );
  return url.href;
}

/**
 * A receiver as logs and GET /status name it: its origin only. Its path or query may be its key (Home Assistant's
 * /api/webhook/ID, Slack's and Discord's URLs), so only GET /dvr/webhooks, which needs a writer's access, shows more.
 */
export function shownWebhook(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname === '/' && parsed.search === '' ? '/' : '/…'}`;
  } catch {
    return '(an invalid URL)';
  }
}

/** The kinds as stored: each once, in the model's order; empty is every kind. */
export const storedKinds = (kinds: readonly EventKind[] | undefined): EventKind[] => [...new Set(kinds ?? [])];

export const wantsKind = (kinds: readonly string[], kind: EventKind): boolean =>
  kinds.length === 0 || kinds.includes(kind);

/** The exact bytes posted: the event and which server told it. */
export function webhookPostBody(event: AntennaEvent, server: WebhookPost['server']): string {
  const post: WebhookPost = { event, server };
  return JSON.stringify(post);
}

/** `sha256=` and the hex HMAC-SHA256 of the body under the secret (as GitHub's X-Hub-Signature-256). */
export const signatureOf = (secret: string, body: string): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

export function webhookHeaders(post: {
  kind: EventKind;
  deliveryId: number;
  attempt: number;
  body: string;
  secret: string | null;
  version: string;
}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': `Antenna/${post.version}`,
    'x-antenna-event': post.kind,
    'x-antenna-delivery': String(post.deliveryId),
    'x-antenna-attempt': String(post.attempt),
    ...(post.secret ? { 'x-antenna-signature-256': signatureOf(post.secret, post.body) } : {}),
  };
}

/** The wait after `attempts` failed ones, or undefined when that was the last. */
export const retryDelay = (attempts: number, delays: readonly number[] = RETRY_DELAYS_MS): number | undefined =>
  attempts >= 1 && attempts <= delays.length ? delays[attempts - 1] : undefined;

/** An answer that is not a delivery, in a sentence (undefined: a 2xx, delivered); a redirect's target is not named. */
export function answerProblem(status: number): string | undefined {
  if (status >= 200 && status < 300) return undefined;
  if (status >= 300 && status < 400)
    return `the receiver redirected (${status}): give the URL it redirects to (redirects are not followed)`;
  return `the receiver answered ${status}`;
}

/** A fetch that threw, in a sentence. */
export function fetchProblem(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`;
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  if (cause?.code === 'ECONNREFUSED') return 'the connection was refused (nothing listens there)';
  if (cause?.code === 'ENOTFOUND' || cause?.code === 'EAI_AGAIN') return 'the host name does not resolve';
  const text = cause?.message ?? (error instanceof Error ? error.message : String(error));
  return `could not reach it: ${text.slice(0, 200)}`;
}
