/**
 * Zero-configuration discovery on the local network (DNS-SD over multicast DNS).
 * `antenna server` advertises `_antenna_dvr._tcp` and `antenna player` advertises
 * `_antenna_app._tcp`; a player started without --server browses for the server.
 *
 * Advertising uses @homebridge/ciao (RFC 6762/6763 probing, conflict renaming and
 * goodbye packets on shutdown); browsing uses bonjour-service, since ciao only
 * advertises. Both are well kept and pure JavaScript, and loaded only when used: a
 * server started without advertising does not pay for them at start-up.
 */
import type { Bonjour, Service } from 'bonjour-service';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { isAnyAddress } from '../common/listen-url.js';

export const SERVER_SERVICE_TYPE = '_antenna_dvr._tcp';
export const PLAYER_SERVICE_TYPE = '_antenna_app._tcp';

const SERVICE_TYPE = /^_([a-z0-9](?:[a-z0-9_-]{0,13}[a-z0-9])?)\._tcp$/i;

/** The bare name of a `_name._tcp` service type, or undefined when it is not one (names are 1-15 characters). */
export function serviceTypeName(type: string): string | undefined {
  return SERVICE_TYPE.exec(type)?.[1]?.toLowerCase();
}

/**
 * A stable id for a process on this machine: the same machine and `parts` give the
 * same id across restarts, so a client that remembers a player recognises it.
 */
export function stableId(...parts: string[]): string {
  let machine = hostname();
  try {
    machine = readFileSync('/etc/machine-id', 'utf8').trim() || machine;
  } catch {
    // no machine id (not systemd): the host name stands in
  }
  return createHash('sha256')
    .update([machine, ...parts].join('\0'))
    .digest('hex')
    .slice(0, 16);
}

export interface AdvertiseOptions {
  /** `_name._tcp`. */
  type: string;
  /** The instance name people see ("Living Room"). */
  name: string;
  port: number;
  txt: Record<string, string>;
  /** The address the service listens on; a specific one restricts the advertisement to it. */
  host?: string;
  logger: Logger;
}

export interface Advertisement {
  /** Sends the goodbye and lets the responder go. */
  end(): Promise<void>;
}

export async function advertise(options: AdvertiseOptions): Promise<Advertisement> {
  const type = serviceTypeName(options.type);
  if (!type) throw new Error(`'${options.type}' is not a DNS-SD service type such as _antenna_app._tcp`);
  // One responder per process, shared by the server's and the player's services; shutdown counts references.
  const { getResponder } = await import('@homebridge/ciao');
  const responder = getResponder();
  const anyAddress = options.host === undefined || isAnyAddress(options.host);
  const service = responder.createService({
    name: options.name,
    type,
    port: options.port,
    txt: options.txt,
    ...(anyAddress ? {} : { restrictedAddresses: [options.host as string] }),
  });
  service.on('name-change', (name: string) =>
    options.logger.info({ name, type: options.type }, 'another device uses the name: advertising under a new one'),
  );
  try {
    await service.advertise();
  } catch (error) {
    await service.destroy().catch(() => undefined);
    await responder.shutdown().catch(() => undefined);
    throw error;
  }
  options.logger.info(
    { type: options.type, name: options.name, port: options.port },
    'advertised on the local network',
  );
  let ended = false;
  return {
    async end() {
      if (ended) return;
      ended = true;
      await service.end().catch(() => undefined);
      await service.destroy().catch(() => undefined);
      await responder.shutdown().catch(() => undefined);
    },
  };
}

export interface FoundService {
  name: string;
  url: string;
  txt: Record<string, string>;
}

/** The URL to reach a found service at: its first IPv4 address (simplest to reach), else IPv6, else its host name. */
export function serviceUrl(service: { addresses?: string[]; host: string; port: number }): string {
  const addresses = service.addresses ?? [];
  const v4 = addresses.find((address) => /^\d+\.\d+\.\d+\.\d+$/.test(address));
  const v6 = addresses.find((address) => address.includes(':') && !address.toLowerCase().startsWith('fe80:'));
  const host = v4 ?? (v6 ? `[${v6}]` : service.host);
  return `http://${host}:${service.port}`;
}

/**
 * Browses for services of one type and keeps the list current (services that say
 * goodbye or expire leave it). `first()` is the one found earliest that is still there.
 */
export class ServiceBrowser {
  private bonjour: Bonjour | undefined;
  private readonly found = new Map<string, FoundService>();

  constructor(
    private readonly type: string,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    const name = serviceTypeName(this.type);
    if (!name) throw new Error(`'${this.type}' is not a DNS-SD service type such as _antenna_dvr._tcp`);
    const { Bonjour } = await import('bonjour-service');
    this.bonjour = new Bonjour({}, (error: Error) =>
      this.logger.warn({ err: error }, 'multicast DNS failed; give the player --server URL'),
    );
    const browser = this.bonjour.find({ type: name, protocol: 'tcp' });
    browser.on('up', (service: Service) => this.up(service));
    browser.on('srv-update', (service: Service) => this.up(service));
    browser.on('down', (service: Service) => {
      this.found.delete(service.fqdn);
      this.logger.info({ name: service.name }, 'an Antenna service left the network');
    });
  }

  private up(service: Service): void {
    const entry = {
      name: service.name,
      url: serviceUrl(service),
      txt: Object.fromEntries(Object.entries(service.txt ?? {}).map(([k, v]) => [k, String(v)])),
    };
    if (!this.found.has(service.fqdn)) this.logger.info({ name: entry.name, url: entry.url }, 'found on the network');
    this.found.set(service.fqdn, entry);
  }

  first(): FoundService | undefined {
    return this.found.values().next().value;
  }

  stop(): void {
    this.bonjour?.destroy();
    this.bonjour = undefined;
  }
}
