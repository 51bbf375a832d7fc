/**
 * `GET /metrics`: Prometheus's text format (prom-client), from the app's own registry
 * (http-metrics.ts: requests, durations, cache lookups; service-metrics.ts: scans, DVR,
 * tuners, HLS; prom-client's process metrics).
 *
 * Open to every client, as /status is: Prometheus scrapers are usually set up without
 * a token, and nothing in it is secret: labels are route patterns, methods, statuses,
 * phases, states and DVR source ids, never a URL, path, name or location. Keep it off
 * networks you do not trust as you would /status (see the README).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { HttpMetrics } from '../../metrics/http-metrics.js';
import { TAGS } from '../openapi-tags.js';
import { ErrorSchema } from '../../http/error-reply.js';

export function registerMetrics(app: FastifyInstance, metrics: HttpMetrics): void {
  app.get(
    '/metrics',
    {
      schema: {
        summary:
          'Prometheus metrics: requests by route, cache lookups, scan progress, recordings, tuners, HLS sessions, transcodes, the process',
        description:
          'Text exposition format 0.0.4; no token needed. Query parameters are ignored. The README lists every metric.',
        tags: [TAGS.status],
        response: {
          200: {
            description: 'the metrics, in Prometheus text format',
            content: { 'text/plain': { schema: Type.String() } },
          },
          500: ErrorSchema,
        },
      },
    },
    async (_request, reply) => {
      const { text, contentType } = await metrics.scrape();
      return reply.type(contentType).header('cache-control', 'no-store').send(text);
    },
  );
}
