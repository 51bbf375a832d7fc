/** The management routes' JSON answer: a status, the body, CORS headers (reads are open) and no caching. */
import type { FastifyReply } from 'fastify';
import { CORS_HEADERS } from '../http/cors.js';

export function jsonReply(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply
    .code(status)
    .headers({ ...CORS_HEADERS, 'cache-control': 'no-cache' })
    .send(body);
}
