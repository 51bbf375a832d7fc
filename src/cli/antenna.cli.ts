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
