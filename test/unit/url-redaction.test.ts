/** URLs as logs show them: credentials in the userinfo and in secret query keys replaced, the rest kept. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  REDACTED,
  SECRET_QUERY_KEYS,
  isSecretKey,
  redactUrl,
  redactUrlsInText,
} from '../../src/common/url-redaction.js';

describe('redactUrl', () => {
  it('replaces the userinfo of an absolute URL, user and password alike', () => {
    expect(redactUrl('http://user:pass@iptv.example:8080/get.php')).toBe('http://[Redacted]@iptv.example:8080/get.php');
    expect(redactUrl('https://token@tuner.local/lineup.json')).toBe('https://[Redacted]@tuner.local/lineup.json');
    // The last @ of the authority ends the userinfo, as URL parsers read it.
    expect(redactUrl('http://me:p@ss@host/x')).toBe('http://[Redacted]@host/x');
    expect(redactUrl('ftp://a:b@files.example')).toBe('ftp://[Redacted]@files.example');
    // An @ in the path is not userinfo.
    expect(redactUrl('http://host/users/@me')).toBe('http://host/users/@me');
  });

  it('replaces the values of secret query and fragment keys, in any letter case, and keeps the others', () => {
    expect(redactUrl('/api/play/recording/x?token=SECRET')).toBe('/api/play/recording/x?token=[Redacted]');
    expect(
      redactUrl('/dvr/refresh?a=1&Access_Token=S&b=2&API-KEY=S&apikey=S&password=S&passwd=S&secret=S&auth=S&key=S'),
    ).toBe(
      '/dvr/refresh?a=1&Access_Token=[Redacted]&b=2&API-KEY=[Redacted]&apikey=[Redacted]&password=[Redacted]&passwd=[Redacted]&secret=[Redacted]&auth=[Redacted]&key=[Redacted]',
    );
    expect(redactUrl('http://iptv.example/get.php?username=me&password=pw&type=m3u_plus')).toBe(
      'http://iptv.example/get.php?username=[Redacted]&password=[Redacted]&type=m3u_plus',
    );
    expect(redactUrl('http://plex.local/library?X-Plex-Token=abc')).toBe(
      'http://plex.local/library?X-Plex-Token=[Redacted]',
    );
    expect(redactUrl('http://app.example/cb#access_token=abc&state=1')).toBe(
      'http://app.example/cb#access_token=[Redacted]&state=1',
    );
    // A key written with percent-encoding is still the key.
    expect(redactUrl('/x?%74oken=abc')).toBe('/x?%74oken=[Redacted]');
  });

  it('leaves a URL without credentials as it is', () => {
    for (const url of [
      'http://192.168.1.20:8089',
      '/api/v1/shows?sort=date_added&order=desc',
      'http://tv.local:8089/dvr/files/imp-0123/stream',
      '/status',
      'not a url',
      '',
      '?',
      'http://h/?keyboard=1&monkey=2&token',
    ]) {
      expect(redactUrl(url), url).toBe(url);
    }
  });

  it('never leaves a secret value in a URL, wherever it sits (property)', () => {
    // Secrets no other part of the URL can contain by chance.
    const secret = fc.stringMatching(/^[A-Za-z0-9._~!$'()*,;:@/?%-]{1,24}$/).map((text) => `Zq9${text}`);
    const secretKey = fc
      .constantFrom(...SECRET_QUERY_KEYS, 'x-plex-token', 'stream_password', 'app_secret')
      .chain((key) =>
        fc
          .array(fc.boolean(), { minLength: key.length, maxLength: key.length })
          .map((upper) => [...key].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('')),
      );
    const other = fc
      .tuple(fc.constantFrom('sort', 'page', 'q', 'type', 'output'), fc.stringMatching(/^[a-y0-9]{0,8}$/))
      .map(([k, v]) => `${k}=${v}`);
    const url = fc.record({
      base: fc.webUrl({ withQueryParameters: false, withFragments: false }),
      userinfo: fc.option(fc.tuple(secret, fc.option(secret, { nil: undefined })), { nil: undefined }),
      before: fc.array(other, { maxLength: 3 }),
      secrets: fc.array(fc.tuple(secretKey, secret), { minLength: 1, maxLength: 3 }),
      after: fc.array(other, { maxLength: 3 }),
      inFragment: fc.boolean(),
    });
    fc.assert(
      fc.property(url, ({ base, userinfo, before, secrets, after, inFragment }) => {
        fc.pre(!base.includes('Zq9'));
        const values = [
          ...secrets.map(([, value]) => value),
          ...(userinfo ? userinfo.filter((v) => v !== undefined) : []),
        ];
        const withUser = userinfo
          ? base.replace(
              '://',
              `://${encodeURIComponent(userinfo[0])}${userinfo[1] === undefined ? '' : `:${encodeURIComponent(userinfo[1])}`}@`,
            )
          : base;
        const parameters = [
          ...before,
          ...secrets.map(([key, value]) => `${key}=${encodeURIComponent(value)}`),
          ...after,
        ].join('&');
        const full = `${withUser}${inFragment ? '#' : '?'}${parameters}`;
        const redacted = redactUrl(full);
        for (const value of values) {
          expect(redacted).not.toContain(value);
          expect(redacted).not.toContain(encodeURIComponent(value));
        }
        expect(redacted).toContain(REDACTED);
        // Where it went is still there.
        expect(redacted.replace(`${REDACTED}@`, '').startsWith(base)).toBe(true);
        expect(redactUrl(redacted)).toBe(redacted);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws, whatever the text (property)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => void redactUrl(text)));
  });
});

describe('isSecretKey', () => {
  it('knows the listed keys and those ending in token, password, secret or api key, and no others', () => {
    for (const key of [
      'token',
      'TOKEN',
      'access_token',
      'Api-Key',
      'x_plex_token',
      'db_password',
      'client_secret',
      'x-api-key',
    ])
      expect(isSecretKey(key), key).toBe(true);
    for (const key of ['sort', 'page', 'monkey', 'keyboard', 'tokens', 'author', ''])
      expect(isSecretKey(key), key).toBe(false);
  });
});

describe('redactUrlsInText', () => {
  it('redacts each URL an error message names, and nothing else', () => {
    expect(
      redactUrlsInText(
        'The Antenna server at http://me:pw@10.0.0.2:8089 cannot be reached (ECONNREFUSED); check that it runs.',
      ),
    ).toBe(
      'The Antenna server at http://[Redacted]@10.0.0.2:8089 cannot be reached (ECONNREFUSED); check that it runs.',
    );
    expect(redactUrlsInText('fetch "https://a.example/x?token=abc" and http://b.example/?key=k&id=1 failed')).toBe(
      'fetch "https://a.example/x?token=[Redacted]" and http://b.example/?key=[Redacted]&id=1 failed',
    );
    const plain = 'recording failed; check the channel’s source';
    expect(redactUrlsInText(plain)).toBe(plain);
  });
});
