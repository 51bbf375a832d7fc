/**
 * The player's HTTP server (interface B, port 57000): JSON errors everywhere, control
 * POSTs with or without a body, CORS for browser dashboards, control only from the
 * local network, and its own OpenAPI document at /api/openapi.json.
 * Knows nothing of start-up or shutdown; player.lifecycle.ts owns those.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { PlayerService } from '../player/player.service.js';
import { VERSION } from '../version.js';
import { corsHook, installPreflight } from './cors.js';
import { frameworkErrorHandler, installErrorHandlers, sendError } from './error-reply.js';
import { registerInterfaceB } from './interface-b.routes.js';
import { isPrivateAddress } from './write-access.js';

export interface PlayerHttpAppOptions {
  player: PlayerService;
  logger: FastifyBaseLogger;
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
  // Interface B has no authentication (its clients send none): control stays on the local network.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS' || isPrivateAddress(request.socket.remoteAddress)) return done();
    sendError(reply, { status: 403, code: 'forbidden', message: 'The player takes commands only from the local network (loopback and private addresses).' });
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
