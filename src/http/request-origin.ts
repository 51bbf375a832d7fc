/**
 * Who is asking, for the rules that keep a web page from acting through a user's
 * browser. Shared by the server's writes (write-access.ts) and the player's commands
 * (player-http-app.ts):
 * - the caller's address: loopback and private networks;
 * - the Host header: an address or a local name, not a public domain (a page pointing a
 *   domain of its own at a LAN address, DNS rebinding, names that domain);
 * - the Origin header: a browser sends it with every POST, PUT and DELETE, so a request
 *   that carries one comes from a web page, which must be the service's own page or one
 *   the user allowed (--allow-origin). Native clients, curl and scripts send none.
 */
import { BlockList } from 'node:net';
import { hostname } from 'node:os';

const PRIVATE = new BlockList();
PRIVATE.addSubnet('127.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('10.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('172.16.0.0', 12, 'ipv4');
PRIVATE.addSubnet('192.168.0.0', 16, 'ipv4');
PRIVATE.addSubnet('169.254.0.0', 16, 'ipv4');
PRIVATE.addAddress('::1', 'ipv6');
PRIVATE.addSubnet('fc00::', 7, 'ipv6');
PRIVATE.addSubnet('fe80::', 10, 'ipv6');

/** Loopback, RFC 1918, link-local and unique-local addresses, IPv4-mapped ones included. */
export function isPrivateAddress(address: string | undefined): boolean {
  if (!address) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return PRIVATE.check(mapped, 'ipv4');
  return PRIVATE.check(address, address.includes(':') ? 'ipv6' : 'ipv4');
}

const LOCAL_SUFFIXES = ['.local', '.lan', '.home.arpa', '.internal', '.localdomain'];

/** An IP literal, localhost, a name without dots (a LAN host) or under a local-only suffix, or this machine's name. */
export function isLocalHostHeader(host: string | undefined): boolean {
  if (!host) return false;
  // A fully qualified name may end in a dot (tv.local.): the same name.
  const name = (
    host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '').replace(/\.$/, '')
  ).toLowerCase();
  if (name.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(name)) return true;
  if (name === 'localhost' || !name.includes('.')) return true;
  const machine = hostname().toLowerCase();
  return name === machine || LOCAL_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

export interface OriginPolicy {
  /** Origins the user allowed (--allow-origin), lower-cased. */
  allowed: ReadonlySet<string>;
  /** The service's own origins besides its Host header's (the --public-url's), lower-cased. */
  own?: ReadonlySet<string>;
  /** The command the message tells the user to restart with --allow-origin ("antenna server"). */
  program: string;
}

export interface Refusal {
  code: string;
  message: string;
}

/**
 * Undefined when the request may act: it has no Origin (not a web page), or its page
 * is the service's own or an allowed one. The service's own page has the scheme the
 * request came in by (`scheme`: http, as both services speak plain HTTP) and its Host,
 * a local name: an origin is scheme, host and port, so `https://` + Host is another
 * page (behind a TLS proxy, --public-url names the https one).
 */
export function originRefusal(
  origin: string | undefined,
  host: string | undefined,
  policy: OriginPolicy,
  scheme = 'http',
): Refusal | undefined {
  if (origin === undefined) return undefined;
  const page = origin.toLowerCase();
  if (policy.allowed.has(page) || policy.own?.has(page)) return undefined;
  const ownHost = host?.toLowerCase();
  if (ownHost && page === `${scheme.toLowerCase()}://${ownHost}`) {
    if (isLocalHostHeader(host)) return undefined;
    return {
      code: 'forbidden_host',
      message: `Changes from a web page are taken only at an address or a local name (such as tv.local): give ${policy.program} --public-url or --allow-origin ${truncate(origin)} if this is your own name for it.`,
    };
  }
  return {
    code: 'forbidden_origin',
    message: `Changes from the web page at ${truncate(origin)} are refused: start ${policy.program} with --allow-origin ${truncate(origin)} to allow them.`,
  };
}

const truncate = (text: string) => text.slice(0, 200);
