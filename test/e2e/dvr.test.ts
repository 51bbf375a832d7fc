/**
 * The DVR end to end, in real time: MPEG-TS streams made by ffmpeg and served over
 * loopback (one per channel, some misbehaving), an M3U playlist and a stand-in
 * HDHomeRun in front of them, an XMLTV guide with programmes starting seconds from
 * now, and the real server recording them. Files are checked with ffprobe.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/app/server.lifecycle.js';
import { resolveServerConfig } from '../../src/config/server-config.js';
import { localDate } from '../../src/dvr/recording/recording-paths.js';
import { startFakeHdHomeRun } from '../support/fake-hdhomerun.js';
import { collectEvents } from '../support/event-feed.js';
import { type WebhookReceiver, startWebhookReceiver } from '../support/webhook-receiver.js';
import { type Broker, startBroker } from '../support/mosquitto.js';
import { type MqttClient, connectAsync } from 'mqtt';
import { callJson, type Json, until, writeXmltv } from '../support/dvr-app.js';
import { runAntenna } from '../support/server-process.js';
import { tempDir } from '../support/temp-library.js';
import { makeTsClip, type StreamServer, startStreamServer } from '../support/ts-stream-server.js';

function ffprobeDuration(path: string): number {
  return Number(
    execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', path])
      .toString()
      .trim(),
  );
}

let work: string;
let streams: StreamServer;
let tuner: Awaited<ReturnType<typeof startFakeHdHomeRun>>;
let server: RunningServer;
let T: number;
const rules: Record<string, string> = {};

const call = (method: string, path: string, body?: unknown) => callJson(server.url, method, path, body);
let feed: Awaited<ReturnType<typeof collectEvents>>;
/** A webhook (from the config, as --webhook gives it): what it was POSTed. */
let hook: WebhookReceiver;
const postedOf = (id: string) =>
  hook.received
    .map((post) => (JSON.parse(post.body) as { event: { kind: string; data: { job_id?: string } } }).event)
    .filter((event) => event.data.job_id === id)
    .map((event) => event.kind);
/** A real MQTT broker the server publishes to, and what a subscriber got on the event topics. */
let broker: Broker;
let subscriber: MqttClient;
const mqttEvents: { kind: string; data: { job_id?: string } }[] = [];
const publishedOf = (id: string) => mqttEvents.filter((event) => event.data.job_id === id).map((event) => event.kind);
/** The events the feed sent about job `id`, by kind. */
const eventsOf = (id: string) => feed.events.filter((e) => e.data.data.job_id === id).map((e) => e.event);

const job = async (id: string) => (await call('GET', `/api/v1/jobs/${id}`)).json;

/** The guide, every programme seconds from T; the Cup Final on channel 11 ends at `cupFinalEnd`. */
function writeGuide(cupFinalEnd: number): void {
  writeXmltv(
    join(work, 'guide.xml'),
    [
      ['two.test', 'Two'],
      ['three.test', 'Three'],
      ['four.test', 'Four'],
      ['five.test', 'Five'],
      ['six.test', 'Six'],
      ['eight.test', 'Eight'],
      ['nine.test', 'Nine'],
      ['ten.test', 'Ten'],
      ['eleven.test', 'Eleven'],
      ['tuner.test', '7.1'],
    ],
    [
      {
        channel: 'two.test',
        start: T,
        stop: T + 8,
        title: 'Harbour Lights',
        extra:
          '<sub-title>Fog</sub-title><desc>Fog rolls in.</desc><episode-num system="xmltv_ns">0.1.</episode-num><episode-num system="dd_progid">EP00000001.0002</episode-num><new/>',
      },
      { channel: 'two.test', start: T + 8, stop: T + 3600, title: 'Late News' },
      {
        channel: 'three.test',
        start: T,
        stop: T + 6,
        title: 'Night Movie',
        extra: '<category>Movie</category><date>1999</date>',
      },
      { channel: 'four.test', start: T, stop: T + 5, title: 'Broken Web Page' },
      { channel: 'five.test', start: T + 1, stop: T + 5, title: 'Broken Garbage' },
      { channel: 'six.test', start: T + 2, stop: T + 5, title: 'Broken Missing' },
      { channel: 'eight.test', start: T, stop: T + 8, title: 'Flaky Show' },
      { channel: 'tuner.test', start: T, stop: T + 6, title: 'Tuner Show' },
      // Two different programmes of one keyword rule, starting at the same second on two channels.
      { channel: 'nine.test', start: T, stop: T + 5, title: 'Twin Peaks Live' },
      { channel: 'ten.test', start: T, stop: T + 5, title: 'Twin Falls Tonight' },
      // Extended by the guide while it records (see its test).
      {
        channel: 'eleven.test',
        start: T,
        stop: cupFinalEnd,
        title: 'Cup Final',
        extra: '<episode-num system="dd_progid">SP00000009.0001</episode-num>',
      },
      { channel: 'not-a-channel', start: T, stop: T - 10, title: 'Bad times' },
    ],
  );
}

beforeAll(async () => {
  work = tempDir('antenna-dvr-');
  const clip = await makeTsClip(join(work, 'clip.ts'), { seconds: 12, muxrateKbps: 2000 });
  streams = await startStreamServer(clip.path);
  streams.set('html', { kind: 'html' });
  streams.set('garbage', { kind: 'garbage' });
  streams.set('missing', { kind: 'status', status: 404 });
  // Cut after ~2 s of video: the recorder must reconnect and carry on.
  streams.set('flaky', { dropAfterBytes: 500_000 });
  tuner = await startFakeHdHomeRun([{ number: '7.1', name: 'WTUN', url: streams.url('tuner'), hd: true }], {
    tunerCount: 1,
  });
  const m3u = [
    '#EXTM3U',
    `#EXTINF:-1 tvg-id="two.test" tvg-chno="2" tvg-logo="http://logo/2.png",Two HD\n${streams.url('two')}`,
    `#EXTINF:-1 tvg-id="three.test" tvg-chno="3",Three\n${streams.url('three')}`,
    `#EXTINF:-1 tvg-id="four.test" tvg-chno="4",Four\n${streams.url('html')}`,
    `#EXTINF:-1 tvg-id="five.test" tvg-chno="5",Five\n${streams.url('garbage')}`,
    `#EXTINF:-1 tvg-id="six.test" tvg-chno="6",Six\n${streams.url('missing')}`,
    `#EXTINF:-1 tvg-id="eight.test" tvg-chno="8",Eight\n${streams.url('flaky')}`,
    `#EXTINF:-1 tvg-id="nine.test" tvg-chno="9",Nine\n${streams.url('nine')}`,
    `#EXTINF:-1 tvg-id="ten.test" tvg-chno="10",Ten\n${streams.url('ten')}`,
    `#EXTINF:-1 tvg-id="eleven.test" tvg-chno="11",Eleven\n${streams.url('eleven')}`,
    '#EXTINF:-1 broken line without a url',
  ].join('\n');
  writeFileSync(join(work, 'channels.m3u'), m3u);
  T = Math.floor(Date.now() / 1000) + 10;
  writeGuide(T + 50);
  hook = await startWebhookReceiver();
  broker = await startBroker();
  subscriber = await connectAsync(broker.url, { clientId: 'dvr-e2e' });
  subscriber.on('message', (_topic, payload) => mqttEvents.push(JSON.parse(payload.toString())));
  await subscriber.subscribeAsync('antenna/events/#');
  const config = resolveServerConfig([
    {
      data: join(work, 'data'),
      host: '127.0.0.1',
      port: 0,
      sample: false,
      m3u: [join(work, 'channels.m3u')],
      m3uStreams: 10,
      hdhomerun: [tuner.address],
      xmltv: [join(work, 'guide.xml')],
      webhooks: [hook.url],
      mqtt: broker.url,
      logLevel: 'silent',
    },
  ]);
  server = await startServer(config, pino({ level: 'silent' }));
  // Everything the server tells from the start: the events of the recordings below are checked against their jobs.
  feed = await collectEvents(`${server.url}/dvr/events`);
  // The first refresh runs in the background: wait for the guide.
  await until(
    () => call('GET', '/dvr/guides'),
    (r) => (r.json[0]?.programmes as number) > 0,
    15_000,
    'guide read',
  );
  const add = async (name: string, body: Json) => {
    const response = await call('POST', '/dvr/rules', body);
    expect(response.status).toBe(201);
    rules[name] = response.json.id as string;
  };
  await add('harbour', { type: 'series', title: 'Harbour Lights' });
  await add('movie', { type: 'program', channel: '3', start_time: T });
  await add('broken', { type: 'keyword', keyword: 'broken' });
  await add('flaky', { type: 'series', title: 'flaky show' });
  await add('tuner', { type: 'series', title: 'Tuner Show' });
  await add('twin', { type: 'keyword', keyword: 'twin' });
  await add('final', { type: 'series', title: 'Cup Final' });
  expect(Math.floor(Date.now() / 1000)).toBeLessThan(T);
}, 60_000);

afterAll(async () => {
  feed?.stop();
  await server?.stop();
  await streams?.close();
  await tuner?.close();
  await hook?.close();
  await subscriber?.endAsync();
  await broker?.stop();
});

// Its waits are for a shared timeline of recordings, post-processing included: longer than the default on a busy
// machine.
describe('DVR end to end', { timeout: 90_000 }, () => {
  it('reads channels from the M3U and the tuner, skipping the malformed entry', async () => {
    const channels = (await call('GET', '/api/v1/channels')).json;
    expect(channels.map((c) => c.number)).toEqual(['2', '3', '4', '5', '6', '7.1', '8', '9', '10', '11']);
    expect(channels[0]).toMatchObject({ name: 'Two HD', image_url: 'http://logo/2.png', hd: true });
    expect(channels.find((c) => c.number === '7.1')).toMatchObject({ name: 'WTUN', hd: true });
    const sources = (await call('GET', '/dvr/sources')).json;
    expect(sources.find((s) => s.kind === 'm3u')).toMatchObject({ streams: 10, skipped: 1 });
    expect(sources.find((s) => s.kind === 'hdhomerun')).toMatchObject({ streams: 1 });
    const guides = (await call('GET', '/dvr/guides')).json;
    expect(guides[0]).toMatchObject({ programmes: 11, skipped: 1 });
  });

  it('plans jobs with interface-A ids, channels and items before they start', async () => {
    const harbour = await job(`${T}-${rules.harbour}`);
    expect(harbour).toMatchObject({
      name: 'Harbour Lights',
      start_time: T,
      end_time: T + 8,
      duration: 8,
      channels: ['2'],
      channel: '2',
      skipped: false,
      failed: false,
    });
    expect(harbour.item).toMatchObject({
      title: 'Harbour Lights',
      episode_title: 'Fog',
      season_number: 1,
      episode_number: 2,
      program_id: 'EP000000010002',
    });
    const movie = await job(`${T}-${rules.movie}`);
    expect(movie.item).toMatchObject({ title: 'Night Movie', release_year: 1999 });
    expect(movie.item).not.toHaveProperty('show_id');
    const all = (await call('GET', '/api/v1/jobs')).json;
    expect(all.filter((j) => String(j.id).endsWith(`-${rules.broken}`))).toHaveLength(3);
  });

  it('shows a recording in interface A while it records, and shares the stream with a live viewer', async () => {
    await until(
      () => Date.now() / 1000,
      (now) => now >= T + 3,
      20_000,
    );
    const episodes = (await call('GET', '/api/v1/episodes?source=recordings')).json;
    const recording = episodes.find((e) => e.title === 'Harbour Lights');
    expect(recording).toMatchObject({ episode_title: 'Fog', completed: false, channel: '2' });
    const viewer = new AbortController();
    const response = await fetch(`${server.url}/devices/ANY/channels/2/stream.mpg`, { signal: viewer.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('video/mp2t');
    const reader = response.body!.getReader();
    let bytes = Buffer.alloc(0);
    while (bytes.length < 188 * 20) bytes = Buffer.concat([bytes, Buffer.from((await reader.read()).value!)]);
    expect(streams.connections('two')).toBe(1);
    viewer.abort();
    const live = await call('GET', '/devices/ANY/channels/99/stream.mpg');
    expect(live.status).toBe(404);
  });

  it('records the episode whole, names it, flags it completed, and post-processes it', async () => {
    const harbourId = `${T}-${rules.harbour}`;
    const finished = await until(
      () => job(harbourId),
      (j) => (j.item as Json).completed === true,
      30_000,
      'harbour finished',
    );
    expect(finished).toMatchObject({ failed: false });
    // Told: scheduled, started, completed; never failed.
    const told = await until(
      () => eventsOf(harbourId),
      (kinds) => kinds.includes('recording.completed'),
      5000,
      'the completed recording told',
    );
    expect(told).toEqual(['recording.scheduled', 'recording.started', 'recording.completed']);
    const path = join(
      work,
      'data',
      'recordings',
      'TV',
      'Harbour Lights',
      `Harbour Lights S01E02 ${localDate(T)} Fog.ts`,
    );
    expect(existsSync(path)).toBe(true);
    const seconds = statSync(path).size / streams.byteRate;
    expect(seconds).toBeGreaterThan(6.5);
    expect(seconds).toBeLessThan(10);
    expect(ffprobeDuration(path)).toBeGreaterThan(6);
    const episode = await until(
      async () =>
        ((await call('GET', '/api/v1/episodes?source=recordings')).json as Json[]).find(
          (e) => e.title === 'Harbour Lights',
        ) ?? {},
      (e) => e.processed === true,
      60_000,
      'post-processed',
    );
    expect(episode).toMatchObject({ completed: true, corrupted: false, delayed: false, cancelled: false });
    expect(episode.duration as number).toBeGreaterThan(6);
    expect(episode.thumbnail_url).toMatch(/\/thumbnails\//);
    expect(episode.tags).toContain('Live');
    // Remembered for good: pruning or deleting the file later does not make the episode wanted again.
    const remembered = server.db.prepare('SELECT episode_key FROM recorded_episodes').pluck().all();
    expect(remembered).toEqual(expect.arrayContaining(['pid:EP000000010002', 'sxe:harbour lights|1|2']));
    const thumb = await fetch(String(episode.thumbnail_url).replace(/^https?:\/\/[^/]+/, server.url));
    expect(thumb.headers.get('content-type')).toMatch(/image\/jpeg/);
  }, 100_000);

  it('records the movie under Movies/ and the tuner channel through the HDHomeRun', async () => {
    await until(
      () => job(`${T}-${rules.movie}`),
      (j) => (j.item as Json).completed === true,
      30_000,
      'movie finished',
    );
    expect(existsSync(join(work, 'data', 'recordings', 'Movies', 'Night Movie (1999).ts'))).toBe(true);
    const movies = (await call('GET', '/api/v1/movies?source=recordings')).json;
    expect(movies.map((m) => m.title)).toContain('Night Movie');
    const tunerJob = await until(
      () => job(`${T}-${rules.tuner}`),
      (j) => (j.item as Json).completed === true,
      30_000,
      'tuner finished',
    );
    expect(tunerJob.channel).toBe('7.1');
    expect(tuner.requests.some((path) => path.endsWith('lineup.json'))).toBe(true);
  });

  it('fails, with a clear error, a job whose source sends a web page, garbage or 404, and keeps nothing of it', async () => {
    const ids = ((await call('GET', '/api/v1/jobs')).json as Json[])
      .filter((j) => String(j.id).endsWith(`-${rules.broken}`))
      .map((j) => String(j.id));
    const errors: Record<string, string> = {};
    for (const id of ids) {
      const done = await until(
        () => job(id),
        (j) => j.failed === true,
        30_000,
        `${id} failed`,
      );
      errors[String(done.channel)] = String(done.error);
    }
    expect(errors['4']).toMatch(/web page/);
    expect(errors['5']).toMatch(/not an MPEG-TS/);
    expect(errors['6']).toMatch(/HTTP 404/);
    // Exactly one recording.failed per failed job, with its reason, over the event feed.
    for (const id of ids) {
      const kinds = await until(
        () => eventsOf(id),
        (k) => k.includes('recording.failed'),
        5000,
        `${id} failure told`,
      );
      expect(kinds.filter((kind) => kind === 'recording.failed')).toHaveLength(1);
      expect(kinds).not.toContain('recording.completed');
      const told = feed.events.find((e) => e.event === 'recording.failed' && e.data.data.job_id === id);
      expect(told?.data).toMatchObject({ severity: 'error', data: { reason: expect.any(String) } });
      // And over the webhook, once.
      const posted = await until(
        () => postedOf(id),
        (k) => k.includes('recording.failed'),
        5000,
        `${id} failure POSTed`,
      );
      expect(posted.filter((kind) => kind === 'recording.failed')).toHaveLength(1);
      // And over MQTT, once.
      const published = await until(
        () => publishedOf(id),
        (k) => k.includes('recording.failed'),
        5000,
        `${id} failure published`,
      );
      expect(published.filter((kind) => kind === 'recording.failed')).toHaveLength(1);
    }
    const on6 = ids.find((id) => id.startsWith(`${T + 2}-`))!;
    expect((await call('GET', `/dvr/jobs/${on6}/why`)).json).toMatchObject({
      outcome: 'failed',
      why: expect.stringMatching(/^“Broken Missing” was not recorded: .*HTTP 404/),
    });
    const titles = ((await call('GET', '/api/v1/all?source=recordings')).json as Json[]).map((i) => i.title);
    expect(titles.filter((t) => String(t).startsWith('Broken'))).toEqual([]);
    // Nor the shows the DVR filed them under.
    const shows = ((await call('GET', '/api/v1/shows')).json as Json[]).map((show) => String(show.name));
    expect(shows.filter((name) => name.startsWith('Broken'))).toEqual([]);
  });

  it('records two programmes of one keyword rule that start at the same second on two channels, each a job of its own', async () => {
    const first = `${T}-${rules.twin}`;
    const second = `${T}-${Number(rules.twin) + 2 ** 32}`;
    const jobs = await Promise.all(
      [first, second].map((id) =>
        until(
          () => job(id),
          (j) => (j.item as Json | undefined)?.completed === true,
          30_000,
          `${id} recorded`,
        ),
      ),
    );
    expect(jobs.map((j) => [j.channel, (j.item as Json).title, j.failed])).toEqual([
      ['9', 'Twin Peaks Live', false],
      ['10', 'Twin Falls Tonight', false],
    ]);
    const titles = ((await call('GET', '/api/v1/all?source=recordings')).json as Json[]).map((item) =>
      String(item.title),
    );
    expect(titles).toEqual(expect.arrayContaining(['Twin Peaks Live', 'Twin Falls Tonight']));
  });

  it('records on when the guide extends the programme while it records, to the new end, and a pause of its rule stops nothing', async () => {
    const id = `${T}-${rules.final}`;
    const recordings = async () => (await call('GET', '/api/v1/all?source=recordings')).json as Json[];
    // Its recording is in the library from its first moment: the guide changes after that.
    await until(
      recordings,
      (items) => items.some((item) => item.title === 'Cup Final'),
      20_000,
      'the Cup Final recording',
    );
    expect(await job(id)).toMatchObject({ end_time: T + 50 });
    expect(Date.now() / 1000).toBeLessThan(T + 47);
    writeGuide(T + 54);
    expect((await call('POST', '/dvr/refresh')).status).toBeLessThan(300);
    await until(
      () => job(id),
      (j) => j.end_time === T + 54,
      10_000,
      'the job extended',
    );
    // Pausing its rule now stops nothing already recording.
    expect(
      (await call('PUT', `/dvr/rules/${rules.final}`, { type: 'series', title: 'Cup Final', paused: true })).status,
    ).toBe(200);
    expect((await call('GET', `/dvr/jobs/${id}/why`)).json).toMatchObject({ outcome: 'recording' });
    const done = await until(
      () => job(id),
      (j) => (j.item as Json | undefined)?.completed === true,
      75_000,
      'the Cup Final recorded',
    );
    expect(done).toMatchObject({ end_time: T + 54, failed: false });
    const folder = join(work, 'data', 'recordings', 'TV', 'Cup Final');
    const files = readdirSync(folder);
    expect(files).toHaveLength(1);
    // 54 seconds of stream, not the 50 first planned.
    const seconds = statSync(join(folder, files[0]!)).size / streams.byteRate;
    expect(seconds).toBeGreaterThan(52.5);
    expect(seconds).toBeLessThan(57);
  }, 120_000);

  it('reconnects a dropped stream and flags the recording corrupted but completed', async () => {
    const done = await until(
      () => job(`${T}-${rules.flaky}`),
      (j) => (j.item as Json).completed === true,
      30_000,
      'flaky finished',
    );
    expect(done.item).toMatchObject({ corrupted: true, completed: true });
    expect(done.error).toMatch(/interruption/);
    expect(streams.totalConnections('flaky')).toBeGreaterThan(1);
    // A recording that came through is no failure: completed, over the webhook as well.
    const posted = await until(
      () => postedOf(`${T}-${rules.flaky}`),
      (k) => k.includes('recording.completed'),
      5000,
      'flaky completion POSTed',
    );
    expect(posted).not.toContain('recording.failed');
    expect(publishedOf(`${T}-${rules.flaky}`)).not.toContain('recording.failed');
  });

  it('records what is on now and stops when told, keeping what it wrote as cancelled', async () => {
    const started = await call('POST', '/dvr/channels/2/recording');
    expect(started.status).toBe(201);
    expect(started.json).toMatchObject({ name: 'Late News', channel: '2' });
    const again = await call('POST', '/dvr/channels/2/recording');
    expect(again.json.id).toBe(started.json.id);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await call('DELETE', '/dvr/channels/2/recording')).status).toBe(204);
    const done = await until(
      () => job(String(started.json.id)),
      (j) => j.error !== undefined,
      15_000,
      'record-now stopped',
    );
    expect(done.item).toMatchObject({ cancelled: true, completed: false });
    expect(done.error).toBe('stopped by the user');
    expect((await call('DELETE', '/dvr/channels/2/recording')).status).toBe(404);
    // Two presses at once make one recording.
    const [first, second] = await Promise.all([
      call('POST', '/dvr/channels/3/recording'),
      call('POST', '/dvr/channels/3/recording'),
    ]);
    expect(first.status).toBe(201);
    expect(second.json.id).toBe(first.json.id);
    expect((await call('DELETE', '/dvr/channels/3/recording')).status).toBe(204);
    expect((await call('POST', '/dvr/channels/42/recording')).status).toBe(404);
  });
});

describe('antenna rule', () => {
  it('adds, lists and removes rules on a running server', async () => {
    const added = await runAntenna([
      'rule',
      'add',
      'keyword',
      'zebra crossing',
      '--new-only',
      '--keep',
      '3',
      '--server',
      server.url,
      '--json',
    ]).done;
    expect(added.code, added.stderr).toBe(0);
    const rule = JSON.parse(added.stdout) as Json;
    expect(rule).toMatchObject({ type: 'keyword', keyword: 'zebra crossing', new_only: true, keep: 3 });
    const listed = await runAntenna(['rule', 'list', '--server', server.url]).done;
    expect(listed.stdout).toContain(`${String(rule.id)}\tkeyword "zebra crossing" (new only, keep 3)`);
    const refused = await runAntenna(['rule', 'add', 'slot', '4', '--server', server.url]).done;
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--start/);
    const removed = await runAntenna(['rule', 'remove', String(rule.id), '--server', server.url]).done;
    expect(removed.stdout.trim()).toBe(`Removed rule ${String(rule.id)}`);
    expect((await call('GET', `/dvr/rules/${String(rule.id)}`)).status).toBe(404);
  });
});

describe('antenna channels', () => {
  it('renames a channel on a running server, lists it, refuses a number another channel has, and gives the name back', async () => {
    const lineup = (await call('GET', '/dvr/lineup')).json as unknown as Json[];
    const six = lineup.find((c) => c.number === '6');
    const id = String(six?.id);
    const renamed = await runAntenna(['channels', 'edit', id, '--name', 'Six (mine)', '--server', server.url, '--json'])
      .done;
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(JSON.parse(renamed.stdout)).toMatchObject({
      id,
      number: '6',
      name: 'Six (mine)',
      edited: ['name'],
      source: { name: 'Six' },
    });
    expect(
      ((await call('GET', '/api/v1/channels')).json as unknown as Json[]).find((c) => c.number === '6')?.name,
    ).toBe('Six (mine)');
    const listed = await runAntenna(['channels', 'list', '--server', server.url]).done;
    expect(listed.stdout).toContain(`6\tSix (mine)\t(you changed: name)\t${id}`);
    const refused = await runAntenna(['channels', 'edit', id, '--number', '2', '--server', server.url]).done;
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/6 “Six \(mine\)” .* would be 2, which 2 “Two HD” .* has/);
    const reset = await runAntenna(['channels', 'edit', id, '--reset', 'name', '--server', server.url]).done;
    expect(reset.stdout.trim()).toBe(`Now: 6\tSix\t${id}`);
  });
});

describe('DVR across a restart', () => {
  it('resumes a recording after the server stops in the middle, losing nothing already written', async () => {
    const config = resolveServerConfig([
      {
        data: join(work, 'data2'),
        host: '127.0.0.1',
        port: 0,
        sample: false,
        m3u: [join(work, 'channels.m3u')],
        m3uStreams: 10,
        logLevel: 'silent',
      },
    ]);
    mkdirSync(join(work, 'data2'), { recursive: true });
    let running = await startServer(config, pino({ level: 'silent' }));
    const start = Math.floor(Date.now() / 1000) + 2;
    await until(
      async () => (await (await fetch(`${running.url}/api/v1/channels`)).json()) as Json[],
      (c) => c.length > 0,
      15_000,
      'channels',
    );
    const created = await fetch(`${running.url}/dvr/rules`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'slot', channel: '3', start_time: start, duration: 60, name: 'Resumed' }),
    });
    const id = `${start}-${((await created.json()) as Json).id as string}`;
    const jobOf = async () => (await (await fetch(`${running.url}/api/v1/jobs/${id}`)).json()) as Json;
    const recordingItem = async () =>
      ((await (await fetch(`${running.url}/api/v1/episodes?source=recordings`)).json()) as Json[])[0] ?? {};
    await until(
      () => Date.now() / 1000,
      (now) => now >= start + 3,
      20_000,
    );
    // Its file has five seconds of the stream before the stop (on a busy machine the first bytes may come late).
    const firstRun = 5 * streams.byteRate;
    const path = String(
      (
        await until(
          recordingItem,
          (item) => typeof item.path === 'string' && existsSync(item.path) && statSync(item.path).size > firstRun,
          20_000,
          'the recording written',
        )
      ).path,
    );
    await running.stop();
    const sizeAtStop = statSync(path).size;
    expect(sizeAtStop).toBeGreaterThan(0);
    running = await startServer(config, pino({ level: 'silent' }));
    try {
      // Shorten the wait: the job's end is a minute out, so cancel it after some more seconds.
      // Five seconds more: the new connection starts the clip, and its clock, from the beginning.
      await until(
        () => statSync(path).size,
        (size) => size > sizeAtStop + 5 * streams.byteRate,
        20_000,
        'file grows after restart',
      );
      // The gap shows while it still records, not only once it ends.
      expect((await jobOf()).item).toMatchObject({ corrupted: true });
      expect(await recordingItem()).toMatchObject({ corrupted: true });
      const resp = await fetch(`${running.url}/dvr/jobs/${id}`, { method: 'DELETE' });
      expect(resp.status).toBe(204);
      const done = await until(jobOf, (j) => j.error !== undefined, 15_000, 'resumed job ended');
      expect(done.item).toMatchObject({ corrupted: true, cancelled: true });
      const item = await recordingItem();
      expect(item).toMatchObject({ corrupted: true, cancelled: true });
      expect(statSync(path).size).toBeGreaterThan(sizeAtStop);
      // Its duration is what both runs play (the stream's bytes at its pace), not its last timestamp minus its first.
      const processed = await until(
        recordingItem,
        (recording) => recording.processed === true,
        30_000,
        'the resumed recording processed',
      );
      expect(Math.abs(Number(processed.duration) - statSync(path).size / streams.byteRate)).toBeLessThan(2);
    } finally {
      await running.stop();
    }
  }, 120_000);
});
