/**
 * The player's HTTP server (interface B, port 57000): JSON errors everywhere, control
 * POSTs with or without a body, CORS for browser dashboards, control only from the
 * local network, and its own OpenAPI document at /api/openapi.json.
 * Knows nothing of start-up or shutdown; player.lifecycle.ts owns those.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { hostname } from 'node:os';
import type { PlayerService } from '../player/player.service.js';
import { VERSION } from '../version.js';
import { corsHook, installPreflight } from './cors.js';
import { frameworkErrorHandler, installErrorHandlers, sendError } from './error-reply.js';
import { registerInterfaceB } from './interface-b.routes.js';
import { isPrivateAddress } from './write-access.js';

export interface PlayerHttpAppOptions {
  player: PlayerService;
  logger: FastifyBaseLogger;
  /** Web page origins (`http://dashboard:8123`) whose scripts may send commands. */
  allowedOrigins?: readonly string[];
}

/** Only notify carries a body; a notification is small. */
const BODY_LIMIT = 64 * 1024;

export async function buildPlayerHttpApp(options: PlayerHttpAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger,
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: (logger) => logger,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    bodyLimit: BODY_LIMIT,
    // No type coercion: a notification whose title is the number 5 is a client's mistake, not a title.
    ajv: { customOptions: { verbose: true, removeAdditional: false, coerceTypes: false } },
    frameworkErrors: frameworkErrorHandler,
  });
  installErrorHandlers(app);
  acceptEmptyBodies(app);
  installPreflight(app, 'GET, HEAD, POST');
  corsHook(app);
  const allowed = new Set(options.allowedOrigins ?? []);
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return done();
    const refusal = commandRefusal(request.socket.remoteAddress, request.headers.host, request.headers.origin, allowed);
    if (!refusal) return done();
    sendError(reply, { status: 403, ...refusal });
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Antenna player (interface B)',
        version: VERSION,
        description:
          'The player control interface. Every control call answers the player status; every error is JSON {status, code, message}. ' +
          'Control POSTs need no body (an empty one with Content-Type: application/json is fine); only notify carries one.',
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });
  app.get('/api/openapi.json', { schema: { hide: true } }, () => app.swagger());
  registerInterfaceB(app, options.player);
  return app;
}

/**
 * Interface B has no authentication (its clients send none), so commands are taken
 * only where a stranger cannot send them: from the local network; addressed to the
 * player by an address or a local name (a web page that points a public domain of its
 * own at the player, DNS rebinding, names that domain); and, from a web page, only
 * from the player's own pages or an origin the user allowed (any page a browser on the
 * network shows could otherwise send a simple POST). Native clients send no Origin.
 */
export function commandRefusal(
  remote: string | undefined,
  host: string | undefined,
  origin: string | undefined,
  allowedOrigins: ReadonlySet<string>,
): { code: string; message: string } | undefined {
  if (!isPrivateAddress(remote)) return { code: 'forbidden', message: 'The player takes commands only from the local network (loopback and private addresses).' };
  if (!isLocalHostHeader(host)) {
    return { code: 'forbidden_host', message: 'Address the player by its IP address or a local name (such as tv.local): commands to other names are refused.' };
  }
  if (origin !== undefined && origin.toLowerCase() !== `http://${host?.toLowerCase()}` && !allowedOrigins.has(origin.toLowerCase())) {
    return { code: 'forbidden_origin', message: `Commands from the web page at ${origin.slice(0, 200)} are refused: start the player with --allow-origin ${origin.slice(0, 200)} to allow them.` };
  }
  return undefined;
}

const LOCAL_SUFFIXES = ['.local', '.lan', '.home.arpa', '.internal', '.localdomain'];

/** An IP literal, localhost, a name without dots (a LAN host) or under a local-only suffix, or this machine's name. */
export function isLocalHostHeader(host: string | undefined): boolean {
  if (!host) return false;
  const name = (host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '')).toLowerCase();
  if (name.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(name)) return true;
  if (name === 'localhost' || !name.includes('.')) return true;
  const machine = hostname().toLowerCase();
  return name === machine || LOCAL_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

/**
 * Real clients send every control POST with `Content-Type: application/json` and an
 * empty body: that is no body, not malformed JSON. Any other content type is taken
 * as text, which only notify's schema then refuses (400).
 */
function acceptEmptyBodies(app: FastifyInstance): void {
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if ((body as string).trim() === '') return done(null, undefined);
    json(request, body as string, done);
  });
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body === '' ? undefined : body));
}
