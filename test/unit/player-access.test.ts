import { describe, expect, it } from 'vitest';
import { hostname } from 'node:os';
import { commandRefusal } from '../../src/player/player-http-app.js';
import { isLocalHostHeader } from '../../src/http/request-origin.js';

describe('isLocalHostHeader', () => {
  it('accepts addresses, localhost, names without dots, local suffixes and this machine', () => {
    for (const host of [
      '127.0.0.1:57000',
      '192.168.1.20',
      '[::1]:57000',
      '[fd00::2]',
      'localhost:57000',
      'livingroom',
      'tv.local:57000',
      'box.lan',
      'tv.home.arpa',
      `${hostname()}:57000`,
    ]) {
      expect(isLocalHostHeader(host), host).toBe(true);
    }
  });

  it('refuses public names (what DNS rebinding sends) and a missing header', () => {
    for (const host of [
      'evil.example.com',
      'evil.example.com:57000',
      'localhost.evil.com',
      '192.168.1.20.nip.io',
      undefined,
      '',
    ]) {
      expect(isLocalHostHeader(host), String(host)).toBe(false);
    }
  });
});

describe('commandRefusal', () => {
  const allowed = new Set(['http://dashboard.local:8123']);

  it('refuses public addresses, foreign names and foreign web pages, each with its own code', () => {
    expect(commandRefusal('203.0.113.9', '192.168.1.20:57000', undefined, allowed)?.code).toBe('forbidden');
    expect(commandRefusal('192.168.1.9', 'evil.example.com:57000', undefined, allowed)?.code).toBe('forbidden_host');
    expect(commandRefusal('192.168.1.9', '192.168.1.20:57000', 'http://evil.example.com', allowed)?.code).toBe(
      'forbidden_origin',
    );
    expect(commandRefusal('192.168.1.9', '192.168.1.20:57000', 'null', allowed)?.code).toBe('forbidden_origin');
    // Its own host and port by another scheme is another page: the player speaks http.
    expect(
      commandRefusal('192.168.1.9', '192.168.1.20:57000', 'https://192.168.1.20:57000', allowed, 'http')?.code,
    ).toBe('forbidden_origin');
  });

  it('takes native clients, the player’s own pages and allowed origins', () => {
    expect(commandRefusal('192.168.1.9', '192.168.1.20:57000', undefined, allowed)).toBeUndefined();
    expect(
      commandRefusal('::ffff:10.0.0.5', 'tv.local:57000', 'http://tv.local:57000', allowed, 'http'),
    ).toBeUndefined();
    expect(commandRefusal('127.0.0.1', 'localhost:57000', 'http://dashboard.local:8123', allowed)).toBeUndefined();
    expect(commandRefusal('127.0.0.1', 'localhost:57000', 'HTTP://DASHBOARD.LOCAL:8123', allowed)).toBeUndefined();
  });
});
