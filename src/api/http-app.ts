/**
 * Builds the HTTP server: Fastify with JSON errors everywhere, CORS for reads, the
 * OpenAPI document and its browsable page, interface A, the status, health and
 * metrics routes.
 * Knows nothing of start-up or shutdown; server.lifecycle.ts owns those.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fastJson from 'fast-json-stringify';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
  type FastifySchema,
  LogController,
} from 'fastify';
import type { ScanStatus } from '../importer/scan-scheduler.js';
import type { LibraryService } from '../library/library.service.js';
import { VERSION } from '../version.js';
import { corsHook, installPreflight } from '../http/cors.js';
import { frameworkErrorHandler, installErrorHandlers } from '../http/error-reply.js';
import { createHttpServer, jsonClientErrorHandler } from '../http/http-limits.js';
import { AnswerFront } from '../answer-cache/answer-front.js';
import { registerImages } from './library/images.routes.js';
import { registerDvrRoutes } from './dvr/dvr.routes.js';
import { registerClientRoutes } from './players/clients.routes.js';
import { registerEventRoutes } from './players/events.routes.js';
import { registerPlaybackSettingsRoutes } from './players/playback-settings.routes.js';
import type { EventLog } from '../events/event-log.service.js';
import { registerRemoteAppRoutes } from './dvr/remote-app.routes.js';
import type { PlayerRegistry } from '../devices/player-registry.service.js';
import { registerLiveBufferRoutes } from './dvr/live-buffer.routes.js';
import type { DvrService } from '../dvr/dvr.service.js';
import { generationOf, registerLibraryRoutes } from './library/library.routes.js';
import { registerLineupRoutes } from './dvr/lineup.routes.js';
import { registerLineupEditRoutes } from './dvr/lineup-edits.routes.js';
import { registerHlsRoutes, registerSessionWrites } from './hls.routes.js';
import type { HlsService } from '../streaming/hls-sessions.service.js';
import { type ManagementDeps, registerManagement } from './library/management.routes.js';
import { registerLibraryEdits } from './library/library-edits.routes.js';
import type { LibraryEditsService } from '../management/library-edits.service.js';
import { requireWriteAccess } from './write-access.js';
import { WebhookPostSchema } from '../model/events/webhook.schemas.js';
import { registerWebhookRoutes } from './players/webhooks.routes.js';
import type { WebhooksService } from '../events/webhooks.service.js';
import { IdParamsSchema } from './query.schemas.js';
import { ResponseCache } from '../answer-cache/response-cache.js';
import { OPENAPI_TAGS } from './openapi-tags.js';
import { registerSearchRoutes } from './library/search.routes.js';
import { registerStatus } from './status/status.routes.js';
import { registerHealth } from './status/health.routes.js';
import { HttpMetrics } from '../metrics/http-metrics.js';
import { registerMetrics } from './status/metrics.routes.js';
import { registerServiceMetrics } from '../metrics/service-metrics.js';
import type { ServerPhase } from '../model/health.schemas.js';
import type { EventsStatus } from '../model/status.schemas.js';
import { registerWebApp } from './web-app.routes.js';

export interface HttpAppOptions {
  library: LibraryService;
  /** The management interface (/dvr): absent in tests of interface A alone. */
  management?: Omit<ManagementDeps, 'baseUrl'> & {
    token: string | undefined;
    /** Web page origins that may write besides the server's own (--allow-origin). */
    allowedOrigins?: readonly string[];
    edits: LibraryEditsService;
    dvr?: DvrService | undefined;
    /** The players the server knows (/dvr/clients); absent in tests without them. */
    players?: PlayerRegistry | undefined;
    /** What happened (/dvr/events); absent in tests without it. */
    events?: EventLog | undefined;
    /** Where events are POSTed (/dvr/webhooks); absent in tests without them. */
    webhooks?: WebhooksService | undefined;
  };
  /** HLS sessions of files and channels; absent in tests of the library alone. */
  hls?: HlsService | undefined;
  /** The importer's state for /status; absent when nothing scans (tests). */
  scanStatus?: () => ScanStatus;
  /** Who is not being told (failing webhooks, the MQTT broker) for /status; absent in tests without them. */
  eventsStatus?: (() => EventsStatus) | undefined;
  logger: FastifyBaseLogger;
  /** Base for absolute URLs in payloads; when absent, taken from each request's Host. */
  publicUrl?: string | undefined;
  /** Used for payload URLs when a request's Host header is missing or malformed. */
  fallbackBaseUrl: string;
  /** Bytes of serialized answers kept for reuse. */
  cacheBytes?: number;
  /** Size of the pieces a patchable cached list is kept in (default 256 KB; tests make it small to cut their lists). */
  cacheChunkBytes?: number;
  /**
   * How long a list patched for progress reports is answered as it is while more come (response-cache.ts; default 1 s,
   * 0 for none).
   */
  progressHoldMs?: number;
  /** The built web app (dist/web by default); false serves none (tests of the API alone). */
  webDir?: string | false;
  /** Where start-up and shutdown are, for GET /health (server.lifecycle.ts); always ready when absent. */
  phase?: () => ServerPhase;
  /** prom-client's process and Node.js metrics in GET /metrics (default true). */
  processMetrics?: boolean;
}

const DEFAULT_CACHE_BYTES = 128 * 1024 * 1024;
const HOST_HEADER = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

export function baseUrlResolver(options: Pick<HttpAppOptions, 'publicUrl' | 'fallbackBaseUrl'>) {
  const fixed = options.publicUrl?.replace(/\/+$/, '');
  return (request: FastifyRequest): string => {
    if (fixed) return fixed;
    const host = request.headers.host;
    return host && HOST_HEADER.test(host) ? `${request.protocol}://${host}` : options.fallbackBaseUrl;
  };
}

/**
 * Documents `:id` path parameters without declaring a params schema on the routes:
 * an id is any string, so validating it per request (about 15k instructions of each
 * cached answer) would check nothing.
 */
function documentIdParameter({ schema, url }: { schema: FastifySchema; url: string }) {
  return { schema: url.includes(':id') ? { ...schema, params: IdParamsSchema } : schema, url };
}

export async function buildHttpApp(options: HttpAppOptions): Promise<FastifyInstance> {
  const metrics = new HttpMetrics({ processMetrics: options.processMetrics });
  // The library's item state writes patch the cached answers holding those items (common/item-state-log.ts).
  const cache = new ResponseCache(options.cacheBytes ?? DEFAULT_CACHE_BYTES, {
    counts: metrics.cacheCounts,
    stateLog: options.library.stateLog,
    chunkBytes: options.cacheChunkBytes,
    progressHoldMs: options.progressHoldMs,
  });
  const front = new AnswerFront(cache, (route) => generationOf(options.library, route), {
    answered: metrics.frontAnswered,
  });
  const startedAt = Date.now();
  const app = Fastify({
    // Repeats of interface-A reads are answered from the cache before routing (answer-front.ts).
    serverFactory: (route) =>
      createHttpServer(
        (request, response) => front.tryAnswer(request, response) || route(request, response),
        'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
      ),
    loggerInstance: options.logger,
    // One log line per request costs more than answering it from the cache; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    // No child logger per request either: the error handler names the request itself.
    childLoggerFactory: (logger) => logger,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    bodyLimit: 1024 * 1024,
    // Unknown body fields are refused, not silently dropped: a misspelt field must not look like success.
    ajv: { customOptions: { verbose: true, removeAdditional: false, discriminator: true } },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler: jsonClientErrorHandler,
  });
  // Requests that arrive while closing go to the router, which answers 503.
  app.addHook('preClose', (done) => {
    front.close();
    done();
  });
  // Compile a response serializer when a route first needs it, not for every route at
  // start-up: interface A sends bytes it serialized itself, so most are never used.
  app.setSerializerCompiler(({ schema }) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data) => (serialize ??= fastJson(schema as object) as (data: unknown) => string)(data);
  });

  // Before any route, so that every answer Fastify gives is counted (the front counts its own).
  metrics.install(app);
  installErrorHandlers(app);
  // Every method a page may send: pages of the server's own or allowed origins make
  // changes too; the write-access hook refuses the others' (write-access.ts).
  installPreflight(app, 'GET, HEAD, POST, PUT, PATCH, DELETE');
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Antenna',
        version: VERSION,
        description:
          'Interface A, the read-only library interface under /api/v1, and the management, DVR and media routes. Every error is JSON: {status, code, message}. ' +
          'Answers carry a strong ETag; send If-None-Match for a 304. Properties whose value is null are omitted.',
      },
      tags: OPENAPI_TAGS,
      // What Antenna POSTs to a webhook (OpenAPI 3.1's webhooks): GET /dvr/webhooks tells the headers and retries.
      webhooks: {
        event: {
          post: {
            summary: 'An event, POSTed to each webhook that wants its kind',
            requestBody: { required: true, content: { 'application/json': { schema: WebhookPostSchema as never } } },
            responses: { '2XX': { description: 'delivered; any other answer is tried again later' } },
          },
        },
      },
    },
    transform: documentIdParameter,
  });

  registerLibraryRoutes(app, { library: options.library, cache, front, baseUrl: baseUrlResolver(options) });
  const management = options.management;
  if (management) {
    await app.register(async (context) => {
      requireWriteAccess(context, {
        token: management.token,
        allowedOrigins: management.allowedOrigins,
        publicUrl: options.publicUrl,
      });
      registerManagement(context, { ...management, baseUrl: baseUrlResolver(options) });
      registerLibraryEdits(context, {
        edits: management.edits,
        files: management.files,
        library: options.library,
        baseUrl: baseUrlResolver(options),
      });
      if (management.dvr) registerDvrRoutes(context, { dvr: management.dvr });
      if (management.dvr) registerLiveBufferRoutes(context, { dvr: management.dvr });
      if (management.dvr)
        registerLineupRoutes(context, { lineup: management.dvr.lineup, baseUrl: baseUrlResolver(options) });
      if (management.dvr) registerLineupEditRoutes(context, { edits: management.dvr.lineupEdits });
      if (management.dvr) registerRemoteAppRoutes(context, management.dvr);
      registerSearchRoutes(context, {
        library: options.library,
        dvr: management.dvr,
        baseUrl: baseUrlResolver(options),
      });
      if (options.hls) registerSessionWrites(context, options.hls);
      if (management.players) {
        registerClientRoutes(context, management.players);
        registerPlaybackSettingsRoutes(context, management.players);
      }
      if (management.events) registerEventRoutes(context, management.events);
      if (management.webhooks)
        registerWebhookRoutes(context, { webhooks: management.webhooks, token: management.token });
    });
  }
  // Everything else gets its CORS headers from a hook, in a context of its own.
  await app.register(async (context) => {
    corsHook(context);
    await context.register(swaggerUi, { routePrefix: '/api/docs' });
    context.get('/api/openapi.json', { schema: { hide: true } }, () => app.swagger());
    registerImages(context, options.library);
    if (options.hls) registerHlsRoutes(context, options.hls);
    registerStatus(context, {
      library: options.library,
      cache,
      version: VERSION,
      startedAt,
      scanStatus: options.scanStatus,
      dvrStatus: options.management?.dvr ? () => options.management!.dvr!.status() : undefined,
      eventsStatus: options.eventsStatus,
    });
    registerHealth(context, {
      library: options.library,
      version: VERSION,
      startedAt,
      phase: options.phase,
      scanStatus: options.scanStatus,
      dvr: options.management?.dvr,
      logger: options.logger,
    });
    registerMetrics(context, metrics);
  });
  registerServiceMetrics(metrics.registry, {
    version: VERSION,
    cache,
    scanStatus: options.scanStatus,
    dvr: options.management?.dvr,
    hls: options.hls,
    jobCounts: () => options.library.jobCounts(),
    logger: options.logger,
  });
  if (options.webDir !== false) await app.register((context) => registerWebApp(context, options.webDir || undefined));
  return app;
}
