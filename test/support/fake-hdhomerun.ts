/**
 * A stand-in HDHomeRun on 127.0.0.1: a real HTTP server speaking the published
 * interface (discover.json, lineup.json, lineup_status.json, /auto/v<number>), with
 * BaseURL and LineupURL pointing at itself. Each channel's /auto/v<number> relays the
 * stream URL (or local file) the test gave, and like the hardware it answers 503 with
 * `X-HDHomeRun-Error: 805 All Tuners In Use` while every tuner is streaming.
 */
import { type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { openSource } from '../../src/dvr/sources/source-reader.js';

export interface FakeChannel {
  number: string;
  name: string;
  url: string;
  hd?: boolean;
}

export interface FakeHdHomeRun {
  /** host:port, as a user would type it. */
  address: string;
  close(): Promise<void>;
  /** Every request's path (and query), in order. */
  requests: string[];
}

export async function startFakeHdHomeRun(
  channels: FakeChannel[],
  opts: { tunerCount?: number; deviceId?: string } = {},
): Promise<FakeHdHomeRun> {
  const tunerCount = opts.tunerCount ?? 2;
  const deviceId = opts.deviceId ?? '1050A1B2';
  const requests: string[] = [];
  const streams = new Set<Readable>();
  let base = '';

  const documents: Record<string, () => unknown> = {
    '/discover.json': () => ({
      FriendlyName: 'HDHomeRun FLEX 4K',
      ModelNumber: 'HDFX-4K',
      FirmwareName: 'hdhomerun_dvr_atsc3',
      FirmwareVersion: '20240101',
      DeviceID: deviceId,
      DeviceAuth: 'fake-auth',
      BaseURL: base,
      LineupURL: `${base}/lineup.json`,
      TunerCount: tunerCount,
    }),
    '/lineup.json': () =>
      channels.map((c) => ({
        GuideNumber: c.number,
        GuideName: c.name,
        ...(c.hd ? { HD: 1 } : {}),
        URL: `${base}/auto/v${c.number}`,
      })),
    '/lineup_status.json': () => ({ ScanInProgress: 0, ScanPossible: 1, Source: 'Cable', SourceList: ['Cable'] }),
  };

  let busy = 0;
  async function relay(channel: FakeChannel, response: ServerResponse): Promise<void> {
    if (busy >= tunerCount) return refuse(response, '805 All Tuners In Use');
    // The tuner is taken from the request until the viewer goes, as on the hardware.
    busy++;
    const abort = new AbortController();
    response.on('close', () => {
      busy--;
      abort.abort();
    });
    let source: Readable;
    try {
      source = await openSource(channel.url, { signal: abort.signal });
    } catch {
      return refuse(response, '807 No Video Data');
    }
    streams.add(source);
    source.on('close', () => streams.delete(source));
    response.on('close', () => source.destroy());
    source.on('error', () => response.destroy());
    response.writeHead(200, { 'content-type': 'video/mp2t', 'cache-control': 'no-cache' });
    source.pipe(response);
  }

  const server = createServer((request, response) => {
    const url = request.url ?? '/';
    requests.push(url);
    const path = url.replace(/\?.*$/s, '');
    const document = documents[path];
    if (document) {
      const body = JSON.stringify(document());
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      return void response.end(body);
    }
    const channel = channels.find((c) => path === `/auto/v${c.number}`);
    if (channel) return void relay(channel, response);
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('Not Found');
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  return {
    address: `127.0.0.1:${port}`,
    requests,
    close: async () => {
      for (const stream of streams) stream.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function refuse(response: ServerResponse, error: string): void {
  if (response.destroyed) return;
  response.writeHead(503, { 'content-type': 'text/plain', 'x-hdhomerun-error': error });
  response.end(error);
}
