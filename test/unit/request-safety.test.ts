/**
 * The pure rules behind "nothing outside the library is served, and no web page can
 * make the server act": origins, the JSON answers to Node's parser errors, image
 * signatures, managed source locations, and where links may lead.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { clientErrorAnswer } from '../../src/http/http-limits.js';
import { startFlags } from '../../src/cli/antenna.cli.js';
import { originRefusal } from '../../src/http/request-origin.js';
import { imageTypeOf } from '../../src/common/file-signature.js';
import { PathBoundary, isInsideTree } from '../../src/common/path-boundary.js';
import { resolveServerConfig } from '../../src/config/server-config.js';
import { settingsFromEnv } from '../../src/config/server-settings.js';
import { managedLocationProblem } from '../../src/dvr/sources/dvr-sources.service.js';

const dir = mkdtempSync(join(tmpdir(), 'antenna-safety-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('originRefusal (the server’s writes)', () => {
  const policy = {
    allowed: new Set(['http://dashboard.local:8123']),
    own: new Set(['https://tv.example.org']),
    program: 'the server',
  };

  it('takes requests without an Origin: native clients, curl and scripts', () => {
    expect(originRefusal(undefined, '192.168.1.20:8089', policy)).toBeUndefined();
    expect(originRefusal(undefined, 'anything.example.com', policy)).toBeUndefined();
  });

  it('takes the server’s own pages (by Host, or the public URL), and allowed origins, in any letter case', () => {
    expect(originRefusal('http://192.168.1.20:8089', '192.168.1.20:8089', policy)).toBeUndefined();
    expect(originRefusal('http://tv.local:8089', 'TV.local:8089', policy)).toBeUndefined();
    expect(originRefusal('https://tv.example.org', 'tv.example.org', policy)).toBeUndefined();
    expect(originRefusal('HTTP://Dashboard.Local:8123', '192.168.1.20:8089', policy)).toBeUndefined();
  });

  it('refuses other pages, the null origin, and a public name pointed at the server (DNS rebinding)', () => {
    const refused = originRefusal('http://evil.example', '192.168.1.20:8089', policy);
    expect(refused).toMatchObject({
      code: 'forbidden_origin',
      message: expect.stringContaining('--allow-origin http://evil.example'),
    });
    expect(originRefusal('null', '192.168.1.20:8089', policy)?.code).toBe('forbidden_origin');
    // Same scheme, host and port, but another port is another origin.
    expect(originRefusal('http://192.168.1.20:9999', '192.168.1.20:8089', policy)?.code).toBe('forbidden_origin');
    expect(originRefusal('http://rebind.evil.example:8089', 'rebind.evil.example:8089', policy)?.code).toBe(
      'forbidden_host',
    );
  });

  it('counts the scheme: the Host’s page by another scheme is another origin, unless allowed or the public URL', () => {
    expect(originRefusal('https://192.168.1.20:8089', '192.168.1.20:8089', policy)?.code).toBe('forbidden_origin');
    expect(originRefusal('https://192.168.1.20:8089', '192.168.1.20:8089', policy, 'http')?.code).toBe(
      'forbidden_origin',
    );
    expect(originRefusal('https://192.168.1.20:8089', '192.168.1.20:8089', policy, 'https')).toBeUndefined();
    expect(originRefusal('http://192.168.1.20:8089', '192.168.1.20:8089', policy, 'https')?.code).toBe(
      'forbidden_origin',
    );
    // The --public-url's origin is the server's own whatever the request came in by.
    expect(originRefusal('https://tv.example.org', 'tv.example.org', policy, 'http')).toBeUndefined();
  });

  it('takes a local name written with its final dot', () => {
    expect(originRefusal('http://tv.local.:8089', 'tv.local.:8089', policy)).toBeUndefined();
  });

  it('refuses every Origin that is neither the Host’s (by the request’s scheme) nor allowed (property)', () => {
    fc.assert(
      fc.property(fc.webUrl(), fc.domain(), (origin, host) => {
        const page = new URL(origin).origin;
        fc.pre(page !== `http://${host}` && !policy.allowed.has(page) && !policy.own.has(page));
        expect(originRefusal(page, host, policy)).toBeDefined();
      }),
      { numRuns: 300 },
    );
  });
});

describe('clientErrorAnswer', () => {
  it('gives each of Node’s parser errors a status, a code and a message in the project’s shape', () => {
    expect(clientErrorAnswer('ERR_HTTP_REQUEST_TIMEOUT')).toMatchObject({ status: 408, code: 'request_timeout' });
    expect(clientErrorAnswer('HPE_HEADER_OVERFLOW')).toMatchObject({ status: 431, code: 'headers_too_large' });
    for (const code of ['HPE_INVALID_METHOD', 'HPE_INVALID_URL', undefined]) {
      expect(clientErrorAnswer(code)).toMatchObject({
        status: 400,
        code: 'bad_request',
        message: expect.stringMatching(/HTTP/),
      });
    }
  });
});

describe('imageTypeOf', () => {
  it('knows JPEG and PNG by their first bytes, and nothing else', () => {
    expect(imageTypeOf(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]))).toBe('image/jpeg');
    expect(imageTypeOf(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]))).toBe('image/png');
    expect(imageTypeOf(Buffer.from('root:x:0:0:root:/root:/bin/bash\n'))).toBeUndefined();
    expect(imageTypeOf(Buffer.from([0xff, 0xd8]))).toBeUndefined();
    expect(imageTypeOf(Buffer.alloc(0))).toBeUndefined();
  });

  it('names an image only for bytes that begin with its signature (property)', () => {
    const signatures = [Buffer.from([0xff, 0xd8, 0xff]), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])];
    // Byte arrays biased to begin like a signature, so near misses are tried as well.
    const leading = fc.oneof(
      fc.constantFrom(...signatures.map((s) => [...s.subarray(0, 2)]), ...signatures.map((s) => [...s])),
      fc.constant([]),
    );
    fc.assert(
      fc.property(leading, fc.uint8Array({ maxLength: 12 }), (start, rest) => {
        const bytes = Buffer.concat([Buffer.from(start), rest]);
        const begins = signatures.some((s) => bytes.length >= s.length && bytes.subarray(0, s.length).equals(s));
        expect(imageTypeOf(bytes) !== undefined).toBe(begins);
      }),
      { numRuns: 500 },
    );
  });
});

describe('managedLocationProblem', () => {
  const allowed = join(dir, 'allowed');
  mkdirSync(allowed, { recursive: true });
  writeFileSync(join(allowed, 'list.m3u'), '#EXTM3U\n');
  symlinkSync('/etc/passwd', join(allowed, 'escape.m3u'));

  it('takes http(s) URLs, and files under an allowed folder', () => {
    expect(managedLocationProblem('http://iptv.example/list.m3u', [])).toBeUndefined();
    expect(managedLocationProblem('HTTPS://iptv.example/list.m3u', [])).toBeUndefined();
    expect(managedLocationProblem(join(allowed, 'list.m3u'), [allowed])).toBeUndefined();
    expect(managedLocationProblem(join(allowed, 'not-yet.xml'), [allowed])).toBeUndefined();
  });

  it('refuses local files when no folder is allowed, relative paths, paths outside, and links leading out', () => {
    expect(managedLocationProblem('/etc/passwd', [])).toMatch(/--allow-local-source/);
    expect(managedLocationProblem('list.m3u', [allowed])).toMatch(/absolute path/);
    expect(managedLocationProblem('/etc/passwd', [allowed])).toMatch(/not under a folder the server allows/);
    expect(managedLocationProblem(join(allowed, '..', '..', 'etc', 'passwd'), [allowed])).toMatch(/not under/);
    expect(managedLocationProblem(join(allowed, 'escape.m3u'), [allowed])).toMatch(/not under/);
    expect(managedLocationProblem('file:///etc/passwd', [allowed])).toMatch(/absolute path/);
  });
});

describe('PathBoundary', () => {
  const root = join(dir, 'root');
  const outside = join(dir, 'outside');
  mkdirSync(join(root, 'sub'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(root, 'sub', 'a.mkv'), 'a');
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  symlinkSync(join(root, 'sub', 'a.mkv'), join(root, 'inside-link.mkv'));
  symlinkSync(join(outside, 'secret.txt'), join(root, 'outside-link.mkv'));

  it('tells a path inside a tree from a sibling that only shares its prefix', () => {
    expect(isInsideTree('/media/tv', '/media/tv')).toBe(true);
    expect(isInsideTree('/media/tv/a.mkv', '/media/tv')).toBe(true);
    expect(isInsideTree('/media/tv/a.mkv', '/media/tv/')).toBe(true);
    expect(isInsideTree('/media/tv2/a.mkv', '/media/tv')).toBe(false);
    expect(isInsideTree('/media', '/media/tv')).toBe(false);
  });

  it('admits files whose real path is inside, and refuses links leading out, missing files and a closed boundary', () => {
    const boundary = new PathBoundary(() => [root]);
    expect(boundary.resolve(join(root, 'sub', 'a.mkv'))).toMatchObject({ ok: true });
    expect(boundary.resolve(join(root, 'inside-link.mkv'))).toEqual({ ok: true, realPath: join(root, 'sub', 'a.mkv') });
    expect(boundary.resolve(join(root, 'outside-link.mkv'))).toEqual({ ok: false, reason: 'outside' });
    expect(boundary.resolve(join(root, 'gone.mkv'))).toMatchObject({ ok: false, reason: 'missing' });
    expect(PathBoundary.closed().resolve(join(root, 'sub', 'a.mkv'))).toEqual({ ok: false, reason: 'outside' });
  });

  it('admits anything when the user follows external links, and sees a root that appears later', () => {
    expect(new PathBoundary(() => [root], true).resolve(join(root, 'outside-link.mkv'))).toMatchObject({ ok: true });
    const later = join(dir, 'later');
    const boundary = new PathBoundary(() => [root, later]);
    expect(boundary.admits(join(later, 'x.mkv'))).toBe(false);
    mkdirSync(later);
    expect(boundary.admits(join(later, 'x.mkv'))).toBe(true);
  });
});

describe('antenna start', () => {
  it('gives --allow-origin to the server and the player, the player its own flags, and the server the rest', () => {
    const { server, player } = startFlags({
      allowOrigin: ['http://dash.local:8123'],
      playerPort: '57001',
      tv: ['/media/tv'],
      token: 't'.repeat(16),
      headless: true,
      followExternalLinks: true,
    });
    expect(server).toEqual({
      allowOrigins: ['http://dash.local:8123'],
      tv: ['/media/tv'],
      token: 't'.repeat(16),
      followExternalLinks: true,
    });
    expect(player).toEqual({
      allowOrigins: ['http://dash.local:8123'],
      port: '57001',
      token: 't'.repeat(16),
      headless: true,
    });
  });
});

describe('server settings for safety', () => {
  it('reads --follow-external-links, --allow-origin and --allow-local-source from each place', () => {
    expect(resolveServerConfig([], '/srv')).toMatchObject({
      followExternalLinks: false,
      allowOrigins: [],
      allowLocalSources: [],
    });
    const config = resolveServerConfig(
      [{ followExternalLinks: true, allowOrigins: ['http://Dash.local:8123/'], allowLocalSources: ['feeds'] }],
      '/srv',
    );
    expect(config).toMatchObject({
      followExternalLinks: true,
      allowOrigins: ['http://dash.local:8123'],
      allowLocalSources: ['/srv/feeds'],
    });
    expect(
      settingsFromEnv({
        ANTENNA_FOLLOW_EXTERNAL_LINKS: 'true',
        ANTENNA_ALLOW_ORIGINS: 'http://a:1 http://b:2',
        ANTENNA_ALLOW_LOCAL_SOURCES: '/x:/y',
      }),
    ).toMatchObject({
      followExternalLinks: 'true',
      allowOrigins: ['http://a:1', 'http://b:2'],
      allowLocalSources: ['/x', '/y'],
    });
    expect(() => resolveServerConfig([{ allowOrigins: ['ftp://x'] }])).toThrow(/http or https/);
    expect(() => resolveServerConfig([{ followExternalLinks: 'maybe' }])).toThrow(/yes\/no/);
  });
});
