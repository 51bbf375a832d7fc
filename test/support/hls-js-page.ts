/**
 * A page of another origin than the server, with hls.js on it, and Debian's headless
 * Chromium to open it: how the HLS end-to-end tests play the server's streams as a web
 * client would (cross-origin, so CORS is tested too).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import puppeteer, { type Browser } from 'puppeteer-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HLS_JS = createRequire(import.meta.url).resolve('hls.js/dist/hls.min.js');

export interface HlsJsPage {
  /** The page's URL: an empty document with `Hls` loaded. */
  url: string;
  browser: Browser;
  close(): Promise<void>;
}

export async function startHlsJsPage(): Promise<HlsJsPage> {
  const hlsJs = readFileSync(HLS_JS);
  const server = createServer((request, response) => {
    if (request.url === '/hls.js') response.writeHead(200, { 'content-type': 'text/javascript' }).end(hlsJs);
    else
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>player</title><script src="/hls.js"></script><body></body>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required', '--mute-audio'],
  });
  return {
    url,
    browser,
    async close() {
      await browser.close();
      server.close();
    },
  };
}
