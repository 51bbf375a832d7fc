/** The player's settings from flags, the environment and the `player` object of the config file. */
import {
  type PartialPlayerSettings,
  type PlayerConfig,
  playerSettingsFromEnv,
  playerSettingsFromFile,
  resolvePlayerConfig,
} from './player-config.js';
import { ENV_NAMES, readConfigJson } from './server-settings.js';

export function loadPlayerConfig(
  flags: PartialPlayerSettings & { config?: string },
  env: NodeJS.ProcessEnv,
): PlayerConfig {
  const configFile = flags.config ?? env[ENV_NAMES.config];
  const fromFile = configFile ? playerSettingsFromFile(readConfigJson(configFile).player, configFile) : {};
  const { config: _config, ...fromFlags } = flags;
  return resolvePlayerConfig([fromFlags, playerSettingsFromEnv(env), fromFile], process.cwd(), env);
}
