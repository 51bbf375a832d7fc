/**
 * How Settings words what the server reports: sizes, the disk, the scan, a refresh's
 * outcome, the uptime. Pure functions over the server's payloads, unit-tested.
 */
import type { ClientInfo, DvrInfo, Guide, RefreshResult, ServerStatus, Source } from '../../api/server-types';

/** `1.5 GB`, `820 MB`, `12 kB` (powers of 1000, as disks are sold). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '';
  const units = ['bytes', 'kB', 'MB', 'GB', 'TB', 'PB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0
    ? `${Math.round(value)} bytes`
    : `${value >= 100 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

export interface DiskUse {
  /** Share of the disk in use, 0–1. */
  used: number;
  text: string;
}

/** The recordings disk as a bar and a sentence; undefined when the server could not read it. */
export function diskUse(disk: DvrInfo['disk']): DiskUse | undefined {
  if (!disk || disk.total <= 0) return undefined;
  const free = Math.min(Math.max(disk.free, 0), disk.total);
  return { used: (disk.total - free) / disk.total, text: `${formatBytes(free)} free of ${formatBytes(disk.total)}` };
}

const PHASES: Record<string, string> = {
  idle: 'Waiting for changes',
  walking: 'Looking through the folders',
  importing: 'Importing',
  probing: 'Reading the files',
  thumbnails: 'Making thumbnails',
  done: 'Done',
};

/** What the importer is doing, in words: the phase, its counts, its rate and the time left once measured. */
export function scanProgress(scan: NonNullable<ServerStatus['scan']>): string {
  const phase = PHASES[scan.phase] ?? scan.phase;
  if (!scan.running) return 'Not scanning now.';
  const count = (n: number) => n.toLocaleString('en-US');
  const counts =
    scan.phase === 'probing'
      ? `${count(scan.probed)} of ${count(scan.probed + scan.to_probe)} read`
      : scan.phase === 'thumbnails'
        ? `${count(scan.thumbnails)} of ${count(scan.thumbnails + scan.to_thumbnail)} made`
        : `${count(scan.files_seen)} files found`;
  const rate = scan.files_per_second !== undefined ? `${count(Math.round(scan.files_per_second))} a second` : '';
  const left = scan.seconds_left !== undefined ? `about ${timeLeft(scan.seconds_left)} left` : '';
  return `${phase}: ${[counts, rate, left].filter(Boolean).join(', ')}.`;
}

/** `40 s`, `3 min`, `1 h 20 min`. */
export function timeLeft(seconds: number): string {
  if (seconds < 59.5) return `${Math.max(0, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** How far the phase under way is, 0–1, where its total is known (probing, thumbnails); undefined otherwise. */
export function scanShare(scan: NonNullable<ServerStatus['scan']>): number | undefined {
  if (!scan.running) return undefined;
  const [done, left] =
    scan.phase === 'probing'
      ? [scan.probed, scan.to_probe]
      : scan.phase === 'thumbnails'
        ? [scan.thumbnails, scan.to_thumbnail]
        : [0, 0];
  return done + left > 0 ? done / (done + left) : undefined;
}

/** The last finished scan, in one sentence. */
export function lastScan(scan: NonNullable<ServerStatus['scan']>, now: number = Date.now()): string {
  const last = scan.last;
  if (!last) return 'No scan has finished yet.';
  const changes = (
    [
      [last.added, 'added'],
      [last.updated, 'updated'],
      [last.moved, 'moved'],
      [last.removed, 'removed'],
    ] as const
  )
    .filter(([count]) => count > 0)
    .map(([count, what]) => `${count} ${what}`);
  const failed = last.failed > 0 ? `; ${last.failed} could not be imported` : '';
  return `Last scan ${ago(last.finished_at, now)}: ${changes.length > 0 ? changes.join(', ') : 'no changes'} (${last.unchanged} unchanged)${failed}.`;
}

/** `just now`, `5 minutes ago`, `3 hours ago`, `2 days ago`. */
export function ago(epochMillis: number, now: number = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - epochMillis) / 1000));
  if (seconds < 60) return 'just now';
  const [value, unit] =
    seconds < 3600
      ? [Math.round(seconds / 60), 'minute']
      : seconds < 86400
        ? [Math.round(seconds / 3600), 'hour']
        : [Math.round(seconds / 86400), 'day'];
  return `${value} ${unit}${value === 1 ? '' : 's'} ago`;
}

/** `3 days 4 h`, `2 h 05 min`, `12 min`. */
export function formatUptime(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const days = Math.floor(total / 86400);
  const hours = Math.floor((total % 86400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  if (days > 0) return `${days} day${days === 1 ? '' : 's'} ${hours} h`;
  if (hours > 0) return `${hours} h ${String(minutes).padStart(2, '0')} min`;
  return `${minutes} min`;
}

export interface RefreshLine {
  name: string;
  ok: boolean;
  text: string;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * The note the server adds to a held-back refresh for clients without a button (the API
 * call and the command that confirm it): the app offers Apply anyway instead.
 */
const HOW_TO_CONFIRM = /;\s*if the (?:source|guide) really changed, confirm it: [\s\S]*$/;

/**
 * Whether a stored error is a refresh held back for confirmation (not one that failed): by the server's note, as the
 * lists carry no kind.
 */
export const isHeldBack = (error: string): boolean => HOW_TO_CONFIRM.test(error);

/**
 * Why a refresh was not applied, for the app: the server's reason without its note on
 * how to confirm it, its "it was not applied" (the app says so) or the name it begins
 * with (`prefix`, as the server names the source or guide; the app shows it already).
 * Any other wording is shown as the server wrote it.
 */
export function readableReason(error: string, prefix?: string): string {
  let text = error.replace(HOW_TO_CONFIRM, '').replace(/;\s*it was not applied$/, '');
  if (prefix && text.startsWith(`${prefix}: `)) text = text.slice(prefix.length + 2);
  return text;
}

/** How the server's messages name a guide (src/dvr/sources/source-refresh.ts): `guide <location>`. */
export const guidePrefix = (guide: Pick<Guide, 'location'>) => `guide ${guide.location}`;

/** A refresh's answer, one line per source and guide, named as the lists name them. */
export function refreshLines(
  result: RefreshResult,
  sources: readonly Source[],
  guides: readonly Guide[],
): RefreshLine[] {
  const sourceName = (id: string) => sources.find((s) => s.id === id)?.name ?? id;
  const guide = (id: string) => guides.find((g) => g.id === id);
  const skipped = (n: number | undefined) =>
    n ? `, ${plural(n, 'malformed entry', 'malformed entries')} skipped` : '';
  const notApplied = (
    entry: { error: string; needs_confirmation?: boolean | undefined },
    prefix: string,
    kept: string,
  ) =>
    entry.needs_confirmation
      ? `held back: ${readableReason(entry.error, prefix)} (Apply anyway, beside it below, applies it)`
      : `failed: ${entry.error} (the ${kept} from the last good read are kept)`;
  return [
    ...result.sources.map((s) => ({
      name: sourceName(s.id),
      ok: s.error === undefined,
      text:
        s.error !== undefined
          ? notApplied({ ...s, error: s.error }, sourceName(s.id), 'channels')
          : `${plural(s.channels ?? 0, 'channel', 'channels')}${skipped(s.skipped)}`,
    })),
    ...result.guides.map((g) => ({
      name: guide(g.id)?.location ?? g.id,
      ok: g.error === undefined,
      text:
        g.error !== undefined
          ? notApplied({ ...g, error: g.error }, guidePrefix({ location: guide(g.id)?.location ?? g.id }), 'programmes')
          : `${plural(g.programmes ?? 0, 'programme', 'programmes')}${skipped(g.skipped)}`,
    })),
  ];
}

/**
 * How a source or guide last went: when it was read, or why the last read was not
 * applied (and when the kept one was read). `prefix`: how the server's messages name it.
 */
export function freshness(
  entry: Pick<Source, 'refreshed_at' | 'error'>,
  now: number = Date.now(),
  prefix?: string,
): string {
  const kept = entry.refreshed_at !== undefined ? ` (kept what was read ${ago(entry.refreshed_at, now)})` : '';
  if (entry.error && isHeldBack(entry.error))
    return `Last refresh held back: ${readableReason(entry.error, prefix)}${kept}. Refresh it to apply it anyway.`;
  if (entry.error) return `Last read failed: ${entry.error}${kept}`;
  return entry.refreshed_at !== undefined ? `Read ${ago(entry.refreshed_at, now)}` : 'Not read yet';
}

/** What a player is doing, from its status: "Playing channel 7 Seven: News", "Paused: Show: Episode", "Idle". */
export function playerActivity(status: ClientInfo['status']): string {
  if (status.status === 'stopped') return 'Idle';
  const verb = status.status === 'paused' ? 'Paused' : 'Playing';
  const playing = status.now_playing;
  const title = [playing?.title, playing?.episode_title].filter(Boolean).join(': ');
  if (status.channel)
    return `${verb} channel ${status.channel.number} ${status.channel.name}${title ? `: ${title}` : ''}`;
  return title ? `${verb} ${title}` : verb;
}

/** "3 channels: 2, 5.1, 7" (the first few), or what an empty collection means. */
export function collectionSummary(items: readonly string[], favorites: boolean): string {
  if (items.length === 0) return favorites ? 'No favorites yet: star channels under Live TV.' : 'No channels yet.';
  const shown = items.slice(0, 8).join(', ');
  return `${items.length} channel${items.length === 1 ? '' : 's'}: ${shown}${items.length > 8 ? ', …' : ''}`;
}

/** Who is not being told what happens (GET /status `events`), in a sentence; undefined when there is nothing to say. */
export function eventsLine(events: ServerStatus['events']): string | undefined {
  if (!events) return undefined;
  const parts: string[] = [];
  if (events.mqtt)
    parts.push(
      events.mqtt.connected
        ? `MQTT connected to ${events.mqtt.url}`
        : `MQTT not connected to ${events.mqtt.url}${events.mqtt.error ? `: ${events.mqtt.error}` : ''}`,
    );
  const failing = events.webhooks_failing;
  if (failing.length === 1) parts.push(`the webhook ${failing[0]!.url} is failing: ${failing[0]!.error}`);
  else if (failing.length > 1) parts.push(`${failing.length} webhooks are failing (see Webhooks)`);
  if (parts.length === 0) return undefined;
  const text = parts.join('; ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
