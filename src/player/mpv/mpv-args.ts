/**
 * The command line the player starts mpv with (pure; unit-tested). mpv runs idle
 * between items and takes every order through its JSON IPC socket.
 */

import { PLAYER_USER_AGENT } from '../live-position.js';

export interface MpvLaunch {
  /** Where mpv listens for JSON IPC. */
  socketPath: string;
  /** A display to draw on: a fullscreen window. Without one: no video or audio output at all. */
  display: boolean;
  /** Extra options from the user, as `name=value` (or a bare `name` for a flag). */
  options: readonly string[];
}

/** Options the player itself relies on: a user's --mpv-option may not change them. */
export const RESERVED_MPV_OPTIONS = [
  'input-ipc-server',
  'idle',
  'config',
  'terminal',
  'keep-open',
  'force-window',
  'input-terminal',
  'player-operation-mode',
  'user-agent',
] as const;

const OPTION = /^([a-z0-9][a-z0-9-]*)(=(.*))?$/s;

/** Checks one user option: a known shape, not one of ours. Returns the reason it cannot be used, if any. */
export function mpvOptionProblem(option: string): string | undefined {
  const match = OPTION.exec(option);
  if (!match) return `'${option}' is not an mpv option: write it as name=value, such as hwdec=auto`;
  const name = (match[1] ?? '').replace(/^no-/, '');
  if ((RESERVED_MPV_OPTIONS as readonly string[]).includes(name)) return `the player sets --${name} itself`;
  return undefined;
}

export function mpvArguments(launch: MpvLaunch): string[] {
  const output = launch.display
    ? // A TV: one fullscreen window that stays up between items, black while idle: no
      // on-screen controller (its idle logo says "Drop files"), no mouse pointer.
      ['--force-window=yes', '--fullscreen=yes', '--keepaspect-window=no', '--osc=no', '--cursor-autohide=always']
    : // Nowhere to draw or play sound (a headless box, CI): decode and discard.
      ['--vo=null', '--ao=null', '--force-window=no'];
  return [
    // The user's mpv.conf could change what the player depends on (pause at start, resume files, key bindings).
    '--no-config',
    '--idle=yes',
    '--no-terminal',
    '--keep-open=no',
    `--input-ipc-server=${launch.socketPath}`,
    '--osd-level=1',
    // The player resumes items itself from the server's playback_time.
    '--save-position-on-quit=no',
    // Only the server's streams are played: no web pages handed to youtube-dl.
    '--ytdl=no',
    // The server knows the device by it (with its address), whether mpv or the player itself asks.
    `--user-agent=${PLAYER_USER_AGENT}`,
    ...output,
    ...launch.options.map((option) => `--${option}`),
  ];
}

/**
 * ffmpeg's options for live TV from the server's buffer (`buffer.m3u8?from=`): the playlist begins where it should be
 * played from (ffmpeg's HLS reader starts three segments from a live playlist's end unless told), and the frame rate
 * is not measured before the first frame (20 frames by default, most of a second of a live stream arriving at its own
 * pace; the stream's timestamps give the rate anyway).
 */
export const LIVE_DEMUXER_OPTIONS: Readonly<Record<string, string>> = { live_start_index: '0', fpsprobesize: '0' };

/** What demuxer-lavf-o is for a load: the user's own (their --mpv-option), with the live ones over them for live TV. */
export function demuxerOptions(user: Readonly<Record<string, string>>, live: boolean): Record<string, string> {
  return live ? { ...user, ...LIVE_DEMUXER_OPTIONS } : { ...user };
}
