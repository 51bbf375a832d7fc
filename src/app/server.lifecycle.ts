/**
 * The one place that starts and stops everything `antenna server` runs: the data
 * directory and database, the HTTP server, and (as later issues add them) watchers,
 * schedulers and child processes. Stops cleanly on SIGTERM and SIGINT.
 */
import type { FastifyInstance } from 'fastify';
import { hostname, networkInterfaces } from 'node:os';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { buildHttpApp } from '../api/http-app.js';
import type { ServerPhase } from '../model/health.schemas.js';
import { type ServerConfig, importRootsOf } from '../config/server-config.js';
import { type Db, databasePath, openDatabase, prepareDataDir } from '../db/database.js';
import { backupsDir } from '../db/backup-names.js';
import { BackupScheduler } from '../db/backup-scheduler.js';
import { lockDataDirForServer } from '../db/data-dir-lock.js';
import { DvrService } from '../dvr/dvr.service.js';
import { guideThreadsRunning } from '../dvr/sources/guide-refresh.thread.js';
import { ItemStateLog } from '../common/item-state-log.js';
import { ImportService } from '../importer/import.service.js';
import { ScanScheduler } from '../importer/scan-scheduler.js';
import { LibraryService } from '../library/library.service.js';
import { LibraryEditsService } from '../management/library-edits.service.js';
import { MediaFilesService } from '../management/media-files.service.js';
import { HlsService } from '../streaming/hls-sessions.service.js';
import { isLibraryEmpty, replaceImportRoots } from '../repositories/library/library-state.repository.js';
import { removeSampleLibrary } from '../repositories/library/sample-library.repository.js';
import { type Advertisement, advertise, stableId } from '../discovery/dns-sd.js';
import { VERSION } from '../version.js';
import { PlayerRegistry } from '../devices/player-registry.service.js';
import { machineAddress } from '../devices/client-address.js';
import { EventLog } from '../events/event-log.service.js';
import { startEventOutlets } from './event-outlets.js';
import { displayUrl, listeningPort } from '../common/listen-url.js';
import { stopOnSignals } from './signals.js';
import { createLogger } from './log-output.js';
import { findServerPrograms } from './program-paths.js';
import { PathBoundary } from '../common/path-boundary.js';
import { listImportsUnder } from '../repositories/library/import-files.repository.js';
import { ensureSampleMedia, sampleMediaDir, sampleRoots } from '../sample/sample-media.js';

export interface RunningServer {
  /** Where the server listens, such as http://127.0.0.1:8089. */
  url: string;
  app: FastifyInstance;
  db: Db;
  stop(): Promise<void>;
}

/** The one logger factory (pretty on a terminal, JSON otherwise, or a rotated file), shared with the player. */
export { createLogger } from './log-output.js';

/** Opens the library and starts listening. Throws StartupError for a data directory it cannot use. */
export async function startServer(config: ServerConfig, logger: Logger): Promise<RunningServer> {
  prepareDataDir(config.data);
  // Held while the server runs: a second server or `antenna restore` on this data directory is refused
  // (db/data-dir-lock.ts).
  const lock = lockDataDirForServer(config.data);
  let db: Db;
  try {
    db = openDatabase(databasePath(config.data));
  } catch (error) {
    lock.release();
    throw error;
  }
  // What has started, undone (newest first) when a later step fails (a port in use): the process can then exit.
  const undo: (() => unknown)[] = [];
  try {
    const roots = importRootsOf(config);
    replaceImportRoots(db, roots);
    const sampleDir = sampleMediaDir(config.data);
    // The sample library stands in only while nothing else is configured or imported.
    const sample =
      roots.length === 0 && config.sample && (isLibraryEmpty(db) || listImportsUnder(db, sampleDir).length > 0);
    const scanRoots = sample ? sampleRoots(config.data) : roots;
    // What the server reads of the user's files: inside the roots and its recordings folder.
    const boundary = PathBoundary.forLibrary(scanRoots, config.recordings, config.followExternalLinks);
    const programs = findServerPrograms(config, logger);
    const importer = new ImportService(db, {
      logger,
      thumbnailsDir: join(config.data, 'thumbnails'),
      boundary,
      ffprobePath: programs.ffprobe,
      ffmpegPath: programs.ffmpeg,
    });
    if (roots.length > 0) {
      removeSampleLibrary(db);
      importer.forgetImportsUnder(sampleDir);
    }
    // What happened, told: numbered, logged, sent to the feed (and webhooks, MQTT).
    const events = new EventLog(db, { logger });
    const scans = new ScanScheduler(importer, scanRoots, {
      logger,
      emit: events.emit,
      rescanIntervalMs: config.rescanInterval * 60_000,
    });
    // Position, watched and favorite writes: logged, so interface A's cached lists are patched rather than built again.
    const stateLog = new ItemStateLog();
    const library = new LibraryService(db, { boundary, stateLog });
    const dvr = new DvrService(db, {
      emit: events.emit,
      recordingsDir: config.recordings,
      thumbnailsDir: join(config.data, 'thumbnails'),
      workDir: join(config.data, 'work'),
      sources: {
        sources: [
          ...config.m3u.map((location) => ({ kind: 'm3u' as const, location, streams: config.m3uStreams })),
          ...config.hdhomerun.map((location) => ({ kind: 'hdhomerun' as const, location })),
        ],
        guides: config.xmltv,
      },
      logger,
      refreshInterval: config.guideRefresh,
      localSourceDirs: config.allowLocalSources,
      programs,
      // A guide refresh writes from a thread of its own: interface A's cached lists stay through the rows no reader
      // sees.
      guideWrites: { unseen: () => library.externalWritesUnseen(), seen: () => library.externalWritesSeen() },
      liveBuffers: {
        depthSeconds: config.liveBufferHours * 3600,
        budgetBytes: Math.round(config.liveBufferGb * 1024 ** 3),
        lingerMs: config.liveBufferLinger * 60_000,
        pretune: config.livePretune,
      },
    });
    const files = new MediaFilesService(db, {
      recordingsDir: config.recordings,
      boundary,
      stopRecording: (id) => dvr.recordings.stopItem(id),
      stateLog,
    });
    const hls = new HlsService({
      dir: join(config.data, 'hls'),
      ffmpeg: programs.ffmpeg,
      ffprobe: programs.ffprobe,
      encoder: config.hlsEncoder,
      maxTranscodes: config.maxTranscodes,
      logger,
      checkItem: (id) => void files.streamFile(id),
      openItem: async (id) => {
        // Asked before the open: nothing may throw between opening a file and handing it over (it would stay open).
        const growing = dvr.recordings.isRecordingItem(id);
        return { ...(await files.openFile(id)), growing };
      },
      resolveChannel: (number, source) => ({ number, id: dvr.live.channelOn(number, source).id }),
      liveBuffer: {
        open: (number, client) => dvr.liveSample(number, client),
        playlist: (number, client, options) => dvr.livePlaylist(number, false, client, undefined, options),
        segment: (number, seq) => dvr.liveSegment(number, seq),
        leave: (number, client) => dvr.liveLeave(number, client),
      },
    });
    hls.start();
    undo.push(() => hls.stop());
    const players = new PlayerRegistry(db, {
      emit: events.emit,
      logger,
      machineAddress: () => machineAddress(networkInterfaces()),
    });
    players.start();
    undo.push(() => players.stop());
    // Where events go out besides the feed: the TVs, webhooks, MQTT; and the disk watch that tells disk.low / .full.
    const outlets = startEventOutlets({ db, config, logger, serverName: serverName(), events, players, dvr, files });
    undo.push(() => outlets.stop());
    // What GET /health reports: 503 until everything below has started, and again once stopping begins.
    let phase: ServerPhase = 'starting';
    const app = await buildHttpApp({
      library,
      hls,
      management: {
        files,
        dvr,
        edits: new LibraryEditsService(db, stateLog),
        players,
        events,
        webhooks: outlets.webhooks,
        token: config.token,
        allowedOrigins: config.allowOrigins,
        roots: () => scanRoots,
        requestScan: (path) => {
          const chosen = path === undefined ? [...scanRoots] : scanRoots.filter((root) => root.path === resolve(path));
          if (chosen.length === 0) return undefined;
          scans.request(chosen);
          return chosen;
        },
      },
      scanStatus: () => scans.status(),
      eventsStatus: () => outlets.status(),
      logger,
      publicUrl: config.publicUrl,
      fallbackBaseUrl: displayUrl(config.host, config.port),
      webDir: config.webDir,
      phase: () => phase,
    });
    if (config.followExternalLinks) {
      logger.warn(
        '--follow-external-links: symbolic links that leave the import roots are followed, and their targets imported and served to the network; drop the flag unless everyone on the network may see those targets',
      );
    }
    if (config.token === undefined) {
      logger.warn(
        'no --token: changes (watch state, deletes, scans) are accepted from loopback and private-network addresses only; give --token (or ANTENNA_TOKEN) to require one',
      );
    }
    undo.push(() => app.close());
    await app.listen({ host: config.host, port: config.port });
    // After listening: interface A answers while the sample is made and the first scan runs.
    const making = new AbortController();
    if (sample) {
      logger.info(
        { dir: sampleDir },
        'no import roots configured: using the sample library (give --tv, --movies or --videos to use your own)',
      );
      ensureSampleMedia(config.data, { signal: making.signal, ffmpeg: programs.ffmpeg }).then(
        () => scans.start(),
        (error: unknown) => {
          if (!making.signal.aborted)
            logger.warn(
              { err: error },
              'could not make the sample library; give --tv, --movies or --videos to import your own',
            );
        },
      );
    } else scans.start();
    dvr.start();
    // A backup waits while a guide refresh's thread writes: its writes would restart the copy (database-backup.ts).
    const backups = new BackupScheduler(db, {
      dir: backupsDir(config.data),
      keep: config.backupKeep,
      logger,
      othersWriting: guideThreadsRunning,
    });
    backups.start();
    phase = 'ready';
    const port = listeningPort(app.server, config.port);
    const url = displayUrl(config.host, port);
    // In the background: probing the network for a name conflict takes about a second.
    const advertising = config.mdns ? advertiseServer(config, port, logger) : Promise.resolve(undefined);
    let stopped = false;
    return {
      url,
      app,
      db,
      async stop() {
        if (stopped) return;
        stopped = true;
        phase = 'stopping';
        await (await advertising)?.end();
        // A backup under way ends between two steps (its partial file removed): no wait for a large copy.
        await backups.stop();
        making.abort();
        await scans.stop();
        // Viewers first (their ffmpegs and tuners), then recordings: their jobs stay 'recording' and resume at the next
        // start.
        await hls.stop();
        await dvr.stop();
        await outlets.stop();
        players.stop();
        await app.close();
        db.close();
        lock.release();
      },
    };
  } catch (error) {
    for (const step of undo.reverse())
      await Promise.resolve()
        .then(step)
        .catch(() => undefined);
    db.close();
    lock.release();
    throw error;
  }
}

/**
 * `_antenna_dvr._tcp` on the server's port, so players on the network find it; a network without multicast only loses
 * that.
 */
async function advertiseServer(config: ServerConfig, port: number, logger: Logger): Promise<Advertisement | undefined> {
  const name = serverName();
  try {
    return await advertise({
      type: config.mdnsType,
      name,
      port,
      host: config.host,
      txt: { name, id: stableId('server', config.data), version: VERSION },
      logger,
    });
  } catch (error) {
    logger.warn(
      { err: error },
      'could not advertise the server on the network: give players its address with --server (and check that this network allows multicast, or pass --no-mdns)',
    );
    return undefined;
  }
}

/** What the server calls itself on the network and in webhooks. */
const serverName = () => `Antenna on ${hostname()}`.slice(0, 63);

/** Runs until SIGTERM or SIGINT, then closes the HTTP server and the database and exits 0. */
export async function runServer(config: ServerConfig): Promise<void> {
  const logger = createLogger(config);
  const server = await startServer(config, logger);
  stopOnSignals(logger, () => server.stop());
  logger.info({ url: server.url, data: config.data }, 'antenna server listening');
  process.stdout.write(
    `Antenna server is running at ${server.url} : open it in a browser for the Antenna app (API docs: ${server.url}/api/docs). Stop it with Ctrl-C.\n`,
  );
}
