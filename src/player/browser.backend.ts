/**
 * The browser backend: the Antenna app's TV mode, full screen in Debian's Chromium (a
 * kiosk window), as the player on a TV. Chromium is started through the one module that
 * runs programs and driven over its DevTools pipe with puppeteer-core: every order is a
 * call of the page's control surface (`window.antennaTv`, see tv-page-protocol.ts), never
 * an injected key press, and every status is read back from the page. The page tells this
 * backend what the person at the TV did (a play started or ended, a pause), so a remote
 * in the room and interface B see one state. Chromium is supervised like mpv: restarted
 * with backoff when it dies, the app opened again.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Logger } from 'pino';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { type ChildProcess, lastLine, startProgram, stopProgram } from '../common/external-program.js';
import { UnavailableError } from '../common/errors.js';
import { chromiumArguments } from './chromium-args.js';
import { DevToolsPipe } from './devtools-pipe.js';
import { defaultRestartDelay } from './mpv.backend.js';
import { NoEffect } from './no-effect.js';
import { type BackendEvents, IDLE_STATE, type LoadOptions, MediaLoadError, type MediaState, type PlayerBackend } from './player-backend.js';
import type { Section } from './sections.js';
import {
  CONTROL_GLOBAL,
  EVENT_BINDING,
  type MediaRef,
  SECTION_PATHS,
  type TvControl,
  type TvPageEvent,
  type TvPageState,
  type TvResult,
  isTvPageEvent,
  mediaStateOf,
  sameMedia,
} from './tv-page-protocol.js';

export interface BrowserBackendOptions {
  /** Chromium's program; default 'chromium' from PATH. */
  chromiumPath: string;
  /** The server whose app to open, once known (it may be found on the network later). */
  serverUrl: () => string | undefined;
  /** The server's token, put in the app's storage so the changes made at the TV are accepted. */
  token?: string | undefined;
  /** A display to show the app on; without one Chromium runs headless (tests, benchmarks). */
  display: boolean;
  logger: Logger;
  /** Wait before restart number `attempt` after Chromium died; default 0.5 s doubling to 30 s. */
  restartDelayMs?: (attempt: number) => number;
}

/** Chromium could not be started at all (not installed, no display it can open). */
export class ChromiumStartError extends Error {
  override readonly name = 'ChromiumStartError';
}

/** A DevTools call that takes longer than this means the page is hung. */
const PROTOCOL_TIMEOUT_MS = 15_000;
/** The app's first load from the server; a slower one is tried again. */
const OPEN_TIMEOUT_MS = 20_000;
/** How often the page is looked at when it may have gone (a reload, a server that was down). */
const WATCH_EVERY_MS = 3000;
const HEALTHY_AFTER_MS = 60_000;
const CLOSE_WAIT_MS = 5000;
/** What the functions sent to run in the page use of it (this side is compiled without the DOM's types). */
interface PageWindow {
  screen: { width: number; height: number };
  outerWidth: number;
  outerHeight: number;
  localStorage: { setItem(key: string, value: string): void };
  document: { body: { style: { cssText: string }; textContent: string } };
  [name: string]: unknown;
}

/** The app's storage key for the server's token (web/src/api/http-client.ts). */
const TOKEN_KEY = 'antenna.token';

export class BrowserBackend extends EventEmitter<BackendEvents> implements PlayerBackend {
  readonly name = 'Chromium';
  private child: ChildProcess | undefined;
  private browser: Browser | undefined;
  private page: Page | undefined;
  /** The app's control surface answers: commands may be sent. */
  private ready = false;
  private opening = false;
  private pageState: TvPageState | undefined;
  private mirror: MediaState = { ...IDLE_STATE };
  /** What the page plays for the service: a command's load (its tag) or a play the person started (a tag of ours). */
  private current: { media: MediaRef; tag: number; playId?: number } | undefined;
  private nextOwnTag = -1;
  private lastPosition: number | undefined;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private watchTimer: NodeJS.Timeout | undefined;
  private attempts = 0;
  private launchedAt = 0;
  /** The screen's size, once Chromium was seen not to fill it by itself. */
  private windowSize: { width: number; height: number } | undefined;
  private readonly userDataDir = mkdtempSync(join(tmpdir(), 'antenna-chromium-'));
  private stderrTail: () => string = () => '';

  constructor(private readonly options: BrowserBackendOptions) {
    super();
  }

  /** Chromium's process id, while it runs. */
  get pid(): number | undefined {
    return this.child?.exitCode === null && this.child.signalCode === null ? this.child.pid : undefined;
  }

  /** The page the app runs in (tests look into it). */
  get appPage(): Page | undefined {
    return this.page;
  }

  async start(): Promise<void> {
    this.stopping = false;
    // However Node ends, Chromium must not outlive it.
    process.once('exit', this.killOnExit);
    await this.launch();
    this.watchTimer = setInterval(() => void this.watch(), WATCH_EVERY_MS);
  }

  private readonly killOnExit = () => this.child?.kill('SIGKILL');

  private async launch(): Promise<void> {
    const args = chromiumArguments({ userDataDir: this.userDataDir, windowSize: this.windowSize, headless: !this.options.display, noSandbox: process.getuid?.() === 0 });
    const started = startProgram(this.options.chromiumPath, args, { stderrTailBytes: 4000, extraPipes: 2 });
    const child = started.child;
    this.child = child;
    this.stderrTail = started.stderrTail;
    const failed = new Promise<never>((_resolve, reject) => {
      child.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          new ChromiumStartError(
            error.code === 'ENOENT'
              ? `Chromium is not installed (${this.options.chromiumPath} not found): install it with \`sudo apt-get install chromium\`, give its path with --chromium, or play with --backend mpv.`
              : `Chromium could not be started: ${error.message}`,
          ),
        ),
      );
      child.once('exit', (code, signal) => reject(new ChromiumStartError(`Chromium exited at start (${signal ?? `code ${code}`}): ${lastLine(this.stderrTail()) || 'no message'}`)));
    });
    failed.catch(() => undefined);
    try {
      const transport = new DevToolsPipe(child.stdio[3] as Writable, child.stdio[4] as Readable);
      const browser = await Promise.race([puppeteer.connect({ transport, defaultViewport: null, protocolTimeout: PROTOCOL_TIMEOUT_MS }), failed]);
      this.browser = browser;
      const page = (await Promise.race([browser.pages(), failed]))[0] ?? (await Promise.race([browser.newPage(), failed]));
      if (await Promise.race([this.smallerThanScreen(page), failed])) {
        // X without a window manager: Chromium cannot make itself full screen, so it starts the screen's size.
        this.options.logger.info({ size: this.windowSize }, 'Chromium did not fill the screen by itself; starting it again at the screen size');
        await this.killChild(child);
        return await this.launch();
      }
      await Promise.race([this.preparePage(page), failed]);
      this.page = page;
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
    // From here on an exit is a crash to recover from, not a failed start.
    child.removeAllListeners('exit');
    child.removeAllListeners('error');
    child.on('error', () => undefined);
    child.once('exit', (code, signal) => this.exited(child, code, signal));
    this.launchedAt = Date.now();
    this.options.logger.info({ chromiumPid: child.pid, display: this.options.display }, 'Chromium started');
    await this.open();
  }

  private async smallerThanScreen(page: Page): Promise<boolean> {
    if (!this.options.display || this.windowSize) return false;
    // The kiosk window takes a moment to go full screen.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { screenWidth, screenHeight, width, height } = await page.evaluate(() => {
      const w = globalThis as unknown as PageWindow;
      return { screenWidth: w.screen.width, screenHeight: w.screen.height, width: w.outerWidth, height: w.outerHeight };
    });
    if (width >= screenWidth && height >= screenHeight) return false;
    this.windowSize = { width: screenWidth, height: screenHeight };
    return true;
  }

  private async killChild(child: ChildProcess): Promise<void> {
    this.browser?.disconnect().catch(() => undefined);
    this.browser = undefined;
    await stopProgram(child, { graceMs: CLOSE_WAIT_MS, ask: () => child.kill('SIGKILL') });
  }

  private async preparePage(page: Page): Promise<void> {
    await page.exposeFunction(EVENT_BINDING, (event: unknown) => {
      if (isTvPageEvent(event)) this.pageEvent(event);
    });
    const token = this.options.token;
    if (token) {
      await page.evaluateOnNewDocument(
        (key, value) => {
          try {
            (globalThis as unknown as PageWindow).localStorage.setItem(key, value);
          } catch {
            // storage refused: the app asks for the token when a change needs it
          }
        },
        TOKEN_KEY,
        token,
      );
    }
    page.on('error', (error) => void this.pageCrashed(page, error));
    page.on('pageerror', (error) => this.options.logger.debug({ err: error }, 'the app page threw'));
  }

  /** Opens the app's TV mode from the server (or says on screen what it waits for). */
  private async open(): Promise<void> {
    const page = this.page;
    if (!page || this.opening || this.stopping) return;
    this.opening = true;
    const server = this.options.serverUrl();
    try {
      if (!server) {
        await this.showWaiting(page, 'Looking for an Antenna server on the network…');
        return;
      }
      await page.goto(new URL(SECTION_PATHS.Library, server).href, { waitUntil: 'domcontentloaded', timeout: OPEN_TIMEOUT_MS });
      await page.waitForFunction((name) => typeof (globalThis as unknown as PageWindow)[name] === 'object', { timeout: OPEN_TIMEOUT_MS }, CONTROL_GLOBAL);
      this.ready = true;
      this.pageState = await this.call('state');
      this.recompute();
      this.options.logger.info({ server }, 'the Antenna app is on screen');
    } catch (error) {
      this.ready = false;
      this.recompute();
      this.options.logger.warn({ err: error, server }, `the Antenna app did not open from ${server}: check that the server runs and this player reaches it; trying again`);
      await this.showWaiting(page, `The Antenna server at ${server} does not answer. Trying again…`).catch(() => undefined);
    } finally {
      this.opening = false;
    }
  }

  private async showWaiting(page: Page, message: string): Promise<void> {
    await page.goto('about:blank');
    // Text, not HTML: the message holds a URL from the settings or the network.
    await page.evaluate((text) => {
      const body = (globalThis as unknown as PageWindow).document.body;
      body.style.cssText = 'margin:0;height:100vh;display:grid;place-items:center;background:#101418;color:#e8eef4;font:32px sans-serif';
      body.textContent = text;
    }, message);
  }

  /** Every few seconds: the app gone from the page (a reload, an error page) is opened again. */
  private async watch(): Promise<void> {
    const page = this.page;
    if (!page || this.opening || this.stopping) return;
    const present = await page.evaluate((name) => typeof (globalThis as unknown as PageWindow)[name] === 'object', CONTROL_GLOBAL).catch(() => false);
    if (present && this.ready) return;
    if (present) {
      this.ready = true;
      this.pageState = await this.call('state').catch(() => undefined);
      this.recompute();
      return;
    }
    this.ready = false;
    this.recompute();
    await this.open();
  }

  private async pageCrashed(page: Page, error: Error): Promise<void> {
    if (this.page !== page || this.stopping) return;
    this.options.logger.warn({ err: error }, 'the app page crashed; opening it again');
    this.lost('the app page crashed');
    await this.open().catch(() => undefined);
  }

  /** What played is gone (Chromium or its page died): the service is told, with the last position. */
  private lost(reason: string): void {
    const position = this.lastPosition;
    this.ready = false;
    this.pageState = undefined;
    this.current = undefined;
    this.recompute();
    this.emit('down', reason, position);
  }

  private exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.child = undefined;
    this.page = undefined;
    this.browser = undefined;
    if (this.stopping) {
      this.ready = false;
      this.recompute();
      return;
    }
    const reason = `Chromium exited (${signal ?? `code ${code}`})`;
    this.options.logger.warn({ reason, stderr: lastLine(this.stderrTail()) || undefined }, 'Chromium went away; restarting it');
    this.lost(reason);
    if (Date.now() - this.launchedAt > HEALTHY_AFTER_MS) this.attempts = 0;
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    this.attempts += 1;
    const delay = (this.options.restartDelayMs ?? defaultRestartDelay)(this.attempts);
    this.restartTimer = setTimeout(() => {
      this.launch().catch((error: unknown) => {
        this.options.logger.error({ err: error, attempt: this.attempts }, 'Chromium did not restart; trying again');
        if (!this.stopping) this.scheduleRestart();
      });
    }, delay);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    clearInterval(this.watchTimer);
    process.off('exit', this.killOnExit);
    const child = this.child;
    if (child) await stopProgram(child, { graceMs: CLOSE_WAIT_MS, ask: () => void this.browser?.close().catch(() => child.kill('SIGTERM')) });
    this.page = undefined;
    this.ready = false;
    this.recompute();
    rmSync(this.userDataDir, { recursive: true, force: true });
  }

  // ---------------------------------------------------------------- what the page says

  private pageEvent(event: TvPageEvent): void {
    if (event.type === 'state') {
      this.pageState = event.state;
      this.recompute();
    } else if (event.type === 'started') {
      this.started(event.playId, event.media, event.ticket);
    } else if (event.type === 'shown') {
      // How long a TV takes to start a play is worth a line: it is what people notice first.
      if (this.current?.playId === event.playId) this.options.logger.info({ media: this.current.media, afterMs: Math.round(event.afterMs) }, 'first frame on screen');
    } else if (this.current?.playId === event.playId) {
      const { tag } = this.current;
      this.current = undefined;
      const position = event.position ?? this.lastPosition;
      this.emit('ended', { reason: event.reason, tag, ...(event.error ? { error: event.error } : {}), ...(position !== undefined ? { position } : {}) });
    }
  }

  /** A play began in the page: the command's, when it carries the command's ticket; otherwise the person's. */
  private started(playId: number, media: MediaRef, ticket: number | undefined): void {
    const current = this.current;
    if (current && ticket === current.tag && sameMedia(current.media, media)) {
      current.playId = playId;
      return;
    }
    const tag = this.nextOwnTag--;
    this.current = { media, tag, playId };
    this.lastPosition = undefined;
    this.emit('played', { media, tag });
  }

  private recompute(): void {
    this.mirror = mediaStateOf(this.pageState, this.ready);
    if (this.mirror.position !== undefined) this.lastPosition = this.mirror.position;
  }

  // ---------------------------------------------------------------- commands

  state(): MediaState {
    return this.mirror;
  }

  /** Calls a method of the page's control surface. */
  private async call<K extends keyof TvControl>(method: K, ...args: Parameters<TvControl[K]>): Promise<Awaited<ReturnType<TvControl[K]>>> {
    const page = this.page;
    if (!page || !this.ready) throw new UnavailableError(503, 'player_unavailable', 'The Antenna app is not on screen yet (Chromium is starting, or the server is not reachable); try again in a moment.');
    try {
      return (await page.evaluate(
        (global, name, values) => {
          const control = (globalThis as unknown as Record<string, Record<string, (...a: unknown[]) => unknown> | undefined>)[global];
          if (!control) throw new Error('The Antenna app is not loaded in the page.');
          return control[name]?.(...values);
        },
        CONTROL_GLOBAL,
        method,
        args as unknown[],
      )) as Awaited<ReturnType<TvControl[K]>>;
    } catch (error) {
      // A page that went away (reloaded, crashed, Chromium gone) is opened again by the watch loop or the restart.
      throw new UnavailableError(503, 'player_unavailable', `The Antenna app on the TV did not answer (${error instanceof Error ? error.message : String(error)}); try again in a moment.`);
    }
  }

  private async command<K extends keyof TvControl>(method: K, ...args: Parameters<TvControl[K]>): Promise<void> {
    const result = (await this.call(method, ...args)) as TvResult;
    if (!result.ok) throw new NoEffect(result.code, result.message);
  }

  async readBack(): Promise<MediaState> {
    this.pageState = await this.call('state');
    this.recompute();
    return this.mirror;
  }

  async load(_url: string, options: LoadOptions): Promise<void> {
    this.current = { media: options.media, tag: options.tag };
    this.lastPosition = undefined;
    const result = await this.call('play', options.media, { ticket: options.tag, waitMs: options.waitMs, ...(options.start !== undefined ? { start: options.start } : {}) });
    if (!result.ok) {
      if (this.current?.tag === options.tag) this.current = undefined;
      throw new MediaLoadError(`the app could not play it: ${result.message}`);
    }
  }

  async unload(): Promise<void> {
    this.current = undefined;
    await this.command('stop');
  }

  setPaused(paused: boolean): Promise<void> {
    return this.command('setPaused', paused);
  }

  setMuted(muted: boolean): Promise<void> {
    return this.command('setMuted', muted);
  }

  seekTo(seconds: number): Promise<void> {
    return this.command('seekTo', seconds);
  }

  toggleCaptions(): Promise<void> {
    return this.command('toggleCaptions');
  }

  setPip(on: boolean): Promise<void> {
    return this.command('setPip', on);
  }

  showMessage(title: string, message: string, durationMs: number): Promise<void> {
    return this.command('notify', title, message, durationMs);
  }

  navigate(section: Section): Promise<void> {
    return this.command('navigate', section);
  }
}
