/**
 * `antenna start`: the server and a player in one process, for a single box under
 * the TV. The player talks to this server directly (no discovery needed); SIGTERM
 * stops the player first (its last progress report reaches the server), then the server.
 */
import type { PlayerConfig } from '../config/player-config.js';
import type { ServerConfig } from '../config/server-config.js';
import { startPlayer } from './player.lifecycle.js';
import { createLogger, startServer } from './server.lifecycle.js';
import { stopOnSignals } from './signals.js';

export async function runSingleBox(serverConfig: ServerConfig, playerConfig: PlayerConfig): Promise<void> {
  const logger = createLogger(serverConfig);
  const server = await startServer(serverConfig, logger);
  // The server answers on loopback whatever address it listens on, unless it listens on one address only.
  const serverHost = serverConfig.host === '0.0.0.0' || serverConfig.host === '::' ? '127.0.0.1' : serverConfig.host;
  const port = new URL(server.url).port;
  const serverUrl = `http://${serverHost.includes(':') ? `[${serverHost}]` : serverHost}:${port}`;
  let player;
  try {
    player = await startPlayer({ ...playerConfig, token: playerConfig.token ?? serverConfig.token }, logger, { serverUrl: () => serverUrl });
  } catch (error) {
    await server.stop();
    throw error;
  }
  const running = player;
  stopOnSignals(logger, async () => {
    await running.stop();
    await server.stop();
  });
  logger.info({ server: server.url, player: running.url }, 'antenna server and player listening');
  process.stdout.write(
    `Antenna server is running at ${server.url} (API docs: ${server.url}/api/docs).\n` +
      `Antenna player is running at ${running.url} (status: ${running.url}/api/status). Stop both with Ctrl-C.\n`,
  );
}
