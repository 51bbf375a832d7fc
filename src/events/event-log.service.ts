/**
 * THE place events go: each is numbered and timed, kept in a bounded log (the newest
 * 1,000, in the database, so a reconnecting client or a restart replays what it missed),
 * and handed to every subscriber (the SSE feed, webhooks, MQTT). Telling never fails the
 * teller: a log that cannot be written (a full disk, of all times) is logged and the
 * event still goes out.
 */
import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import type { AntennaEvent, EventKind, NewEvent } from '../model/events/event.schemas.js';
import {
  type EventRow,
  eventsAfter,
  insertEvent,
  lastEventId,
  latestEvents,
  trimEvents,
} from '../repositories/events/events.repository.js';

/** Events kept for replay. */
export const EVENT_LOG_KEEP = 1000;

export type EventListener = (event: AntennaEvent) => void;

const eventOf = (row: EventRow): AntennaEvent => ({
  id: row.id,
  kind: row.kind as EventKind,
  at: row.at,
  severity: row.severity as AntennaEvent['severity'],
  message: row.message,
  data: JSON.parse(row.data) as AntennaEvent['data'],
});

export class EventLog {
  private nextId: number;
  private readonly listeners = new Set<EventListener>();
  private sinceTrim = 0;

  constructor(
    private readonly db: Db,
    private readonly options: { logger: Logger; now?: () => number; keep?: number },
  ) {
    this.nextId = lastEventId(db) + 1;
  }

  /** An EventSink: what the domains are handed. */
  readonly emit = (event: NewEvent): AntennaEvent => {
    const told: AntennaEvent = { id: this.nextId++, at: (this.options.now ?? Date.now)(), ...event };
    try {
      insertEvent(this.db, { ...told, data: JSON.stringify(told.data) });
      if (++this.sinceTrim >= 100) {
        this.sinceTrim = 0;
        trimEvents(this.db, this.options.keep ?? EVENT_LOG_KEEP);
      }
    } catch (error) {
      this.options.logger.warn(
        { err: error, kind: told.kind },
        'could not keep an event in the log (it is still sent)',
      );
    }
    this.options.logger.info({ event: told.kind, id: told.id }, told.message);
    for (const listener of this.listeners) {
      try {
        listener(told);
      } catch (error) {
        this.options.logger.warn({ err: error, kind: told.kind }, 'an event subscriber failed');
      }
    }
    return told;
  };

  /** Calls `listener` with every event from now on; the returned function stops it. */
  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The logged events after `id` (a reconnecting client's Last-Event-ID), oldest first. */
  after(id: number, limit = this.options.keep ?? EVENT_LOG_KEEP): AntennaEvent[] {
    return eventsAfter(this.db, id, limit).map(eventOf);
  }

  /** The id of the newest event told (0: none yet). */
  lastId(): number {
    return this.nextId - 1;
  }

  /** The newest `limit` events, newest first. */
  latest(limit: number): AntennaEvent[] {
    return latestEvents(this.db, limit).map(eventOf);
  }

  /** How many listen now (the SSE clients, webhooks, MQTT). */
  subscriberCount(): number {
    return this.listeners.size;
  }
}
