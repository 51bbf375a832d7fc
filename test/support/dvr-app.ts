/**
 * A DvrService over a real temp library, fed by M3U and XMLTV files written into a
 * temp directory, and the full HTTP app with its management routes over both.
 */
import { PathBoundary } from '../../src/common/path-boundary.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { DvrService, type DvrOptions } from '../../src/dvr/dvr.service.js';
import type { SourceSpec } from '../../src/dvr/sources/dvr-sources.service.js';
import { LibraryEditsService } from '../../src/management/library-edits.service.js';
import { MediaFilesService } from '../../src/management/media-files.service.js';
import { type TempLibrary, buildTestApp } from './temp-library.js';

/** XMLTV time: `YYYYMMDDhhmmss +0000`. */
export const xmlTime = (epoch: number) =>
  `${new Date(epoch * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14)} +0000`;

export interface GuideProgramme {
  channel: string;
  start: number;
  stop: number;
  title: string;
  /** Raw XML put inside <programme> after the title. */
  extra?: string;
}

export function writeXmltv(path: string, channels: [id: string, name: string][], programmes: GuideProgramme[]): void {
  const body = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<tv generator-info-name="antenna-test">',
    ...channels.map(([id, name]) => `<channel id="${id}"><display-name>${name}</display-name></channel>`),
    ...programmes.map(
      (p) =>
        `<programme start="${xmlTime(p.start)}" stop="${xmlTime(p.stop)}" channel="${p.channel}"><title>${p.title}</title>${p.extra ?? ''}</programme>`,
    ),
    '</tv>',
  ].join('\n');
  writeFileSync(path, body);
}

/** Polls `read` until `ok` says yes; fails after `timeoutMs` showing the last value. */
export async function until<T>(
  read: () => Promise<T> | T,
  ok: (value: T) => boolean,
  timeoutMs: number,
  what = 'condition',
  everyMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`${what} not met in ${timeoutMs} ms: ${JSON.stringify(value)?.slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export type Json = Record<string, unknown>;

/** A JSON request to a running server: the status and the parsed answer (null for an empty body). */
export async function callJson(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Json & Json[] }> {
  const response = await fetch(baseUrl + path, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: (text ? JSON.parse(text) : null) as Json & Json[] };
}

export interface M3uEntry {
  number: string;
  name: string;
  url: string;
  tvgId?: string;
}

export function writeM3u(path: string, entries: M3uEntry[]): void {
  const lines = ['#EXTM3U'];
  for (const e of entries)
    lines.push(`#EXTINF:-1${e.tvgId ? ` tvg-id="${e.tvgId}"` : ''} tvg-chno="${e.number}",${e.name}`, e.url);
  writeFileSync(path, `${lines.join('\n')}\n`);
}

export interface DvrSetup {
  sources: SourceSpec[];
  guides: string[];
  /** Epoch milliseconds. */
  now?: () => number;
  /** Default: silent. */
  logger?: Logger;
  /** Longest wait for a source's answer (default 30 s). */
  sourceTimeoutMs?: number;
  /** The live buffers' limits (default: the server's). */
  liveBuffers?: DvrOptions['liveBuffers'];
  /** Where the DVR tells what happens (default: nowhere). */
  emit?: DvrOptions['emit'];
}

/** A DvrService writing under `temp.dir`; nothing refreshes on its own (refreshInterval 0) and comskip is off. */
export function createDvr(temp: TempLibrary, setup: DvrSetup): DvrService {
  const recordingsDir = join(temp.dir, 'recordings');
  mkdirSync(recordingsDir, { recursive: true });
  return new DvrService(temp.db, {
    recordingsDir,
    thumbnailsDir: join(temp.dir, 'thumbnails'),
    workDir: join(temp.dir, 'work'),
    sources: { sources: setup.sources, guides: setup.guides },
    logger: setup.logger ?? pino({ level: 'silent' }),
    ...(setup.now ? { now: setup.now } : {}),
    ...(setup.sourceTimeoutMs ? { sourceTimeoutMs: setup.sourceTimeoutMs } : {}),
    ...(setup.liveBuffers ? { liveBuffers: setup.liveBuffers } : {}),
    ...(setup.emit ? { emit: setup.emit } : {}),
    refreshInterval: 0,
    comskip: false,
    // The tests' playlists and guides are files in the temporary folder, added through the API too.
    localSourceDirs: [temp.dir],
  });
}

/** The full app with the management interface and the DVR routes. */
export function buildDvrApp(temp: TempLibrary, dvr: DvrService, token?: string): Promise<FastifyInstance> {
  return buildTestApp(temp, {
    management: {
      files: new MediaFilesService(temp.db, {
        recordingsDir: join(temp.dir, 'recordings'),
        boundary: new PathBoundary(() => [join(temp.dir, 'recordings')]),
        ...(temp.library.stateLog ? { stateLog: temp.library.stateLog } : {}),
      }),
      edits: new LibraryEditsService(temp.db, temp.library.stateLog),
      token,
      roots: () => [],
      dvr,
    },
  });
}
