/**
 * Who may write. With a token configured (--token), every write needs
 * `Authorization: Bearer <token>`. Without one, writes are accepted only from loopback
 * and private-network addresses (the server warns at start-up). Reads stay open, as
 * clients on the local network expect. Either way a refusal is a 401 JSON answer.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BlockList } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { sendError } from './error-reply.js';

const PRIVATE = new BlockList();
PRIVATE.addSubnet('127.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('10.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('172.16.0.0', 12, 'ipv4');
PRIVATE.addSubnet('192.168.0.0', 16, 'ipv4');
PRIVATE.addSubnet('169.254.0.0', 16, 'ipv4');
PRIVATE.addAddress('::1', 'ipv6');
PRIVATE.addSubnet('fc00::', 7, 'ipv6');
PRIVATE.addSubnet('fe80::', 10, 'ipv6');

/** Loopback, RFC 1918, link-local and unique-local addresses, IPv4-mapped ones included. */
export function isPrivateAddress(address: string | undefined): boolean {
  if (!address) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return PRIVATE.check(mapped, 'ipv4');
  return PRIVATE.check(address, address.includes(':') ? 'ipv6' : 'ipv4');
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim();
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  // Constant time, so the answer's timing says nothing about how much of a guess was right.
  return a.length === b.length && timingSafeEqual(a, b);
}

export function writeRefusal(request: FastifyRequest, token: string | undefined): string | undefined {
  if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return undefined;
  if (token !== undefined) {
    return tokenMatches(request.headers.authorization, token) ? undefined : 'This server needs a token for changes: send Authorization: Bearer <token>.';
  }
  return isPrivateAddress(request.socket.remoteAddress)
    ? undefined
    : 'Changes are accepted only from the local network while the server has no token; start it with --token to allow others.';
}

/** Refuses writes in `context` that `writeRefusal` refuses, before the body is read. */
export function requireWriteAccess(context: FastifyInstance, token: string | undefined): void {
  context.addHook('onRequest', (request, reply, done) => {
    const refusal = writeRefusal(request, token);
    if (!refusal) return done();
    // Answered from the hook: Fastify's rule is not to call done() then.
    sendError(reply.header('www-authenticate', 'Bearer'), { status: 401, code: 'unauthorized', message: refusal });
  });
}
