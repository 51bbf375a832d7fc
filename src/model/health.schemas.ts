/**
 * `GET /health` (readiness, with its checks) and `GET /health/live` (liveness): the
 * server's route serializes them, monitors read them. Every answer has the project's
 * error fields (`status`, `code`, `message`), so a 503 reads like any other error and
 * a 200 has the same shape; `code` says the state.
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../common/string-enum.js';

/** Where the server is in its life: set by app/server.lifecycle.ts, read by /health. */
export const SERVER_PHASES = ['starting', 'ready', 'stopping'] as const;
export type ServerPhase = (typeof SERVER_PHASES)[number];

/** ok and degraded answer 200 (ready: send traffic); the others 503. */
export const HEALTH_CODES = ['ok', 'degraded', 'starting', 'stopping', 'unavailable'] as const;
export type HealthCode = (typeof HEALTH_CODES)[number];

/** ok; warn: ready, but something a person should look at (degraded); fail: not ready (unavailable). */
const CheckStatus = StringEnum(['ok', 'warn', 'fail'] as const);
const Count = Type.Integer({ minimum: 0 });

export const HealthSchema = Type.Object(
  {
    status: Type.Integer({ description: 'HTTP status: 200 when ready (ok, degraded), 503 otherwise' }),
    code: StringEnum(HEALTH_CODES, {
      description:
        'ok: ready; degraded: ready, a check warns; starting: start-up not finished; stopping: shutting down; unavailable: the database cannot be read',
    }),
    message: Type.String({ description: 'the state in a sentence' }),
    version: Type.String(),
    uptime: Type.Number({ description: 'seconds since the server started' }),
    checks: Type.Object({
      database: Type.Object(
        {
          status: CheckStatus,
          latency_ms: Type.Number({ minimum: 0, description: 'how long the read took' }),
          message: Type.Optional(Type.String({ description: "why it failed: SQLite's error code, never a path" })),
        },
        { description: 'one read of the database, under a short busy timeout (fail: 503)' },
      ),
      scan: Type.Optional(
        Type.Object(
          {
            status: CheckStatus,
            running: Type.Boolean(),
            phase: Type.String({ description: 'idle, walking, importing, probing, thumbnails or done' }),
            roots_skipped: Type.Integer({
              minimum: 0,
              description: 'import roots the last whole scan found missing, unreadable or emptied (warn)',
            }),
          },
          { description: 'the importer' },
        ),
      ),
      dvr: Type.Optional(
        Type.Object(
          {
            status: CheckStatus,
            sources: Count,
            sources_failing: Type.Integer({ minimum: 0, description: 'sources whose last refresh failed (warn)' }),
            recording: Type.Integer({ minimum: 0, description: 'recordings running now' }),
          },
          { description: 'the DVR' },
        ),
      ),
    }),
  },
  { title: 'Health' },
);
export type Health = Static<typeof HealthSchema>;

export const LivenessSchema = Type.Object(
  {
    status: Type.Integer({ description: 'HTTP status: always 200 (a server that cannot answer cannot say so)' }),
    code: StringEnum(['alive'] as const),
    message: Type.String(),
    uptime: Type.Number({ description: 'seconds since the server started' }),
  },
  { title: 'Liveness' },
);
