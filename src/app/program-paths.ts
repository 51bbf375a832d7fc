/**
 * The programs the server runs, looked up once at start (ffmpeg, ffprobe, comskip):
 * a name on PATH or the path a setting gives. ffmpeg and ffprobe are needed to import
 * and record, so a missing one stops start-up with a message naming the setting;
 * without comskip, recordings are kept without commercial detection.
 */
import type { Logger } from 'pino';
import { type ProgramPaths, findProgram } from '../common/external-program.js';
import type { ServerConfig } from '../config/server-config.js';
import { StartupError } from '../db/database.js';

function required(program: string, flag: string, debianPackage: string): string {
  const found = findProgram(program);
  if (found === undefined) {
    throw new StartupError(
      `${program} was not found: install it (sudo apt-get install ${debianPackage}) or give its path with ${flag}.`,
    );
  }
  return found;
}

export function findServerPrograms(
  config: Pick<ServerConfig, 'ffmpegPath' | 'ffprobePath' | 'comskipPath'>,
  logger?: Logger,
): ProgramPaths {
  const comskip = findProgram(config.comskipPath);
  if (comskip === undefined) {
    logger?.warn(
      { comskip: config.comskipPath },
      'comskip was not found: recordings are kept without commercial detection (install comskip or give --comskip-path)',
    );
  }
  return {
    ffmpeg: required(config.ffmpegPath, '--ffmpeg-path', 'ffmpeg'),
    ffprobe: required(config.ffprobePath, '--ffprobe-path', 'ffmpeg'),
    comskip,
  };
}
