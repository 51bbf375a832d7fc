/**
 * The event feed over real HTTP on a real temp database: GET /dvr/events streams each
 * event as SSE (id, kind, JSON data) as it happens, replays the logged ones after
 * Last-Event-ID (or ?since=) without losing one told meanwhile, sends only the kinds
 * asked for, refuses an unknown kind with a 400 naming it, and ends when the server
 * closes. The log numbers on across a restart and keeps the newest N; a failing
 * subscriber does not stop the others.
 */
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kindsOf, lastEventIdOf, sseFrame } from '../../src/api/players/events.routes.js';
import { PathBoundary } from '../../src/common/path-boundary.js';
import { EventLog } from '../../src/events/event-log.service.js';
import { LibraryEditsService } from '../../src/management/library-edits.service.js';
import { MediaFilesService } from '../../src/management/media-files.service.js';
import type { AntennaEvent, NewEvent } from '../../src/model/events/event.schemas.js';
import { type TempLibrary, buildTestApp, createTempLibrary } from '../support/temp-library.js';
import { collectEvents } from '../support/event-feed.js';
import { until } from '../support/dvr-app.js';

const logger = pino({ level: 'silent' });
let temp: TempLibrary;
let events: EventLog;
let app: FastifyInstance;
let base: string;

const failed = (title: string): NewEvent => ({
  kind: 'recording.failed',
  severity: 'error',
  message: `Recording ${title} failed: the source stopped.`,
  data: { title, reason: 'the source stopped' },
});
const online: NewEvent = {
  kind: 'player.online',
  severity: 'info',
  message: 'Den is online.',
  data: { device_id: 'den00000' },
};

/** Reads the stream until `count` events came (or it ends). */
async function readEvents(url: string, count: number, headers: Record<string, string> = {}) {
  const feed = await collectEvents(url, headers);
  const done = (async () => {
    await Promise.race([
      feed.ended,
      until(
        () => feed.events.length,
        (n) => n >= count,
        10_000,
        `${count} events`,
      ),
    ]);
    feed.stop();
    return feed.events.slice(0, count);
  })();
  return { response: feed.response, done };
}

/** An app with the management routes and the event log, on the test's database. */
const eventsApp = () =>
  buildTestApp(temp, {
    management: {
      files: new MediaFilesService(temp.db, { recordingsDir: join(temp.dir, 'r'), boundary: PathBoundary.closed() }),
      edits: new LibraryEditsService(temp.db),
      token: undefined,
      roots: () => [],
      events,
    },
  });

beforeAll(async () => {
  temp = createTempLibrary();
  events = new EventLog(temp.db, { logger, keep: 5 });
  app = await eventsApp();
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await app.close();
  temp.close();
});

describe('GET /dvr/events', () => {
  it('streams each event as it happens: its id, its kind and the event as JSON', async () => {
    const reading = await readEvents(`${base}/dvr/events`, 2);
    expect(reading.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const first = events.emit(failed('The News'));
    events.emit(online);
    const got = await reading.done;
    expect(got.map((e) => [e.id, e.event])).toEqual([
      [first.id, 'recording.failed'],
      [first.id + 1, 'player.online'],
    ]);
    expect(got[0]?.data).toMatchObject({
      id: first.id,
      kind: 'recording.failed',
      severity: 'error',
      message: 'Recording The News failed: the source stopped.',
      data: { title: 'The News', reason: 'the source stopped' },
      at: expect.any(Number),
    });
  });

  it('replays what came after Last-Event-ID, then goes on live', async () => {
    const a = events.emit(failed('A'));
    events.emit(failed('B'));
    events.emit(failed('C'));
    const reading = await readEvents(`${base}/dvr/events`, 3, { 'last-event-id': String(a.id) });
    await new Promise((resolve) => setTimeout(resolve, 100));
    events.emit(failed('D'));
    const titles = (await reading.done).map((e) => e.data.data.title);
    expect(titles).toEqual(['B', 'C', 'D']);
    const bySince = await readEvents(`${base}/dvr/events?since=${a.id}`, 1);
    expect((await bySince.done)[0]?.data.data.title).toBe('B');
  });

  it('goes on telling a client whose Last-Event-ID is ahead of the log (a restored backup)', async () => {
    const reading = await readEvents(`${base}/dvr/events`, 1, { 'last-event-id': '999999999' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    events.emit(failed('After restore'));
    expect((await reading.done).map((e) => e.data.data.title)).toEqual(['After restore']);
  });

  it('sends only the kinds asked for, and refuses a kind it does not have', async () => {
    const reading = await readEvents(`${base}/dvr/events?kinds=player.online,player.offline`, 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    events.emit(failed('E'));
    events.emit(online);
    expect((await reading.done).map((e) => e.event)).toEqual(['player.online']);
    const bad = await fetch(`${base}/dvr/events?kinds=recording.failed,recording.exploded`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/Unknown event kind 'recording.exploded'/);
    expect((await fetch(`${base}/dvr/events?since=-3`)).status).toBe(400);
  });

  it('answers the newest events as JSON, newest first', async () => {
    const recent = (await (await fetch(`${base}/dvr/events/recent?limit=2`)).json()) as AntennaEvent[];
    expect(recent.map((e) => e.kind)).toEqual(['player.online', 'recording.failed']);
    expect(recent[0]!.id).toBeGreaterThan(recent[1]!.id);
  });
});

describe('closing the server', () => {
  it('ends the open streams, so it does not wait for their clients', async () => {
    const other = await eventsApp();
    await other.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(other.server.address() as AddressInfo).port}/dvr/events`;
    const reading = await readEvents(url, 5);
    const started = Date.now();
    await other.close();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await reading.done).toEqual([]);
  });
});

describe('the event log', () => {
  it('numbers on after a restart and keeps the newest', () => {
    for (let i = 0; i < 120; i++) events.emit(failed(`T${i}`));
    const last = events.latest(1)[0]!;
    const again = new EventLog(temp.db, { logger, keep: 5 });
    expect(again.emit(online).id).toBe(last.id + 1);
    // Trimmed every 100 events to the newest `keep`: never more than keep + 100.
    expect(again.after(0, 1000).length).toBeLessThanOrEqual(105);
    expect(again.after(0, 1000).at(-1)?.kind).toBe('player.online');
  });

  it('hands an event to every subscriber even when one fails', () => {
    const seen: string[] = [];
    const stopBad = events.subscribe(() => {
      throw new Error('broken subscriber');
    });
    const stopGood = events.subscribe((event) => seen.push(event.kind));
    events.emit(online);
    stopBad();
    stopGood();
    expect(seen).toEqual(['player.online']);
  });
});

describe('the feed’s rules', () => {
  it('reads kinds, Last-Event-ID and writes one frame per event', () => {
    expect(kindsOf(undefined)).toBeUndefined();
    expect(kindsOf(' recording.failed , disk.low ')).toEqual(new Set(['recording.failed', 'disk.low']));
    expect(() => kindsOf('nope')).toThrow(/Unknown event kind 'nope'/);
    expect(lastEventIdOf('42')).toBe(42);
    expect(lastEventIdOf(['7', '9'])).toBe(7);
    expect(lastEventIdOf('x1')).toBeUndefined();
    const frame = sseFrame({ id: 3, kind: 'disk.low', at: 1, severity: 'warning', message: 'a\nb', data: {} });
    expect(frame.split('\n\n')).toHaveLength(2);
    expect(frame).toMatch(/^id: 3\nevent: disk.low\ndata: \{.*\}\n\n$/);
  });
});
