/**
 * `antenna start`: the server and a player in one process, for a single box under
 * the TV. The player talks to this server directly (no discovery needed); SIGTERM
 * stops the player first (its last progress report reaches the server), then the server.
 */
import { join } from 'node:path';
import type { PlayerConfig } from '../config/player-config.js';
import type { ServerConfig } from '../config/server-config.js';
import { startPlayer } from './player.lifecycle.js';
import { createLogger, startServer } from './server.lifecycle.js';
import { loopbackUrl } from '../common/listen-url.js';
import { stopOnSignals } from './signals.js';

export async function runSingleBox(serverConfig: ServerConfig, playerConfig: PlayerConfig): Promise<void> {
  const logger = createLogger(serverConfig);
  const starting = (async () => {
    const server = await startServer(serverConfig, logger);
    const serverUrl = loopbackUrl(serverConfig.host, new URL(server.url).port);
    try {
      const player = await startPlayer(
        {
          ...playerConfig,
          token: playerConfig.token ?? serverConfig.token,
          // One box, one data directory: the player's device id beside the server's database.
          data: playerConfig.data ?? join(serverConfig.data, 'player'),
        },
        logger,
        {
          serverUrl: () => serverUrl,
        },
      );
      return { server, player };
    } catch (error) {
      await server.stop();
      throw error;
    }
  })();
  // A signal during start-up stops what has started, mpv included.
  stopOnSignals(logger, async () => {
    const both = await starting.catch(() => undefined);
    await both?.player.stop();
    await both?.server.stop();
  });
  const { server, player } = await starting;
  logger.info({ server: server.url, player: player.url }, 'antenna server and player listening');
  process.stdout.write(
    `Antenna server is running at ${server.url} : open it in a browser for the Antenna app (API docs: ${server.url}/api/docs).\n` +
      `Antenna player is running at ${player.url} (status: ${player.url}/api/status). Stop both with Ctrl-C.\n`,
  );
}
