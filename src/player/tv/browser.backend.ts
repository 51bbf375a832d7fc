/**
 * The browser backend: the Antenna app's TV mode, full screen in Debian's Chromium (a
 * kiosk window), as the player on a TV. Chromium is started through the one module that
 * runs programs (chromium-process.ts) and driven over its DevTools pipe with
 * puppeteer-core: every order is a call of the page's control surface (`window.antennaTv`,
 * see tv-page-protocol.ts), never an injected key press, and every status is read back
 * from the page. The page tells this backend what the person at the TV did (a play
 * started or ended, a pause), so a remote in the room and interface B see one state.
 * Chromium is supervised like mpv: restarted with backoff when it dies, the app opened
 * again; a page that reloads is a playback lost, as a crash is.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Browser, Page } from 'puppeteer-core';
import { UnavailableError } from '../../common/errors.js';
import { type ChildProcess, lastLine, stopProgram } from '../../common/external-program.js';
import { launchChromium } from './chromium-process.js';
import { NoEffect } from '../no-effect.js';
import { Restarts } from '../restarts.js';
import {
  type BackendEvents,
  type LoadOptions,
  MediaLoadError,
  type MediaState,
  type PlayerBackend,
} from '../player-backend.js';
import type { Section } from '../sections.js';
import {
  CONTROL_GLOBAL,
  EVENT_BINDING,
  SECTION_PATHS,
  type TvControl,
  type TvPageState,
  isPageState,
  isTvPageEvent,
  isTvResult,
} from '../tv-page-protocol.js';
import { TvPageTracker } from './tv-page-tracker.js';
import type { CommercialSkipMode } from '../../model/players/commercial-skip-modes.js';

export { ChromiumStartError } from './chromium-process.js';

export interface BrowserBackendOptions {
  /** Chromium's program; default 'chromium' from PATH. */
  chromiumPath: string;
  /** The server whose app to open, once known (it may be found on the network later). */
  serverUrl: () => string | undefined;
  /**
   * The server's token, put in the app's storage (on the server's origin only) so changes made at the TV are accepted.
   */
  token?: string | undefined;
  /** A display to show the app on; without one Chromium runs headless (tests, benchmarks). */
  display: boolean;
  logger: Logger;
  /** Wait before restart number `attempt` after Chromium died; default 0.5 s doubling to 30 s. */
  restartDelayMs?: (attempt: number) => number;
}

/** A DevTools call that takes longer than this means the page is hung. */
const PROTOCOL_TIMEOUT_MS = 15_000;
/** The app's first load from the server; a slower one is tried again. */
const OPEN_TIMEOUT_MS = 20_000;
/** How often the page is looked at when it may have gone (a server that was down, an error page). */
const WATCH_EVERY_MS = 3000;
const CLOSE_WAIT_MS = 5000;
/** The app's storage key for the server's token (web/src/api/http-client.ts). */
const TOKEN_KEY = 'antenna.token';

/** What the functions sent to run in the page use of it (this side is compiled without the DOM's types). */
interface PageWindow {
  location: { origin: string };
  localStorage: { setItem(key: string, value: string): void };
  document: { body: { style: { cssText: string }; textContent: string } };
  [name: string]: unknown;
}

const hasControl = (name: string) => typeof (globalThis as unknown as PageWindow)[name] === 'object';

export class BrowserBackend extends EventEmitter<BackendEvents> implements PlayerBackend {
  readonly name = 'Chromium';
  private child: ChildProcess | undefined;
  private browser: Browser | undefined;
  private page: Page | undefined;
  private isReady = false;
  private opening = false;
  /** This player's commercial-skip mode, told to each page that opens. */
  private commercialSkip: CommercialSkipMode | undefined;
  private launching: Promise<void> | undefined;
  /** The text on screen while there is no app to show, so it is not drawn again every few seconds. */
  private waitingShown: string | undefined;
  /** What the page plays, for the service: plays, ends, the mirror. */
  private readonly tracker = new TvPageTracker();
  private readonly restarts: Restarts;
  private stopping = false;
  private watchTimer: NodeJS.Timeout | undefined;
  private windowSize: { width: number; height: number } | undefined;
  private readonly userDataDir = mkdtempSync(join(tmpdir(), 'antenna-chromium-'));
  private stderrTail: () => string = () => '';

  constructor(private readonly options: BrowserBackendOptions) {
    super();
    this.restarts = new Restarts({
      what: 'Chromium',
      logger: options.logger,
      delayMs: options.restartDelayMs,
      stopping: () => this.stopping,
    });
    this.tracker.on('ended', (ended) => this.emit('ended', ended));
    this.tracker.on('played', (played) => this.emit('played', played));
  }

  /** The app's control surface answers (or no longer does). */
  private set ready(ready: boolean) {
    this.tracker.setReady(ready);
    this.isReady = ready;
  }

  private get ready(): boolean {
    return this.isReady;
  }

  /** Chromium's process id, while it runs. */
  get pid(): number | undefined {
    return this.child?.exitCode === null && this.child.signalCode === null ? this.child.pid : undefined;
  }

  /** The page the app runs in (tests look into it). */
  get appPage(): Page | undefined {
    return this.page;
  }

  /** Resolves once Chromium runs; the app opens in the background (the server may not answer yet). */
  async start(): Promise<void> {
    this.stopping = false;
    // However Node ends, Chromium must not outlive it.
    process.once('exit', this.killOnExit);
    await this.launch();
    this.watchTimer = setInterval(() => void this.watch(), WATCH_EVERY_MS);
  }

  private readonly killOnExit = () => this.child?.kill('SIGKILL');

  private launch(): Promise<void> {
    this.launching = this.startChromium().finally(() => (this.launching = undefined));
    return this.launching;
  }

  private async startChromium(): Promise<void> {
    const running = await launchChromium({
      chromiumPath: this.options.chromiumPath,
      userDataDir: this.userDataDir,
      display: this.options.display,
      windowSize: this.windowSize,
      protocolTimeoutMs: PROTOCOL_TIMEOUT_MS,
      stopping: () => this.stopping,
      onResize: (size) => {
        this.windowSize = size;
        this.options.logger.info(
          { size },
          'Chromium did not fill the screen by itself (no window manager); starting it again at the screen size',
        );
      },
    });
    const { child, page } = running;
    this.child = child;
    this.browser = running.browser;
    this.stderrTail = running.stderrTail;
    child.once('exit', (code, signal) => this.exited(child, code, signal));
    try {
      if (this.stopping) throw new UnavailableError(503, 'stopping', 'The player is stopping.');
      await this.preparePage(page);
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
    this.page = page;
    this.waitingShown = undefined;
    this.restarts.started();
    this.options.logger.info({ chromiumPid: child.pid, display: this.options.display }, 'Chromium started');
    void this.open();
  }

  private async preparePage(page: Page): Promise<void> {
    await page.exposeFunction(EVENT_BINDING, (event: unknown) => {
      if (isTvPageEvent(event)) this.pageEvent(event);
    });
    const token = this.options.token;
    const server = this.options.serverUrl();
    if (token && server) {
      // Only into the server's own origin: a page of another site (a link, a redirect) never sees it.
      await page.evaluateOnNewDocument(
        (origin, key, value) => {
          const w = globalThis as unknown as PageWindow;
          try {
            if (w.location.origin === origin) w.localStorage.setItem(key, value);
          } catch {
            // storage refused: the app asks for the token when a change needs it
          }
        },
        new URL(server).origin,
        TOKEN_KEY,
        token,
      );
    }
    page.on('error', (error) => void this.pageCrashed(page, error));
    page.on('pageerror', (error) => this.options.logger.debug({ err: error }, 'the app page threw'));
    // A document loaded that is not the one this backend opened: the app was reloaded (a key, a crash of its own).
    page.on('domcontentloaded', () => {
      if (this.page === page && !this.opening && this.ready) this.lost('the app page was loaded again');
    });
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
      await page.goto(new URL(SECTION_PATHS.Library, server).href, {
        waitUntil: 'domcontentloaded',
        timeout: OPEN_TIMEOUT_MS,
      });
      this.waitingShown = undefined;
      await page.waitForFunction(hasControl, { timeout: OPEN_TIMEOUT_MS }, CONTROL_GLOBAL);
      this.ready = true;
      this.tracker.takeState(await this.readState());
      if (this.commercialSkip) this.tellCommercialSkip(this.commercialSkip);
      this.options.logger.info({ server }, 'the Antenna app is on screen');
    } catch (error) {
      this.ready = false;
      this.options.logger.warn(
        { err: error, server },
        `the Antenna app did not open from ${server}: check that the server runs, that this player reaches it, and that both are the same version; trying again`,
      );
      await this.showWaiting(page, `The Antenna server at ${server} does not answer. Trying again…`).catch(
        () => undefined,
      );
    } finally {
      this.opening = false;
    }
  }

  private async showWaiting(page: Page, message: string): Promise<void> {
    if (this.waitingShown === message) return;
    await page.goto('about:blank');
    // Text, not HTML: the message holds a URL from the settings or the network.
    await page.evaluate((text) => {
      const body = (globalThis as unknown as PageWindow).document.body;
      body.style.cssText =
        'margin:0;height:100vh;display:grid;place-items:center;background:#101418;color:#e8eef4;font:32px sans-serif';
      body.textContent = text;
    }, message);
    this.waitingShown = message;
  }

  /** Every few seconds: the app gone from the page (an error page, a server that was down) is opened again. */
  private async watch(): Promise<void> {
    const page = this.page;
    if (!page || this.opening || this.stopping) return;
    const present = await page.evaluate(hasControl, CONTROL_GLOBAL).catch(() => false);
    if (present && this.ready) return;
    if (present) {
      this.ready = true;
      const state = await this.readState().catch(() => undefined);
      if (state) this.tracker.takeState(state);
      return;
    }
    if (this.ready) this.lost('the Antenna app left the page');
    await this.open();
  }

  private async pageCrashed(page: Page, error: Error): Promise<void> {
    if (this.page !== page || this.stopping) return;
    this.options.logger.warn(
      { err: error },
      "the app page crashed; opening it again (if it repeats, the error says why: check the machine's free memory)",
    );
    this.lost('the app page crashed');
    await this.open().catch(() => undefined);
  }

  /** What played is gone (Chromium or its page went): the service is told, with the last position. */
  private lost(reason: string): void {
    const position = this.tracker.lastPosition;
    this.isReady = false;
    if (this.tracker.reset())
      this.options.logger.warn(
        { reason },
        'playback on the TV stopped (the reason says why); start it again from the remote or the app',
      );
    this.emit('down', reason, position);
  }

  private exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.child = undefined;
    this.page = undefined;
    this.browser = undefined;
    if (this.stopping) {
      this.ready = false;
      return;
    }
    const reason = `Chromium exited (${signal ?? `code ${code}`})`;
    this.options.logger.warn(
      { reason, stderr: lastLine(this.stderrTail()) || undefined },
      'Chromium went away; restarting it (if it repeats, its stderr says why: check --chromium and the display)',
    );
    this.lost(reason);
    this.restarts.afterExit(() => this.launch());
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.restarts.cancel();
    clearInterval(this.watchTimer);
    // A start under way (the relaunch at the screen's size) finishes or fails first: no Chromium is left behind.
    await this.launching?.catch(() => undefined);
    process.off('exit', this.killOnExit);
    const child = this.child;
    if (child)
      await stopProgram(child, {
        graceMs: CLOSE_WAIT_MS,
        ask: () => void this.browser?.close().catch(() => child.kill('SIGTERM')),
      });
    this.page = undefined;
    this.ready = false;
    rmSync(this.userDataDir, { recursive: true, force: true });
  }

  // ---------------------------------------------------------------- what the page says

  private pageEvent(event: Parameters<TvPageTracker['event']>[0]): void {
    if (event.type !== 'shown') return this.tracker.event(event);
    // How long a TV takes to start a play is worth a line: it is what people notice first.
    const media = this.tracker.currentMedia(event.playId);
    if (media) this.options.logger.info({ media, afterMs: Math.round(event.afterMs) }, 'first frame on screen');
  }

  // ---------------------------------------------------------------- commands

  state(): MediaState {
    return this.tracker.state();
  }

  /** Calls a method of the page's control surface. */
  private async call<K extends keyof TvControl>(method: K, ...args: Parameters<TvControl[K]>): Promise<unknown> {
    const page = this.page;
    if (!page || !this.ready)
      throw new UnavailableError(
        503,
        'player_unavailable',
        'The Antenna app is not on screen yet (Chromium is starting, or the server is not reachable); try again in a moment.',
      );
    try {
      return await page.evaluate(
        (global, name, values) => {
          const control = (
            globalThis as unknown as Record<string, Record<string, (...a: unknown[]) => unknown> | undefined>
          )[global];
          const method = control?.[name];
          if (typeof method !== 'function') throw new Error(`the app has no control '${name}'`);
          return method(...values);
        },
        CONTROL_GLOBAL,
        method,
        args as unknown[],
      );
    } catch (error) {
      // A page that went away (reloaded, crashed, Chromium gone) is opened again by the watch loop or the restart.
      throw new UnavailableError(
        503,
        'player_unavailable',
        `The Antenna app on the TV did not answer (${error instanceof Error ? error.message : String(error)}); try again in a moment.`,
      );
    }
  }

  private async readState(): Promise<TvPageState> {
    const state = await this.call('state');
    if (!isPageState(state)) throw notUnderstood('state');
    return state;
  }

  private async command<K extends keyof TvControl>(method: K, ...args: Parameters<TvControl[K]>): Promise<void> {
    const result = await this.call(method, ...args);
    if (!isTvResult(result)) throw notUnderstood(method);
    if (!result.ok) throw new NoEffect(result.code, result.message);
  }

  async readBack(): Promise<MediaState> {
    this.tracker.takeState(await this.readState());
    return this.tracker.state();
  }

  async load(_url: string, options: LoadOptions): Promise<void> {
    this.tracker.commandStarts(options.media, options.tag);
    const forget = () => this.tracker.commandFailed(options.tag);
    let result: unknown;
    try {
      result = await this.call('play', options.media, {
        ticket: options.tag,
        waitMs: options.waitMs,
        ...(options.start !== undefined ? { start: options.start } : {}),
      });
    } catch (error) {
      forget();
      throw error;
    }
    if (!isTvResult(result)) {
      forget();
      throw notUnderstood('play');
    }
    if (!result.ok) {
      forget();
      throw new MediaLoadError(`the app could not play it: ${result.message}`);
    }
  }

  async unload(): Promise<void> {
    this.tracker.unloaded();
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

  /** The app's player view skips commercials itself, as in a browser; this player's mode is told to it. */
  readonly skipsCommercials = true;

  setCommercialSkip(mode: CommercialSkipMode): void {
    this.commercialSkip = mode;
    if (this.ready) this.tellCommercialSkip(mode);
  }

  /** In the background: a page not there now is told when it opens again. */
  private tellCommercialSkip(mode: CommercialSkipMode): void {
    this.command('setCommercialSkip', mode).catch((error: unknown) =>
      this.options.logger.debug({ err: error, mode }, 'could not tell the app the commercial skip mode yet'),
    );
  }
}

/** The page answered outside the protocol: most likely a server whose app is of another version. */
function notUnderstood(method: string): UnavailableError {
  return new UnavailableError(
    503,
    'player_unavailable',
    `The Antenna app on the TV answered '${method}' in a way this player does not understand: update the server and the player to the same version.`,
  );
}
