/**
 * The one place that starts and stops everything `antenna player` runs: the backend
 * (Chromium showing the Antenna app, or mpv), the search for a server on the network,
 * the player service and its progress reports, interface B's HTTP server and the DNS-SD
 * advertisement. The backend is chosen here and nowhere else.
 * Stops cleanly on SIGTERM and SIGINT (the position of what plays is reported first).
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildPlayerHttpApp } from '../player/player-http-app.js';
import { type PlayerConfig, hasDisplay } from '../config/player-config.js';
import { StartupError } from '../db/database.js';
import { type Advertisement, ServiceBrowser, advertise, stableId } from '../discovery/dns-sd.js';
import { AntennaServerClient } from '../player/antenna-server.client.js';
import { BrowserBackend, ChromiumStartError } from '../player/tv/browser.backend.js';
import { MpvBackend, MpvStartError } from '../player/mpv/mpv.backend.js';
import type { PlayerBackend } from '../player/player-backend.js';
import { PlayerService } from '../player/player.service.js';
import { defaultPlayerDataDir, readOrMakeDeviceId } from '../player/device-id.js';
import { ServerRegistration } from '../player/server-registration.js';
import { VERSION } from '../version.js';
import { createLogger } from './server.lifecycle.js';
import { displayUrl, listeningPort } from '../common/listen-url.js';
import { stopOnSignals } from './signals.js';

export interface RunningPlayer {
  /** Where interface B answers, such as http://127.0.0.1:57000. */
  url: string;
  app: FastifyInstance;
  player: PlayerService;
  backend: PlayerBackend & { readonly pid: number | undefined };
  stop(): Promise<void>;
}

export interface StartPlayerOptions {
  /** Where the server is, when the caller knows (antenna start); otherwise config.server, or found on the network. */
  serverUrl?: () => string | undefined;
}

/** The one place a backend is chosen; `named`: the server was given (not merely found on the network). */
function createBackend(
  config: PlayerConfig,
  logger: Logger,
  serverUrl: () => string | undefined,
  named: boolean,
): RunningPlayer['backend'] {
  const display = hasDisplay(config, process.env);
  if (config.backend === 'browser') {
    if (!display)
      logger.warn(
        'no display (DISPLAY or WAYLAND_DISPLAY) for the browser backend: Chromium runs headless and nothing is shown; on a box without a screen use --backend mpv',
      );
    if (process.getuid?.() === 0)
      logger.warn('the player runs as root, so Chromium runs without its sandbox: run it as an ordinary user');
    // The TV runs the pages of the server it opens: one merely found on the network could be anyone's.
    if (!named)
      logger.warn(
        'the app is opened from a server found on the network: give --server to choose which one the TV trusts',
      );
    return new BrowserBackend({
      chromiumPath: config.chromium,
      serverUrl,
      token: named ? config.token : undefined,
      display,
      logger,
    });
  }
  return new MpvBackend({
    mpvPath: config.mpv,
    socketPath: config.mpvIpc,
    display,
    options: config.mpvOptions,
    logger,
  });
}

export async function startPlayer(
  config: PlayerConfig,
  logger: Logger,
  options: StartPlayerOptions = {},
): Promise<RunningPlayer> {
  let browser: ServiceBrowser | undefined;
  let locate = options.serverUrl;
  if (!locate && config.server) locate = () => config.server;
  if (!locate) {
    const found = new ServiceBrowser(config.serverType, logger);
    await found.start();
    browser = found;
    locate = () => found.first()?.url;
  }
  // A server merely found on the network is not trusted with the token: anything on the network can advertise one.
  const named = Boolean(options.serverUrl ?? config.server);
  if (config.token && !named)
    logger.warn(
      'the token is sent only to a server named with --server; a server found on the network gets none: give --server to send it',
    );
  const backend = createBackend(config, logger, locate, named);
  try {
    await backend.start();
  } catch (error) {
    await backend.stop();
    browser?.stop();
    throw error instanceof MpvStartError || error instanceof ChromiumStartError
      ? new StartupError(error.message)
      : error;
  }
  const server = new AntennaServerClient({ locate, token: named ? config.token : undefined });
  const player = new PlayerService({
    backend,
    server,
    logger,
    seekForwardSeconds: config.seekForward,
    seekBackwardSeconds: config.seekBackward,
  });
  player.start();
  const app = await buildPlayerHttpApp({ player, logger, allowedOrigins: config.allowOrigins });
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await player.stop();
    await backend.stop();
    browser?.stop();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new StartupError(`Port ${config.port} is in use (another player?): stop it, or give --port.`);
    if (code === 'EADDRNOTAVAIL')
      throw new StartupError(`This machine has no address ${config.host}: give --host an address it has.`);
    throw error;
  }
  const port = listeningPort(app.server, config.port);
  const registration = registerWithServer(config, port, player, server, logger);
  // In the background: probing the network for a name conflict takes about a second.
  const advertising: Promise<Advertisement | undefined> = config.mdns
    ? advertise({
        type: config.mdnsType,
        name: config.name,
        port,
        host: config.host,
        txt: { name: config.name, id: stableId('player', String(port)), version: VERSION },
        logger,
      }).catch((error: unknown) => {
        logger.warn(
          { err: error },
          'could not advertise the player on the network: give clients its address (and check that this network allows multicast, or pass --no-mdns)',
        );
        return undefined;
      })
    : Promise.resolve(undefined);
  let stopped = false;
  return {
    url: displayUrl(config.host, port),
    app,
    player,
    backend,
    async stop() {
      if (stopped) return;
      stopped = true;
      registration.stop();
      await (await advertising)?.end();
      await app.close();
      // Before the backend goes: the position of what plays is reported.
      await player.stop();
      await backend.stop();
      browser?.stop();
    },
  };
}

/** The heartbeat that keeps the server's list of players current (its device id kept in the player's data). */
function registerWithServer(
  config: PlayerConfig,
  port: number,
  player: PlayerService,
  server: AntennaServerClient,
  logger: Logger,
): ServerRegistration {
  const dir = config.data ?? defaultPlayerDataDir(port);
  const { id, kept } = readOrMakeDeviceId(dir);
  if (!kept)
    logger.warn(
      { dir },
      "could not keep the player's device id there: the server sees a new player after each restart; give --data a folder it can write",
    );
  const registration = new ServerRegistration({
    deviceId: id,
    name: config.name,
    port,
    backend: config.backend,
    listenAddress: config.host,
    status: () => player.status(),
    send: (deviceId, body) => server.register(deviceId, body),
    commercialSkip: (mode) => player.setCommercialSkip(mode),
    logger,
  });
  registration.start();
  return registration;
}

/** Runs until SIGTERM or SIGINT (one that comes during start-up stops what has started, the backend included). */
export async function runPlayer(config: PlayerConfig): Promise<void> {
  const logger = createLogger(config);
  const starting = startPlayer(config, logger);
  stopOnSignals(logger, async () => (await starting.catch(() => undefined))?.stop());
  const running = await starting;
  logger.info(
    { url: running.url, backend: config.backend, server: config.server ?? `looking for ${config.serverType}` },
    'antenna player listening',
  );
  process.stdout.write(
    `Antenna player is running at ${running.url} (status: ${running.url}/api/status). Stop it with Ctrl-C.\n`,
  );
}
