/** URLs of a server listening on `host`: what to show a person, and how a process on this machine reaches it. */

const anyAddress = (host: string) => host === '0.0.0.0' || host === '::';
const withPort = (host: string, port: number | string) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

/** For people: localhost when listening on every address. */
export function displayUrl(host: string, port: number | string): string {
  return withPort(anyAddress(host) ? 'localhost' : host, port);
}

/** For another part of this machine: loopback when listening on every address, else that address. */
export function loopbackUrl(host: string, port: number | string): string {
  return withPort(anyAddress(host) ? '127.0.0.1' : host, port);
}
