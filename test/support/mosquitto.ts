/**
 * A real MQTT broker for the tests: Debian's mosquitto on a free loopback port, with
 * no persistence, stopped at the end. `npm test` installs it with the other system
 * packages; Debian puts it in /usr/sbin, which a user's PATH may lack.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, writeFileSync } from 'node:fs';
import { createServer, connect as connectTcp } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './temp-library.js';

export interface Broker {
  url: string;
  port: number;
  stop(): Promise<void>;
}

function mosquittoProgram(): string {
  try {
    accessSync('/usr/sbin/mosquitto', constants.X_OK);
    return '/usr/sbin/mosquitto';
  } catch {
    return 'mosquitto';
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connectTcp(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Starts mosquitto on `port` (a free one when not given) and waits until it accepts connections. */
export async function startBroker(port?: number): Promise<Broker> {
  const at = port ?? (await freePort());
  const dir = tempDir('antenna-mqtt-');
  const conf = join(dir, 'mosquitto.conf');
  writeFileSync(conf, `listener ${at} 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest stderr\n`);
  const child: ChildProcess = spawn(mosquittoProgram(), ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(at))) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`mosquitto did not start on port ${at}: ${output.slice(-500)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `mqtt://127.0.0.1:${at}`,
    port: at,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
