/**
 * Property-based tests of interface A: whatever the query string, the id, the
 * encoding or the conditional and encoding headers, every endpoint answers 200,
 * 304, 400 or 404, never a crash, always with JSON; a 400 names the parameter.
 * Plus a metamorphic property of the list endpoints: filters combine with AND and
 * filtering never changes the relative order of what remains.
 */
import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, type RouteInfo, pathFor } from '../support/library-endpoints.js';
import { seedLibrary } from '../support/seed-library.js';
import { type TempLibrary, buildTestApp, createTempLibrary } from '../support/temp-library.js';

type Json = Record<string, unknown>;

const RUNS_PER_ENDPOINT = 200;
const METAMORPHIC_RUNS = 60;

let temp: TempLibrary;
let app: FastifyInstance;

beforeAll(async () => {
  temp = createTempLibrary();
  seedLibrary(temp.db);
  app = await buildTestApp(temp);
});

afterAll(async () => {
  await app.close();
  temp.close();
});

// ---------------------------------------------------------------------------
// Encodings

const hex = (byte: number) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
/** Every UTF-8 byte as %XX. */
const percentAll = (text: string) => [...Buffer.from(text, 'utf8')].map(hex).join('');
/** encodeURIComponent, falling back to byte encoding for text it refuses. */
const component = (text: string) => {
  try {
    return encodeURIComponent(text);
  } catch {
    return percentAll(text);
  }
};
/** Printable ASCII left as it is except the characters that would end the query or the path. */
const light = (text: string) =>
  [...text].map((ch) => (/^[\x21-\x7e]$/.test(ch) && !'#?&=/'.includes(ch) ? ch : percentAll(ch))).join('');

type Encoder = (text: string) => string;
const encoder: fc.Arbitrary<Encoder> = fc.constantFrom<Encoder>(component, percentAll, light);

/** Any text, written in one of several encodings; or bytes that may not be UTF-8 at all. */
const encodedText = (texts: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.tuple(texts, encoder).map(([text, encode]) => encode(text)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 12 }).map((bytes) => [...bytes].map(hex).join('')) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%Z', '%ZZ', '%E0%A4%A', '%C0%AF', '%00', '%FF%FE', '%2', 'a%') },
  );

// ---------------------------------------------------------------------------
// Query strings

const KNOWN_NAMES = ['watched', 'favorited', 'verified', 'source', 'sort', 'order', 'collection_type'];
const KNOWN_VALUES = [
  'true',
  'false',
  'recordings',
  'imports',
  'alpha',
  'date_added',
  'date_released',
  'date_aired',
  'title',
  'episode_title',
  'duration',
  'asc',
  'desc',
  'movies',
  'shows',
  '',
  'TRUE',
  'maybe',
  'null',
  '1',
];
const TRICKY_NAMES = [
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'toString',
  'valueOf',
  'sort[]',
  'watched[0]',
  'a.b',
  '',
  ' ',
];

const textUnits = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
);

const paramName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...KNOWN_NAMES) },
  { weight: 2, arbitrary: fc.constantFrom(...TRICKY_NAMES).map(component) },
  { weight: 2, arbitrary: encodedText(textUnits) },
);
const paramValue = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...KNOWN_VALUES) },
  { weight: 3, arbitrary: encodedText(textUnits) },
);
const pair = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(paramName, paramValue).map(([name, value]) => `${name}=${value}`) },
  { weight: 1, arbitrary: paramName },
  { weight: 1, arbitrary: fc.tuple(paramName, paramValue, paramValue).map(([n, v, w]) => `${n}=${v}=${w}`) },
);
const randomQuery = fc.array(pair, { maxLength: 6 }).map((pairs) => pairs.join('&'));

/** Documented parameters with documented values, sometimes with junk mixed in. */
const validQueryFor = (route: RouteInfo): fc.Arbitrary<string> => {
  const names = Object.keys(route.params);
  if (names.length === 0) return fc.constant('');
  return fc
    .uniqueArray(fc.constantFrom(...names), { maxLength: names.length })
    .chain((picked) =>
      fc.tuple(
        ...picked.map((name) => fc.constantFrom(...(route.params[name] ?? [])).map((value) => `${name}=${value}`)),
      ),
    )
    .map((pairs) => pairs.join('&'));
};

const queryFor = (route: RouteInfo): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: randomQuery },
    { weight: 2, arbitrary: validQueryFor(route) },
    {
      weight: 1,
      arbitrary: fc.tuple(validQueryFor(route), randomQuery).map(([a, b]) => [a, b].filter(Boolean).join('&')),
    },
  );

// ---------------------------------------------------------------------------
// Ids

const idFor = (route: RouteInfo): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(route.sampleId ?? '') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'show-a',
        'ep-a1',
        'mov-1',
        'vid-1',
        'videos-00aa',
        'col-shows',
        'pl-empty',
        '1699990000-7',
      ),
    },
    {
      weight: 4,
      arbitrary: encodedText(fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 20 }))),
    },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ minLength: 1, maxLength: 40 }).map((bytes) => [...bytes].map(hex).join('')),
    },
  );

// ---------------------------------------------------------------------------
// Headers

const acceptEncoding = fc.option(
  fc.constantFrom('gzip', 'br', 'gzip, br', 'identity', 'br;q=0, gzip;q=0.5', '*', 'compress;q=x'),
  { nil: undefined },
);
const ifNoneMatch = fc.option(
  fc.oneof(
    { weight: 3, arbitrary: fc.constant('*') },
    { weight: 1, arbitrary: fc.constantFrom('"x"', 'W/"x"', '""', ',', 'W/', '"x", *') },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  ),
  { nil: undefined, freq: 3 },
);
const method = fc.constantFrom<'GET' | 'HEAD'>('GET', 'GET', 'GET', 'HEAD');

// ---------------------------------------------------------------------------

function decodedBody(res: LightMyRequestResponse): string {
  const encoding = res.headers['content-encoding'];
  if (encoding === 'gzip') return gunzipSync(res.rawPayload).toString('utf8');
  if (encoding === 'br') return brotliDecompressSync(res.rawPayload).toString('utf8');
  return res.body;
}

function hasNull(value: unknown): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) return value.some(hasNull);
  if (typeof value === 'object') return Object.values(value).some(hasNull);
  return false;
}

describe('every endpoint answers any request with 200, 304, 400 or 404 and JSON', () => {
  it.each(ROUTES.map((route) => [route.route, route] as const))('%s', async (_name, route) => {
    const hasId = route.route.includes(':id');
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(
        hasId ? idFor(route) : fc.constant(''),
        queryFor(route),
        method,
        acceptEncoding,
        ifNoneMatch,
        async (id, query, verb, encoding, tag) => {
          const path = hasId ? pathFor(route, id) : route.route;
          const url = query ? `${path}?${query}` : path;
          const headers: Record<string, string> = {};
          if (encoding !== undefined) headers['accept-encoding'] = encoding;
          if (tag !== undefined) headers['if-none-match'] = tag;
          const res = await app.inject({ method: verb, url, headers });
          const where = `${verb} ${url} ${JSON.stringify(headers)} -> ${res.statusCode}`;
          seen.add(res.statusCode);

          expect([200, 304, 400, 404], where).toContain(res.statusCode);
          if (res.statusCode === 304) {
            expect(res.rawPayload.length, where).toBe(0);
            return;
          }
          // A HEAD answer carries no body on the wire (Node drops it); inject may still
          // record one for answers made before routing. When present it must be JSON too.
          if (verb === 'HEAD' && res.rawPayload.length === 0) return;
          const text = decodedBody(res);
          expect(text.length, where).toBeGreaterThan(0);
          let body: unknown;
          expect(() => (body = JSON.parse(text)), `${where}: ${text.slice(0, 200)}`).not.toThrow();
          expect(hasNull(body), where).toBe(false);
          if (res.statusCode === 400) {
            const error = body as Json;
            expect(error.status, where).toBe(400);
            expect(typeof error.parameter, `${where}: ${text.slice(0, 200)}`).toBe('string');
            expect(String(error.parameter).length, where).toBeGreaterThan(0);
          }
          if (res.statusCode === 404) expect((body as Json).code, where).toBe('not_found');
          if (res.statusCode === 200) expect(typeof body, where).toBe('object');
        },
      ),
      { numRuns: RUNS_PER_ENDPOINT },
    );
    // The generators reach every kind of answer the endpoint can give.
    const expected = [200, 304, ...(hasId ? [404] : []), ...(Object.keys(route.params).length > 0 ? [400] : [])];
    expect([...seen].sort()).toEqual(expect.arrayContaining(expected.sort()));
  });
});

describe('filters combine with AND and keep the order of what remains', () => {
  const LISTS = ROUTES.filter((r) =>
    Object.keys(r.params).some((p) => ['watched', 'favorited', 'verified', 'source'].includes(p)),
  );

  async function listIds(url: string): Promise<string[]> {
    const res = await app.inject({ url });
    expect(res.statusCode, url).toBe(200);
    return res.json<Json[]>().map((item) => String(item.id));
  }

  it.each(LISTS.map((route) => [route.route, route] as const))('%s', async (_name, route) => {
    const filterNames = Object.keys(route.params).filter((p) => !['sort', 'order'].includes(p));
    const filterArb = fc
      .uniqueArray(fc.constantFrom(...filterNames), { maxLength: filterNames.length })
      .chain((picked) =>
        fc.tuple(
          ...picked.map((name) =>
            fc.constantFrom(...(route.params[name] ?? [])).map((value) => [name, value] as const),
          ),
        ),
      );
    const sortArb = fc.option(fc.constantFrom(...(route.params.sort ?? [])), { nil: undefined });
    const orderArb = fc.option(fc.constantFrom(...(route.params.order ?? [])), { nil: undefined });

    await fc.assert(
      fc.asyncProperty(filterArb, sortArb, orderArb, async (filters, sort, order) => {
        const base = pathFor(route);
        const sorting = [sort && `sort=${sort}`, order && `order=${order}`].filter(Boolean) as string[];
        const all = await listIds(sorting.length ? `${base}?${sorting.join('&')}` : base);
        const allowed: Set<string>[] = [];
        for (const [name, value] of filters) allowed.push(new Set(await listIds(`${base}?${name}=${value}`)));
        const query = [...filters.map(([name, value]) => `${name}=${value}`), ...sorting].join('&');
        const combined = await listIds(query ? `${base}?${query}` : base);
        expect(combined, query).toEqual(all.filter((id) => allowed.every((set) => set.has(id))));
      }),
      { numRuns: METAMORPHIC_RUNS },
    );
  });
});
