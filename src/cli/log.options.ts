/** The log flags `antenna server`, `antenna player` and `antenna start` share (config/log-settings.ts reads them). */
import type { Command } from 'commander';
import { LOG_DEFAULTS, LOG_ENV_NAMES } from '../config/log-settings.js';

export function addLogOptions(command: Command): Command {
  return command
    .option(
      '--log-format <format>',
      `auto (pretty on a terminal, JSON lines otherwise), pretty or json (env ${LOG_ENV_NAMES.logFormat}; default auto)`,
    )
    .option(
      '--log-file <file>',
      `write JSON log lines to this file instead of stdout, rotated by size (env ${LOG_ENV_NAMES.logFile})`,
    )
    .option(
      '--log-file-size <megabytes>',
      `size at which the log file is rotated (env ${LOG_ENV_NAMES.logFileSize}; default ${LOG_DEFAULTS.logFileSize})`,
    )
    .option(
      '--log-file-keep <n>',
      `rotated log files kept, <file>.1 (newest) to <file>.<n> (env ${LOG_ENV_NAMES.logFileKeep}; default ${LOG_DEFAULTS.logFileKeep})`,
    );
}
