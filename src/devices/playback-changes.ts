/**
 * What a player's new status says happened (pure): playback started (something else is
 * loaded now) or stopped (nothing is). A pause, a seek or a new programme on the same
 * channel is neither.
 */
import type { PlayerStatusBody } from '../model/players/player-status.schemas.js';

/** What is loaded, as one string: the channel, else the title and episode; '' when nothing is. */
export function loadedKey(status: PlayerStatusBody): string {
  if (status.status === 'stopped') return '';
  if (status.channel) return `channel ${status.channel.number}`;
  const playing = status.now_playing;
  return `item ${playing?.title ?? ''}\t${playing?.episode_title ?? ''}\t${playing?.season_number ?? ''}\t${playing?.episode_number ?? ''}`;
}

export type PlaybackChange = 'started' | 'stopped' | undefined;

export function playbackChange(before: PlayerStatusBody | undefined, after: PlayerStatusBody): PlaybackChange {
  const was = before ? loadedKey(before) : '';
  const now = loadedKey(after);
  if (now === was) return undefined;
  return now === '' ? 'stopped' : 'started';
}

/** "Living Room plays 7.1 CBS" / "Living Room plays Show: Episode"; what a playback event says. */
export function playbackMessage(player: string, change: 'started' | 'stopped', status: PlayerStatusBody): string {
  if (change === 'stopped') return `${player} stopped playing.`;
  const playing = status.now_playing;
  const what = status.channel
    ? `channel ${status.channel.number} ${status.channel.name}${playing?.title ? ` (${playing.title})` : ''}`
    : [playing?.title, playing?.episode_title].filter(Boolean).join(': ') || 'something';
  return `${player} plays ${what}.`;
}
