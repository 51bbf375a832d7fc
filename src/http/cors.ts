/**
 * CORS: reads open to any origin; writes are judged by their Origin (write-access.ts). This replaces @fastify/cors on
 * purpose: its per-request origin resolution cost about a third of the throughput of
 * single-resource GETs in `npm run bench`, while a wildcard origin needs only fixed
 * headers on every answer and a fixed answer to preflight requests.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';

const ALLOWED_METHODS = 'GET, HEAD';
/** Request headers a browser may send cross-origin (beyond the always-allowed ones). */
const ALLOWED_HEADERS = 'If-None-Match, Content-Type, Authorization';
const EXPOSED_HEADERS = 'ETag';
const PREFLIGHT_MAX_AGE_SECONDS = '86400';

/** The headers every answer carries, errors included, so a browser client can read it. */
export const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': EXPOSED_HEADERS,
} as const;

export function withCorsHeaders(reply: FastifyReply): FastifyReply {
  return reply.headers(CORS_HEADERS);
}

/**
 * Adds the CORS headers to every answer of the routes registered in `context`.
 * Interface A's routes set them in their own answer instead: a hook on every request
 * is measurable on its hot path (about 16k instructions of ~640k per cached answer).
 */
export function corsHook(context: FastifyInstance): void {
  context.addHook('onRequest', (_request, reply, done) => {
    withCorsHeaders(reply);
    done();
  });
}

/** The preflight answer, for any path; `methods` are those a browser may use cross-origin. */
export function installPreflight(app: FastifyInstance, methods = ALLOWED_METHODS): void {
  // Preflight for any path: the same fixed permissions everywhere.
  app.options('*', { schema: { hide: true } }, (_request, reply) =>
    withCorsHeaders(reply)
      .code(204)
      .header('access-control-allow-methods', methods)
      .header('access-control-allow-headers', ALLOWED_HEADERS)
      .header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS)
      .send(),
  );
}
