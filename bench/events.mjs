/**
 * How fast a failure reaches people (issue 39's target, for `npm run bench`): a real
 * `antenna server` records 4 channels at once from a real stream server; 3 sources are
 * dead (each answers 503), one dies mid-recording (its stream is cut after 2 s and never
 * comes back). The server tells over its SSE feed, a webhook (a node:http receiver here)
 * and MQTT (Debian's mosquitto, a subscriber here). Measured: each recording.failed's
 * delay from the event's own time (`at`, the server's clock, the same machine's) to its
 * arrival on each outlet, median and worst; and that each dead job is told failed
 * exactly once on each, and the one whose source died mid-recording never (what it
 * recorded is kept, told as recording.completed with a warning).
 *
 * References, in the same run: a bare node:http POST to the same receiver, and a bare
 * MQTT publish from one client to another through the same broker: the floors of a
 * webhook's and a publish's delivery on this machine. Run alone: `node bench/events.mjs`.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { connectAsync } from 'mqtt';
import { freePort } from './free-port.mjs';
import { stopChild } from './stop-child.mjs';
import { makeTsClip, startStreamServer } from './ts-stream-server.mjs';

const { fetch, TextDecoder, AbortController } = globalThis;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DEAD = 3;
const TARGET_MS = 1000;
const REFERENCE_ROUNDS = 20;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? Number.NaN : sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function mosquittoProgram() {
  for (const path of ['/usr/sbin/mosquitto', '/usr/bin/mosquitto']) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return 'mosquitto';
}

async function startBroker(work) {
  const port = await freePort();
  const conf = join(work, 'mosquitto.conf');
  writeFileSync(conf, `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\n`);
  const child = spawn(mosquittoProgram(), ['-c', conf], { stdio: 'ignore' });
  const url = `mqtt://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    try {
      const probe = await connectAsync(url, { reconnectPeriod: 0, connectTimeout: 1000 });
      await probe.endAsync();
      return { url, child };
    } catch (error) {
      if (tries > 100 || child.exitCode !== null)
        throw new Error(`mosquitto did not start: ${error.message}`, { cause: error });
      await sleep(50);
    }
  }
}

function startReceiver() {
  const got = [];
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const arrived = Date.now();
      const body = Buffer.concat(chunks).toString('utf8');
      if (request.url === '/hook') got.push({ event: JSON.parse(body).event, arrived });
      response.writeHead(204).end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, got })));
}

/** Reads an SSE stream, noting each event and when it arrived. */
async function readFeed(url, got, signal) {
  const response = await fetch(url, { signal });
  const decoder = new TextDecoder();
  let text = '';
  (async () => {
    try {
      for await (const chunk of response.body) {
        text += decoder.decode(chunk, { stream: true });
        let end;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const frame = text.slice(0, end);
          text = text.slice(end + 2);
          const data = frame.split('\n').find((line) => line.startsWith('data: '));
          if (data) got.push({ event: JSON.parse(data.slice(6)), arrived: Date.now() });
        }
      }
    } catch {
      // aborted at the end
    }
  })();
}

async function references(receiver, brokerUrl) {
  const port = receiver.server.address().port;
  const post = [];
  for (let i = 0; i < REFERENCE_ROUNDS; i++) {
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}/reference`, { method: 'POST', body: '{"ping":1}' });
    await response.arrayBuffer();
    post.push(performance.now() - started);
  }
  const a = await connectAsync(brokerUrl, { clientId: 'bench-ref-a' });
  const b = await connectAsync(brokerUrl, { clientId: 'bench-ref-b' });
  await b.subscribeAsync('bench/ref', { qos: 1 });
  const publish = [];
  for (let i = 0; i < REFERENCE_ROUNDS; i++) {
    const arrived = new Promise((resolve) => b.once('message', () => resolve(performance.now())));
    const started = performance.now();
    await a.publishAsync('bench/ref', String(i), { qos: 1 });
    publish.push((await arrived) - started);
  }
  await a.endAsync();
  await b.endAsync();
  return { postMs: median(post), publishMs: median(publish) };
}

export async function benchEvents({ antennaBin = join(ROOT, 'bin', 'antenna'), work, log }) {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const clip = await makeTsClip(join(work, 'clip.ts'), { seconds: 4, muxrateKbps: 2000 });
  const streams = await startStreamServer(clip.path);
  for (let i = 1; i <= DEAD; i++) streams.set(`dead${i}`, { kind: 'status', status: 503 });
  streams.set('dies', { dropAfterBytes: 500_000 });
  const names = [...Array.from({ length: DEAD }, (_, i) => `dead${i + 1}`), 'dies'];
  writeFileSync(
    join(work, 'channels.m3u'),
    [
      '#EXTM3U',
      ...names.map((name, i) => `#EXTINF:-1 tvg-id="${name}.bench" tvg-chno="${i + 1}",${name}\n${streams.url(name)}`),
    ].join('\n'),
  );
  // An 8-second programme on each channel, a few seconds from now: a keyword rule records them all.
  const start = Math.floor(Date.now() / 1000) + 12;
  const xmlTime = (seconds) => `${new Date(seconds * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14)} +0000`;
  writeFileSync(
    join(work, 'guide.xml'),
    [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<tv>',
      ...names.map((name) => `<channel id="${name}.bench"><display-name>${name}</display-name></channel>`),
      ...names.map(
        (name) =>
          `<programme start="${xmlTime(start)}" stop="${xmlTime(start + 8)}" channel="${name}.bench"><title>Bench ${name}</title></programme>`,
      ),
      '</tv>',
    ].join('\n'),
  );
  const broker = await startBroker(work);
  const receiver = await startReceiver();
  const mqttGot = [];
  const subscriber = await connectAsync(broker.url, { clientId: 'bench-events' });
  subscriber.on('message', (_topic, payload) =>
    mqttGot.push({ event: JSON.parse(payload.toString()), arrived: Date.now() }),
  );
  await subscriber.subscribeAsync('antenna/events/#', { qos: 1 });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  log(`events: ${DEAD} dead sources and one dying mid-recording, told over SSE, a webhook and MQTT`);
  const antenna = spawn(
    process.execPath,
    [
      antennaBin,
      'server',
      ...['--data', join(work, 'data'), '--host', '127.0.0.1', '--port', String(port), '--no-sample'],
      ...['--m3u', join(work, 'channels.m3u'), '--m3u-streams', '8', '--log-level', 'warn', '--no-mdns'],
      ...['--xmltv', join(work, 'guide.xml')],
      ...['--webhook', `http://127.0.0.1:${receiver.server.address().port}/hook`, '--mqtt', broker.url],
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const feedGot = [];
  const stopFeed = new AbortController();
  try {
    for (let tries = 0; ; tries++) {
      try {
        const channels = await (await fetch(`${base}/api/v1/channels`)).json();
        if (channels.length === names.length) break;
      } catch {
        // not up yet
      }
      if (tries > 300) throw new Error('antenna did not list the channels');
      await sleep(100);
    }
    await readFeed(`${base}/dvr/events`, feedGot, stopFeed.signal);
    const response = await fetch(`${base}/dvr/rules`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'keyword', keyword: 'bench' }),
    });
    if (response.status !== 201) throw new Error(`rule: ${response.status} ${await response.text()}`);
    const jobs = names.map((name, i) => ({ channel: String(i + 1), name }));
    if (Date.now() / 1000 > start - 1) throw new Error('the server took too long to start: the programmes began');
    const settled = () =>
      feedGot.filter((e) => e.event.kind === 'recording.failed' || e.event.kind === 'recording.completed').length >=
      names.length;
    for (const deadline = Date.now() + 60_000; !settled(); ) {
      if (Date.now() > deadline) throw new Error('the recordings did not end within 60 s');
      await sleep(100);
    }
    // Give the slower outlets (and any second, wrong, telling) a moment.
    await sleep(1500);
    const ofKind = (got, kind) => got.filter((e) => e.event.kind === kind);
    const failedPer = (got) => {
      const counts = new Map(jobs.map((job) => [job.channel, 0]));
      for (const e of ofKind(got, 'recording.failed'))
        counts.set(e.event.data.channel, (counts.get(e.event.data.channel) ?? 0) + 1);
      return counts;
    };
    const outlets = { sse: feedGot, webhook: receiver.got, mqtt: mqttGot };
    const result = { dead: DEAD, outlets: {} };
    for (const [name, got] of Object.entries(outlets)) {
      const delays = ofKind(got, 'recording.failed').map((e) => e.arrived - e.event.at);
      const counts = failedPer(got);
      result.outlets[name] = {
        medianMs: median(delays),
        worstMs: Math.max(...delays),
        exactlyOnce: jobs.slice(0, DEAD).every((job) => counts.get(job.channel) === 1),
        diedMidFailed: counts.get(String(names.length)) ?? 0,
        diedMidTold: got.some(
          (e) => e.event.kind === 'recording.completed' && e.event.data.channel === String(names.length),
        ),
      };
    }
    result.reference = await references(receiver, broker.url);
    return result;
  } finally {
    stopFeed.abort();
    await stopChild(antenna);
    await subscriber.endAsync();
    await stopChild(broker.child);
    receiver.server.closeAllConnections();
    receiver.server.close();
    await streams.close();
    rmSync(work, { recursive: true, force: true });
  }
}

export function eventsRows(events, { verdict }) {
  const ref = events.reference;
  return Object.entries(events.outlets).map(([name, o]) => ({
    target: `Events: recording.failed over ${name === 'sse' ? 'SSE' : name === 'mqtt' ? 'MQTT' : 'a webhook'} (${events.dead} dead sources, one dying mid-recording), median / worst from the event`,
    threshold: `≤ ${TARGET_MS} ms, once per dead job, none for the other`,
    measured: `${o.medianMs.toFixed(0)} / ${o.worstMs.toFixed(0)} ms; ${o.exactlyOnce ? 'once each' : 'NOT once each'}; mid-recording: ${o.diedMidFailed} failed${o.diedMidTold ? ', told completed' : ''}`,
    ceiling:
      name === 'mqtt'
        ? `bare MQTT publish → subscriber: ${ref.publishMs.toFixed(1)} ms`
        : name === 'webhook'
          ? `bare node:http POST: ${ref.postMs.toFixed(1)} ms`
          : 'the event’s own clock',
    ratio: '',
    result: verdict(o.worstMs <= TARGET_MS && o.exactlyOnce && o.diedMidFailed === 0 && o.diedMidTold),
  }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await benchEvents({ work: join(ROOT, '.bench', 'events'), log: console.log });
  console.log(JSON.stringify(result, null, 2));
}
