/**
 * `GET /health` (and its alias `/health/ready`): readiness, for monitors and load
 * balancers: 200 while the server is ready (ok, or degraded: a check warns), 503 while
 * it starts, stops, or cannot read its database. `GET /health/live`: liveness, 200
 * whenever the server answers at all (a restart would not fix a locked database, so
 * liveness does not read it).
 *
 * Open to every client, as /status is: a monitor has no token, and the answer holds no
 * secret: no path, no source location, no error text beyond SQLite's error code.
 * Cheap enough to ask every second: one read of the database's first page, the
 * importer's in-memory status and one small query of the DVR's sources.
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DvrService } from '../../dvr/dvr.service.js';
import type { ScanStatus } from '../../importer/scan-scheduler.js';
import type { LibraryService } from '../../library/library.service.js';
import {
  type Health,
  type HealthCode,
  HealthSchema,
  LivenessSchema,
  type ServerPhase,
} from '../../model/health.schemas.js';
import { TAGS } from '../openapi-tags.js';

export interface HealthDeps {
  library: LibraryService;
  version: string;
  startedAt: number;
  /** Where start-up and shutdown are (app/server.lifecycle.ts); always ready when absent. */
  phase?: (() => ServerPhase) | undefined;
  scanStatus?: (() => ScanStatus) | undefined;
  dvr?: DvrService | undefined;
  logger: FastifyBaseLogger;
}

type Checks = Health['checks'];

const MESSAGES: Record<HealthCode, string> = {
  ok: 'Ready.',
  degraded: 'Ready, but a check warns: see checks.',
  starting: 'Starting: not ready yet.',
  stopping: 'Stopping: send requests elsewhere.',
  unavailable: 'The database cannot be read: see checks.database.',
};

/** Registered where the CORS hook adds its headers; a monitor must never be handed a stored answer. */
const NO_STORE = { 'cache-control': 'no-store' };

/** The SQLite error code of a failed read (SQLITE_BUSY, SQLITE_IOERR, ...); a message could name the file. */
function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z_]{1,40}$/.test(code) ? code : 'not_open';
}

function checkDatabase(deps: HealthDeps, logged: { failing: boolean }): Checks['database'] {
  const started = performance.now();
  try {
    deps.library.checkReadable();
    if (logged.failing) deps.logger.info('the database can be read again');
    logged.failing = false;
    return { status: 'ok', latency_ms: elapsed(started) };
  } catch (error) {
    // Once per outage: a monitor asks every few seconds.
    if (!logged.failing) deps.logger.error({ err: error }, 'health check: the database cannot be read');
    logged.failing = true;
    return {
      status: 'fail',
      latency_ms: elapsed(started),
      message: `the database cannot be read (${errorCode(error)})`,
    };
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}

function checkScan(status: ScanStatus): NonNullable<Checks['scan']> {
  const rootsSkipped = status.last?.summary.skippedRoots.length ?? 0;
  return {
    status: rootsSkipped > 0 ? 'warn' : 'ok',
    running: status.running,
    phase: status.phase,
    roots_skipped: rootsSkipped,
  };
}

function checkDvr(dvr: DvrService): NonNullable<Checks['dvr']> {
  const recording = dvr.recordingCount();
  try {
    const sources = dvr.listSources();
    const failing = sources.filter((source) => source.error !== null).length;
    return { status: failing > 0 ? 'warn' : 'ok', sources: sources.length, sources_failing: failing, recording };
  } catch {
    // The database check says why; the DVR's own state is still worth showing.
    return { status: 'warn', sources: 0, sources_failing: 0, recording };
  }
}

/** The readiness answer: the worst of the phase and the checks. */
export function healthOf(deps: HealthDeps, logged: { failing: boolean } = { failing: false }): Health {
  const checks: Checks = { database: checkDatabase(deps, logged) };
  if (deps.scanStatus) checks.scan = checkScan(deps.scanStatus());
  if (deps.dvr) checks.dvr = checkDvr(deps.dvr);
  const phase = deps.phase?.() ?? 'ready';
  const code: HealthCode =
    phase !== 'ready'
      ? phase
      : checks.database.status === 'fail'
        ? 'unavailable'
        : checks.scan?.status === 'warn' || checks.dvr?.status === 'warn'
          ? 'degraded'
          : 'ok';
  const status = code === 'ok' || code === 'degraded' ? 200 : 503;
  return {
    status,
    code,
    message: MESSAGES[code],
    version: deps.version,
    uptime: (Date.now() - deps.startedAt) / 1000,
    checks,
  };
}

export function registerHealth(app: FastifyInstance, deps: HealthDeps): void {
  const logged = { failing: false };
  const readiness = {
    schema: {
      summary:
        'Readiness: 200 when the server is ready (ok, degraded), 503 while it starts, stops or cannot read its database',
      description:
        'For monitors and load balancers; no token needed, nothing secret in it. The answer has the fields every error has (status, code, message); code says the state. ' +
        'Query parameters are ignored.',
      tags: [TAGS.status],
      response: { 200: HealthSchema, 503: HealthSchema },
    },
  };
  const answer = (_request: FastifyRequest, reply: FastifyReply) => {
    const health = healthOf(deps, logged);
    return reply.code(health.status).headers(NO_STORE).send(health);
  };
  app.get('/health', readiness, answer);
  app.get('/health/ready', { schema: { ...readiness.schema, summary: 'Readiness (the same as GET /health)' } }, answer);
  app.get(
    '/health/live',
    {
      schema: {
        summary: 'Liveness: 200 whenever the server answers; reads nothing',
        description:
          'For a supervisor deciding whether to restart the process: a database problem shows in GET /health, not here (a restart would not fix it).',
        tags: [TAGS.status],
        response: { 200: LivenessSchema },
      },
    },
    (_request, reply) =>
      reply.headers(NO_STORE).send({
        status: 200,
        code: 'alive' as const,
        message: 'The server answers.',
        uptime: (Date.now() - deps.startedAt) / 1000,
      }),
  );
}
