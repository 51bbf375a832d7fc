/**
 * The request metrics keep their counts outside prom-client on the hot path: the
 * duration histogram writes its own text, the counters copy their tallies into
 * prom-client when scraped. Both must give exactly what prom-client itself gives for
 * the same observations (line for line: only the order of series may differ, which
 * Prometheus ignores), escaping included.
 */
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { DURATION_BUCKETS, DurationHistogram, HttpMetrics } from '../../src/metrics/http-metrics.js';

const route = fc.oneof(
  fc.constantFrom('/api/v1/shows/:id', '/health', 'unmatched', '/assets/*'),
  fc.string({ maxLength: 8 }).map((s) => `/${s}`),
  fc.constantFrom('/a"b', '/a\\b', '/a\nb'),
);
const method = fc.constantFrom('GET', 'HEAD', 'DELETE');
const seconds = fc.oneof(
  fc.double({ min: 0, max: 60, noNaN: true }),
  fc.constantFrom(...DURATION_BUCKETS),
  fc.constant(0),
);
const observation = fc.record({ route, method, status: fc.constantFrom(200, 304, 404, 503), seconds });

/** The lines of a metric's text, its HELP and TYPE first, its series sorted. */
function lines(text: string): string[] {
  const all = text.trimEnd().split('\n');
  return [...all.slice(0, 2), ...all.slice(2).sort()];
}

describe('DurationHistogram', () => {
  it("writes what prom-client's Histogram writes for the same observations", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(observation, { maxLength: 60 }), async (observations) => {
        const registry = new Registry();
        const reference = new Histogram({
          name: 'd_seconds',
          help: 'a help\\with "quotes"\nand lines',
          labelNames: ['route', 'method'],
          buckets: DURATION_BUCKETS,
          registers: [registry],
        });
        const ours = new DurationHistogram('d_seconds', 'a help\\with "quotes"\nand lines', DURATION_BUCKETS);
        for (const o of observations) {
          reference.observe({ route: o.route, method: o.method }, o.seconds);
          ours.observe(o.route, o.method, o.seconds);
        }
        expect(lines(ours.render())).toEqual(lines(await registry.metrics()));
      }),
      { numRuns: 200 },
    );
  });
});

describe('HttpMetrics', () => {
  it("counts requests and cache lookups as prom-client Counters would, and every line of its text is Prometheus's", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(observation, { maxLength: 40 }),
        fc.array(fc.tuple(route, fc.constantFrom('front', 'router', 'miss')), { maxLength: 20 }),
        async (observations, lookups) => {
          const metrics = new HttpMetrics({ processMetrics: false });
          const registry = new Registry();
          const requests = new Counter({
            name: 'antenna_http_requests_total',
            help: 'x',
            labelNames: ['route', 'method', 'status'],
            registers: [registry],
          });
          const cache = new Counter({
            name: 'antenna_response_cache_lookups_total',
            help: 'x',
            labelNames: ['route', 'result', 'answered_by'],
            registers: [registry],
          });
          for (const o of observations) {
            metrics.observe(o.route, o.method, o.status, o.seconds);
            requests.inc({ route: o.route, method: o.method, status: String(o.status) });
          }
          for (const [r, kind] of lookups) {
            if (kind === 'miss') metrics.cacheCounts.miss(r);
            else metrics.cacheCounts.hit(r, kind);
            cache.inc({
              route: r,
              result: kind === 'miss' ? 'miss' : 'hit',
              answered_by: kind === 'miss' ? 'router' : kind,
            });
          }
          const { text, contentType } = await metrics.scrape();
          expect(contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
          const series = (all: string, name: string) =>
            all
              .split('\n')
              .filter((line) => line.startsWith(`${name}{`))
              .sort();
          const reference = await registry.metrics();
          for (const name of ['antenna_http_requests_total', 'antenna_response_cache_lookups_total'])
            expect(series(text, name)).toEqual(series(reference, name));
          // Each metric once, each line a comment or a sample (values may be any float).
          const types = text.split('\n').filter((line) => line.startsWith('# TYPE '));
          expect(new Set(types).size).toBe(types.length);
          for (const line of text.split('\n'))
            if (line !== '' && !line.startsWith('# '))
              expect(line).toMatch(/^[a-z_]+(\{.*\})? (-?[0-9.e+-]+|Nan|[+-]Inf)$/s);
        },
      ),
      { numRuns: 100 },
    );
  });
});
