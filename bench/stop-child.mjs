/** Ends a child process a bench started and resolves once it has exited (shared by the bench scripts). */
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * `signal` (SIGTERM by default), then SIGKILL if it is still there after 5 s (a server mid-scan ends its probes first).
 */
export async function stopChild(child, signal = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  const timedOut = await Promise.race([exited.then(() => false), sleep(5000).then(() => true)]);
  if (timedOut) {
    child.kill('SIGKILL');
    await exited;
  }
}
