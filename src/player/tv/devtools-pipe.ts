/**
 * puppeteer's connection to a Chromium we started ourselves (through the one module that
 * runs programs), over `--remote-debugging-pipe`: messages are JSON texts ended by a NUL
 * byte, written to Chromium's file descriptor 3 and read from its 4. puppeteer has such a
 * transport inside, but does not export it; this is its documented interface
 * (ConnectionTransport), in a few lines.
 */
import type { Readable, Writable } from 'node:stream';
import type { ConnectionTransport } from 'puppeteer-core';

export class DevToolsPipe implements ConnectionTransport {
  onmessage?: (message: string) => void;
  onclose?: () => void;
  private pending: Buffer[] = [];
  private closed = false;

  constructor(
    private readonly toBrowser: Writable,
    fromBrowser: Readable,
  ) {
    fromBrowser.on('data', (chunk: Buffer) => this.received(chunk));
    fromBrowser.once('close', () => this.ended());
    // A write after Chromium died fails; the close above tells puppeteer.
    toBrowser.on('error', () => undefined);
    fromBrowser.on('error', () => undefined);
  }

  send(message: string): void {
    if (this.closed) return;
    this.toBrowser.write(message);
    this.toBrowser.write('\0');
  }

  /** Splits what arrived at the NUL bytes; a message may span chunks. */
  private received(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(0, start); end !== -1; end = chunk.indexOf(0, start)) {
      this.pending.push(chunk.subarray(start, end));
      const message = Buffer.concat(this.pending).toString('utf8');
      this.pending = [];
      start = end + 1;
      this.onmessage?.(message);
    }
    if (start < chunk.length) this.pending.push(chunk.subarray(start));
  }

  private ended(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  close(): void {
    this.toBrowser.end();
    this.ended();
  }
}
