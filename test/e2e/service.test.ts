/**
 * Antenna as a service, through the real `bin/antenna`: what `antenna service install`
 * would do (--dry-run: this machine need not run systemd), the logs (JSON when stdout is
 * not a terminal, pretty on one, a rotated --log-file), and a stop on SIGTERM while
 * recording that fits in the unit's TimeoutStopSec, the recording resuming at the next
 * start.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STOP_TIMEOUT_SECONDS, renderUnit } from '../../src/cli/systemd-unit.js';
import { callJson, type Json, until, writeM3u } from '../support/dvr-app.js';
import { ANTENNA_BIN, runAntenna, type StartedServer, startAntennaServer } from '../support/server-process.js';
import { tempDir } from '../support/temp-library.js';
import { makeTsClip, type StreamServer, startStreamServer } from '../support/ts-stream-server.js';

let work: string;
const running: StartedServer[] = [];

beforeAll(() => {
  work = tempDir('antenna-service-');
});

afterAll(async () => {
  for (const server of running)
    if (server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

/** Log lines written as JSON (one object per line); anything else on stdout is the "running at" line. */
function jsonLines(text: string): Json[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Json);
}

describe('antenna service install --dry-run', () => {
  it('prints the unit it would write and each command, and changes nothing', async () => {
    const data = join(work, 'x');
    const finished = await runAntenna(['service', 'install', '--dry-run', '--data', data, '--user', 'antenna']).done;
    expect(finished.stderr).toBe('');
    expect(finished.code).toBe(0);
    const out = finished.stdout;
    expect(out).toMatch(/^# antenna service install --dry-run: nothing was changed\./);
    const unit = renderUnit({
      node: realpathSync(process.execPath),
      antenna: realpathSync(ANTENNA_BIN),
      user: 'antenna',
      data,
    });
    expect(out).toContain(`cat > /etc/systemd/system/antenna.service <<'EOF'\n${unit}EOF\n`);
    expect(out).toContain(`\ninstall -d -m 0750 -- ${data}\n`);
    expect(out).toContain(`\nchown -- antenna: ${data}\n`);
    expect(out).toContain(
      `\nrunuser -u antenna -- ${realpathSync(process.execPath)} ${realpathSync(ANTENNA_BIN)} --version\n`,
    );
    expect(out).toContain('\nsystemctl daemon-reload\n');
    expect(out).toContain('\nsystemctl enable antenna.service\n');
    expect(out).toContain('\nsystemctl restart antenna.service\n');
    // No such user on a test machine, so it would be created; where one exists, it is said instead.
    const userExists = spawnSync('getent', ['passwd', 'antenna']).status === 0;
    expect(out.includes('\nuseradd --system --user-group')).toBe(!userExists);
    expect(existsSync(data)).toBe(false);
    expect(
      existsSync('/etc/systemd/system/antenna.service') &&
        readFileSync('/etc/systemd/system/antenna.service', 'utf8').includes(data),
    ).toBe(false);
  });

  it('refuses, in one line saying what to do, a data directory that is not a folder of its own', async () => {
    const finished = await runAntenna(['service', 'install', '--dry-run', '--data', '/srv']).done;
    expect(finished.code).toBe(1);
    expect(finished.stderr).toBe(
      'antenna: The data directory /srv is not a folder of its own: give one such as /var/lib/antenna (the service user will own it).\n',
    );
  });

  // Never on a machine where it would really install: as root where systemd runs.
  const couldInstall = process.getuid?.() === 0 && existsSync('/run/systemd/system');
  it.runIf(!couldInstall)(
    'refuses to install for real where it cannot (not root, or no systemd running), in one line',
    async () => {
      const finished = await runAntenna(['service', 'install', '--data', join(work, 'y')]).done;
      expect(finished.code).toBe(1);
      expect(finished.stderr).toMatch(
        /^antenna: (antenna service install changes the system: run it as root|systemctl was not found|systemd is not running on this machine)[^\n]*\n$/,
      );
      expect(existsSync(join(work, 'y'))).toBe(false);
    },
  );
});

describe('logs', () => {
  it('are JSON lines when stdout is not a terminal', async () => {
    const server = await startAntennaServer(['--data', join(work, 'json'), '--no-sample'], {
      ANTENNA_LOG_LEVEL: 'info',
    });
    running.push(server);
    const finished = await server.stop('SIGTERM');
    expect(finished.code).toBe(0);
    const other = finished.stdout.split('\n').filter((line) => line !== '' && !line.startsWith('{'));
    expect(other).toEqual([
      expect.stringMatching(/^Antenna server is running at http:\/\/127\.0\.0\.1:\d+ : open it in a browser/),
    ]);
    const messages = jsonLines(finished.stdout).map((line) => line.msg);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^no --token: .*; give --token/),
        'antenna server listening',
        'shutting down',
      ]),
    );
  });

  it.runIf(spawnSync('script', ['--version']).status === 0)('are pretty lines on a terminal', async () => {
    // script(1) gives the server a terminal; the server stops itself on SIGTERM from timeout.
    const command = `timeout --preserve-status -s TERM 4 ${process.execPath} ${ANTENNA_BIN} server --host 127.0.0.1 --port 0 --no-sample --no-mdns --data ${join(work, 'pretty')}`;
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
      env: { ...process.env, ANTENNA_LOG_LEVEL: 'info', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, out).toBe(0);
    expect(out).not.toContain('{"level"');
    expect(out).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: no --token: /m);
    expect(out).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: antenna server listening\r?\n {4}url: "http:\/\/127\.0\.0\.1:\d+"/m,
    );
    // Written before the process exits, not lost with a worker thread.
    expect(out).toMatch(/INFO: shutting down\r?\n {4}signal: "SIGTERM"/);
  });

  it('go to --log-file as JSON lines, rotated by size, keeping --log-file-keep files, the last line included', async () => {
    const file = join(work, 'logs', 'antenna.log');
    // A source that cannot be read: each refresh logs a warning, about 400 bytes.
    const server = await startAntennaServer(
      [
        '--data',
        join(work, 'file'),
        '--no-sample',
        '--m3u',
        join(work, 'no-such.m3u'),
        '--log-file',
        file,
        '--log-file-size',
        '0.01',
        '--log-file-keep',
        '2',
      ],
      {
        ANTENNA_LOG_LEVEL: 'info',
      },
    );
    running.push(server);
    for (let n = 0; n < 120; n++) expect((await callJson(server.url, 'POST', '/dvr/refresh')).status).toBe(200);
    const finished = await server.stop('SIGTERM');
    expect(finished.code).toBe(0);
    // Nothing but the "running at" line on stdout: the log went to the file.
    expect(jsonLines(finished.stdout)).toEqual([]);
    expect(readdirSync(join(work, 'logs')).sort()).toEqual(['antenna.log', 'antenna.log.1', 'antenna.log.2']);
    const files = [`${file}.2`, `${file}.1`, file];
    for (const each of files) expect(statSync(each).size).toBeLessThanOrEqual(10_486);
    const lines = files.flatMap((each) => jsonLines(readFileSync(each, 'utf8')));
    expect(
      lines.filter((line) =>
        String(line.msg).startsWith(
          'source refresh failed; keeping its channels from the last refresh: the error says why',
        ),
      ).length,
    ).toBeGreaterThan(40);
    expect(lines.map((line) => line.msg)).toContain('shutting down');
  }, 60_000);
});

describe('a stop on SIGTERM while recording', () => {
  let streams: StreamServer;
  beforeAll(async () => {
    const clip = await makeTsClip(join(work, 'clip.ts'), { seconds: 12, muxrateKbps: 2000 });
    streams = await startStreamServer(clip.path);
  }, 60_000);
  afterAll(async () => streams?.close());

  it(`ends well within TimeoutStopSec (${STOP_TIMEOUT_SECONDS} s), and the recording resumes at the next start`, async () => {
    const m3u = join(work, 'channels.m3u');
    writeM3u(m3u, [
      { number: '1', name: 'One', url: streams.url('one') },
      { number: '2', name: 'Two', url: streams.url('two') },
    ]);
    const args = ['--data', join(work, 'dvr'), '--no-sample', '--m3u', m3u, '--m3u-streams', '4'];
    let server = await startAntennaServer(args, { ANTENNA_LOG_LEVEL: 'info' });
    running.push(server);
    const url = () => server.url;
    await until(
      async () => (await callJson(url(), 'GET', '/api/v1/channels')).json,
      (channels) => channels.length === 2,
      15_000,
      'channels',
    );
    const start = Math.floor(Date.now() / 1000) + 1;
    const rule = await callJson(url(), 'POST', '/dvr/rules', {
      type: 'slot',
      channel: '1',
      start_time: start,
      duration: 120,
      name: 'Service Stop',
    });
    expect(rule.status).toBe(201);
    const job = `${start}-${String(rule.json.id)}`;
    // A live viewer of the other channel as well: its stream is closed on the way out too.
    const viewer = new AbortController();
    const watching = fetch(`${url()}/devices/ANY/channels/2/stream.mpg`, { signal: viewer.signal }).then((response) =>
      response.body?.getReader().read(),
    );
    const recording = await until(
      async () => ((await callJson(url(), 'GET', '/api/v1/episodes?source=recordings')).json[0] ?? {}) as Json,
      (item) => typeof item.path === 'string' && existsSync(item.path) && statSync(item.path).size > 200_000,
      20_000,
      'the recording writing',
    );
    const path = String(recording.path);
    await watching;

    const stopping = Date.now();
    const stopped = await server.stop('SIGTERM');
    const stopMs = Date.now() - stopping;
    viewer.abort();
    console.info(
      `antenna server stopped on SIGTERM in ${stopMs} ms while recording (TimeoutStopSec=${STOP_TIMEOUT_SECONDS})`,
    );
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopMs).toBeLessThan(STOP_TIMEOUT_SECONDS * 1000);
    expect(stopMs).toBeLessThan(5_000);
    expect(jsonLines(stopped.stdout).map((line) => line.msg)).toContain('shutting down');
    const sizeAtStop = statSync(path).size;

    server = await startAntennaServer(args, { ANTENNA_LOG_LEVEL: 'info' });
    running.push(server);
    await until(
      () => statSync(path).size,
      (size) => size > sizeAtStop + 100_000,
      15_000,
      'the same file growing again',
    );
    expect((await callJson(url(), 'GET', `/dvr/jobs/${job}/why`)).json.outcome).toBe('recording');
    expect(jsonLines(server.output().stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ msg: 'recording resumed after a restart', job })]),
    );
    expect((await callJson(url(), 'DELETE', `/dvr/jobs/${job}`)).status).toBe(204);
    expect((await server.stop('SIGTERM')).code).toBe(0);
  }, 90_000);
});
