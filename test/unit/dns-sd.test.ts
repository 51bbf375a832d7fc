import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  PLAYER_SERVICE_TYPE,
  SERVER_SERVICE_TYPE,
  serviceTypeName,
  serviceUrl,
  stableId,
} from '../../src/discovery/dns-sd.js';

describe('serviceTypeName', () => {
  it('gives the bare name of a _name._tcp type, lower-cased', () => {
    expect(serviceTypeName('_antenna_app._tcp')).toBe('antenna_app');
    expect(serviceTypeName('_x._tcp')).toBe('x');
    expect(serviceTypeName('_Antenna_DVR._tcp')).toBe('antenna_dvr');
    expect(serviceTypeName('_my-dvr2._tcp')).toBe('my-dvr2');
    expect(serviceTypeName('_abcdefghijklmno._tcp')).toBe('abcdefghijklmno');
    expect(serviceTypeName(PLAYER_SERVICE_TYPE)).toBe('antenna_app');
    expect(serviceTypeName(SERVER_SERVICE_TYPE)).toBe('antenna_dvr');
  });

  it.each([
    '_antenna_app._udp',
    'antenna_app',
    'antenna_app._tcp',
    '_antenna_app',
    '_._tcp',
    '_abcdefghijklmnop._tcp',
    '_-abc._tcp',
    '_abc-._tcp',
    '__abc._tcp',
    '_abc_._tcp',
    '_a b._tcp',
    '_antenna.app._tcp',
    '_antenna_app._tcp.local',
    '',
  ])('refuses %j', (type) => {
    expect(serviceTypeName(type)).toBeUndefined();
  });

  it('takes every name of 1 to 15 letters, digits, - and _ that starts and ends with a letter or digit', () => {
    const edge = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789');
    const inner = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_');
    const name = fc.oneof(
      edge,
      fc
        .tuple(edge, fc.array(inner, { maxLength: 13 }), edge)
        .map(([first, middle, last]) => `${first}${middle.join('')}${last}`),
    );
    fc.assert(
      fc.property(name, (bare) => {
        expect(serviceTypeName(`_${bare}._tcp`)).toBe(bare.toLowerCase());
        expect(serviceTypeName(`_${bare}x._tcp`)).toBe(bare.length < 15 ? `${bare}x`.toLowerCase() : undefined);
      }),
    );
  });
});

describe('serviceUrl', () => {
  it('prefers an IPv4 address', () => {
    expect(serviceUrl({ addresses: ['2001:db8::5', '192.168.1.4'], host: 'tv.local', port: 8089 })).toBe(
      'http://192.168.1.4:8089',
    );
    expect(serviceUrl({ addresses: ['fe80::1', '10.0.0.2', '10.0.0.3'], host: 'tv.local', port: 57000 })).toBe(
      'http://10.0.0.2:57000',
    );
  });

  it('brackets an IPv6 address and skips link-local ones', () => {
    expect(serviceUrl({ addresses: ['2001:db8::5'], host: 'tv.local', port: 8089 })).toBe('http://[2001:db8::5]:8089');
    expect(serviceUrl({ addresses: ['fe80::1', '2001:db8::5'], host: 'tv.local', port: 8089 })).toBe(
      'http://[2001:db8::5]:8089',
    );
    expect(serviceUrl({ addresses: ['FE80::1', '2001:db8::6'], host: 'tv.local', port: 8089 })).toBe(
      'http://[2001:db8::6]:8089',
    );
  });

  it('falls back to the host name', () => {
    expect(serviceUrl({ addresses: ['fe80::1'], host: 'tv.local', port: 8089 })).toBe('http://tv.local:8089');
    expect(serviceUrl({ addresses: [], host: 'tv.local', port: 1234 })).toBe('http://tv.local:1234');
    expect(serviceUrl({ host: 'den.local', port: 57000 })).toBe('http://den.local:57000');
  });

  it('answers a URL that parses, with the port kept', () => {
    for (const addresses of [['192.168.1.4'], ['2001:db8::5'], []]) {
      const url = new URL(serviceUrl({ addresses, host: 'tv.local', port: 8089 }));
      expect(url.protocol).toBe('http:');
      expect(url.port).toBe('8089');
    }
  });
});

describe('stableId', () => {
  it('is 16 hexadecimal characters', () => {
    expect(stableId('player', '57000')).toMatch(/^[0-9a-f]{16}$/);
    expect(stableId()).toMatch(/^[0-9a-f]{16}$/);
  });

  it('is the same for the same parts', () => {
    expect(stableId('player', '57000')).toBe(stableId('player', '57000'));
  });

  it('differs for different parts', () => {
    const ids = [
      stableId('player', '57000'),
      stableId('player', '57001'),
      stableId('server', '57000'),
      stableId('player'),
      stableId(),
      stableId(''),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('differs for any two different single parts', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        fc.pre(a !== b);
        expect(stableId(a)).not.toBe(stableId(b));
      }),
      { numRuns: 200 },
    );
  });
});
