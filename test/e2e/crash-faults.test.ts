/**
 * Crash-proof, by test (issue 19): the real `antenna server` is killed with SIGKILL at
 * random moments (seeded; CRASH_SEED=<n> replays a run) while it scans a library, records
 * a live channel, and takes rule edits, resume positions and favorites from clients.
 * After each kill the database passes `PRAGMA quick_check`, and the restarted server
 * still holds every write it acknowledged (a write in flight may or may not have landed,
 * nothing older is lost); a recording it was making resumes, flagged corrupted from the
 * moment it resumes. At the end the library is what the files on disk say.
 */
import Database from 'better-sqlite3';
import { existsSync, linkSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, until } from '../support/dvr-app.js';
import { makeClip } from '../support/media-tree.js';
import { runAntenna, type StartedServer, startAntennaServer } from '../support/server-process.js';
import { makeTsClip, type StreamServer, startStreamServer } from '../support/ts-stream-server.js';

const SEED = Number(process.env.CRASH_SEED ?? 20261125);
const KILLS = 24;
const FILES = 400;

/** mulberry32: a small seeded generator, so a failing run can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A write's fate as a client knows it: the last value acknowledged, and one sent but not answered. */
interface Ledger<T> {
  acked?: T;
  inFlight?: T;
}

let dir: string;
let streams: StreamServer;
/** The server of the moment, stopped after the test even when an assertion failed mid-way. */
let live: StartedServer | undefined;
const rand = random(SEED);
const context = `CRASH_SEED=${SEED}`;

const media = () => join(dir, 'TV');
/** Files of "Show 19" may be deleted between kills; writes go only to the others' episodes. */
const removable = (n: number) => n % 20 === 19;
const fileOf = (n: number) =>
  join(
    media(),
    `Show ${String(n % 20)}`,
    'Season 01',
    `Show ${String(n % 20)} - S01E${String(n).padStart(3, '0')}.mp4`,
  );
const onDisk = new Set<number>();
const serverArgs = () => ['--data', join(dir, 'data'), '--tv', media(), '--m3u', join(dir, 'channels.m3u')];

const positions = new Map<string, Ledger<number>>();
const favorites = new Map<string, Ledger<boolean>>();
const rules = new Map<string, 'created' | 'deleted'>();
const rulesInFlight = new Set<string>();
/** Answers a client should never have had (a 500, a refused write): checked after each kill. */
const problems: string[] = [];
/** How much each kill cut through, so the test shows it did what it says. */
const seen = { acknowledged: 0, killsDuringScan: 0, killsWhileRecording: 0, killsAtStart: 0 };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'antenna-crash-'));
  // Hard links of one real clip: a library worth scanning (walk, probe, thumbnails) made in a moment.
  const clip = join(dir, 'clip.mp4');
  makeClip(clip);
  for (let n = 1; n <= FILES; n++) addFile(n, clip);
  const ts = await makeTsClip(join(dir, 'live.ts'), { seconds: 2 });
  streams = await startStreamServer(ts.path);
  writeFileSync(join(dir, 'channels.m3u'), `#EXTM3U\n#EXTINF:-1 tvg-chno="5",Crash News\n${streams.url('news')}\n`);
}, 120_000);

afterAll(async () => {
  await live?.stop('SIGKILL');
  await streams?.close();
  rmSync(dir, { recursive: true, force: true });
});

function addFile(n: number, clip = join(dir, 'clip.mp4')): void {
  mkdirSync(join(fileOf(n), '..'), { recursive: true });
  linkSync(clip, fileOf(n));
  onDisk.add(n);
}

async function send(
  server: StartedServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Json }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(5_000),
  });
  const text = await response.text();
  return { status: response.status, json: (text ? JSON.parse(text) : {}) as Json };
}

/** Writes as clients make them, one at a time per kind, until the server dies under them. */
function clients(server: StartedServer, itemIds: readonly string[], alive: () => boolean): Promise<void>[] {
  const positionsLoop = async () => {
    while (alive() && itemIds.length > 0) {
      const id = itemIds[Math.floor(rand() * itemIds.length)] as string;
      const ledger = positions.get(id) ?? {};
      positions.set(id, ledger);
      const seconds = (ledger.inFlight ?? ledger.acked ?? 0) + 1;
      ledger.inFlight = seconds;
      const { status } = await send(
        server,
        'PUT',
        `/dvr/files/${encodeURIComponent(id)}/playback_time/${String(seconds)}`,
      );
      if (status !== 200) return void problems.push(`PUT playback_time: ${String(status)}`);
      ledger.acked = seconds;
      delete ledger.inFlight;
      seen.acknowledged++;
    }
  };
  const favoritesLoop = async () => {
    while (alive() && itemIds.length > 0) {
      const id = itemIds[Math.floor(rand() * itemIds.length)] as string;
      const ledger = favorites.get(id) ?? {};
      favorites.set(id, ledger);
      const value = !(ledger.inFlight ?? ledger.acked ?? false);
      ledger.inFlight = value;
      const { status } = await send(server, 'PATCH', `/dvr/files/${encodeURIComponent(id)}`, { favorited: value });
      if (status !== 200) return void problems.push(`PATCH favorited: ${String(status)}`);
      ledger.acked = value;
      delete ledger.inFlight;
      seen.acknowledged++;
    }
  };
  const rulesLoop = async () => {
    while (alive()) {
      const created = [...rules].filter(([, state]) => state === 'created').map(([id]) => id);
      if (created.length > 3 && rand() < 0.4) {
        const id = created[Math.floor(rand() * created.length)] as string;
        rulesInFlight.add(id);
        const { status } = await send(server, 'DELETE', `/dvr/rules/${id}`);
        if (status !== 204) return void problems.push(`DELETE rule: ${String(status)}`);
        rules.set(id, 'deleted');
        rulesInFlight.delete(id);
      } else {
        const { status, json } = await send(server, 'POST', '/dvr/rules', {
          type: 'keyword',
          keyword: `crash word ${String(rand()).slice(2, 8)}`,
        });
        if (status !== 201) return void problems.push(`POST rule: ${String(status)}`);
        rules.set(String(json.id), 'created');
        seen.acknowledged++;
      }
    }
  };
  // A loop ends when the kill cuts its request (fetch throws): that is the point.
  return [positionsLoop(), favoritesLoop(), rulesLoop()].map((loop) => loop.catch(() => undefined));
}

function quickCheck(): string {
  const db = new Database(join(dir, 'data', 'antenna.db'));
  try {
    return String(db.pragma('quick_check', { simple: true }));
  } finally {
    db.close();
  }
}

/** Every acknowledged write is there; one in flight may have landed. */
async function checkWrites(server: StartedServer): Promise<void> {
  for (const [id, ledger] of positions) {
    const { status, json } = await send(server, 'GET', `/dvr/files/${encodeURIComponent(id)}`);
    expect(status, `${context}: item ${id}`).toBe(200);
    const stored = Number(json.playback_time ?? 0);
    const allowed = [ledger.acked ?? 0, ...(ledger.inFlight === undefined ? [] : [ledger.inFlight])];
    expect(allowed, `${context}: position of ${id}`).toContain(stored);
    // What landed becomes what the client knows.
    ledger.acked = stored;
    delete ledger.inFlight;
  }
  for (const [id, ledger] of favorites) {
    const { json } = await send(server, 'GET', `/dvr/files/${encodeURIComponent(id)}`);
    const stored = json.favorited === true;
    const allowed = [ledger.acked ?? false, ...(ledger.inFlight === undefined ? [] : [ledger.inFlight])];
    expect(allowed, `${context}: favorite of ${id}`).toContain(stored);
    ledger.acked = stored;
    delete ledger.inFlight;
  }
  const listed = new Set(
    ((await send(server, 'GET', '/dvr/rules')).json as unknown as Json[]).map((rule) => String(rule.id)),
  );
  for (const [id, state] of rules) {
    if (rulesInFlight.has(id)) continue;
    expect(listed.has(id), `${context}: rule ${id} ${state}`).toBe(state === 'created');
  }
  for (const id of rulesInFlight) rules.set(id, listed.has(id) ? 'created' : 'deleted');
  rulesInFlight.clear();
}

const episodes = async (server: StartedServer, source = 'imports') =>
  (await send(server, 'GET', `/api/v1/episodes?source=${source}`)).json as unknown as Json[];

describe('killed at random moments', () => {
  it(`keeps the database sound and every acknowledged write (${String(KILLS)} kills, ${context})`, async () => {
    let server = (live = await startAntennaServer(serverArgs()));
    // A recording runs through the whole test: a slot on the live channel.
    const start = Math.floor(Date.now() / 1000) + 1;
    const slot = await send(server, 'POST', '/dvr/rules', {
      type: 'slot',
      channel: '5',
      start_time: start,
      duration: 3600,
      name: 'Crash Live',
    });
    expect(slot.status, context).toBe(201);
    const jobId = `${String(start)}-${String(slot.json.id)}`;
    let killedWhileRecording = false;
    for (let kill = 0; kill < KILLS; kill++) {
      const itemIds = (await episodes(server))
        .filter((e) => !String(e.path).includes('/Show 19/'))
        .map((e) => String(e.id))
        .slice(0, 40);
      let alive = true;
      const loops = clients(server, itemIds, () => alive);
      await new Promise((resolve) => setTimeout(resolve, 50 + rand() * 1_500));
      const recording =
        (await send(server, 'GET', `/dvr/jobs/${jobId}/why`).catch(() => undefined))?.json.outcome === 'recording';
      const scanning =
        ((await send(server, 'GET', '/status').catch(() => undefined))?.json.scan as Json | undefined)?.running ===
        true;
      const recordingPath = recording
        ? String((await episodes(server, 'recordings').catch(() => []))[0]?.path ?? '')
        : '';
      alive = false;
      await server.stop('SIGKILL');
      await Promise.all(loops);
      expect(problems, context).toEqual([]);
      // A recording with bytes on disk resumes with a gap; one killed before its first bytes starts late instead
      // (flagged delayed).
      const hadBytes =
        recording && recordingPath !== '' && existsSync(recordingPath) && statSync(recordingPath).size > 0;
      killedWhileRecording ||= hadBytes;
      if (hadBytes) seen.killsWhileRecording++;
      if (scanning) seen.killsDuringScan++;
      // Files change while it is down: a new episode, an old one gone (never one with writes to check).
      addFile(FILES + kill + 1);
      const gone = [...onDisk].find(removable);
      if (gone !== undefined) {
        rmSync(fileOf(gone));
        onDisk.delete(gone);
      }
      expect(quickCheck(), context).toBe('ok');
      if (rand() < 0.25) {
        // Killed again while it starts: opening the database, migrating, settling the DVR.
        const { child, done } = runAntenna(['server', '--host', '127.0.0.1', '--port', '0', ...serverArgs()]);
        await new Promise((resolve) => setTimeout(resolve, 100 + rand() * 700));
        child.kill('SIGKILL');
        await done;
        seen.killsAtStart++;
        expect(quickCheck(), context).toBe('ok');
      }
      server = live = await startAntennaServer(serverArgs());
      await checkWrites(server);
      if (killedWhileRecording) {
        // Resumed after the kill, and flagged corrupted from the moment it resumes.
        await until(
          async () => (await send(server, 'GET', `/dvr/jobs/${jobId}/why`)).json,
          (why) => why.outcome === 'recording',
          10_000,
          'the recording resumed',
        );
        expect((await send(server, 'GET', `/api/v1/jobs/${jobId}`)).json.item, context).toMatchObject({
          corrupted: true,
        });
      }
    }
    expect(killedWhileRecording, context).toBe(true);
    // Every kind of moment was hit, and clients had plenty acknowledged.
    expect(seen.killsDuringScan, `${context} ${JSON.stringify(seen)}`).toBeGreaterThan(0);
    expect(seen.killsAtStart, `${context} ${JSON.stringify(seen)}`).toBeGreaterThan(0);
    expect(seen.acknowledged, `${context} ${JSON.stringify(seen)}`).toBeGreaterThan(200);

    // The library converges to the files: every file an episode, no episode without its file, each probed.
    const expected = [...onDisk].map(fileOf).sort();
    const converged = await until(
      () => episodes(server),
      (list) =>
        JSON.stringify(list.map((e) => String(e.path)).sort()) === JSON.stringify(expected) &&
        list.every((e) => Number(e.duration) > 0),
      60_000,
      'the library to match the files',
    );
    expect(converged, context).toHaveLength(onDisk.size);
    await checkWrites(server);
    const stopped = await server.stop('SIGTERM');
    live = undefined;
    expect(stopped.code, context).toBe(0);
    expect(quickCheck(), context).toBe('ok');
    console.info(`crash faults: ${JSON.stringify(seen)}`);
  }, 600_000);
});
