/**
 * Who may write. A write from a web page (it carries an Origin header) is taken only
 * from the server's own pages or an origin given with --allow-origin, with or without a
 * token: otherwise any page a user opens could send a simple POST through the user's
 * browser. Then, with a token configured (--token), every write needs
 * `Authorization: Bearer <token>`; without one, writes are accepted only from loopback
 * and private-network addresses (the server warns at start-up). Reads stay open, as
 * clients on the local network expect. A refusal is a 403 (origin) or 401 JSON answer.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { sendError } from '../http/error-reply.js';
import { type OriginPolicy, type Refusal, isPrivateAddress, originRefusal } from '../http/request-origin.js';

export interface WriteAccess {
  token: string | undefined;
  /** Web page origins allowed to write besides the server's own (--allow-origin). */
  allowedOrigins?: readonly string[];
  /** The --public-url, whose origin is the server's own too. */
  publicUrl?: string | undefined;
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim();
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  // Constant time, so the answer's timing says nothing about how much of a guess was right.
  return a.length === b.length && timingSafeEqual(a, b);
}

export function originPolicyOf(access: WriteAccess): OriginPolicy {
  const own = access.publicUrl ? [new URL(access.publicUrl).origin.toLowerCase()] : [];
  return {
    allowed: new Set((access.allowedOrigins ?? []).map((origin) => origin.toLowerCase())),
    own: new Set(own),
    program: 'the server',
  };
}

export function writeRefusal(
  request: FastifyRequest,
  token: string | undefined,
  policy: OriginPolicy,
): (Refusal & { status: 401 | 403 }) | undefined {
  if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return undefined;
  const fromPage = originRefusal(request.headers.origin, request.headers.host, policy, request.protocol);
  if (fromPage) return { status: 403, ...fromPage };
  if (token !== undefined) {
    return tokenMatches(request.headers.authorization, token)
      ? undefined
      : {
          status: 401,
          code: 'unauthorized',
          message: 'This server needs a token for changes: send Authorization: Bearer <token>.',
        };
  }
  return isPrivateAddress(request.socket.remoteAddress)
    ? undefined
    : {
        status: 401,
        code: 'unauthorized',
        message:
          'Changes are accepted only from the local network while the server has no token; start it with --token to allow others.',
      };
}

/** Refuses writes in `context` that `writeRefusal` refuses, before the body is read. */
export function requireWriteAccess(context: FastifyInstance, access: WriteAccess): void {
  const policy = originPolicyOf(access);
  context.addHook('onRequest', (request, reply, done) => {
    const refusal = writeRefusal(request, access.token, policy);
    if (!refusal) return done();
    if (refusal.status === 401) reply.header('www-authenticate', 'Bearer');
    // Answered from the hook: Fastify's rule is not to call done() then.
    sendError(reply, refusal);
  });
}

/**
 * For reads that show what only writers should see (webhook URLs can carry a receiver's key): the token when one is
 * configured, else a private address, as for writes. Such answers carry no CORS header, so no other site's page reads
 * them through a user's browser.
 */
export function guardedRead(access: Pick<WriteAccess, 'token'>) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const refused =
      access.token !== undefined
        ? !tokenMatches(request.headers.authorization, access.token)
        : !isPrivateAddress(request.socket.remoteAddress);
    if (!refused) return done();
    reply.header('www-authenticate', 'Bearer');
    sendError(reply, {
      status: 401,
      code: 'unauthorized',
      message:
        access.token !== undefined
          ? "Webhooks are shown only with the server's token: send Authorization: Bearer <token>."
          : 'Webhooks are shown only to the local network while the server has no token.',
    });
  };
}
