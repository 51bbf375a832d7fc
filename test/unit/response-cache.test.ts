import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AnswerFront } from '../../src/answer-cache/answer-front.js';
import { describedArray, holdsNoItems } from '../../src/common/body-segments.js';
import { ItemStateLog } from '../../src/common/item-state-log.js';
import { CachedBody, type Payload, negotiateEncoding, strongEtag } from '../../src/answer-cache/cached-body.js';
import { ResponseCache } from '../../src/answer-cache/response-cache.js';

/** A payload's parts joined, checking the length it says they add up to. */
function joined(payload: Payload): Buffer {
  const bytes = Buffer.concat(payload.parts);
  expect(bytes.length).toBe(payload.length);
  return bytes;
}

describe('negotiateEncoding', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=0.5, br;q=0.8', 'br'],
    ['br;q=0.2, gzip;q=0.9', 'gzip'],
    ['*', 'br'],
    ['*;q=0', 'identity'],
    ['identity', 'identity'],
    ['GZIP', 'gzip'],
    ['gzip;q=abc', 'identity'],
  ] as const)('%j → %s', (header, expected) => {
    expect(negotiateEncoding(header)).toBe(expected);
  });

  it('never throws and always answers a known encoding', () => {
    fc.assert(
      fc.property(fc.string(), (header) => {
        expect(['br', 'gzip', 'identity']).toContain(negotiateEncoding(header));
      }),
    );
  });
});

describe('CachedBody', () => {
  const body = new CachedBody(Buffer.from('x'.repeat(2000)), strongEtag(Buffer.from('x'.repeat(2000))));

  it('has a strong, quoted ETag that depends on the bytes', () => {
    expect(body.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(strongEtag(Buffer.from('a'))).not.toBe(strongEtag(Buffer.from('b')));
  });

  it('gives compressed representations their own ETags', () => {
    expect(body.etagFor('gzip')).not.toBe(body.etag);
    expect(body.etagFor('br')).not.toBe(body.etagFor('gzip'));
    expect(body.etagFor('identity')).toBe(body.etag);
  });

  it('matches If-None-Match lists, weak forms, * and any representation’s tag', () => {
    expect(body.matches(body.etag)).toBe(true);
    expect(body.matches(`"other", ${body.etag}`)).toBe(true);
    expect(body.matches(`W/${body.etag}`)).toBe(true);
    expect(body.matches(body.etagFor('gzip'))).toBe(true);
    expect(body.matches('*')).toBe(true);
    expect(body.matches('"other"')).toBe(false);
    expect(body.matches('')).toBe(false);
  });

  it('compresses once per encoding, to bytes that decompress to the original', async () => {
    const gz = await body.encoded('gzip');
    expect(gunzipSync(joined(gz)).equals(body.identity)).toBe(true);
    expect(await body.encoded('gzip')).toBe(gz);
    expect(brotliDecompressSync(joined(await body.encoded('br'))).equals(body.identity)).toBe(true);
  });

  it('does not compress small bodies', () => {
    expect(new CachedBody(Buffer.from('{}'), '"a"').compressible()).toBe(false);
  });
});

describe('ResponseCache', () => {
  it('serves an entry only for the generation it was built from', () => {
    const cache = new ResponseCache(1_000_000);
    cache.set('k', '1.1', Buffer.from('one'));
    expect(cache.get('k', '1.1')?.identity.toString()).toBe('one');
    expect(cache.get('k', '2.1')).toBeUndefined();
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 1, entries: 1 });
  });

  it('evicts least recently used entries to stay within its byte budget', () => {
    const cache = new ResponseCache(60); // each 20-byte body is counted as 25
    cache.set('a', 'g', Buffer.alloc(20));
    cache.set('b', 'g', Buffer.alloc(20));
    cache.get('a', 'g'); // a is now the most recently used
    cache.set('c', 'g', Buffer.alloc(20));
    expect(cache.get('b', 'g')).toBeUndefined();
    expect(cache.get('a', 'g')).toBeDefined();
    expect(cache.get('c', 'g')).toBeDefined();
    expect(cache.stats().bytes).toBeLessThanOrEqual(60);
  });

  it('does not keep a body larger than the whole budget, but still returns it', () => {
    const cache = new ResponseCache(10);
    const body = cache.set('big', 'g', Buffer.alloc(100));
    expect(body.identity.length).toBe(100);
    expect(cache.stats().entries).toBe(0);
  });

  it('replaces an entry stored again under the same key', () => {
    const cache = new ResponseCache(1000);
    cache.set('k', 'g1', Buffer.alloc(10));
    cache.set('k', 'g2', Buffer.alloc(10));
    expect(cache.stats()).toMatchObject({ entries: 1, bytes: 13 });
  });
});

describe('AnswerFront', () => {
  const request = (url: string, method = 'GET') =>
    ({ method, url, headers: { host: 'h' } }) as unknown as IncomingMessage;
  function recorder() {
    const written: { status?: number; ended: boolean } = { ended: false };
    const response = {
      setHeader: () => response,
      writeHead: (status: number) => {
        written.status = status;
        return response;
      },
      end: () => {
        written.ended = true;
      },
    };
    return { written, response: response as unknown as ServerResponse };
  }

  it('answers only remembered GET and HEAD requests of the current generation', () => {
    const cache = new ResponseCache(1024 * 1024);
    let generation = 'g1';
    const front = new AnswerFront(cache, () => generation);
    cache.set('key', 'g1', Buffer.from('{}'));
    expect(front.tryAnswer(request('/a'), recorder().response)).toBe(false);
    front.remember(request('/a'), 'key');
    const hit = recorder();
    expect(front.tryAnswer(request('/a'), hit.response)).toBe(true);
    expect(hit.written).toEqual({ status: 200, ended: true });
    expect(front.tryAnswer(request('/a', 'HEAD'), recorder().response)).toBe(true);
    expect(front.tryAnswer(request('/a', 'POST'), recorder().response)).toBe(false);
    generation = 'g2';
    expect(front.tryAnswer(request('/a'), recorder().response)).toBe(false);
  });

  it('forgets the oldest requests beyond its bound, and everything once closed', () => {
    const cache = new ResponseCache(1024 * 1024);
    const front = new AnswerFront(cache, () => 'g', { maxRemembered: 3 });
    cache.set('key', 'g', Buffer.from('{}'));
    for (const url of ['/1', '/2', '/3', '/4']) front.remember(request(url), 'key');
    expect(front.size()).toBe(3);
    expect(front.tryAnswer(request('/1'), recorder().response)).toBe(false);
    expect(front.tryAnswer(request('/4'), recorder().response)).toBe(true);
    front.close();
    expect(front.size()).toBe(0);
    front.remember(request('/4'), 'key');
    expect(front.tryAnswer(request('/4'), recorder().response)).toBe(false);
  });

  it('leaves a compressed answer to the route until its variant is made', async () => {
    const cache = new ResponseCache(1024 * 1024);
    const front = new AnswerFront(cache, () => 'g');
    const body = cache.set('key', 'g', Buffer.from(JSON.stringify({ text: 'x'.repeat(4096) })));
    front.remember(request('/big'), 'key');
    const gzipRequest = {
      method: 'GET',
      url: '/big',
      headers: { host: 'h', 'accept-encoding': 'gzip' },
    } as unknown as IncomingMessage;
    expect(front.tryAnswer(gzipRequest, recorder().response)).toBe(false);
    await body.encoded('gzip');
    expect(front.tryAnswer(gzipRequest, recorder().response)).toBe(true);
  });
});

describe('AnswerFront when the library cannot say its generation', () => {
  it('hands the request to the router instead of throwing', () => {
    const cache = new ResponseCache(1024);
    const front = new AnswerFront(cache, () => {
      throw new Error('SQLITE_BUSY');
    });
    const request = { method: 'GET', url: '/a', headers: { host: 'h' } } as unknown as IncomingMessage;
    front.remember(request, 'key');
    const response = { headersSent: false } as unknown as ServerResponse;
    expect(front.tryAnswer(request, response)).toBe(false);
  });
});

describe('a body kept in pieces', () => {
  it('compresses to the whole of its bytes, in gzip and brotli, for a body of many megabytes', async () => {
    // Text that does not compress to nothing: numbers from a small generator, in 64 KB pieces.
    let seed = 7;
    const pieces = Array.from({ length: 64 }, () =>
      Buffer.from(
        Array.from({ length: 8_000 }, () => ((seed = (seed * 48271) % 2147483647) % 100000).toString(36)).join(','),
      ),
    );
    const offsets = pieces.reduce<number[]>(
      (list, _piece, i) => [...list, i === 0 ? 0 : (list[i - 1] as number) + (pieces[i - 1] as Buffer).length],
      [],
    );
    const whole = Buffer.concat(pieces);
    const body = new CachedBody({ chunks: pieces, offsets, length: whole.length }, '"t"');
    expect(body.identity.equals(whole)).toBe(true);
    expect(gunzipSync(joined(await body.encoded('gzip'))).equals(whole)).toBe(true);
    expect(brotliDecompressSync(joined(await body.encoded('br'))).equals(whole)).toBe(true);
  });
});

describe('a list under a stream of progress reports', () => {
  function library(holdMs = 1000) {
    const items = new Map([
      ['a', '{"id":"a","t":0}'],
      ['b', '{"id":"b","t":0}'],
    ]);
    const render = (id: string) => (items.has(id) ? Buffer.from(items.get(id) as string) : undefined);
    const log = new ItemStateLog();
    let changes = 0;
    let clock = 0;
    const cache = new ResponseCache(1024 * 1024, {
      stateLog: log,
      chunkBytes: 8,
      progressHoldMs: holdMs,
      now: () => clock,
    });
    const list = describedArray(
      [...items.keys()].map((id) => [id, render(id) as Buffer] as const),
      { patchable: true, render },
    );
    cache.set('list', 'g', list);
    const single = describedArray([['a', render('a') as Buffer] as const], { patchable: true, render });
    cache.set('single', 'g', single);
    const write = (id: string, json: string, progress: boolean) =>
      log.track(
        [id],
        () => changes,
        () => {
          items.set(id, json);
          changes++;
        },
        progress,
      );
    const text = (key: string) => cache.peek(key, 'g')?.identity.toString();
    return { write, text, tick: (ms: number) => (clock += ms), cache };
  }

  it('is patched at once for a report after a quiet while, then moves at most once per hold while reports keep coming', () => {
    const { write, text, tick } = library();
    write('a', '{"id":"a","t":1}', true);
    expect(text('list')).toBe('[{"id":"a","t":1},{"id":"b","t":0}]');
    tick(400);
    write('b', '{"id":"b","t":2}', true);
    expect(text('list')).toBe('[{"id":"a","t":1},{"id":"b","t":0}]');
    tick(599);
    expect(text('list')).toBe('[{"id":"a","t":1},{"id":"b","t":0}]');
    tick(1);
    expect(text('list')).toBe('[{"id":"a","t":1},{"id":"b","t":2}]');
  });

  it('never holds a mark (watched, favorite), nor a single item', () => {
    const { write, text, tick } = library();
    write('a', '{"id":"a","t":1}', true);
    expect(text('list')).toBe('[{"id":"a","t":1},{"id":"b","t":0}]');
    expect(text('single')).toBe('[{"id":"a","t":1}]');
    tick(10);
    write('a', '{"id":"a","t":2}', true);
    expect(text('single')).toBe('[{"id":"a","t":2}]');
    expect(text('list')).toBe('[{"id":"a","t":1},{"id":"b","t":0}]');
    write('b', '{"id":"b","t":0,"watched":true}', false);
    expect(text('list')).toBe('[{"id":"a","t":2},{"id":"b","t":0,"watched":true}]');
  });

  it('keeps the ETag it answers with while it holds, so its holders are answered 304', () => {
    const { write, cache, tick } = library();
    write('a', '{"id":"a","t":1}', true);
    const first = cache.peek('list', 'g');
    write('a', '{"id":"a","t":2}', true);
    expect(cache.peek('list', 'g')).toBe(first);
    tick(1000);
    const moved = cache.peek('list', 'g');
    expect(moved?.etag).not.toBe(first?.etag);
  });

  it('holds nothing with a hold of 0', () => {
    const { write, text } = library(0);
    for (const t of [1, 2, 3]) {
      write('a', `{"id":"a","t":${t}}`, true);
      expect(text('list')).toBe(`[{"id":"a","t":${t}},{"id":"b","t":0}]`);
    }
  });
});

describe('a body patched after item state writes', () => {
  function library() {
    const items = new Map([
      ['a', '{"id":"a","n":1}'],
      ['b', '{"id":"b","n":2}'],
    ]);
    const render = (id: string) => (items.has(id) ? Buffer.from(items.get(id) as string) : undefined);
    const log = new ItemStateLog();
    let changes = 0;
    // Pieces of a few bytes: each item in a piece of its own.
    const cache = new ResponseCache(1024 * 1024, { stateLog: log, chunkBytes: 8 });
    const body = cache.set(
      'k',
      'g',
      describedArray(
        [...items.keys()].map((id) => [id, render(id) as Buffer] as const),
        { patchable: true, render },
      ),
    );
    const write = (id: string, json?: string) =>
      log.track(
        [id],
        () => changes,
        () => {
          if (json) items.set(id, json);
          changes++;
        },
      );
    return { cache, body, write };
  }

  it('leaves an answer that holds no items (the jobs) as it is through item state writes; one not described is built again', () => {
    const { cache, write } = library();
    const jobs = cache.set('jobs', 'g', holdsNoItems(Buffer.from('[{"id":"1900000000-1"}]')));
    const other = cache.set('other', 'g', Buffer.from('{"what":"not described"}'));
    write('b', '{"id":"b","n":5}');
    expect(cache.peek('jobs', 'g')).toBe(jobs);
    expect(other).toBeDefined();
    expect(cache.peek('other', 'g')).toBeUndefined();
  });

  it('keeps its ETag when the items written again have the same bytes, so their holders are still answered 304', () => {
    const { cache, body, write } = library();
    write('a');
    expect(cache.peek('k', 'g')).toBe(body);
  });

  it('takes a new ETag when they differ', () => {
    const { cache, body, write } = library();
    write('b', '{"id":"b","n":3}');
    const patched = cache.peek('k', 'g');
    expect(patched?.etag).not.toBe(body.etag);
    expect(patched?.identity.toString()).toBe('[{"id":"a","n":1},{"id":"b","n":3}]');
  });

  it('is not waited for while zlib is deflating many other pieces (a fresh list): its gzip is soon only once they are done', async () => {
    const { cache, write } = library();
    write('b', '{"id":"b","n":4}');
    const patched = cache.peek('k', 'g') as CachedBody;
    expect(patched.gzipSoon()).toBe(true);
    // A list of 64 fresh pieces asks for its gzip: they fill zlib's pool, ahead of the patched body's one piece.
    const pieces = Array.from({ length: 64 }, (_, i) => Buffer.from(`${i}`.repeat(40_000)));
    const offsets = pieces.map((_, i) => i * 40_000);
    const big = new CachedBody({ chunks: pieces, offsets, length: 64 * 40_000 }, '"big"');
    const making = big.encoded('gzip');
    expect(patched.gzipSoon()).toBe(false);
    await making;
    expect(patched.gzipSoon()).toBe(true);
  });

  it('keeps the positions of its items per piece when a write leaves its bytes as they were, instead of working them out again at each write', () => {
    const { cache, body, write } = library();
    const segmentsOf = () =>
      (cache as unknown as { entries: Map<string, { segments: unknown }> }).entries.get('k')?.segments;
    const first = segmentsOf();
    write('a');
    expect(cache.peek('k', 'g')).toBe(body);
    const kept = segmentsOf();
    expect(kept).not.toBe(first);
    write('a');
    expect(cache.peek('k', 'g')).toBe(body);
    expect(segmentsOf()).toBe(kept);
  });

  it('is not sent to a client that left while its gzip was made, nor counted', async () => {
    const { cache, write } = library();
    const answered: number[] = [];
    const front = new AnswerFront(cache, () => 'g', { answered: (_route, _method, status) => answered.push(status) });
    front.remember({ method: 'GET', url: '/list', headers: { host: 'h' } } as unknown as IncomingMessage, 'k');
    write('b', `{"id":"b","n":"${'5'.repeat(2000)}"}`);
    const written: unknown[] = [];
    const response = {
      socket: { destroyed: true },
      writeHead: () => written.push('head'),
      write: () => written.push('part'),
      end: () => written.push('end'),
    } as unknown as ServerResponse;
    const gzipRequest = {
      method: 'GET',
      url: '/list',
      headers: { host: 'h', 'accept-encoding': 'gzip' },
    } as unknown as IncomingMessage;
    expect(front.tryAnswer(gzipRequest, response)).toBe(true);
    await (cache.peek('k', 'g') as CachedBody).encoded('gzip');
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual([]);
    expect(answered).toEqual([]);
  });

  it('is answered gzipped by the front once the pieces it changed are deflated, as the parts of one gzip member', async () => {
    const { cache, write } = library();
    const front = new AnswerFront(cache, () => 'g');
    front.remember({ method: 'GET', url: '/list', headers: { host: 'h' } } as unknown as IncomingMessage, 'k');
    write('b', `{"id":"b","n":"${'3'.repeat(2000)}"}`);
    const parts: Buffer[] = [];
    const headers: Record<string, string> = {};
    let ended: () => void = () => undefined;
    const end = new Promise<void>((resolve) => (ended = resolve));
    const response = {
      writeHead: (_status: number, given: Record<string, string>) => Object.assign(headers, given),
      cork: () => undefined,
      uncork: () => undefined,
      write: (part: Buffer) => parts.push(part),
      end: (part?: Buffer) => {
        if (part) parts.push(part);
        ended();
      },
    } as unknown as ServerResponse;
    const gzipRequest = {
      method: 'GET',
      url: '/list',
      headers: { host: 'h', 'accept-encoding': 'gzip' },
    } as unknown as IncomingMessage;
    // Its few pieces, never deflated before, are deflated off the event loop: answered once they are.
    expect(front.tryAnswer(gzipRequest, response)).toBe(true);
    await end;
    expect(headers['content-encoding']).toBe('gzip');
    expect(parts.length).toBeGreaterThan(2);
    const member = Buffer.concat(parts);
    expect(Number(headers['content-length'])).toBe(member.length);
    expect(gunzipSync(member).toString()).toBe(cache.peek('k', 'g')?.identity.toString());
  });
});
