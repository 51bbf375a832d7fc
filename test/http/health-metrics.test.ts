/**
 * GET /health (readiness, its phases and checks, 503 on a database that cannot be read)
 * and GET /metrics (Prometheus text from the app's own registry): requests counted under
 * their route pattern, never the URL, on both the router and the answer front (a real
 * port: inject() never reaches the front), cache hits and misses per route, the service
 * gauges; and a property: whatever path or query a client sends these endpoints, never
 * a 500, and no metric label ever holds what the client sent.
 */
import { NO_LIVE_BUFFERS } from '../../src/streaming/buffer-hls-session.js';
import { join } from 'node:path';
import { rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/app/server.lifecycle.js';
import { NotFoundError } from '../../src/common/errors.js';
import { resolveServerConfig } from '../../src/config/server-config.js';
import { PathBoundary } from '../../src/common/path-boundary.js';
import type { DvrService } from '../../src/dvr/dvr.service.js';
import { LibraryEditsService } from '../../src/management/library-edits.service.js';
import { MediaFilesService } from '../../src/management/media-files.service.js';
import type { ServerPhase } from '../../src/model/health.schemas.js';
import { LibraryService } from '../../src/library/library.service.js';
import { HlsService } from '../../src/streaming/hls-sessions.service.js';
import { createDvr } from '../support/dvr-app.js';
import { seedLibrary } from '../support/seed-library.js';
import { type TempLibrary, buildTestApp, createTempLibrary, tempDir } from '../support/temp-library.js';

type Json = Record<string, unknown>;

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Prometheus text format 0.0.4 -> samples; throws on any line that is not a comment, blank or a sample. */
function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`not a Prometheus line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL))
      labels[name as string] = (value as string).replace(/\\(.)/g, (_, ch: string) => (ch === 'n' ? '\n' : ch));
    const raw = match[3] as string;
    samples.push({
      name: match[1] as string,
      labels,
      value: raw === 'NaN' ? NaN : raw === '+Inf' ? Infinity : Number(raw),
    });
  }
  return samples;
}

function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

async function scrape(app: FastifyInstance): Promise<Sample[]> {
  const answer = await app.inject({ url: '/metrics' });
  expect(answer.statusCode).toBe(200);
  expect(answer.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseMetrics(answer.body);
}

const requests = (samples: Sample[], route: string, status: string, method = 'GET') =>
  valueOf(samples, 'antenna_http_requests_total', { route, method, status }) ?? 0;

describe('GET /health', () => {
  let temp: TempLibrary;
  let app: FastifyInstance;
  let phase: ServerPhase = 'ready';

  beforeAll(async () => {
    temp = createTempLibrary();
    app = await buildTestApp(temp, { phase: () => phase });
  });
  afterAll(async () => {
    await app.close();
    temp.close();
  });

  it('answers 200 ok with the error fields, the version and a database check, never stored', async () => {
    const answer = await app.inject({ url: '/health' });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    const body = answer.json<Json & { checks: { database: Json } }>();
    expect(body).toMatchObject({ status: 200, code: 'ok', message: 'Ready.' });
    expect(typeof body.version).toBe('string');
    expect(body.checks.database.status).toBe('ok');
    expect(body.checks.database.latency_ms).toBeGreaterThanOrEqual(0);
    expect((await app.inject({ url: '/health/ready' })).json()).toMatchObject({ status: 200, code: 'ok' });
    expect((await app.inject({ url: '/health/live' })).json()).toMatchObject({ status: 200, code: 'alive' });
    expect((await app.inject({ method: 'HEAD', url: '/health' })).statusCode).toBe(200);
  });

  it('answers 503 while starting and while stopping; liveness stays 200', async () => {
    for (const now of ['starting', 'stopping'] as const) {
      phase = now;
      const answer = await app.inject({ url: '/health' });
      expect(answer.statusCode).toBe(503);
      expect(answer.json()).toMatchObject({ status: 503, code: now, message: expect.any(String) });
      expect((await app.inject({ url: '/health/live' })).statusCode).toBe(200);
    }
    phase = 'ready';
    expect((await app.inject({ url: '/health' })).statusCode).toBe(200);
  });

  it('is degraded (still 200) when the last scan skipped a root, without naming it', async () => {
    const degraded = await buildTestApp(temp, {
      scanStatus: () => ({
        phase: 'done',
        filesSeen: 3,
        probed: 3,
        thumbnails: 0,
        toProbe: 0,
        toThumbnail: 0,
        running: false,
        last: {
          finishedAt: Date.now(),
          summary: {
            added: 3,
            updated: 0,
            moved: 0,
            removed: 0,
            unchanged: 0,
            ignored: 0,
            probed: 3,
            probeMs: 1,
            thumbnails: 0,
            failed: [],
            skippedRoots: [{ path: '/secret/share', reason: 'missing' }],
            durationMs: 5,
          },
        },
      }),
    });
    try {
      const answer = await degraded.inject({ url: '/health' });
      expect(answer.statusCode).toBe(200);
      expect(answer.json()).toMatchObject({
        code: 'degraded',
        checks: { scan: { status: 'warn', roots_skipped: 1, phase: 'done', running: false } },
      });
      expect(answer.body).not.toContain('/secret/share');
    } finally {
      await degraded.close();
    }
  });
});

describe('GET /health on a database that cannot be read', () => {
  it('answers 503 unavailable within the short busy timeout while another connection holds the database, and puts the busy timeout back', async () => {
    // A rollback-journal database, so another connection's exclusive lock keeps readers out
    // (in WAL, the server's mode, readers are never blocked by a writer).
    const dir = tempDir();
    const file = join(dir, 'locked.db');
    const db = new Database(file);
    db.pragma('busy_timeout = 5000');
    const other = new Database(file);
    const app = await buildTestApp({ dir, db, library: new LibraryService(db), close: () => undefined });
    try {
      expect((await app.inject({ url: '/health' })).statusCode).toBe(200);
      other.exec('BEGIN EXCLUSIVE; CREATE TABLE held (x);');
      const started = performance.now();
      const answer = await app.inject({ url: '/health' });
      const took = performance.now() - started;
      expect(answer.statusCode).toBe(503);
      expect(answer.json()).toMatchObject({
        status: 503,
        code: 'unavailable',
        checks: { database: { status: 'fail', message: 'the database cannot be read (SQLITE_BUSY)' } },
      });
      expect(answer.body).not.toContain(dir);
      // About the check's 100 ms of busy timeout, not the connection's 5 s.
      expect(took).toBeLessThan(2000);
      expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
      other.exec('COMMIT');
      expect((await app.inject({ url: '/health' })).statusCode).toBe(200);
    } finally {
      await app.close();
      other.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers 503 once the database is closed, and /metrics still answers (what it cannot read left out or NaN)', async () => {
    const temp = createTempLibrary();
    const app = await buildTestApp(temp);
    try {
      temp.db.close();
      const answer = await app.inject({ url: '/health' });
      expect(answer.statusCode).toBe(503);
      expect(answer.json()).toMatchObject({
        status: 503,
        code: 'unavailable',
        checks: { database: { status: 'fail', message: 'the database cannot be read (not_open)' } },
      });
      expect((await app.inject({ url: '/health/live' })).statusCode).toBe(200);
      const samples = await scrape(app);
      expect(samples.some((s) => s.name === 'antenna_dvr_jobs')).toBe(false);
      expect(valueOf(samples, 'antenna_build_info')).toBe(1);
    } finally {
      await app.close();
      temp.close();
    }
  });
});

describe('GET /metrics', () => {
  let temp: TempLibrary;
  let app: FastifyInstance;
  let dvr: DvrService;
  let hls: HlsService;
  let port: number;

  beforeAll(async () => {
    temp = createTempLibrary({ externalCheckIntervalMs: 0 });
    seedLibrary(temp.db);
    const playlist = join(temp.dir, 'tuner.m3u');
    writeFileSync(playlist, '#EXTM3U\n');
    dvr = createDvr(temp, { sources: [{ kind: 'm3u', location: playlist, streams: 3 }], guides: [] });
    // Never asked for a playlist, so it never runs ffmpeg.
    hls = new HlsService({
      dir: join(temp.dir, 'hls'),
      ffmpeg: 'ffmpeg',
      ffprobe: 'ffprobe',
      encoder: 'software',
      maxTranscodes: 2,
      checkItem: (id) => {
        throw new NotFoundError('file', id);
      },
      openItem: (id) => Promise.reject(new NotFoundError('file', id)),
      resolveChannel: (number) => {
        throw new NotFoundError('channel', number);
      },
      liveBuffer: NO_LIVE_BUFFERS,
    });
    // Wired as the server wires it: management with the DVR, HLS, the importer's status.
    app = await buildTestApp(temp, {
      processMetrics: true,
      hls,
      scanStatus: () => ({
        phase: 'probing',
        filesSeen: 12,
        probed: 5,
        thumbnails: 0,
        toProbe: 7,
        toThumbnail: 12,
        running: true,
        perSecond: 2.5,
      }),
      management: {
        files: new MediaFilesService(temp.db, {
          recordingsDir: join(temp.dir, 'recordings'),
          boundary: new PathBoundary(() => [join(temp.dir, 'recordings')]),
        }),
        edits: new LibraryEditsService(temp.db),
        token: undefined,
        roots: () => [],
        dvr,
      },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await app.close();
    await dvr.stop();
    temp.close();
  });

  it('is Prometheus text with the process metrics and the service gauges', async () => {
    const samples = await scrape(app);
    const names = new Set(samples.map((s) => s.name));
    for (const name of [
      'process_cpu_user_seconds_total',
      'nodejs_eventloop_lag_seconds',
      'process_resident_memory_bytes',
    ])
      expect(names, name).toContain(name);
    expect(valueOf(samples, 'antenna_build_info')).toBe(1);
    expect(valueOf(samples, 'antenna_hls_sessions', { kind: 'file' })).toBe(0);
    expect(valueOf(samples, 'antenna_hls_sessions', { kind: 'live' })).toBe(0);
    expect(valueOf(samples, 'antenna_transcodes_running')).toBe(0);
    expect(valueOf(samples, 'antenna_transcodes_limit')).toBe(2);
    expect(valueOf(samples, 'antenna_recordings_active')).toBe(0);
    const source = dvr.sources.listSources()[0]!;
    expect(valueOf(samples, 'antenna_tuners', { source: source.id, kind: 'm3u' })).toBe(3);
    expect(valueOf(samples, 'antenna_tuners_in_use', { source: source.id, kind: 'm3u' })).toBe(0);
    expect(valueOf(samples, 'antenna_dvr_source_failing', { source: source.id })).toBe(0);
    // The seed's two jobs: one scheduled, one skipped (marked failed too, but never finished); every state listed.
    expect(valueOf(samples, 'antenna_dvr_jobs', { state: 'scheduled' })).toBe(1);
    expect(valueOf(samples, 'antenna_dvr_jobs', { state: 'skipped' })).toBe(1);
    for (const state of ['recording', 'finished', 'failed'])
      expect(valueOf(samples, 'antenna_dvr_jobs', { state }), state).toBe(0);
    expect(valueOf(samples, 'antenna_scan_running')).toBe(1);
    expect(valueOf(samples, 'antenna_scan_phase', { phase: 'probing' })).toBe(1);
    expect(valueOf(samples, 'antenna_scan_phase', { phase: 'walking' })).toBe(0);
    expect(valueOf(samples, 'antenna_scan_files_to_probe')).toBe(7);
    expect(valueOf(samples, 'antenna_scan_files_per_second', { phase: 'probing' })).toBe(2.5);
    expect(valueOf(samples, 'antenna_response_cache_entries')).toBeGreaterThanOrEqual(0);
    // The tuner's location (a path here, an account in a URL elsewhere) is never a label.
    expect(samples.every((s) => Object.values(s.labels).every((v) => !v.includes(temp.dir)))).toBe(true);
  });

  it('counts a request under its route pattern, never its URL; unknown URLs under one label', async () => {
    const before = await scrape(app);
    await app.inject({ url: '/api/v1/shows/show-a' });
    await app.inject({ url: '/api/v1/shows/show-b?x=1' });
    await app.inject({ url: '/api/v1/shows/no-such-show' });
    await app.inject({ url: '/no/such/path-xyz' });
    await app.inject({ method: 'DELETE', url: '/api/v1/shows/show-a' });
    const after = await scrape(app);
    expect(requests(after, '/api/v1/shows/:id', '200') - requests(before, '/api/v1/shows/:id', '200')).toBe(2);
    expect(requests(after, '/api/v1/shows/:id', '404') - requests(before, '/api/v1/shows/:id', '404')).toBe(1);
    expect(
      requests(after, '/api/v1/shows/:id', '405', 'DELETE') - requests(before, '/api/v1/shows/:id', '405', 'DELETE'),
    ).toBe(1);
    expect(requests(after, 'unmatched', '404') - requests(before, 'unmatched', '404')).toBe(1);
    const count =
      valueOf(after, 'antenna_http_request_duration_seconds_count', { route: '/api/v1/shows/:id', method: 'GET' }) ?? 0;
    expect(count).toBeGreaterThanOrEqual(3);
    const labels = after.flatMap((s) => Object.values(s.labels));
    for (const raw of ['show-a', 'show-b', 'no-such-show', 'path-xyz', 'x=1'])
      expect(
        labels.some((v) => v.includes(raw)),
        raw,
      ).toBe(false);
  });

  it("counts cache misses and hits per route: a repeated list is a hit, and on a real port the answer front's too", async () => {
    const lookups = (samples: Sample[], result: string, by: string) =>
      valueOf(samples, 'antenna_response_cache_lookups_total', {
        route: '/api/v1/episodes',
        result,
        answered_by: by,
      }) ?? 0;
    const before = await scrape(app);
    await app.inject({ url: '/api/v1/episodes?sort=title' });
    await app.inject({ url: '/api/v1/episodes?sort=title' });
    const afterInject = await scrape(app);
    expect(lookups(afterInject, 'miss', 'router') - lookups(before, 'miss', 'router')).toBe(1);
    expect(lookups(afterInject, 'hit', 'router') - lookups(before, 'hit', 'router')).toBe(1);

    // On the socket: the first is the route's (a miss: another Host is another base URL in the payload), the second the
    // front's.
    const url = `http://127.0.0.1:${port}/api/v1/episodes?sort=title`;
    expect((await fetch(url)).status).toBe(200);
    expect((await fetch(url)).status).toBe(200);
    const afterFront = await scrape(app);
    expect(lookups(afterFront, 'miss', 'router') - lookups(afterInject, 'miss', 'router')).toBe(1);
    expect(lookups(afterFront, 'hit', 'front') - lookups(afterInject, 'hit', 'front')).toBe(1);
    expect(lookups(afterFront, 'hit', 'router') - lookups(afterInject, 'hit', 'router')).toBe(0);
    // The front's answer is a request like any other, under the same route pattern.
    expect(requests(afterFront, '/api/v1/episodes', '200') - requests(afterInject, '/api/v1/episodes', '200')).toBe(2);
  });
});

describe('the server as `antenna server` starts it', () => {
  it('is ready once started, every gauge wired, and says stopping (503) while it stops', async () => {
    const dir = tempDir();
    const server = await startServer(
      resolveServerConfig([
        { data: join(dir, 'data'), host: '127.0.0.1', port: 0, sample: false, mdns: false, guideRefresh: 0 },
      ]),
      pino({ level: 'silent' }),
    );
    try {
      const ready = await server.app.inject({ url: '/health' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toMatchObject({
        code: 'ok',
        checks: { database: { status: 'ok' }, scan: { status: 'ok' }, dvr: { status: 'ok', sources: 0, recording: 0 } },
      });
      const names = new Set((await scrape(server.app)).map((s) => s.name));
      for (const name of [
        'antenna_scan_running',
        'antenna_recordings_active',
        'antenna_dvr_jobs',
        'antenna_hls_sessions',
        'antenna_transcodes_limit',
        'process_cpu_user_seconds_total',
      ])
        expect(names, name).toContain(name);
      // Asked the moment stop() has begun: 503 'stopping' while the services stop (should the
      // HTTP server already be closing by the time the request is routed, Fastify's own 503).
      const stopping = server.stop();
      const answer = await server.app.inject({ url: '/health' });
      await stopping;
      expect(answer.statusCode).toBe(503);
      const body = answer.json<{ status: number; code: string }>();
      expect(body.status).toBe(503);
      if (body.code !== 'stopping') expect(answer.body).not.toContain('"checks"');
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('health and metrics under any path or query', () => {
  let temp: TempLibrary;
  let app: FastifyInstance;

  beforeAll(async () => {
    temp = createTempLibrary();
    app = await buildTestApp(temp, { processMetrics: false });
  });
  afterAll(async () => {
    await app.close();
    temp.close();
  });

  /** Text a client may send, percent-encoded or raw (light-my-request sends what it is given). */
  const piece = fc.oneof(
    fc.string({ minLength: 1, maxLength: 12 }),
    fc.stringMatching(/^[A-Za-z0-9%._~!$&'()*+,;=:@-]{1,16}$/),
    fc.constantFrom('..', '%', '%zz', '%00', '%2F', '?', '#', '//', '\u00e9'),
  );
  const encoded = piece.map((text) => (/^[\x21-\x7e]*$/.test(text) ? text : encodeURIComponent(text)));

  it('never answers 500, and no label holds what the client sent', async () => {
    const sent: string[] = [];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/health', '/health/ready', '/health/live', '/metrics'),
        fc.option(encoded, { nil: undefined }),
        fc.option(fc.array(fc.tuple(encoded, encoded), { maxLength: 3 }), { nil: undefined }),
        fc.constantFrom('GET', 'HEAD'),
        async (base, suffix, query, method) => {
          const path = suffix === undefined ? base : `${base}/${suffix}`;
          const url = query === undefined ? path : `${path}?${query.map(([k, v]) => `${k}=${v}`).join('&')}`;
          const answer = await app.inject({ method: method as 'GET' | 'HEAD', url });
          // A path no route has: it must be counted as 'unmatched', never by itself.
          if (suffix && answer.statusCode === 404) sent.push(suffix);
          expect(answer.statusCode, url).not.toBe(500);
          expect([200, 400, 404, 503], url).toContain(answer.statusCode);
          if (answer.statusCode !== 200 && method === 'GET')
            expect(answer.json(), url).toMatchObject({
              status: answer.statusCode,
              code: expect.any(String),
              message: expect.any(String),
            });
        },
      ),
      { numRuns: 300, interruptAfterTimeLimit: 60_000, markInterruptAsFailure: true },
    );
    // Every route label is a pattern the app registered for that method (a path the client
    // sent such as /health/.. is normalized to another route: /, the web app), or 'unmatched'.
    const samples = await scrape(app);
    const series = samples.filter((s) => s.name === 'antenna_http_requests_total');
    expect(series.length).toBeGreaterThan(0);
    for (const { labels } of series) {
      const { route = '', method = '' } = labels;
      expect(route === 'unmatched' || app.hasRoute({ url: route, method: method as 'GET' }), `${method} ${route}`).toBe(
        true,
      );
    }
    // So what the client sent never reached a label: of the suffixes sent, none is a route label.
    const routes = new Set(samples.filter((s) => s.name.startsWith('antenna_')).map((s) => s.labels.route));
    expect(sent.length).toBeGreaterThan(0);
    for (const raw of sent)
      expect(
        [...routes].some((route) => route?.endsWith(`/${raw}`)),
        raw,
      ).toBe(false);
    expect([...routes].some((route) => route?.includes('?'))).toBe(false);
  });
});
