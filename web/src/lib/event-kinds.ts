/**
 * The server's event kinds in people's words: the titles of the app's notifications and
 * the kinds Settings lists for a webhook. A Record, so a kind the server adds fails the
 * build here until it has its words.
 */
import type { EventKind } from '../api/server-types';

export const EVENT_KIND_TITLES: Record<EventKind, string> = {
  'recording.scheduled': 'Recording scheduled',
  'recording.started': 'Recording started',
  'recording.completed': 'Recording completed',
  'recording.failed': 'Recording failed',
  'recording.skipped': 'Recording skipped',
  'recording.conflict': 'Recording conflict',
  'recording.commercials': 'Commercial marks',
  'disk.low': 'Disk space low',
  'disk.full': 'Disk full',
  'source.failing': 'Source failing',
  'source.back': 'Source back',
  'guide.failed': 'Guide refresh failed',
  'guide.applied': 'Guide refreshed',
  'library.scanned': 'Library scanned',
  'player.online': 'Player online',
  'player.offline': 'Player offline',
  'playback.started': 'Playback started',
  'playback.stopped': 'Playback stopped',
};

export const EVENT_KIND_LIST = Object.keys(EVENT_KIND_TITLES) as EventKind[];
