/**
 * `antenna scan`: one scan of the import roots into the library in --data, with a
 * progress line on a terminal (plain lines otherwise) and a summary at the end.
 * Exits non-zero only when the scan could not run; files it could not import are
 * listed in the summary.
 */
import { join } from 'node:path';
import { PathBoundary } from '../common/path-boundary.js';
import { PROGRAMS_ON_PATH } from '../common/external-program.js';
import { findServerPrograms } from '../app/program-paths.js';
import pino from 'pino';
import { ConfigError, type ServerConfig, importRootsOf } from '../config/server-config.js';
import { databasePath, openDatabase, prepareDataDir } from '../db/database.js';
import { ImportService, type ScanProgress, type ScanSummary } from '../importer/import.service.js';
import { removeSampleLibrary } from '../repositories/library/sample-library.repository.js';
import { sampleMediaDir } from '../sample/sample-media.js';

export interface ScanOptions {
  json: boolean;
  probe: boolean;
  /** Make thumbnails (default true); without, the scan ends once every file has its duration. */
  thumbnails?: boolean;
}

export function formatSummary(summary: ScanSummary): string {
  const seconds = (summary.durationMs / 1000).toFixed(1);
  const lines = [
    `Scan finished in ${seconds} s: ${summary.added} added, ${summary.updated} updated, ${summary.moved} moved, ` +
      `${summary.removed} removed, ${summary.unchanged} unchanged, ${summary.ignored} not media, ` +
      `${summary.probed} probed, ${summary.thumbnails} thumbnails, ${summary.failed.length} failed.`,
  ];
  for (const root of summary.skippedRoots) lines.push(`  skipped root ${root.path}: ${root.reason}`);
  for (const failure of summary.failed) lines.push(`  failed ${JSON.stringify(failure.path)}: ${failure.reason}`);
  return `${lines.join('\n')}\n`;
}

const BAR_WIDTH = 24;

/**
 * `[#########...............]`: how much of a total is done. Written here rather than
 * taken from a progress-bar package: the line is redrawn by progressPrinter below, the
 * bar is one string.
 */
export function progressBar(done: number, total: number, width = BAR_WIDTH): string {
  const share = total > 0 ? Math.min(1, Math.max(0, done / total)) : 0;
  const filled = Math.round(share * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

/** `42 s`, `3 min 05 s`, `1 h 02 min`. */
export function formatSecondsLeft(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(seconds / 3600)} h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')} min`;
}

/** One progress line: the phase, a bar where the total is known, the rate and the time left once measured. */
export function progressLine(progress: ScanProgress): string {
  const count = (n: number) => n.toLocaleString('en-US');
  const rate = progress.perSecond !== undefined ? ` · ${count(Math.round(progress.perSecond))} files/s` : '';
  const left = progress.secondsLeft !== undefined ? ` · about ${formatSecondsLeft(progress.secondsLeft)} left` : '';
  switch (progress.phase) {
    case 'walking':
      return `walking the roots: ${count(progress.filesSeen)} media files found${rate}`;
    case 'importing':
      return `importing ${count(progress.filesSeen)} files`;
    case 'probing': {
      const total = progress.probed + progress.toProbe;
      return `probing    ${progressBar(progress.probed, total)} ${count(progress.probed)}/${count(total)}${rate}${left}`;
    }
    case 'thumbnails': {
      const total = progress.thumbnails + progress.toThumbnail;
      return `thumbnails ${progressBar(progress.thumbnails, total)} ${count(progress.thumbnails)}/${count(total)}${rate}${left}`;
    }
    default:
      return progress.phase;
  }
}

/** Prints progress: a line redrawn in place on a terminal, a line per phase otherwise. */
function progressPrinter(stream: NodeJS.WriteStream): { update(progress: ScanProgress): void; end(): void } {
  let lastPhase = '';
  let lastDraw = 0;
  return {
    update(progress) {
      if (stream.isTTY) {
        const now = Date.now();
        if (progress.phase === lastPhase && now - lastDraw < 100) return;
        lastDraw = now;
        lastPhase = progress.phase;
        stream.write(`\r\x1b[K${progressLine(progress)}`);
      } else if (progress.phase !== lastPhase && progress.phase !== 'done') {
        lastPhase = progress.phase;
        stream.write(`${progressLine(progress)}\n`);
      }
    },
    end() {
      if (stream.isTTY) stream.write('\r\x1b[K');
    },
  };
}

export async function runScan(config: ServerConfig, options: ScanOptions): Promise<void> {
  const roots = importRootsOf(config);
  if (roots.length === 0)
    throw new ConfigError('No import roots: give --tv, --movies or --videos (or set them in the config file).');
  prepareDataDir(config.data);
  const db = openDatabase(databasePath(config.data));
  const printer = progressPrinter(process.stderr);
  try {
    // Problems are in the summary; the log would say each one twice.
    const logger = pino({ level: config.logLevel === 'info' ? 'error' : config.logLevel }, pino.destination(2));
    // Looked up as the server looks them up; --no-probe needs neither.
    const programs = options.probe ? findServerPrograms(config) : PROGRAMS_ON_PATH;
    const importer = new ImportService(db, {
      logger,
      probe: options.probe,
      ffprobePath: programs.ffprobe,
      ffmpegPath: programs.ffmpeg,
      thumbnailsDir: join(config.data, 'thumbnails'),
      makeThumbnails: options.thumbnails !== false,
      onProgress: (p) => printer.update(p),
      // Links are followed as the server follows them: inside the roots and recordings folder only, unless allowed.
      boundary: PathBoundary.forLibrary(roots, config.recordings, config.followExternalLinks),
    });
    // Scanning your own roots replaces the sample library.
    removeSampleLibrary(db);
    importer.forgetImportsUnder(sampleMediaDir(config.data));
    const summary = await importer.scan(roots);
    printer.end();
    process.stdout.write(options.json ? `${JSON.stringify(summary)}\n` : formatSummary(summary));
  } finally {
    db.close();
  }
}
