/**
 * The player's HTTP server (interface B, port 57000): JSON errors everywhere, control
 * POSTs with or without a body, CORS for browser dashboards, control only from the
 * local network, and its own OpenAPI document at /api/openapi.json.
 * Knows nothing of start-up or shutdown; player.lifecycle.ts owns those.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { PlayerService } from './player.service.js';
import { VERSION } from '../version.js';
import { corsHook, installPreflight } from '../http/cors.js';
import { frameworkErrorHandler, installErrorHandlers, sendError } from '../http/error-reply.js';
import { UnavailableError } from '../common/errors.js';
import { redactUrl } from '../common/url-redaction.js';
import { createHttpServer, jsonClientErrorHandler } from '../http/http-limits.js';
import { registerPlayerControlRoutes } from './player-control.routes.js';
import { type Refusal, isLocalHostHeader, isPrivateAddress, originRefusal } from '../http/request-origin.js';

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
    serverFactory: (handler) => createHttpServer(handler, 'GET, HEAD, POST, OPTIONS'),
    loggerInstance: options.logger,
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: (logger) => logger,
    // Any path parameter reaches its route's schema, however long (Node's 16 KB header
    // limit bounds it): an over-long id or section is a 400 that says what is expected.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 16 * 1024 },
    bodyLimit: BODY_LIMIT,
    // No type coercion: a notification whose title is the number 5 is a client's mistake, not a title.
    ajv: { customOptions: { verbose: true, removeAdditional: false, coerceTypes: false } },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler: jsonClientErrorHandler,
  });
  installErrorHandlers(app);
  logServerFailures(app);
  acceptEmptyBodies(app);
  installPreflight(app, 'GET, HEAD, POST');
  corsHook(app);
  const allowed = new Set((options.allowedOrigins ?? []).map((origin) => origin.toLowerCase()));
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return done();
    const refusal = commandRefusal(
      request.socket.remoteAddress,
      request.headers.host,
      request.headers.origin,
      allowed,
      request.protocol,
    );
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
  registerPlayerControlRoutes(app, options.player);
  return app;
}

/**
 * Interface B has no authentication (its clients send none), so commands are taken
 * only where a stranger cannot send them: from the local network, addressed to the
 * player by an address or a local name, and from a web page only when it is the
 * player's own or one the user allowed (request-origin.ts says why each).
 */
export function commandRefusal(
  remote: string | undefined,
  host: string | undefined,
  origin: string | undefined,
  allowedOrigins: ReadonlySet<string>,
  scheme = 'http',
): Refusal | undefined {
  if (!isPrivateAddress(remote))
    return {
      code: 'forbidden',
      message: 'The player takes commands only from the local network (loopback and private addresses).',
    };
  if (!isLocalHostHeader(host)) {
    return {
      code: 'forbidden_host',
      message:
        'Address the player by its IP address or a local name (such as tv.local): commands to other names are refused.',
    };
  }
  return originRefusal(origin, host, { allowed: allowedOrigins, program: 'the player' }, scheme);
}

/**
 * A command that failed on what the player depends on (502: the server refused, failed,
 * could not be reached or answered nonsense, or the media did not open; 504: the server
 * was silent) is logged: a remote shows only that it failed, and the player's log is
 * where its owner looks for why. The URL is logged without its credentials.
 */
function logServerFailures(app: FastifyInstance): void {
  app.addHook('onError', (request, _reply, error, done) => {
    if (error instanceof UnavailableError && (error.status === 502 || error.status === 504)) {
      request.log.warn({ method: request.method, url: redactUrl(request.url), code: error.code }, error.message);
    }
    done();
  });
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
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body === '' ? undefined : body),
  );
}
