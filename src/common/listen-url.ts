/**
 * Where a server listening on `host` is: its port, the URL to show a person, and how a process on this machine reaches
 * it.
 */
import type { Server } from 'node:http';

/** 0.0.0.0 or ::, every address of the machine. */
export const isAnyAddress = (host: string) => host === '0.0.0.0' || host === '::';
const withPort = (host: string, port: number | string) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

/** For people: localhost when listening on every address. */
export function displayUrl(host: string, port: number | string): string {
  return withPort(isAnyAddress(host) ? 'localhost' : host, port);
}

/** For another part of this machine: loopback when listening on every address, else that address. */
export function loopbackUrl(host: string, port: number | string): string {
  return withPort(isAnyAddress(host) ? '127.0.0.1' : host, port);
}

/** The port a listening server got (the one asked for, unless that was 0). */
export function listeningPort(server: Server, asked: number): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : asked;
}
