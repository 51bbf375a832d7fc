/**
 * Gauges of what the services are doing, read from their existing state when /metrics
 * is scraped (each gauge's collect()): the importer's scan, the DVR's recordings, jobs
 * and tuners, HLS sessions and transcodes, the response cache's size. Nothing is
 * pushed, so no domain code knows about metrics, and an idle server does no work for
 * them between scrapes.
 *
 * Labels name only bounded, public things: a scan phase, a job state, a session kind,
 * a DVR source's id (`m3u-<digest>`, as GET /dvr/sources lists it: never its location,
 * which may hold an account in its URL).
 */
import type { FastifyBaseLogger } from 'fastify';
import { Gauge, type Registry } from 'prom-client';
import type { DvrService } from '../dvr/dvr.service.js';
import type { ScanStatus } from '../importer/scan-scheduler.js';
import type { HlsService } from '../streaming/hls-sessions.service.js';
import type { ResponseCache } from '../answer-cache/response-cache.js';

export interface ServiceMetricSources {
  version: string;
  cache: ResponseCache;
  scanStatus?: (() => ScanStatus) | undefined;
  dvr?: DvrService | undefined;
  hls?: HlsService | undefined;
  /** The DVR's jobs by state (app/ reads them: api/ does no SQL). */
  jobCounts?: (() => Readonly<Record<string, number>>) | undefined;
  logger: FastifyBaseLogger;
}

const SCAN_PHASES = ['idle', 'walking', 'importing', 'probing', 'thumbnails', 'done'] as const;
const SCAN_RESULTS = ['added', 'updated', 'moved', 'removed', 'unchanged', 'failed'] as const;

/**
 * Reads `source` at most once per scrape. prom-client runs every metric's collect() in
 * one synchronous pass (registry.metrics() maps over them), so the value is dropped
 * when that pass's microtasks run. Should that ever change, each gauge would read it
 * again: dearer, never wrong.
 */
function oncePerScrape<T>(source: () => T): () => T {
  let held: { value: T } | undefined;
  return () => {
    if (!held) {
      held = { value: source() };
      queueMicrotask(() => (held = undefined));
    }
    return held.value;
  };
}

type Fill<L extends string> = (gauge: Gauge<L>) => void;

export function registerServiceMetrics(registry: Registry, sources: ServiceMetricSources): void {
  // A source that throws (the database gone) leaves its gauges empty, or NaN (unknown)
  // for those without labels, instead of failing the whole scrape; logged once until it reads again.
  const failing = new Set<string>();
  const gauge = <L extends string = never>(
    name: string,
    help: string,
    labelNames: readonly L[],
    fill: Fill<L>,
  ): void => {
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        try {
          fill(this);
          failing.delete(name);
        } catch (error) {
          if (labelNames.length === 0) this.set(NaN);
          if (!failing.has(name))
            sources.logger.warn(
              { err: error, metric: name },
              'a metric could not be read and is left out of /metrics until it can; if this persists, the error says what is wrong',
            );
          failing.add(name);
        }
      },
    });
  };

  gauge('antenna_build_info', 'Always 1; the version in a label', ['version'], (g) =>
    g.set({ version: sources.version }, 1),
  );
  gauge('antenna_response_cache_entries', "Answers interface A's response cache holds", [], (g) =>
    g.set(sources.cache.stats().entries),
  );
  gauge(
    'antenna_response_cache_bytes',
    "Bytes interface A's response cache holds (bodies, and an allowance for their compressed variants)",
    [],
    (g) => g.set(sources.cache.stats().bytes),
  );

  if (sources.scanStatus) registerScanMetrics(gauge, oncePerScrape(sources.scanStatus));
  const dvr = sources.dvr;
  if (dvr) {
    gauge('antenna_recordings_active', 'Recordings running now', [], (g) => g.set(dvr.recordingCount()));
    const tuners = oncePerScrape(() => dvr.tuners());
    gauge(
      'antenna_tuners',
      "Streams each DVR source allows at once (an HDHomeRun's tuners, an M3U source's limit)",
      ['source', 'kind'],
      (g) => {
        for (const { source } of tuners()) g.set({ source: source.id, kind: source.kind }, source.stream_limit);
      },
    );
    gauge(
      'antenna_tuners_in_use',
      'Upstream streams open now on each DVR source (recordings and live viewers of one channel share one)',
      ['source', 'kind'],
      (g) => {
        for (const { source, inUse } of tuners()) g.set({ source: source.id, kind: source.kind }, inUse);
      },
    );
    gauge(
      'antenna_dvr_source_failing',
      "1 when a DVR source's last refresh failed (GET /dvr/sources says why)",
      ['source', 'kind'],
      (g) => {
        for (const { source } of tuners())
          g.set({ source: source.id, kind: source.kind }, source.error === null ? 0 : 1);
      },
    );
  }
  const jobCounts = sources.jobCounts;
  if (jobCounts) {
    gauge(
      'antenna_dvr_jobs',
      'Recording jobs the DVR lists, by state: scheduled, skipped, recording, finished, failed (finished with nothing recorded; kept until old jobs are forgotten)',
      ['state'],
      (g) => {
        for (const [state, count] of Object.entries(jobCounts())) g.set({ state }, count);
      },
    );
  }
  const hls = sources.hls;
  if (hls) {
    const usage = oncePerScrape(() => hls.usage());
    gauge('antenna_hls_sessions', 'HLS sessions open, by kind (file, live)', ['kind'], (g) => {
      const { file, live } = usage();
      g.set({ kind: 'file' }, file);
      g.set({ kind: 'live' }, live);
    });
    gauge(
      'antenna_transcodes_running',
      'HLS sessions whose ffmpeg transcodes now (what --max-transcodes limits)',
      [],
      (g) => g.set(usage().transcoding),
    );
    gauge('antenna_transcodes_limit', 'Transcodes allowed at once (--max-transcodes)', [], (g) =>
      g.set(usage().maxTranscodes),
    );
  }
}

type GaugeMaker = <L extends string = never>(
  name: string,
  help: string,
  labelNames: readonly L[],
  fill: Fill<L>,
) => void;

function registerScanMetrics(gauge: GaugeMaker, status: () => ScanStatus): void {
  gauge('antenna_scan_running', '1 while a scan, a watched change or probing and thumbnails are under way', [], (g) =>
    g.set(status().running ? 1 : 0),
  );
  gauge('antenna_scan_phase', "1 for the importer's phase now, 0 for the others", ['phase'], (g) => {
    const phase = status().phase;
    for (const each of SCAN_PHASES) g.set({ phase: each }, each === phase ? 1 : 0);
  });
  gauge('antenna_scan_files_found', 'Media files the walk has found (the walk under way, or the last)', [], (g) =>
    g.set(status().filesSeen),
  );
  gauge('antenna_scan_files_probed', 'Files probed in the probing under way (or the last)', [], (g) =>
    g.set(status().probed),
  );
  gauge('antenna_scan_files_to_probe', 'Files waiting for a probe', [], (g) => g.set(status().toProbe));
  gauge('antenna_scan_thumbnails_made', 'Thumbnails made in the work under way (or the last)', [], (g) =>
    g.set(status().thumbnails),
  );
  gauge('antenna_scan_thumbnails_to_make', 'Files waiting for a thumbnail (those not probed yet included)', [], (g) =>
    g.set(status().toThumbnail),
  );
  gauge(
    'antenna_scan_files_per_second',
    "The phase's rate over the last seconds (walked, probed or thumbnailed); absent until measured",
    ['phase'],
    (g) => {
      const { perSecond, phase } = status();
      if (perSecond !== undefined) g.set({ phase }, perSecond);
    },
  );
  gauge(
    'antenna_scan_last_finished_timestamp_seconds',
    'When the last whole scan finished (Unix time); 0 before the first',
    [],
    (g) => g.set((status().last?.finishedAt ?? 0) / 1000),
  );
  gauge('antenna_scan_last_duration_seconds', 'How long the last whole scan took; 0 before the first', [], (g) =>
    g.set((status().last?.summary.durationMs ?? 0) / 1000),
  );
  gauge(
    'antenna_scan_last_files',
    'Files of the last whole scan by result (failed: what it, probing and thumbnails could not read)',
    ['result'],
    (g) => {
      const summary = status().last?.summary;
      if (!summary) return;
      for (const result of SCAN_RESULTS)
        g.set({ result }, result === 'failed' ? summary.failed.length : summary[result]);
    },
  );
}
