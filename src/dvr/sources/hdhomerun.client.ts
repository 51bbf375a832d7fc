/**
 * Reads an HDHomeRun tuner (or anything speaking its HTTP interface: Threadfin, xTeVe,
 * tvheadend's emulation): `discover.json` for the device, then its lineup for channels.
 *
 * No library: the interface is two small JSON documents over HTTP, fetched with the
 * source reader; checking their shape is the whole job.
 */
import { SourceError, fetchJson, isUrl } from './source-reader.js';

export interface HdHomeRunChannel {
  number: string;
  name: string;
  hd: boolean;
  url: string;
}

export interface HdHomeRunDevice {
  deviceId: string;
  friendlyName?: string;
  tunerCount: number;
  baseUrl: string;
  channels: HdHomeRunChannel[];
  skipped: number;
}

export interface HdHomeRunOptions {
  signal?: AbortSignal;
  /** Per request; default 5 s, since the tuner is on the local network. */
  timeoutMs?: number;
}

export const HDHOMERUN_TIMEOUT_MS = 5_000;

/** The lineup of a 4-tuner cable device is ~100 KB; 8 MiB leaves room and still stops a runaway. */
const MAX_JSON_BYTES = 8 * 1024 * 1024;

interface Discovery {
  deviceId: string;
  friendlyName?: string;
  tunerCount: number;
  baseUrl?: string;
  lineupUrl?: string;
}

export async function readHdHomeRun(address: string, options: HdHomeRunOptions = {}): Promise<HdHomeRunDevice> {
  const who = `HDHomeRun at ${address.trim()}`;
  const base = baseUrlOf(address, who);
  const discovery = readDiscovery(
    await request(new URL('discover.json', base).href, 'discover.json', who, options),
    who,
  );
  const lineupUrl = discovery.lineupUrl ?? new URL('lineup.json', base).href;
  const lineup = readLineup(await request(lineupUrl, 'lineup.json', who, options), who);
  return {
    deviceId: discovery.deviceId,
    ...(discovery.friendlyName === undefined ? {} : { friendlyName: discovery.friendlyName }),
    tunerCount: discovery.tunerCount,
    baseUrl: discovery.baseUrl ?? base.href.replace(/\/$/, ''),
    ...lineup,
  };
}

/** `10.0.0.5`, `10.0.0.5:5004`, `hdhr.local`, `fe80::1` or `http://...` -> a base URL ending in `/`. */
function baseUrlOf(address: string, who: string): URL {
  const trimmed = address.trim();
  const invalid = new SourceError(
    `${who}: "${trimmed}" is not an address; give a host (192.168.1.20, hdhr.local), host:port or an http:// URL`,
    'invalid',
  );
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) && !isUrl(trimmed)) throw invalid;
  // A bare IPv6 address has several colons and needs brackets in a URL.
  const bareIpv6 = (trimmed.match(/:/g)?.length ?? 0) > 1 && !trimmed.startsWith('[');
  let url: URL;
  try {
    url = new URL(isUrl(trimmed) ? trimmed : `http://${bareIpv6 ? `[${trimmed}]` : trimmed}`);
  } catch {
    throw invalid;
  }
  if (url.hostname === '') throw invalid;
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/** fetchJson, with the source reader's messages turned into ones about the tuner. */
async function request(url: string, what: string, who: string, options: HdHomeRunOptions): Promise<unknown> {
  const timeoutMs = options.timeoutMs ?? HDHOMERUN_TIMEOUT_MS;
  try {
    return await fetchJson(url, {
      timeoutMs,
      maxBytes: MAX_JSON_BYTES,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    throw new SourceError(`${who} ${tunerProblem(error, what, timeoutMs)}`, error.reason, error.status);
  }
}

function tunerProblem(error: SourceError, what: string, timeoutMs: number): string {
  // The source reader's messages end in a parenthesised detail: "(connection refused)", "(it begins "<html>")".
  const detail = /\(([^()]*)\)$/.exec(error.message)?.[1];
  switch (error.reason) {
    case 'timeout':
      return `did not answer within ${Number((timeoutMs / 1000).toFixed(2))} s (asked for ${what})`;
    case 'http_status':
      return `answered HTTP ${error.status ?? '?'} for ${what}`;
    case 'too_large':
      return `sent a ${what} larger than ${MAX_JSON_BYTES / 1024 / 1024} MiB`;
    case 'invalid':
      return `sent a ${what} that is not JSON${detail ? ` (${detail})` : ''}`;
    default:
      return `could not be reached (${detail ?? error.message}); check the address and that the tuner is on`;
  }
}

function readDiscovery(json: unknown, who: string): Discovery {
  if (!isRecord(json)) throw notShaped(who, 'discover.json', 'is not an object');
  const deviceId = text(json.DeviceID);
  if (deviceId === undefined) throw notShaped(who, 'discover.json', 'has no DeviceID');
  const tunerCount = typeof json.TunerCount === 'string' ? Number(json.TunerCount) : json.TunerCount;
  if (typeof tunerCount !== 'number' || !Number.isInteger(tunerCount) || tunerCount < 0) {
    throw notShaped(who, 'discover.json', 'has no TunerCount (is it a tuner, not a DVR or storage device?)');
  }
  const friendlyName = text(json.FriendlyName);
  const baseUrl = httpUrl(json.BaseURL);
  const lineupUrl = httpUrl(json.LineupURL);
  return {
    deviceId,
    tunerCount,
    ...(friendlyName === undefined ? {} : { friendlyName }),
    ...(baseUrl === undefined ? {} : { baseUrl: baseUrl.replace(/\/$/, '') }),
    ...(lineupUrl === undefined ? {} : { lineupUrl }),
  };
}

/**
 * Entries without a number or a playable URL, DRM-protected ones (the tuner will not
 * stream them to us) and repeats of a number already seen are skipped and counted.
 */
function readLineup(json: unknown, who: string): Pick<HdHomeRunDevice, 'channels' | 'skipped'> {
  if (!Array.isArray(json)) throw notShaped(who, 'lineup.json', 'is not a list of channels');
  const channels: HdHomeRunChannel[] = [];
  const seen = new Set<string>();
  for (const entry of json as unknown[]) {
    const channel = isRecord(entry) ? readChannel(entry) : undefined;
    if (channel === undefined || seen.has(channel.number)) continue;
    seen.add(channel.number);
    channels.push(channel);
  }
  return { channels, skipped: json.length - channels.length };
}

function readChannel(entry: Record<string, unknown>): HdHomeRunChannel | undefined {
  const number = text(entry.GuideNumber);
  const url = httpUrl(entry.URL);
  if (number === undefined || url === undefined || isOn(entry.DRM)) return undefined;
  return { number, name: text(entry.GuideName) ?? number, hd: isOn(entry.HD), url };
}

function notShaped(who: string, what: string, problem: string): SourceError {
  return new SourceError(`${who} sent a ${what} that ${problem}`, 'invalid');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-empty string (numbers too: some emulators send GuideNumber 5 or DeviceID 1234). */
function text(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function isOn(value: unknown): boolean {
  return value === 1 || value === true || value === '1';
}

function httpUrl(value: unknown): string | undefined {
  const candidate = text(value);
  if (candidate === undefined || !isUrl(candidate)) return undefined;
  return URL.canParse(candidate) ? candidate : undefined;
}
