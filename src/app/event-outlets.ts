/**
 * Where events go out besides the SSE feed, started and stopped together: the TVs
 * (errors as interface B notifications), webhooks, the MQTT broker, and the disk watch
 * that tells disk.low and disk.full. GET /status reads who is not being told.
 */
import type { Logger } from 'pino';
import type { ServerConfig } from '../config/server-config.js';
import type { Db } from '../db/database.js';
import type { PlayerRegistry } from '../devices/player-registry.service.js';
import { stableId } from '../discovery/dns-sd.js';
import type { DvrService } from '../dvr/dvr.service.js';
import type { EventLog } from '../events/event-log.service.js';
import { MqttPublisher } from '../events/mqtt-publisher.service.js';
import { WebhooksService } from '../events/webhooks.service.js';
import { DiskWatch } from '../management/disk-watch.js';
import type { MediaFilesService } from '../management/media-files.service.js';
import type { EventsStatus } from '../model/status.schemas.js';
import { VERSION } from '../version.js';

export interface EventOutlets {
  webhooks: WebhooksService;
  status(): EventsStatus;
  stop(): Promise<void>;
}

export function startEventOutlets(deps: {
  db: Db;
  config: ServerConfig;
  logger: Logger;
  serverName: string;
  events: EventLog;
  players: PlayerRegistry;
  dvr: DvrService;
  files: MediaFilesService;
}): EventOutlets {
  const { config, events, players, logger } = deps;
  const stops: (() => void)[] = [];
  // What went wrong is shown on the TVs too (interface B's notify): the app on a TV leaves notifications to it.
  stops.push(
    events.subscribe((event) => {
      if (event.severity === 'error') players.notifyAll('Antenna', event.message);
    }),
  );
  const webhooks = new WebhooksService(deps.db, { logger, server: { name: deps.serverName, version: VERSION } });
  webhooks.start(config.webhooks);
  stops.push(events.subscribe(webhooks.sender.take));
  const lowBytes = config.diskLowGb * 1e9;
  const disk = new DiskWatch({ measure: () => deps.files.describe(VERSION), lowBytes, emit: events.emit });
  disk.start();
  let mqtt: MqttPublisher | undefined;
  if (config.mqtt !== undefined) {
    mqtt = new MqttPublisher({
      url: config.mqtt,
      identity: {
        base: config.mqttTopic,
        serverId: stableId('server', config.data),
        serverName: deps.serverName,
        version: VERSION,
      },
      logger,
      snapshot: () => ({
        disk: deps.files.describe(VERSION).disk,
        diskLowBytes: lowBytes,
        ...deps.dvr.recordingSummary(),
      }),
      players: () => players.list(),
      lastFailure: events.latest(100).find((event) => event.severity === 'error'),
    });
    mqtt.start();
    stops.push(events.subscribe(mqtt.take));
  }
  return {
    webhooks,
    status: () => ({ webhooks_failing: webhooks.problems(), ...(mqtt ? { mqtt: mqtt.state() } : {}) }),
    async stop() {
      disk.stop();
      for (const stop of stops) stop();
      await Promise.all([webhooks.stop(), mqtt?.stop()]);
    },
  };
}
