/**
 * `antenna backup [FILE]` and `antenna restore FILE`: the database of the data
 * directory (--data, ANTENNA_DATA or the config file's, as the server finds it).
 *
 * The backup opens the database read-only, so it may run beside a server on the same
 * data directory: it never migrates, checkpoints or otherwise writes to it, and
 * SQLite's backup API gives one consistent state whatever the server writes
 * meanwhile. The restore is the one that must have the data directory to itself
 * (db/database-restore.ts).
 */
import type { Command } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { loadServerConfig } from '../config/server-config.js';
import { ENV_NAMES } from '../config/server-settings.js';
import { backupsDir, freshBackupName, restoreCommand } from '../db/backup-names.js';
import {
  BackupError,
  type CopyResult,
  backupFailureAdvice,
  copyDatabase,
  ensureBackupsDir,
  listBackupsDir,
  openForCopy,
  reasonOf,
} from '../db/database-backup.js';
import { restoreDatabase } from '../db/database-restore.js';
import { type Db, databasePath } from '../db/database.js';

export function addBackupCommands(program: Command): void {
  program
    .command('backup')
    .argument('[file]', 'where to write it: a new file, or a folder (default DATA/backups/antenna-<UTC time>.db)')
    .description(
      'copy the database to a file, consistent even while a server runs on it; the copy is checked before this says it is done',
    )
    .option('--config <file>', `JSON config file (env ${ENV_NAMES.config})`)
    .option('--data <dir>', `database and generated files (env ${ENV_NAMES.data}; default ./data)`)
    .action(async (file: string | undefined, options: Record<string, unknown>, command: Command) => {
      const config = loadServerConfig(givenFlags(options, command), process.env);
      const result = await backupToFile(config.data, file);
      process.stdout.write(
        `Backed up ${databasePath(config.data)} to ${result.file} (${formatBytes(result.bytes)}, checked, ${(result.ms / 1000).toFixed(1)} s).\n`,
      );
    });
  program
    .command('restore')
    .argument('<file>', 'a backup, such as one in DATA/backups')
    .description(
      'replace the database with a backup (refused while a server runs on the data directory); the database replaced is kept in DATA/backups',
    )
    .option('--config <file>', `JSON config file (env ${ENV_NAMES.config})`)
    .option('--data <dir>', `database and generated files (env ${ENV_NAMES.data}; default ./data)`)
    .action(async (file: string, options: Record<string, unknown>, command: Command) => {
      const config = loadServerConfig(givenFlags(options, command), process.env);
      const result = await restoreDatabase(config.data, resolve(file));
      const migrates = result.schema < result.latest ? `; the next start migrates it to schema ${result.latest}` : '';
      process.stdout.write(`Restored ${result.file} into ${result.database} (schema ${result.schema}${migrates}).\n`);
      if (result.keptAs !== undefined) {
        process.stdout.write(
          `The database it replaced is kept as ${result.keptAs}; to go back to it: ${restoreCommand(result.keptAs, config.data)}\n`,
        );
      }
    });
}

/** Only flags actually given take part in precedence. */
function givenFlags(options: Record<string, unknown>, command: Command): Record<string, unknown> {
  return Object.fromEntries(Object.entries(options).filter(([name]) => command.getOptionValueSource(name) === 'cli'));
}

/**
 * Backs up DATA/antenna.db to `file` (a new file, or a folder to put a named one in;
 * default DATA/backups). Read-only on the database; BackupError says what went wrong.
 */
export async function backupToFile(dataDir: string, file: string | undefined, now = Date.now()): Promise<CopyResult> {
  const database = databasePath(dataDir);
  if (!existsSync(database))
    throw new BackupError(`There is no database at ${database}: nothing to back up (is --data right?).`);
  const target = targetFor(dataDir, file, now);
  let db: Db;
  try {
    db = openForCopy(database);
  } catch (error) {
    throw new BackupError(
      `${database} cannot be read (${reasonOf(error)}): check its permissions, and that --data names the server's data directory.`,
    );
  }
  try {
    return await copyDatabase(db, target);
  } catch (error) {
    throw new BackupError(`The backup failed: ${backupFailureAdvice(error, dirname(target))}.`, { cause: error });
  } finally {
    db.close();
  }
}

function targetFor(dataDir: string, file: string | undefined, now: number): string {
  if (file === undefined) {
    const dir = backupsDir(dataDir);
    ensureBackupsDir(dir);
    return join(dir, freshBackupName(listBackupsDir(dir), now));
  }
  const path = resolve(file);
  if (existsSync(path) && statSync(path).isDirectory()) return join(path, freshBackupName(listBackupsDir(path), now));
  if (existsSync(path))
    throw new BackupError(`${path} already exists: give a new file name (or a folder), or delete it first.`);
  if (!existsSync(dirname(path)))
    throw new BackupError(`The folder ${dirname(path)} does not exist: make it first, or give another file.`);
  return path;
}

/** `812 bytes`, `4.2 MB`, `1.3 GB` (decimal units, as disks are sold). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
