/**
 * The HLS routes through the whole app (inject): content types and CORS headers on
 * playlists and segments, sessions listed and ended (DELETE behind the write rules),
 * and any path or query a client sends answered 200, 400, 404 or 503: never 500, and
 * never a path that reaches the filesystem.
 */
import { NO_LIVE_BUFFERS } from '../../src/streaming/buffer-hls-session.js';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/common/errors.js';
import { LibraryEditsService } from '../../src/management/library-edits.service.js';
import { MediaFilesService } from '../../src/management/media-files.service.js';
import { PathBoundary } from '../../src/common/path-boundary.js';
import { HlsService } from '../../src/streaming/hls-sessions.service.js';
import { itemFiles } from '../support/hls-items.js';
import { type TempLibrary, buildTestApp, createTempLibrary } from '../support/temp-library.js';

let temp: TempLibrary;
let app: FastifyInstance;
let hls: HlsService;
let master: string;

beforeAll(async () => {
  temp = createTempLibrary();
  const clip = join(temp.dir, 'clip.mp4');
  execFileSync('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=160x120:rate=25:duration=13',
    '-f',
    'lavfi',
    '-i',
    'sine=duration=13',
    '-shortest',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-c:a',
    'aac',
    clip,
  ]);
  hls = new HlsService({
    dir: join(temp.dir, 'hls'),
    ffmpeg: 'ffmpeg',
    ffprobe: 'ffprobe',
    encoder: 'software',
    maxTranscodes: 1,
    ...itemFiles((id) => {
      if (id !== 'clip') throw new NotFoundError('file', id);
      return { path: clip, growing: false };
    }),
    resolveChannel: (number) => {
      throw new NotFoundError('channel', number);
    },
    liveBuffer: NO_LIVE_BUFFERS,
  });
  hls.start();
  const files = new MediaFilesService(temp.db, {
    recordingsDir: join(temp.dir, 'recordings'),
    boundary: PathBoundary.forLibrary([], join(temp.dir, 'recordings'), false),
  });
  app = await buildTestApp(temp, {
    hls,
    management: { files, edits: new LibraryEditsService(temp.db), token: 'a-token-of-sixteen-chars', roots: () => [] },
  });
  master = (await app.inject({ method: 'GET', url: '/dvr/files/clip/hls/master.m3u8' })).body;
}, 60_000);

afterAll(async () => {
  await app?.close();
  await hls?.stop();
  temp?.close();
});

const sessionId = () => /s\/([A-Za-z0-9_-]+)\//.exec(master)?.[1] ?? '';

describe('HLS routes', () => {
  it('answers playlists and segments with their content types and CORS headers', async () => {
    const first = await app.inject({ method: 'GET', url: '/dvr/files/clip/hls/master.m3u8' });
    expect(first.headers['content-type']).toBe('application/vnd.apple.mpegurl');
    expect(first.headers['access-control-allow-origin']).toBe('*');
    expect(first.body).toMatch(/^#EXTM3U\n/);
    const media = await app.inject({ method: 'GET', url: `/dvr/files/clip/hls/s/${sessionId()}/remux/stream.m3u8` });
    expect(media.statusCode).toBe(200);
    expect(media.body).toContain('seg-2.ts');
    const segment = await app.inject({ method: 'GET', url: `/dvr/files/clip/hls/s/${sessionId()}/remux/seg-1.ts` });
    expect(segment.statusCode).toBe(200);
    expect(segment.headers['content-type']).toBe('video/mp2t');
    expect(segment.headers['access-control-allow-origin']).toBe('*');
    expect(segment.rawPayload[0]).toBe(0x47);
    const head = await app.inject({ method: 'HEAD', url: '/dvr/files/clip/hls/master.m3u8' });
    expect(head.statusCode).toBe(200);
  });

  it('lists sessions, and ends one only for a caller that may write', async () => {
    const listed = (await app.inject({ method: 'GET', url: '/api/v1/sessions' })).json() as {
      ID: string;
      FileID?: string;
    }[];
    expect(listed.map((s) => s.FileID)).toContain('clip');
    const id = listed[0]!.ID;
    expect(
      (await app.inject({ method: 'DELETE', url: `/api/v1/sessions/${id}`, remoteAddress: '203.0.113.9' })).statusCode,
    ).toBe(401);
    expect(
      (
        await app.inject({
          method: 'DELETE',
          url: `/api/v1/sessions/${id}`,
          headers: { authorization: 'Bearer a-token-of-sixteen-chars' },
        })
      ).statusCode,
    ).toBe(204);
    expect(
      (
        await app.inject({
          method: 'DELETE',
          url: `/api/v1/sessions/${id}`,
          headers: { authorization: 'Bearer a-token-of-sixteen-chars' },
        })
      ).json(),
    ).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('answers any segment, variant, session or query with 200, 400, 404 or 503, as JSON when not 200', async () => {
    master = (await app.inject({ method: 'GET', url: '/dvr/files/clip/hls/master.m3u8' })).body;
    const part = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('seg-1.ts', 'seg-99.ts', '..', '%2e%2e', 'remux', '360p', '120p', sessionId(), 'stream.m3u8'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('clip', 'other', '..%2F..%2Fetc'),
        part,
        part,
        part,
        fc.dictionary(fc.constantFrom('encoder', 'bitrate', 'max_height', 'x'), fc.string({ maxLength: 6 })),
        async (item, session, variant, segment, query) => {
          const enc = encodeURIComponent;
          for (const url of [
            `/dvr/files/${enc(item)}/hls/master.m3u8?${new URLSearchParams(query)}`,
            `/dvr/files/${enc(item)}/hls/s/${enc(session)}/${enc(variant)}/${enc(segment)}`,
          ]) {
            const answer = await app.inject({ method: 'GET', url });
            expect([200, 400, 404, 503]).toContain(answer.statusCode);
            if (answer.statusCode !== 200)
              expect(answer.json()).toMatchObject({
                status: answer.statusCode,
                code: expect.any(String),
                message: expect.any(String),
              });
          }
        },
      ),
      { numRuns: 60 },
    );
  }, 60_000);
});
