/** The `antenna` command line. */
import { Command, Option } from 'commander';
import { runServer } from '../app/server.lifecycle.js';
import { RemoteError, addRemoteCommands } from './remote.commands.js';
import { runScan } from './scan.command.js';
import { ConfigError, ENV_NAMES, loadServerConfig } from '../config/server-config.js';
import { StartupError } from '../db/database.js';
import { VERSION } from '../version.js';

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function buildProgram(): Command {
  const program = new Command('antenna').description('Home DVR and media library server').version(VERSION);
  program
    .command('server')
    .description('run the library and DVR server (interface A on /api/v1)')
    .option('--config <file>', `JSON config file (env ${ENV_NAMES.config})`)
    .option('--data <dir>', `database and generated files (env ${ENV_NAMES.data}; default ./data)`)
    .option('--host <host>', `address to listen on (env ${ENV_NAMES.host}; default 0.0.0.0)`)
    .option('--port <port>', `port to listen on (env ${ENV_NAMES.port}; default 8089)`)
    .option('--public-url <url>', `base of absolute URLs in payloads (env ${ENV_NAMES.publicUrl}; default: from the request)`)
    .option('--tv <dir>', `a TV import root; repeatable (env ${ENV_NAMES.tv}, ':'-separated)`, collect)
    .option('--movies <dir>', `a movies import root; repeatable (env ${ENV_NAMES.movies})`, collect)
    .option('--videos <dir>', `a videos import root; repeatable (env ${ENV_NAMES.videos})`, collect)
    .addOption(new Option('--log-level <level>', `log level (env ${ENV_NAMES.logLevel}; default info)`))
    .option('--no-sample', `do not seed a sample library when none is configured (env ${ENV_NAMES.sample}=false)`)
    .option('--token <token>', `bearer token that writes must carry (env ${ENV_NAMES.token}); without one, writes come only from private addresses`)
    .option('--rescan-interval <minutes>', `minutes between full rescans of the import roots; 0: never (env ${ENV_NAMES.rescanInterval}; default 60)`)
    .option('--m3u <file|url>', `an M3U channel playlist; repeatable (env ${ENV_NAMES.m3u}, space-separated)`, collect)
    .option('--m3u-streams <n>', `simultaneous streams each M3U source allows (env ${ENV_NAMES.m3uStreams}; default 2)`)
    .option('--hdhomerun <address>', `an HDHomeRun tuner (host, host:port or URL); repeatable (env ${ENV_NAMES.hdhomerun})`, collect)
    .option('--xmltv <file|url>', `an XMLTV guide, gzip too; repeatable (env ${ENV_NAMES.xmltv})`, collect)
    .option('--recordings <dir>', `where recordings are written (env ${ENV_NAMES.recordings}; default <data>/recordings)`)
    .option('--guide-refresh <minutes>', `minutes between refreshes of sources and guides; 0: only on request (env ${ENV_NAMES.guideRefresh}; default 720)`)
    .action(async (options: Record<string, unknown>, command: Command) => {
      // Only flags actually given take part in precedence; defaults come later.
      const given = Object.fromEntries(
        Object.entries(options).filter(([name]) => command.getOptionValueSource(name) === 'cli'),
      );
      const config = loadServerConfig(given, process.env);
      await runServer(config);
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
    .option('--no-probe', 'do not run ffprobe (names and sidecar files only)')
    .action(async (options: Record<string, unknown>, command: Command) => {
      const given = Object.fromEntries(
        Object.entries(options).filter(([name]) => command.getOptionValueSource(name) === 'cli' && name !== 'json' && name !== 'probe'),
      );
      await runScan(loadServerConfig(given, process.env), { json: options.json === true, probe: options.probe !== false });
    });
  addRemoteCommands(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof RemoteError) {
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
