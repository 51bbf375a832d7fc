/**
 * Sends webhook deliveries. Each receiver has a lane of its own: one POST at a time, the
 * pending delivery due first, a failed one tried again later (RETRY_DELAYS_MS) while the
 * next ones go on, so a slow or dead receiver holds up only its own deliveries and never
 * the server (nothing here is awaited by whoever emitted the event). The queue is the
 * database's: what is pending at a stop is sent after the next start.
 */
import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import type { AntennaEvent } from '../model/events/event.schemas.js';
import { WEBHOOK_LOG_KEEP, WEBHOOK_QUEUE_LIMIT, type WebhookPost } from '../model/events/webhook.schemas.js';
import {
  type DeliveryRow,
  type WebhookRow,
  dropOverflow,
  firstPending,
  getWebhook,
  insertDelivery,
  listWebhooks,
  recordAttempt,
  trimDeliveries,
} from '../repositories/events/webhooks.repository.js';
import {
  ATTEMPT_TIMEOUT_MS,
  RETRY_DELAYS_MS,
  answerProblem,
  fetchProblem,
  retryDelay,
  shownWebhook,
  wantsKind,
  webhookHeaders,
  webhookPostBody,
} from './webhook-request.js';

export interface WebhookSenderOptions {
  logger: Logger;
  server: WebhookPost['server'];
  now?: () => number;
  /** The waits between attempts (tests shorten them). */
  delays?: readonly number[];
  timeoutMs?: number;
}

export interface LaneHealth {
  health: 'idle' | 'ok' | 'failing';
  lastError?: string;
  failingSince?: number;
}

interface Lane extends LaneHealth {
  busy?: Promise<void> | undefined;
  again?: boolean;
  toldDropping?: boolean;
  toldGivingUp?: boolean;
  timer?: NodeJS.Timeout;
  sinceTrim: number;
}

export class WebhookSender {
  private readonly lanes = new Map<number, Lane>();
  private readonly stopping = new AbortController();
  private readonly now: () => number;

  constructor(
    private readonly db: Db,
    private readonly options: WebhookSenderOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Sends what was pending at the last stop. */
  start(): void {
    for (const hook of listWebhooks(this.db)) if (hook.enabled) this.kick(hook.id);
  }

  /** An EventLog listener: the event is queued for every enabled receiver that wants its kind. */
  readonly take = (event: AntennaEvent): void => {
    if (this.stopping.signal.aborted) return;
    const body = webhookPostBody(event, this.options.server);
    for (const hook of listWebhooks(this.db)) {
      if (!hook.enabled || !wantsKind(JSON.parse(hook.kinds) as string[], event.kind)) continue;
      const at = this.now();
      insertDelivery(this.db, {
        webhook_id: hook.id,
        event_id: event.id,
        kind: event.kind,
        body,
        next_at: at,
        created_at: at,
      });
      const dropped = dropOverflow(this.db, hook.id, WEBHOOK_QUEUE_LIMIT, at);
      const lane = this.lane(hook.id);
      // Once per failing period: the delivery log shows each one dropped.
      if (dropped > 0 && !lane.toldDropping) {
        lane.toldDropping = true;
        this.options.logger.warn(
          { webhook: hook.id, url: shownWebhook(hook.url), dropped },
          'a webhook receiver has been unreachable so long that its oldest deliveries are being dropped',
        );
      }
      this.kick(hook.id);
    }
  };

  /** Starts the receiver's lane unless it runs (a change of its settings, a new delivery). */
  kick(id: number): void {
    const lane = this.lane(id);
    if (this.stopping.signal.aborted) return;
    // Looked at again when the run under way ends: what it found nothing of may have come after its last look.
    if (lane.busy) {
      lane.again = true;
      return;
    }
    clearTimeout(lane.timer);
    lane.again = false;
    lane.busy = this.drain(id, lane).finally(() => {
      lane.busy = undefined;
      if (lane.again) this.kick(id);
    });
  }

  health(id: number): LaneHealth {
    const { health, lastError, failingSince } = this.lane(id);
    return { health, ...(lastError ? { lastError } : {}), ...(failingSince ? { failingSince } : {}) };
  }

  forget(id: number): void {
    clearTimeout(this.lanes.get(id)?.timer);
    this.lanes.delete(id);
  }

  /** Ends the attempts under way (each stays pending, not counted) and waits for the lanes. */
  async stop(): Promise<void> {
    this.stopping.abort();
    for (const lane of this.lanes.values()) clearTimeout(lane.timer);
    await Promise.all([...this.lanes.values()].map((lane) => lane.busy));
  }

  private lane(id: number): Lane {
    let lane = this.lanes.get(id);
    if (!lane) {
      lane = { health: 'idle', sinceTrim: 0 };
      this.lanes.set(id, lane);
    }
    return lane;
  }

  private async drain(id: number, lane: Lane): Promise<void> {
    try {
      // A lane forgotten (its receiver removed) stops: a receiver made later may get the same id.
      while (!this.stopping.signal.aborted && this.lanes.get(id) === lane) {
        const hook = getWebhook(this.db, id);
        const next = hook?.enabled ? firstPending(this.db, id) : undefined;
        if (!hook || !next) return;
        const wait = next.next_at - this.now();
        if (wait > 0) {
          lane.timer = setTimeout(() => this.kick(id), wait);
          lane.timer.unref();
          return;
        }
        await this.attempt(hook, next, lane);
      }
    } catch (error) {
      this.options.logger.warn({ err: error, webhook: id }, 'a webhook lane stopped; it resumes at the next event');
    }
  }

  private async attempt(hook: WebhookRow, delivery: DeliveryRow, lane: Lane): Promise<void> {
    const attempts = delivery.attempts + 1;
    const started = this.now();
    let status: number | null = null;
    let problem: string | undefined;
    // One controller per attempt, tied to the stop by a listener removed after (no signal combined with a long-lived
    // one: Node has leaked those).
    const attempt = new AbortController();
    const stop = () => attempt.abort(this.stopping.signal.reason);
    this.stopping.signal.addEventListener('abort', stop, { once: true });
    const timer = setTimeout(
      () => attempt.abort(new DOMException('no answer in time', 'TimeoutError')),
      this.options.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
    );
    try {
      const response = await fetch(hook.url, {
        method: 'POST',
        headers: webhookHeaders({
          kind: delivery.kind as AntennaEvent['kind'],
          deliveryId: delivery.id,
          attempt: attempts,
          body: delivery.body,
          secret: hook.secret,
          version: this.options.server.version,
        }),
        body: delivery.body,
        redirect: 'manual',
        signal: attempt.signal,
      });
      status = response.status;
      problem = answerProblem(status);
      await response.body?.cancel();
    } catch (error) {
      // Stopped mid-attempt: it stays pending as it was, for the next start.
      if (this.stopping.signal.aborted) return;
      problem = fetchProblem(attempt.signal.aborted ? attempt.signal.reason : error);
    } finally {
      clearTimeout(timer);
      this.stopping.signal.removeEventListener('abort', stop);
    }
    const done = this.now();
    const common = { id: delivery.id, attempts, http_status: status, duration_ms: Math.max(0, done - started) };
    if (problem === undefined) {
      recordAttempt(this.db, { ...common, state: 'delivered', next_at: delivery.next_at, error: null, done_at: done });
      this.answered(hook, lane);
    } else {
      const delay = retryDelay(attempts, this.options.delays ?? RETRY_DELAYS_MS);
      recordAttempt(this.db, {
        ...common,
        state: delay === undefined ? 'failed' : 'pending',
        next_at: delay === undefined ? delivery.next_at : done + delay,
        error: problem,
        done_at: delay === undefined ? done : null,
      });
      this.failed(hook, lane, problem, delivery, delay === undefined);
    }
    if (++lane.sinceTrim >= 20) {
      lane.sinceTrim = 0;
      trimDeliveries(this.db, hook.id, WEBHOOK_LOG_KEEP);
    }
  }

  private answered(hook: WebhookRow, lane: Lane): void {
    if (lane.health === 'failing')
      this.options.logger.info({ webhook: hook.id, url: shownWebhook(hook.url) }, 'a webhook receiver answers again');
    lane.health = 'ok';
    lane.toldDropping = false;
    lane.toldGivingUp = false;
    delete lane.lastError;
    delete lane.failingSince;
  }

  /** Logged once when a receiver starts failing, and once when its deliveries start running out of attempts. */
  private failed(hook: WebhookRow, lane: Lane, problem: string, delivery: DeliveryRow, last: boolean): void {
    const where = { webhook: hook.id, url: shownWebhook(hook.url), reason: problem };
    if (lane.health !== 'failing') {
      this.options.logger.warn(where, 'a webhook receiver is failing: its deliveries are retried');
      lane.failingSince = this.now();
    }
    if (last && !lane.toldGivingUp) {
      lane.toldGivingUp = true;
      this.options.logger.warn(
        { ...where, event: delivery.event_id, kind: delivery.kind },
        'a webhook delivery failed at every attempt (the delivery log shows the others)',
      );
    }
    lane.health = 'failing';
    lane.lastError = problem;
  }
}
