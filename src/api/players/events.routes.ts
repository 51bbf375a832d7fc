/**
 * What happened, for clients: GET /dvr/events is a Server-Sent Events stream (each event
 * with its id; Last-Event-ID or ?since= replays the logged ones after it first; ?kinds=
 * picks kinds), GET /dvr/events/recent the newest as JSON (the app's notifications).
 * Read-only, open as the other reads are.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { EventLog } from '../../events/event-log.service.js';
import { EVENT_KINDS, type AntennaEvent, EventSchema } from '../../model/events/event.schemas.js';
import { BadRequestError } from '../../common/errors.js';
import { CORS_HEADERS } from '../../http/cors.js';
import { ErrorSchema } from '../../http/error-reply.js';
import { TAGS } from '../openapi-tags.js';

/** A comment line this often keeps proxies and browsers from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;
/** What a stream may hold unread before it is ended. */
const MAX_BACKLOG_BYTES = 1024 * 1024;

const EventsQuery = Type.Object(
  {
    since: Type.Optional(Type.Integer({ minimum: 0, description: 'replay the logged events after this id first' })),
    kinds: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: `comma-separated kinds to send (default all): ${EVENT_KINDS.join(', ')}`,
      }),
    ),
  },
  { additionalProperties: false },
);

/** `kinds=` as a set; a kind that is not one is a 400 naming it (pure). */
export function kindsOf(text: string | undefined): Set<string> | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const kinds = text
    .split(',')
    .map((kind) => kind.trim())
    .filter(Boolean);
  const unknown = kinds.filter((kind) => !(EVENT_KINDS as readonly string[]).includes(kind));
  if (unknown.length > 0)
    throw new BadRequestError(
      'kinds',
      `Unknown event kind ${unknown.map((k) => `'${k}'`).join(', ')}: the kinds are ${EVENT_KINDS.join(', ')}.`,
    );
  return new Set(kinds);
}

/** Last-Event-ID as a number; anything else is no replay (pure). */
export function lastEventIdOf(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

/** One SSE frame (pure): the message is JSON on one data line. */
export const sseFrame = (event: AntennaEvent) =>
  `id: ${event.id}\nevent: ${event.kind}\ndata: ${JSON.stringify(event)}\n\n`;

export function registerEventRoutes(app: FastifyInstance, events: EventLog): void {
  const tags = [TAGS.players];
  // Open streams never end by themselves: closing the server ends them, or it would wait for their clients forever.
  const open = new Set<() => void>();
  app.addHook('preClose', (done) => {
    for (const end of open) end();
    done();
  });
  app.get(
    '/dvr/events',
    {
      schema: {
        summary:
          'Server-Sent Events of what happens (recordings, conflicts, disk, sources, guides, scans, players); each `data` is an Event',
        tags,
        querystring: EventsQuery,
        headers: Type.Object({ 'last-event-id': Type.Optional(Type.String({ description: 'resume after this id' })) }),
        response: { 200: Type.String({ description: 'text/event-stream' }), 400: ErrorSchema },
      },
    },
    (request, reply) => {
      const query = request.query as { since?: number; kinds?: string };
      const kinds = kindsOf(query.kinds);
      const since = lastEventIdOf(request.headers['last-event-id']) ?? query.since;
      const wanted = (event: AntennaEvent) => kinds === undefined || kinds.has(event.kind);
      reply.hijack();
      const out = reply.raw;
      out.writeHead(200, {
        ...CORS_HEADERS,
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
      });
      // A reconnecting browser waits this long (ms) before it tries again.
      out.write('retry: 3000\n\n');
      let ended = false;
      const keepalive = setInterval(() => out.write(': keepalive\n\n'), KEEPALIVE_MS);
      // An id from before a restored backup may be ahead of the log's: replay from what the log has.
      let last = Math.min(since ?? 0, events.lastId());
      const send = (event: AntennaEvent) => {
        if (event.id <= last || !wanted(event)) return;
        last = event.id;
        // A client that stopped reading is let go rather than buffered without end.
        if (out.writableLength > MAX_BACKLOG_BYTES) return end();
        out.write(sseFrame(event));
      };
      // Subscribed before the replay is read: nothing falls between the two (send skips what was sent).
      const pending: AntennaEvent[] = [];
      let replaying = true;
      const stop = events.subscribe((event) => (replaying ? pending.push(event) : send(event)));
      if (since !== undefined) for (const event of events.after(last)) send(event);
      replaying = false;
      for (const event of pending) send(event);
      if (ended) return;
      function end() {
        if (ended) return;
        ended = true;
        clearInterval(keepalive);
        stop();
        open.delete(end);
        if (!out.writableEnded) out.destroy();
      }
      open.add(end);
      request.raw.on('close', end);
      out.on('error', end);
    },
  );
  app.get(
    '/dvr/events/recent',
    {
      schema: {
        summary: 'The newest events, newest first (what the app shows as notifications)',
        tags,
        querystring: Type.Object(
          { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'default 50' })) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Array(EventSchema), 400: ErrorSchema },
      },
    },
    (request, reply) =>
      reply
        .headers({ ...CORS_HEADERS, 'cache-control': 'no-cache' })
        .send(events.latest((request.query as { limit?: number }).limit ?? 50)),
  );
}
