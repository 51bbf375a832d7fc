/** The `antenna` command line. */
import { Command, Option } from 'commander';
import { runServer } from '../app/server.lifecycle.js';
import { loadPlayerConfig } from '../config/load-player-config.js';
import { PLAYER_ENV_NAMES } from '../config/player-config.js';
import { RemoteError, addRemoteCommands } from './remote.commands.js';
import { addChannelCommands } from './channels.commands.js';
import { runScan } from './scan.command.js';
import { addBackupCommands } from './backup.commands.js';
import { ServiceError, addServiceCommands } from './service.commands.js';
import { addLogOptions } from './log.options.js';
import { BackupError } from '../db/database-backup.js';
import { ConfigError, loadServerConfig } from '../config/server-config.js';
import { ENV_NAMES } from '../config/server-settings.js';
import { StartupError } from '../db/database.js';
import { VERSION } from '../version.js';

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function buildProgram(): Command {
  const program = new Command('antenna').description('Home DVR and media library server').version(VERSION);
  const server = addServerOptions(
    program.command('server').description('run the library and DVR server (interface A on /api/v1)'),
  );
  server.action(async (options: Record<string, unknown>, command: Command) => {
    await runServer(loadServerConfig(serverFlags(givenFlags(options, command)), process.env));
  });

  const player = program
    .command('player')
    .description(
      'run a player: interface B on port 57000, showing the Antenna app on the TV (or playing with mpv) what a server offers',
    )
    .option('--config <file>', `JSON config file; its "player" object holds these settings (env ${ENV_NAMES.config})`)
    .option('--host <host>', `address to listen on (env ${PLAYER_ENV_NAMES.host}; default 0.0.0.0)`)
    .option('--port <port>', `port of interface B (env ${PLAYER_ENV_NAMES.port}; default 57000)`)
    .option('--server <url>', `the Antenna server (env ${PLAYER_ENV_NAMES.server}); default: found on the network`)
    .option('--name <name>', `the name the player is advertised under (env ${PLAYER_ENV_NAMES.name})`)
    .option(
      '--mdns-type <type>',
      `DNS-SD type the player advertises (env ${PLAYER_ENV_NAMES.mdnsType}; default _antenna_app._tcp)`,
    )
    .option(
      '--server-type <type>',
      `DNS-SD type of the server to look for (env ${PLAYER_ENV_NAMES.serverType}; default _antenna_dvr._tcp)`,
    )
    .option('--no-mdns', `neither advertise the player nor look for a server (env ${PLAYER_ENV_NAMES.mdns}=false)`)
    .option('--token <token>', `the server's token, for watch progress and recordings (env ${PLAYER_ENV_NAMES.token})`)
    .option(
      '--data <dir>',
      `where the player keeps its device id (env ${PLAYER_ENV_NAMES.data}; default ~/.local/state/antenna/player-<port>)`,
    )
    .addOption(new Option('--log-level <level>', `log level (env ${PLAYER_ENV_NAMES.logLevel}; default info)`))
    .option(
      '--allow-origin <url>',
      `a web page origin whose scripts may send commands, such as http://dashboard.local:8123; repeatable (env ${PLAYER_ENV_NAMES.allowOrigins}, space-separated)`,
      collect,
    );
  addPlaybackOptions(addLogOptions(player)).action(async (options: Record<string, unknown>, command: Command) => {
    const config = loadPlayerConfig(playerFlags(givenFlags(options, command)), process.env);
    // Loaded here: `antenna server` starts without the player's modules.
    const { runPlayer } = await import('../app/player.lifecycle.js');
    await runPlayer(config);
  });

  const start = addServerOptions(
    program.command('start').description('run the server and a player in one process (a single box under the TV)'),
  )
    .option('--player-host <host>', `address the player listens on (env ${PLAYER_ENV_NAMES.host}; default 0.0.0.0)`)
    .option('--player-port <port>', `port of the player's interface B (env ${PLAYER_ENV_NAMES.port}; default 57000)`)
    .option('--player-name <name>', `the name the player is advertised under (env ${PLAYER_ENV_NAMES.name})`)
    .option(
      '--player-mdns-type <type>',
      `DNS-SD type the player advertises (env ${PLAYER_ENV_NAMES.mdnsType}; default _antenna_app._tcp)`,
    );
  addPlaybackOptions(start).action(async (options: Record<string, unknown>, command: Command) => {
    const flags = startFlags(givenFlags(options, command));
    const configs = [loadServerConfig(flags.server, process.env), loadPlayerConfig(flags.player, process.env)] as const;
    const { runSingleBox } = await import('../app/single-box.lifecycle.js');
    await runSingleBox(...configs);
  });

  program
    .command('scan')
    .description('scan the import roots into the library once, print a summary and exit')
    .option('--config <file>', `JSON config file (env ${ENV_NAMES.config})`)
    .option('--data <dir>', `database and generated files (env ${ENV_NAMES.data}; default ./data)`)
    .option('--tv <dir>', `a TV import root; repeatable (env ${ENV_NAMES.tv})`, collect)
    .option('--movies <dir>', `a movies import root; repeatable (env ${ENV_NAMES.movies})`, collect)
    .option('--videos <dir>', `a videos import root; repeatable (env ${ENV_NAMES.videos})`, collect)
    .addOption(new Option('--log-level <level>', `log level (env ${ENV_NAMES.logLevel}; default info)`))
    .option('--json', 'print the summary as JSON')
    .option('--no-probe', 'do not read durations and tags (names and sidecar files only)')
    .option('--no-thumbnails', 'do not make thumbnails (the server makes them later)')
    .option(
      '--follow-external-links',
      `follow symbolic links that lead outside the import roots (env ${ENV_NAMES.followExternalLinks}=true)`,
    )
    .option('--ffmpeg-path <program>', `the ffmpeg program (env ${ENV_NAMES.ffmpegPath}; default ffmpeg)`)
    .option('--ffprobe-path <program>', `the ffprobe program (env ${ENV_NAMES.ffprobePath}; default ffprobe)`)
    .action(async (options: Record<string, unknown>, command: Command) => {
      const given = Object.fromEntries(
        Object.entries(options).filter(
          ([name]) => command.getOptionValueSource(name) === 'cli' && name !== 'json' && name !== 'probe',
        ),
      );
      await runScan(loadServerConfig(given, process.env), {
        json: options.json === true,
        probe: options.probe !== false,
        thumbnails: options.thumbnails !== false,
      });
    });
  addBackupCommands(program);
  addServiceCommands(program);
  addRemoteCommands(program);
  addChannelCommands(program);
  return program;
}

/**
 * `antenna start`'s flags, split into the server's settings and the player's: the
 * player's own address and name flags, the playback flags, and the shared ones (config
 * file, token, log level, DNS-SD on or off, and --allow-origin, for the server's pages
 * and the player's commands alike).
 */
export function startFlags(given: Record<string, unknown>): {
  server: Record<string, unknown>;
  player: Record<string, unknown>;
} {
  const player = playerFlags({
    ...pickKeys(given, [...PLAYBACK_KEYS, 'allowOrigin']),
    ...renameKeys(given, {
      playerHost: 'host',
      playerPort: 'port',
      playerName: 'name',
      playerMdnsType: 'mdnsType',
      mdns: 'mdns',
      token: 'token',
      logLevel: 'logLevel',
      config: 'config',
    }),
  });
  const server = Object.fromEntries(
    Object.entries(given).filter(([key]) => !key.startsWith('player') && !PLAYBACK_KEYS.includes(key)),
  );
  return { server: serverFlags(server), player };
}

/** Only flags actually given take part in precedence; defaults come later. */
function givenFlags(options: Record<string, unknown>, command: Command): Record<string, unknown> {
  return Object.fromEntries(Object.entries(options).filter(([name]) => command.getOptionValueSource(name) === 'cli'));
}

/** Repeated --allow-origin, --allow-local-source and --webhook flags: allowOrigins, allowLocalSources, webhooks. */
function serverFlags(flags: Record<string, unknown>): Record<string, unknown> {
  const { allowOrigin, allowLocalSource, webhook, ...rest } = flags;
  return {
    ...rest,
    ...(webhook === undefined ? {} : { webhooks: webhook }),
    ...(allowOrigin === undefined ? {} : { allowOrigins: allowOrigin }),
    ...(allowLocalSource === undefined ? {} : { allowLocalSources: allowLocalSource }),
  };
}

/** Repeated --mpv-option and --allow-origin flags are the mpvOptions and allowOrigins settings. */
function playerFlags(flags: Record<string, unknown>): Record<string, unknown> {
  const { mpvOption, allowOrigin, ...rest } = flags;
  return {
    ...rest,
    ...(mpvOption === undefined ? {} : { mpvOptions: mpvOption }),
    ...(allowOrigin === undefined ? {} : { allowOrigins: allowOrigin }),
  };
}

function pickKeys(values: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([key]) => keys.includes(key)));
}

function renameKeys(values: Record<string, unknown>, names: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values).flatMap(([key, value]) => (names[key] ? [[names[key], value]] : [])),
  );
}

function addServerOptions(command: Command): Command {
  return addLogOptions(command)
    .option('--config <file>', `JSON config file (env ${ENV_NAMES.config})`)
    .option('--data <dir>', `database and generated files (env ${ENV_NAMES.data}; default ./data)`)
    .option('--host <host>', `address to listen on (env ${ENV_NAMES.host}; default 0.0.0.0)`)
    .option('--port <port>', `port to listen on (env ${ENV_NAMES.port}; default 8089)`)
    .option(
      '--public-url <url>',
      `base of absolute URLs in payloads (env ${ENV_NAMES.publicUrl}; default: from the request)`,
    )
    .option('--tv <dir>', `a TV import root; repeatable (env ${ENV_NAMES.tv}, ':'-separated)`, collect)
    .option('--movies <dir>', `a movies import root; repeatable (env ${ENV_NAMES.movies})`, collect)
    .option('--videos <dir>', `a videos import root; repeatable (env ${ENV_NAMES.videos})`, collect)
    .addOption(new Option('--log-level <level>', `log level (env ${ENV_NAMES.logLevel}; default info)`))
    .option('--no-sample', `do not seed a sample library when none is configured (env ${ENV_NAMES.sample}=false)`)
    .option(
      '--token <token>',
      `bearer token that writes must carry (env ${ENV_NAMES.token}); without one, writes come only from private addresses`,
    )
    .option(
      '--rescan-interval <minutes>',
      `minutes between full rescans of the import roots; 0: never (env ${ENV_NAMES.rescanInterval}; default 60)`,
    )
    .option('--m3u <file|url>', `an M3U channel playlist; repeatable (env ${ENV_NAMES.m3u}, space-separated)`, collect)
    .option('--m3u-streams <n>', `simultaneous streams each M3U source allows (env ${ENV_NAMES.m3uStreams}; default 2)`)
    .option(
      '--hdhomerun <address>',
      `an HDHomeRun tuner (host, host:port or URL); repeatable (env ${ENV_NAMES.hdhomerun})`,
      collect,
    )
    .option('--xmltv <file|url>', `an XMLTV guide, gzip too; repeatable (env ${ENV_NAMES.xmltv})`, collect)
    .option(
      '--recordings <dir>',
      `where recordings are written (env ${ENV_NAMES.recordings}; default <data>/recordings)`,
    )
    .option(
      '--guide-refresh <minutes>',
      `minutes between refreshes of sources and guides; 0: only on request (env ${ENV_NAMES.guideRefresh}; default 720)`,
    )
    .option('--no-mdns', `do not advertise on the local network (DNS-SD) (env ${ENV_NAMES.mdns}=false)`)
    .option(
      '--mdns-type <type>',
      `DNS-SD type the server advertises (env ${ENV_NAMES.mdnsType}; default _antenna_dvr._tcp)`,
    )
    .option(
      '--allow-origin <url>',
      `a web page origin whose scripts may make changes, such as http://dashboard.local:8123; repeatable (env ${ENV_NAMES.allowOrigins}, space-separated)`,
      collect,
    )
    .option(
      '--allow-local-source <dir>',
      `a folder whose files may be added as sources and guides through the API; repeatable (env ${ENV_NAMES.allowLocalSources}, ':'-separated)`,
      collect,
    )
    .option(
      '--follow-external-links',
      `follow symbolic links that lead outside the import roots and recordings folder: their targets are then imported and served (env ${ENV_NAMES.followExternalLinks}=true)`,
    )
    .option(
      '--ffmpeg-path <program>',
      `the ffmpeg program: a name on PATH or a path (env ${ENV_NAMES.ffmpegPath}; default ffmpeg)`,
    )
    .option('--ffprobe-path <program>', `the ffprobe program (env ${ENV_NAMES.ffprobePath}; default ffprobe)`)
    .option('--comskip-path <program>', `the comskip program (env ${ENV_NAMES.comskipPath}; default comskip)`)
    .option(
      '--hls-encoder <name>',
      `what transcodes HLS: software, vaapi, nvenc or qsv; a hardware encoder that fails falls back to software (env ${ENV_NAMES.hlsEncoder}; default software)`,
    )
    .option(
      '--max-transcodes <n>',
      `HLS transcodes at once; past it a new one is refused (env ${ENV_NAMES.maxTranscodes}; default: the number of CPU cores)`,
    )
    .option(
      '--web-dir <dir>',
      `serve the web app built into this folder instead of the one npm run build made (env ${ENV_NAMES.webDir})`,
    )
    .option(
      '--live-buffer-hours <hours>',
      `how far back live TV can be rewound: each tuned channel's buffer on disk (env ${ENV_NAMES.liveBufferHours}; default 4)`,
    )
    .option(
      '--live-buffer-gb <gb>',
      `disk all live buffers hold together; the oldest goes first (env ${ENV_NAMES.liveBufferGb}; default 16)`,
    )
    .option(
      '--live-buffer-linger <minutes>',
      `a live buffer nobody watches is kept this long (env ${ENV_NAMES.liveBufferLinger}; default 10)`,
    )
    .option(
      '--live-pretune',
      `buffer the channels either side of a watched one while tuners are free, so channel up/down is instant; never at a recording's or a viewer's cost (env ${ENV_NAMES.livePretune}=true)`,
    )
    .option(
      '--backup-keep <n>',
      `daily database backups kept in <data>/backups; 0: none (env ${ENV_NAMES.backupKeep}; default 7)`,
    )
    .option(
      '--webhook <url>',
      `POST every event to this URL (pick kinds and a secret in Settings or the config file); repeatable (env ${ENV_NAMES.webhooks}, space-separated)`,
      collect,
    )
    .option(
      '--mqtt <url>',
      `publish events and state to this MQTT broker, with Home Assistant discovery, such as mqtt://user:pass@homeassistant.local:1883 (env ${ENV_NAMES.mqtt})`,
    )
    .option(
      '--mqtt-topic <level>',
      `the first level of the topics published (env ${ENV_NAMES.mqttTopic}; default antenna)`,
    )
    .option(
      '--disk-low-gb <gb>',
      `tell disk.low below this many gigabytes free on the recordings disk; 0: never (env ${ENV_NAMES.diskLowGb}; default 10)`,
    );
}

/** Player settings that `antenna player` and `antenna start` name alike. */
const PLAYBACK_KEYS = ['backend', 'seekForward', 'seekBackward', 'mpv', 'mpvIpc', 'mpvOption', 'chromium', 'headless'];

function addPlaybackOptions(command: Command): Command {
  return command
    .option(
      '--backend <name>',
      `what plays: browser (the Antenna app full screen in Chromium) or mpv (env ${PLAYER_ENV_NAMES.backend}; default browser with a display, else mpv)`,
    )
    .option('--seek-forward <seconds>', `seek_forward amount (env ${PLAYER_ENV_NAMES.seekForward}; default 30)`)
    .option('--seek-backward <seconds>', `seek_backward amount (env ${PLAYER_ENV_NAMES.seekBackward}; default 10)`)
    .option('--mpv <path>', `the mpv program (env ${PLAYER_ENV_NAMES.mpv}; default mpv)`)
    .option(
      '--mpv-ipc <path>',
      `where mpv's IPC socket goes, for scripts of your own (env ${PLAYER_ENV_NAMES.mpvIpc}; default a private temp folder)`,
    )
    .option(
      '--mpv-option <name=value>',
      `an mpv option such as hwdec=auto; repeatable (env ${PLAYER_ENV_NAMES.mpvOptions}, space-separated)`,
      collect,
    )
    .option(
      '--chromium <path>',
      `the Chromium program, for --backend browser (env ${PLAYER_ENV_NAMES.chromium}; default chromium)`,
    )
    .option('--headless', `no video or audio output even with a display (env ${PLAYER_ENV_NAMES.headless}=true)`);
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof RemoteError || error instanceof BackupError || error instanceof ServiceError) {
      process.stderr.write(`antenna: ${error.message}\n`);
      process.exit(1);
    }
    if (error instanceof ConfigError || error instanceof StartupError) {
      process.stderr.write(`antenna: ${error.message}\n`);
      process.exit(error instanceof ConfigError ? 2 : 1);
    }
    throw error;
  }
}
