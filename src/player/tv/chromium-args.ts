/**
 * The command line the browser backend starts Chromium with (pure; unit-tested): a
 * kiosk window (no browser interface, full screen) driven over the DevTools pipe (file
 * descriptors 3 and 4, no port for anything else on the machine to reach), media that
 * plays without a click, and none of Chromium's own background downloads (component
 * updates, sync, safe-browsing lists): a set-top box talks to its server and nothing else.
 */

export interface ChromiumLaunch {
  /** A private profile folder (the app's token and nothing else). */
  userDataDir: string;
  /** The screen's size, when Chromium cannot make itself full screen (X without a window manager). */
  windowSize?: { width: number; height: number } | undefined;
  /** Without a display: Chromium's headless mode (tests and benchmarks only; nothing is shown). */
  headless: boolean;
  /** Running as root: Chromium refuses to start its sandbox then. */
  noSandbox: boolean;
}

export function chromiumArguments(launch: ChromiumLaunch): string[] {
  const size = launch.windowSize;
  return [
    '--remote-debugging-pipe',
    `--user-data-dir=${launch.userDataDir}`,
    ...(launch.headless ? ['--headless=new', '--mute-audio'] : ['--kiosk', '--start-fullscreen']),
    '--window-position=0,0',
    ...(size ? [`--window-size=${size.width},${size.height}`] : []),
    '--autoplay-policy=no-user-gesture-required',
    '--no-first-run',
    '--no-default-browser-check',
    '--noerrdialogs',
    '--disable-infobars',
    '--disable-session-crashed-bubble',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-breakpad',
    '--disable-default-apps',
    '--disable-extensions',
    '--disable-features=Translate,MediaRouter,DialMediaRouteProvider,OptimizationHints',
    // On a TV the app is the one window: it must not slow down when Chromium thinks it is hidden.
    '--disable-background-timer-throttling',
    '--disable-renderer-backgrounding',
    '--disable-backgrounding-occluded-windows',
    '--password-store=basic',
    // Wayland when the session is Wayland (a kiosk compositor such as cage), X otherwise.
    '--ozone-platform-hint=auto',
    ...(launch.noSandbox ? ['--no-sandbox'] : []),
    'about:blank',
  ];
}
