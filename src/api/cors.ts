/**
 * CORS for a read-only API open to any origin. This replaces @fastify/cors on
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
export function withCorsHeaders(reply: FastifyReply): FastifyReply {
  return reply.header('access-control-allow-origin', '*').header('access-control-expose-headers', EXPOSED_HEADERS);
}

export function installCors(app: FastifyInstance): void {
  app.addHook('onRequest', (_request, reply, done) => {
    withCorsHeaders(reply);
    done();
  });
  // Preflight for any path: the same fixed permissions everywhere.
  app.options('*', { schema: { hide: true } }, (_request, reply) =>
    reply
      .code(204)
      .header('access-control-allow-methods', ALLOWED_METHODS)
      .header('access-control-allow-headers', ALLOWED_HEADERS)
      .header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS)
      .send(),
  );
}
