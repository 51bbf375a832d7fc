/**
 * Starting Chromium for the browser backend: the program through the one module that
 * runs programs, puppeteer-core connected over its DevTools pipe, its first page, and
 * the window made the screen's size when Chromium cannot go full screen by itself (X
 * without a window manager: Chromium is started again with the size it measured). What
 * happens after a successful start (a crash, a restart) is the backend's business.
 */
import type { Readable, Writable } from 'node:stream';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { type ChildProcess, lastLine, startProgram, stopProgram } from '../../common/external-program.js';
import { chromiumArguments } from './chromium-args.js';
import { DevToolsPipe } from './devtools-pipe.js';

/** Chromium could not be started at all (not installed, no display it can open), or was stopped while starting. */
export class ChromiumStartError extends Error {
  override readonly name = 'ChromiumStartError';
}

export interface ChromiumLaunch {
  chromiumPath: string;
  userDataDir: string;
  display: boolean;
  /** The screen's size, once known to be needed. */
  windowSize?: { width: number; height: number } | undefined;
  /** DevTools calls taking longer than this fail (a hung page). */
  protocolTimeoutMs: number;
  /** The owner is stopping: a second start (at the screen's size) is not made then. */
  stopping(): boolean;
  onResize(size: { width: number; height: number }): void;
}

export interface RunningChromium {
  child: ChildProcess;
  browser: Browser;
  page: Page;
  stderrTail(): string;
  windowSize: { width: number; height: number } | undefined;
}

const KILL_WAIT_MS = 5000;

/** Resolves with Chromium running and its page; rejects with a ChromiumStartError saying why not. */
export async function launchChromium(launch: ChromiumLaunch): Promise<RunningChromium> {
  if (launch.stopping()) throw new ChromiumStartError('the player is stopping');
  const args = chromiumArguments({
    userDataDir: launch.userDataDir,
    windowSize: launch.windowSize,
    headless: !launch.display,
    noSandbox: process.getuid?.() === 0,
  });
  const started = startProgram(launch.chromiumPath, args, { stderrTailBytes: 4000, extraPipes: 2 });
  const child = started.child;
  const failed = startFailure(child, launch.chromiumPath, started.stderrTail);
  try {
    const transport = new DevToolsPipe(child.stdio[3] as Writable, child.stdio[4] as Readable);
    const browser = await Promise.race([
      puppeteer.connect({ transport, defaultViewport: null, protocolTimeout: launch.protocolTimeoutMs }),
      failed,
    ]);
    const page =
      (await Promise.race([browser.pages(), failed]))[0] ?? (await Promise.race([browser.newPage(), failed]));
    const size = launch.display && !launch.windowSize ? await Promise.race([screenIfLarger(page), failed]) : undefined;
    if (size) {
      launch.onResize(size);
      await stopProgram(child, { graceMs: KILL_WAIT_MS, ask: () => child.kill('SIGKILL') });
      return await launchChromium({ ...launch, windowSize: size });
    }
    // From here on an exit is the owner's to handle (a crash), not a failed start.
    child.removeAllListeners('exit');
    child.removeAllListeners('error');
    child.on('error', () => undefined);
    return { child, browser, page, stderrTail: started.stderrTail, windowSize: launch.windowSize };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

function startFailure(child: ChildProcess, program: string, stderrTail: () => string): Promise<never> {
  const failed = new Promise<never>((_resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new ChromiumStartError(
          error.code === 'ENOENT'
            ? `Chromium is not installed (${program} not found): install it with \`sudo apt-get install chromium\`, give its path with --chromium, or play with --backend mpv.`
            : `Chromium could not be started: ${error.message}`,
        ),
      ),
    );
    child.once('exit', (code, signal) =>
      reject(
        new ChromiumStartError(
          `Chromium exited at start (${signal ?? `code ${code}`}): ${lastLine(stderrTail()) || 'no message'}`,
        ),
      ),
    );
  });
  failed.catch(() => undefined);
  return failed;
}

/** What the page needs of the window (this side is compiled without the DOM's types). */
interface ScreenWindow {
  screen: { width: number; height: number };
  outerWidth: number;
  outerHeight: number;
}

/** The screen's size when the window is smaller (Chromium could not make itself full screen). */
async function screenIfLarger(page: Page): Promise<{ width: number; height: number } | undefined> {
  // The kiosk window takes a moment to go full screen.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const { screenWidth, screenHeight, width, height } = await page.evaluate(() => {
    const w = globalThis as unknown as ScreenWindow;
    return { screenWidth: w.screen.width, screenHeight: w.screen.height, width: w.outerWidth, height: w.outerHeight };
  });
  return width >= screenWidth && height >= screenHeight ? undefined : { width: screenWidth, height: screenHeight };
}
