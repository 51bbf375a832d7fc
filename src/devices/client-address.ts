/**
 * Where a registered player's interface B is reached (pure): the address it listens on
 * when it named one, else the address its heartbeat came from. A player on the server's
 * own machine (`antenna start`) reaches it over loopback, which is no use to a remote
 * app on a phone: it is listed at the machine's network address instead.
 */
import type { NetworkInterfaceInfo } from 'node:os';

/** An IPv4-mapped IPv6 address (::ffff:192.168.1.5) as the IPv4 address it is. */
export function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

const isWildcard = (address: string) => address === '0.0.0.0' || address === '::';
const isLoopback = (address: string) => address === '::1' || address.startsWith('127.');

const isLinkLocal = (address: string) => address.startsWith('169.254.') || /^fe[89ab]/i.test(address);

/**
 * Whether a named address may be where the server sends Play on… and notifications: a private network address, not
 * loopback or link-local (the server's own services listen there), unless the heartbeat itself came over loopback.
 */
export function acceptableAddress(address: string, fromLoopback: boolean, isPrivate: (a: string) => boolean): boolean {
  if (isLoopback(address)) return fromLoopback;
  return isPrivate(address) && !isLinkLocal(address);
}

export function reachableAddress(
  given: string | undefined,
  remote: string,
  machine: string | undefined,
  isPrivate: (address: string) => boolean = () => true,
): string {
  const from = plainAddress(remote);
  if (given !== undefined && !isWildcard(given) && acceptableAddress(plainAddress(given), isLoopback(from), isPrivate))
    return plainAddress(given);
  if (isLoopback(from) && machine !== undefined) return machine;
  return from;
}

/** This machine's first IPv4 network address that is not loopback (what a phone on the LAN reaches it at). */
export function machineAddress(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): string | undefined {
  for (const list of Object.values(interfaces)) {
    const found = list?.find((info) => info.family === 'IPv4' && !info.internal);
    if (found) return found.address;
  }
  return undefined;
}

/** An http URL of interface B at `address` (IPv6 in brackets). */
export function interfaceBUrl(address: string, port: number, path: string): string {
  const host = address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${port}${path}`;
}
