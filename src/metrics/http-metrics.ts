/**
 * The Prometheus registry of one HTTP app, and the metrics only the HTTP layer sees:
 * requests by route pattern, method and status with their durations, and the response
 * cache's hits and misses per route. (What the services are doing is read when
 * /metrics is scraped: service-metrics.ts.)
 *
 * The registry is the app's own, not prom-client's global one: two apps in one process
 * (the tests, or a second server) would otherwise share series or refuse to register
 * the same names twice.
 *
 * Labels are bounded: a route is the pattern Fastify matched (`/api/v1/shows/:id`), or
 * `unmatched` for every URL that matched none, never the URL itself; methods are the
 * few node:http parses; statuses are three digits. So no client can grow the number of
 * series, and no id, query, path or token reaches a label.
 */
import type { FastifyInstance } from 'fastify';
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import type { FrontAnswered } from '../answer-cache/answer-front.js';
import type { CacheCounts } from '../answer-cache/response-cache.js';

/** The route label of a request no route matched (404s): one value for them all. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Seconds. A cached answer takes well under a millisecond, a large list or a scan's
 * request up to a second; an HLS segment may wait up to 25 s for ffmpeg.
 */
export const DURATION_BUCKETS = [0.001, 0.005, 0.025, 0.1, 0.25, 1, 2.5, 10, 30];

/**
 * A prom-client Counter with three labels whose increments go into plain Maps first and
 * are copied into the Counter when /metrics is scraped (its collect()). prom-client
 * hashes and checks the labels on every inc(), about 200 ns; three Map lookups cost a
 * tenth of that, and a cached interface-A answer takes about 13 µs of server CPU in all.
 */
class TallyCounter<A extends string, B extends string, C extends string> {
  private readonly counts = new Map<string, Map<string, Map<string | number, number>>>();

  constructor(registry: Registry, name: string, help: string, labels: readonly [A, B, C]) {
    const counts = this.counts;
    const [a, b, c] = labels;
    new Counter<A | B | C>({
      name,
      help,
      labelNames: labels,
      registers: [registry],
      collect() {
        this.reset();
        for (const [aValue, byB] of counts) {
          for (const [bValue, byC] of byB) {
            for (const [cValue, n] of byC)
              this.inc({ [a]: aValue, [b]: bValue, [c]: String(cValue) } as Record<A | B | C, string>, n);
          }
        }
      },
    });
  }

  inc(a: string, b: string, c: string | number): void {
    let byB = this.counts.get(a);
    if (!byB) this.counts.set(a, (byB = new Map()));
    let byC = byB.get(b);
    if (!byC) byB.set(b, (byC = new Map()));
    byC.set(c, (byC.get(c) ?? 0) + 1);
  }
}

/** prom-client's escaping of HELP text and label values (its registry.js). */
const escapeText = (text: string) => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeLabel = (value: string) => escapeText(value).replace(/"/g, '\\"');

/**
 * A histogram by route and method, kept in plain arrays and written out in Prometheus's
 * text format itself. prom-client's Histogram.observe() hashes and checks its labels
 * on every call: about 450 ns in a micro-benchmark, a thirtieth of a whole cached answer
 * on the answer front (about 13 µs of server CPU); this costs two Map lookups and a
 * short bucket search, about 40 ns. prom-client offers no public way to hand it counts
 * made elsewhere (a collect() can only observe() one value at a time),
 * so render() writes the text prom-client would: test/unit/http-metrics.test.ts checks
 * it line for line against a prom-client Histogram fed the same values.
 */
export class DurationHistogram {
  private readonly cells = new Map<string, Map<string, { buckets: Float64Array; sum: number; count: number }>>();

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly bounds: readonly number[],
  ) {}

  observe(route: string, method: string, seconds: number): void {
    let byMethod = this.cells.get(route);
    if (!byMethod) this.cells.set(route, (byMethod = new Map()));
    let cell = byMethod.get(method);
    if (!cell) byMethod.set(method, (cell = { buckets: new Float64Array(this.bounds.length), sum: 0, count: 0 }));
    cell.sum += seconds;
    cell.count++;
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= (bounds[i] as number)) {
        cell.buckets[i]!++;
        break;
      }
    }
  }

  /**
   * The metric in text format 0.0.4, as prom-client writes a Histogram with labels route and method (no final newline).
   */
  render(): string {
    const lines = [`# HELP ${this.name} ${escapeText(this.help)}`, `# TYPE ${this.name} histogram`];
    for (const [route, byMethod] of this.cells) {
      for (const [method, cell] of byMethod) {
        const labels = `route="${escapeLabel(route)}",method="${escapeLabel(method)}"`;
        let cumulative = 0;
        this.bounds.forEach((bound, i) => {
          cumulative += cell.buckets[i] ?? 0;
          lines.push(`${this.name}_bucket{le="${bound}",${labels}} ${cumulative}`);
        });
        lines.push(
          `${this.name}_bucket{le="+Inf",${labels}} ${cell.count}`,
          `${this.name}_sum{${labels}} ${cell.sum}`,
          `${this.name}_count{${labels}} ${cell.count}`,
        );
      }
    }
    return lines.join('\n');
  }
}

export interface HttpMetricsOptions {
  /** prom-client's process and Node.js metrics (CPU, memory, event-loop lag, GC, handles); default true. */
  processMetrics?: boolean;
}

export class HttpMetrics {
  readonly registry = new Registry();
  private readonly requests: TallyCounter<'route', 'method', 'status'>;
  private readonly durations: DurationHistogram;
  private readonly cacheLookups: TallyCounter<'route', 'result', 'answered_by'>;

  /** What the response cache counts into. */
  readonly cacheCounts: CacheCounts;
  /** What the answer front reports its answers to. */
  readonly frontAnswered: FrontAnswered;

  constructor(options: HttpMetricsOptions = {}) {
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.requests = new TallyCounter(
      this.registry,
      'antenna_http_requests_total',
      "HTTP requests answered, by route pattern (unmatched: no route), method and status; the answer front's included",
      ['route', 'method', 'status'],
    );
    // Labelled by route and method only: by status too would multiply the buckets' series for little (the counter has
    // the statuses).
    this.durations = new DurationHistogram(
      'antenna_http_request_duration_seconds',
      'Time from routing to the last byte handed to the socket (the answer front: from its lookup to the end of its write), by route pattern and method',
      DURATION_BUCKETS,
    );
    this.cacheLookups = new TallyCounter(
      this.registry,
      'antenna_response_cache_lookups_total',
      "Interface A's response cache: lookups by route pattern, result (hit, miss) and who answered (front: before routing; router)",
      ['route', 'result', 'answered_by'],
    );
    const lookups = this.cacheLookups;
    this.cacheCounts = {
      hit: (route, answeredBy) => lookups.inc(route, 'hit', answeredBy),
      miss: (route) => lookups.inc(route, 'miss', 'router'),
    };
    this.frontAnswered = (route, method, status, startedAt) =>
      this.observe(route, method, status, (performance.now() - startedAt) / 1000);
  }

  observe(route: string, method: string, status: number, seconds: number): void {
    this.requests.inc(route, method, status);
    this.durations.observe(route, method, seconds);
  }

  /**
   * Counts every answer Fastify gives, from one onResponse hook on the root (so before
   * any route is registered): routes, 404s, validation and write-access refusals alike.
   */
  install(app: FastifyInstance): void {
    app.addHook('onResponse', (request, reply, done) => {
      this.observe(
        request.routeOptions.url ?? UNMATCHED_ROUTE,
        request.method,
        reply.statusCode,
        reply.elapsedTime / 1000,
      );
      done();
    });
  }

  /**
   * The Prometheus text of everything registered and of the duration histogram (joined as the registry joins its
   * metrics), and its content type.
   */
  async scrape(): Promise<{ text: string; contentType: string }> {
    const registered = await this.registry.metrics();
    return { text: `${registered}\n${this.durations.render()}\n`, contentType: this.registry.contentType };
  }
}
