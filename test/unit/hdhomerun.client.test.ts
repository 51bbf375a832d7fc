import fc from 'fast-check';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readHdHomeRun } from '../../src/dvr/sources/hdhomerun.client.js';
import { SourceError } from '../../src/dvr/sources/source-reader.js';
import { startFakeHdHomeRun } from '../support/fake-hdhomerun.js';

type Handler = (request: IncomingMessage, response: ServerResponse, base: string) => void;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((close) => close()));
});

/** A real loopback server for answers the fake tuner does not give; `address` is host:port. */
async function serve(handler: Handler): Promise<{ address: string; base: string; close(): Promise<void> }> {
  let base = '';
  const server = createServer((request, response) => handler(request, response, base));
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  base = `http://${address}`;
  const close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  cleanups.push(close);
  return { address, base, close };
}

function json(response: ServerResponse, body: unknown, status = 200): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A tuner answering `discover` (BaseURL/LineupURL filled in) and `lineup` at /lineup.json. */
function tuner(lineup: unknown, discover: Record<string, unknown> = {}): Handler {
  return (request, response, base) => {
    if (request.url === '/discover.json')
      return json(response, {
        DeviceID: 'ABCD1234',
        TunerCount: 3,
        BaseURL: base,
        LineupURL: `${base}/lineup.json`,
        ...discover,
      });
    if (request.url === '/lineup.json') return json(response, lineup);
    response.writeHead(404).end();
  };
}

async function failure(promise: Promise<unknown>): Promise<SourceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SourceError);
  return error as SourceError;
}

const channels = [
  { number: '2.1', name: 'WABC-HD', url: 'http://streams.test/2.1', hd: true },
  { number: '2.2', name: 'LAFF', url: 'http://streams.test/2.2' },
  { number: '13', name: 'PBS', url: 'http://streams.test/13', hd: false },
];

describe('readHdHomeRun', () => {
  it('reads the device and its lineup, whichever way the address is written', async () => {
    const fake = await startFakeHdHomeRun(channels, { tunerCount: 4, deviceId: '10ABCDEF' });
    cleanups.push(fake.close);
    const base = `http://${fake.address}`;
    for (const address of [fake.address, base, `${base}/`, ` ${base} `]) {
      const device = await readHdHomeRun(address);
      expect(device).toEqual({
        deviceId: '10ABCDEF',
        friendlyName: 'HDHomeRun FLEX 4K',
        tunerCount: 4,
        baseUrl: base,
        skipped: 0,
        channels: [
          { number: '2.1', name: 'WABC-HD', hd: true, url: `${base}/auto/v2.1` },
          { number: '2.2', name: 'LAFF', hd: false, url: `${base}/auto/v2.2` },
          { number: '13', name: 'PBS', hd: false, url: `${base}/auto/v13` },
        ],
      });
    }
    expect(fake.requests.slice(0, 2)).toEqual(['/discover.json', '/lineup.json']);
  });

  it('uses the LineupURL and BaseURL the device reports', async () => {
    const server = await serve((request, response, base) => {
      if (request.url === '/discover.json')
        return json(response, {
          DeviceID: 'X1',
          TunerCount: '2',
          BaseURL: `${base}/base/`,
          LineupURL: `${base}/custom/lineup?show=found`,
        });
      if (request.url === '/custom/lineup?show=found')
        return json(response, [{ GuideNumber: '5', GuideName: 'Five', URL: 'http://t/5' }]);
      response.writeHead(404).end();
    });
    const device = await readHdHomeRun(server.address);
    expect(device).toMatchObject({
      deviceId: 'X1',
      tunerCount: 2,
      baseUrl: `${server.base}/base`,
      channels: [{ number: '5', name: 'Five', url: 'http://t/5' }],
    });
    expect(device).not.toHaveProperty('friendlyName');
  });

  it('falls back to <address>/lineup.json and to the address as base URL', async () => {
    const server = await serve((request, response) => {
      if (request.url === '/discover.json')
        return json(response, { DeviceID: 'X1', TunerCount: 1, LineupURL: 'not a url' });
      if (request.url === '/lineup.json') return json(response, []);
      response.writeHead(404).end();
    });
    expect(await readHdHomeRun(server.address)).toEqual({
      deviceId: 'X1',
      tunerCount: 1,
      baseUrl: server.base,
      channels: [],
      skipped: 0,
    });
  });

  it('skips and counts DRM channels and entries without a number or a usable URL', async () => {
    const server = await serve(
      tuner([
        { GuideNumber: '2.1', GuideName: 'Good', URL: 'http://t/2.1', HD: 1 },
        { GuideNumber: '3', GuideName: 'Protected', URL: 'http://t/3', DRM: 1 },
        { GuideName: 'No number', URL: 'http://t/x' },
        { GuideNumber: '4', GuideName: 'No URL' },
        { GuideNumber: '5', GuideName: 'Bad URL', URL: 'rtsp://t/5' },
        { GuideNumber: ' ', GuideName: 'Blank number', URL: 'http://t/blank' },
        { GuideNumber: '2.1', GuideName: 'Repeat', URL: 'http://t/2.1b' },
        'not an object',
        null,
        { GuideNumber: 6, URL: 'http://t/6', DRM: 0 },
      ]),
    );
    const device = await readHdHomeRun(server.address);
    expect(device.channels).toEqual([
      { number: '2.1', name: 'Good', hd: true, url: 'http://t/2.1' },
      { number: '6', name: '6', hd: false, url: 'http://t/6' },
    ]);
    expect(device.skipped).toBe(8);
  });

  it('says which document answered an HTTP error', async () => {
    const missing = await serve((_request, response) => response.writeHead(404).end());
    const error = await failure(readHdHomeRun(missing.address));
    expect(error.message).toBe(`HDHomeRun at ${missing.address} answered HTTP 404 for discover.json`);
    expect(error.reason).toBe('http_status');
    const broken = await serve((request, response, base) => {
      if (request.url === '/discover.json') return tuner([])(request, response, base);
      response.writeHead(500).end();
    });
    await expect(readHdHomeRun(broken.address)).rejects.toMatchObject({
      message: `HDHomeRun at ${broken.address} answered HTTP 500 for lineup.json`,
      status: 500,
    });
  });

  it('says when a document is a web page instead of JSON', async () => {
    const router = await serve((_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end('<html><title>Router</title></html>'),
    );
    const error = await failure(readHdHomeRun(router.address));
    expect(error.reason).toBe('invalid');
    expect(error.message).toBe(
      `HDHomeRun at ${router.address} sent a discover.json that is not JSON (it begins "<html><title>Router</title></html>")`,
    );
    const lineupPage = await serve((request, response, base) => {
      if (request.url === '/discover.json') return tuner([])(request, response, base);
      response.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops</html>');
    });
    await expect(readHdHomeRun(lineupPage.address)).rejects.toMatchObject({
      reason: 'invalid',
      message: expect.stringContaining('sent a lineup.json that is not JSON'),
    });
  });

  it.each([
    [[], 'is not an object'],
    [{ TunerCount: 2 }, 'has no DeviceID'],
    [{ DeviceID: 'A', TunerCount: 'two' }, 'has no TunerCount (is it a tuner, not a DVR or storage device?)'],
    [{ DeviceID: 'A', TunerCount: -1 }, 'has no TunerCount (is it a tuner, not a DVR or storage device?)'],
  ])('refuses a discover.json shaped like %j', async (discover, problem) => {
    const server = await serve((request, response) =>
      request.url === '/discover.json' ? json(response, discover) : json(response, []),
    );
    const error = await failure(readHdHomeRun(server.address));
    expect(error.reason).toBe('invalid');
    expect(error.message).toBe(`HDHomeRun at ${server.address} sent a discover.json that ${problem}`);
  });

  it('refuses a lineup that is not a list', async () => {
    const server = await serve(tuner({ channels: [] }));
    await expect(readHdHomeRun(server.address)).rejects.toMatchObject({
      reason: 'invalid',
      message: `HDHomeRun at ${server.address} sent a lineup.json that is not a list of channels`,
    });
  });

  it('gives up on a tuner that never answers', async () => {
    const silent = await serve(() => {});
    const started = Date.now();
    const error = await failure(readHdHomeRun(silent.address, { timeoutMs: 200 }));
    expect(error.reason).toBe('timeout');
    expect(error.message).toBe(`HDHomeRun at ${silent.address} did not answer within 0.2 s (asked for discover.json)`);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('says when nothing listens at the address', async () => {
    const gone = await serve(() => {});
    await gone.close();
    const error = await failure(readHdHomeRun(gone.address));
    expect(error.reason).toBe('unreachable');
    expect(error.message).toBe(
      `HDHomeRun at ${gone.address} could not be reached (connection refused); check the address and that the tuner is on`,
    );
  });

  it.each(['', '   ', 'ftp://10.0.0.5', 'http://', 'bad host name', 'file:///dev/null'])(
    'refuses the address %j',
    async (address) => {
      const error = await failure(readHdHomeRun(address));
      expect(error.reason).toBe('invalid');
      expect(error.message).toMatch(/is not an address; give a host/);
    },
  );

  it('stops when the caller aborts', async () => {
    const silent = await serve(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stopping')), 50);
    await expect(readHdHomeRun(silent.address, { signal: controller.signal })).rejects.toThrow('stopping');
  });

  it('returns every channel the tuner lists (property)', async () => {
    const channel = fc.record({
      number: fc
        .tuple(fc.integer({ min: 1, max: 999 }), fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }))
        .map(([a, b]) => (b === undefined ? `${a}` : `${a}.${b}`)),
      name: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() === s && s !== ''),
      hd: fc.option(fc.boolean(), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(channel, { selector: (c) => c.number, maxLength: 30 }), async (lineup) => {
        const fake = await startFakeHdHomeRun(lineup.map((c) => ({ ...c, url: 'http://streams.test/x' })));
        try {
          const device = await readHdHomeRun(fake.address);
          expect(device.skipped).toBe(0);
          expect(device.channels).toEqual(
            lineup.map((c) => ({
              number: c.number,
              name: c.name,
              hd: c.hd === true,
              url: `http://${fake.address}/auto/v${c.number}`,
            })),
          );
        } finally {
          await fake.close();
        }
      }),
      { numRuns: 25 },
    );
  });

  it('accounts for every lineup entry, whatever the JSON (property)', async () => {
    let lineup: unknown = [];
    const server = await serve((request, response, base) => tuner(lineup)(request, response, base));
    const entry = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.record(
        {
          GuideNumber: fc.oneof(fc.string(), fc.integer()),
          GuideName: fc.jsonValue({ maxDepth: 0 }),
          URL: fc.oneof(fc.webUrl(), fc.string()),
          HD: fc.jsonValue({ maxDepth: 0 }),
          DRM: fc.constantFrom(0, 1, true),
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.array(entry, { maxLength: 20 }), fc.jsonValue({ maxDepth: 2 })), async (value) => {
        lineup = value;
        const result = await readHdHomeRun(server.address).catch((e: unknown) => e);
        if (!Array.isArray(value)) {
          expect(result).toMatchObject({ reason: 'invalid' });
          return;
        }
        if (result instanceof Error) throw result;
        const device = result as Awaited<ReturnType<typeof readHdHomeRun>>;
        expect(device.channels.length + device.skipped).toBe(value.length);
        expect(new Set(device.channels.map((c) => c.number)).size).toBe(device.channels.length);
        for (const c of device.channels) {
          expect(c.url).toMatch(/^https?:\/\//i);
          expect(c.number.trim()).toBe(c.number);
          expect(c.number).not.toBe('');
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('the fake HDHomeRun', () => {
  it('relays a channel’s stream and, like the hardware, refuses more streams than it has tuners', async () => {
    const upstream = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'video/mp2t' });
      const timer = setInterval(() => response.write(Buffer.alloc(188, 0x47)), 10);
      response.on('close', () => clearInterval(timer));
    });
    const fake = await startFakeHdHomeRun([{ number: '7.1', name: 'WTUN', url: `${upstream.base}/stream` }], {
      tunerCount: 1,
    });
    cleanups.push(fake.close);
    const [channel] = (await readHdHomeRun(fake.address)).channels;
    const viewer = new AbortController();
    const first = await fetch(channel!.url, { signal: viewer.signal });
    expect(first.status).toBe(200);
    const reader = first.body!.getReader();
    const chunk = await reader.read();
    expect(Buffer.from(chunk.value!)[0]).toBe(0x47);
    const second = await fetch(channel!.url);
    expect(second.status).toBe(503);
    expect(second.headers.get('x-hdhomerun-error')).toBe('805 All Tuners In Use');
    viewer.abort();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const third = await fetch(channel!.url);
    expect(third.status).toBe(200);
    await third.body!.cancel();
    expect((await fetch(`http://${fake.address}/auto/v99`)).status).toBe(404);
    expect(fake.requests.filter((path) => path === '/auto/v7.1')).toHaveLength(3);
  });
});
