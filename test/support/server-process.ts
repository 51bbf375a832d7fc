/** Runs the real `bin/antenna` in a child process, as a user would. */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ANTENNA_BIN = fileURLToPath(new URL('../../bin/antenna', import.meta.url));

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface StartedServer {
  child: ChildProcess;
  url: string;
  output: () => { stdout: string; stderr: string };
  /** Sends a signal and waits for the process to end. */
  stop(signal?: NodeJS.Signals): Promise<Finished>;
}

export function runAntenna(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { child: ChildProcess; done: Promise<Finished> } {
  const child = spawn(process.execPath, [ANTENNA_BIN, ...args], {
    env: { ...process.env, ANTENNA_LOG_LEVEL: 'warn', ANTENNA_MDNS: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<Finished>((resolve) =>
    child.on('exit', (code, signal) => {
      // Let the pipes drain before reporting.
      setImmediate(() => resolve({ code, signal, stdout, stderr }));
    }),
  );
  Object.defineProperty(child, 'collected', { get: () => ({ stdout, stderr }) });
  return { child, done };
}

/** Starts `antenna server` on a free port and resolves once it says where it listens. */
export function startAntennaServer(args: string[], env: NodeJS.ProcessEnv = {}): Promise<StartedServer> {
  return startAntennaProcess(['server', '--host', '127.0.0.1', '--port', '0', ...args], env);
}

/** Starts `antenna player` (headless) on a free port and resolves once it says where it listens. */
export function startAntennaPlayer(args: string[], env: NodeJS.ProcessEnv = {}): Promise<StartedServer> {
  return startAntennaProcess(['player', '--host', '127.0.0.1', '--port', '0', '--headless', ...args], env);
}

/** Runs `antenna <args>` until its first "running at URL" line. */
export async function startAntennaProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<StartedServer> {
  const { child, done } = runAntenna(args, env);
  const output = () => (child as unknown as { collected: { stdout: string; stderr: string } }).collected;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`antenna ${args[0]} did not start: ${JSON.stringify(output())}`)),
      15_000,
    );
    const check = () => {
      const match = /running at (http:\/\/\S+?) /.exec(output().stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', check);
    void done.then((finished) => {
      clearTimeout(timer);
      reject(new Error(`antenna ${args[0]} exited early: ${JSON.stringify(finished)}`));
    });
  });
  return {
    child,
    url,
    output,
    async stop(signal = 'SIGTERM') {
      child.kill(signal);
      return done;
    },
  };
}
