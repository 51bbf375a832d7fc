/**
 * HLS at the paths desktop and web clients already use: a master playlist per file
 * (`/dvr/files/:id/hls/master.m3u8`) and per channel
 * (`/devices/ANY/channels/:number/hls/master.m3u8`), which starts a session; each
 * session's media playlists and segments under `hls/s/<session>/<variant>/`; a file's
 * subtitle renditions (WebVTT) under `hls/s/<session>/subs/<n>/`; and the sessions
 * themselves under /api/v1/sessions. Handlers check parameters and call
 * HlsService; every answer carries CORS headers, so a page elsewhere can play them.
 */
import { type FileHandle, open } from 'node:fs/promises';
import { basename } from 'node:path';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from '../common/errors.js';
import { CORS_HEADERS } from '../http/cors.js';
import { ErrorSchema } from '../http/error-reply.js';
import { segmentIndex } from '../streaming/hls-playlists.js';
import type { LiveSegmentBody } from '../streaming/buffer-hls-session.js';
import type { HlsService } from '../streaming/hls-sessions.service.js';
import type { VariantRequest } from '../streaming/hls-variants.js';
import { TAGS } from './openapi-tags.js';

export const PLAYLIST_TYPE = 'application/vnd.apple.mpegurl';
const VTT_TYPE = 'text/vtt; charset=utf-8';
const Errors = {
  400: ErrorSchema,
  403: ErrorSchema,
  404: ErrorSchema,
  409: ErrorSchema,
  502: ErrorSchema,
  503: ErrorSchema,
};

const MasterQuery = Type.Object(
  {
    encoder: Type.Optional(
      Type.String({
        enum: ['remux', 'auto'],
        description: 'remux: only the rendition that copies the streams (an error when they must be transcoded)',
      }),
    ),
    bitrate: Type.Optional(
      Type.Integer({ minimum: 100, maximum: 200_000, description: 'offer no rendition above this many kbit/s' }),
    ),
    max_height: Type.Optional(
      Type.Integer({ minimum: 144, maximum: 4320, description: 'offer no rendition taller than this' }),
    ),
  },
  { additionalProperties: true },
);
/** A live playlist's Playlist Delta Update (RFC 8216bis 6.2.5.1), as hls.js asks for it. */
export const HlsSkipParam = Type.Optional(
  Type.Union([Type.Literal('YES'), Type.Literal('v2')], {
    description:
      'a Playlist Delta Update: the segments past the skip boundary (EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL) are one EXT-X-SKIP',
  }),
);
const DeltaQuery = Type.Object({ _HLS_skip: HlsSkipParam }, { additionalProperties: true });
const FileParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 2048 }) });
const ChannelParams = Type.Object({
  source: Type.String({
    pattern: '^[A-Za-z0-9_.-]{1,64}$',
    description: 'ANY, or the id of the source that carries the channel',
  }),
  number: Type.String({ pattern: '^\\d{1,5}([.-]\\d{1,5})?$', description: 'a channel number such as 12 or 12.1' }),
});
const SessionPart = {
  session: Type.String({ pattern: '^[A-Za-z0-9_-]{1,32}$', description: 'the session id the master playlist gave' }),
  variant: Type.String({ pattern: '^[a-z0-9]{1,16}$', description: 'a variant the master playlist offered' }),
};
const SegmentPart = {
  segment: Type.String({ pattern: '^seg-\\d{1,7}\\.ts$', description: 'a segment the media playlist lists' }),
};
/**
 * A static `subs` segment, which Fastify's router matches before the parametric `:variant` (no variant is named so).
 */
const SubtitleParams = Type.Object({
  ...FileParams.properties,
  session: SessionPart.session,
  n: Type.String({
    pattern: '^(0|[1-9]\\d{0,2})$',
    description: 'the number of a subtitle rendition the master playlist offered (0 to 999)',
  }),
});

export const SessionSchema = Type.Object(
  {
    ID: Type.String(),
    Channel: Type.Optional(Type.Object({ Number: Type.String(), ID: Type.String() })),
    FileID: Type.Optional(Type.String()),
    ClientAddress: Type.String(),
    StartedAt: Type.String({ format: 'date-time' }),
    Encoder: Type.String({
      description: "'remux', the transcoding encoder (software, vaapi, nvenc, qsv), or 'none' before the first segment",
    }),
  },
  { title: 'Session' },
);

function variantRequest(query: { encoder?: string; bitrate?: number; max_height?: number }): VariantRequest {
  return { encoder: query.encoder, bitrate: query.bitrate, maxHeight: query.max_height };
}

/** A live buffer's viewer: one device plays one channel at a time (asking for another means it left this one). */
export const viewerOf = (request: FastifyRequest) => `${request.ip} ${request.headers['user-agent'] ?? ''}`;

export function playlist(reply: FastifyReply, text: string): FastifyReply {
  return reply
    .headers({ ...CORS_HEADERS, 'cache-control': 'no-store' })
    .type(PLAYLIST_TYPE)
    .send(text);
}

/** Sends a segment opened first: one deleted a moment ago (its session ended) is a 404, not a broken answer. */
export async function segment(reply: FastifyReply, path: string): Promise<FastifyReply> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch {
    throw new NotFoundError('segment', basename(path));
  }
  const { size } = await handle.stat();
  return (
    reply
      .headers({ ...CORS_HEADERS, 'cache-control': 'no-cache', 'content-length': String(size) })
      .type('video/mp2t')
      // Segments are a few megabytes: big reads make fewer trips through the event loop.
      .send(handle.createReadStream({ highWaterMark: 1024 * 1024 }))
  );
}

/** Sends a segment of a channel's live buffer: a file, bytes kept in memory, or the segment under way as it comes. */
export function liveSegment(reply: FastifyReply, body: string | LiveSegmentBody): Promise<FastifyReply> | FastifyReply {
  if (typeof body === 'string') return segment(reply, body);
  if ('file' in body) return segment(reply, body.file);
  // The segment under way is sent as it comes (chunked), and ends where the channel's next segment begins.
  return reply
    .headers({ ...CORS_HEADERS, 'cache-control': 'no-cache' })
    .type('video/mp2t')
    .send('stream' in body ? body.stream : body.data);
}

/** Sends a subtitle rendition's WebVTT, opened first as a segment is. */
async function vttFile(reply: FastifyReply, path: string): Promise<FastifyReply> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch {
    throw new NotFoundError('subtitle file', basename(path));
  }
  const { size } = await handle.stat();
  return reply
    .headers({ ...CORS_HEADERS, 'cache-control': 'no-cache', 'content-length': String(size) })
    .type(VTT_TYPE)
    .send(handle.createReadStream());
}

/** HEAD asks whether it is there: answered without starting a session, a tuner or an ffmpeg. */
function headOnly(request: FastifyRequest, reply: FastifyReply, type: string): FastifyReply | undefined {
  if (request.method !== 'HEAD') return undefined;
  return reply
    .headers({ ...CORS_HEADERS, 'cache-control': 'no-store' })
    .type(type)
    .send();
}

const indexOf = (request: FastifyRequest) => {
  const index = segmentIndex((request.params as { segment: string }).segment);
  if (index === undefined) throw new NotFoundError('segment', (request.params as { segment: string }).segment);
  return index;
};

export function registerHlsRoutes(app: FastifyInstance, hls: HlsService): void {
  const tags = [TAGS.media];
  const fileTarget = (request: FastifyRequest) => ({ itemId: (request.params as { id: string }).id });
  const channelTarget = (request: FastifyRequest) => {
    const { source, number } = request.params as { source: string; number: string };
    return { number: number.replace('-', '.'), source };
  };
  const sessionId = (request: FastifyRequest) => (request.params as { session: string }).session;
  const sessionOf = (request: FastifyRequest, target: { itemId: string }) => hls.session(sessionId(request), target);
  const liveSessionOf = (request: FastifyRequest) =>
    hls.session(sessionId(request), { number: channelTarget(request).number });
  const variantOf = (request: FastifyRequest) => (request.params as { variant: string }).variant;

  app.get(
    '/dvr/files/:id/hls/master.m3u8',
    {
      schema: {
        summary:
          'The item as HLS: a master playlist of its renditions (remux when its codecs allow, H.264 + AAC transcodes); starts a session',
        tags,
        params: FileParams,
        querystring: MasterQuery,
        response: Errors,
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      if (request.method === 'HEAD') {
        hls.checkItem(id);
        return headOnly(request, reply, PLAYLIST_TYPE);
      }
      return playlist(reply, await hls.fileMaster(id, variantRequest(request.query as object), request.ip));
    },
  );
  app.get(
    '/dvr/files/:id/hls/s/:session/:variant/stream.m3u8',
    {
      schema: {
        summary: "A session's media playlist: every segment of the file (VOD), or a growing recording's so far (EVENT)",
        tags,
        params: Type.Object({ ...FileParams.properties, ...SessionPart }),
        response: Errors,
      },
    },
    async (request, reply) => {
      const session = sessionOf(request, fileTarget(request));
      return headOnly(request, reply, PLAYLIST_TYPE) ?? playlist(reply, await session.playlist(variantOf(request)));
    },
  );
  app.get(
    '/dvr/files/:id/hls/s/:session/:variant/:segment',
    {
      schema: {
        summary: 'One MPEG-TS segment; one not made yet starts ffmpeg there (a seek)',
        tags,
        params: Type.Object({ ...FileParams.properties, ...SessionPart, ...SegmentPart }),
        response: Errors,
      },
    },
    async (request, reply) => {
      const session = sessionOf(request, fileTarget(request));
      const index = indexOf(request);
      return headOnly(request, reply, 'video/mp2t') ?? segment(reply, await session.segment(variantOf(request), index));
    },
  );

  const subtitleOf = (request: FastifyRequest) => {
    const { id, session, n } = request.params as { id: string; session: string; n: string };
    return { session: hls.fileSession(session, id), index: Number(n) };
  };
  app.get(
    '/dvr/files/:id/hls/s/:session/subs/:n/stream.m3u8',
    {
      schema: {
        summary:
          "A subtitle rendition's playlist: one WebVTT segment covering the whole file (files of known length only)",
        tags,
        params: SubtitleParams,
        response: Errors,
      },
    },
    async (request, reply) => {
      const { session, index } = subtitleOf(request);
      if (request.method === 'HEAD') {
        session.checkSubtitle(index);
        return headOnly(request, reply, PLAYLIST_TYPE);
      }
      return playlist(reply, session.subtitlePlaylist(index));
    },
  );
  app.get(
    '/dvr/files/:id/hls/s/:session/subs/:n/all.vtt',
    {
      schema: {
        summary:
          "A subtitle rendition's cues as WebVTT (made by ffmpeg at the first request; X-TIMESTAMP-MAP ties them to the segments)",
        tags,
        params: SubtitleParams,
        response: Errors,
      },
    },
    async (request, reply) => {
      const { session, index } = subtitleOf(request);
      if (request.method === 'HEAD') {
        session.checkSubtitle(index);
        return headOnly(request, reply, VTT_TYPE);
      }
      return vttFile(reply, await session.subtitleFile(index));
    },
  );

  app.get(
    '/devices/:source/channels/:number/hls/master.m3u8',
    {
      schema: {
        summary:
          "A live channel as HLS, played from its live buffer; shares the channel's one connection with recordings and other viewers; starts a session",
        description:
          'Every rendition lists everything the buffer holds since the channel was tuned (up to its depth), each ' +
          'segment with its EXT-X-PROGRAM-DATE-TIME: a player pauses, seeks back and returns to live. The remux ' +
          "rendition is the channel as received; the others transcode the buffer's segments when asked.",
        tags,
        params: ChannelParams,
        querystring: MasterQuery,
        response: Errors,
      },
    },
    async (request, reply) => {
      const { number, source } = channelTarget(request);
      if (request.method === 'HEAD') {
        hls.checkChannel(number, source);
        return headOnly(request, reply, PLAYLIST_TYPE);
      }
      const query = variantRequest(request.query as object);
      return playlist(reply, await hls.liveMaster(number, source, query, request.ip, viewerOf(request)));
    },
  );
  app.get(
    '/devices/:source/channels/:number/hls/s/:session/:variant/stream.m3u8',
    {
      schema: {
        summary: "A live session's media playlist: the channel's live buffer, with each segment's time",
        tags,
        params: Type.Object({ ...ChannelParams.properties, ...SessionPart }),
        querystring: DeltaQuery,
        response: Errors,
      },
    },
    async (request, reply) => {
      const session = liveSessionOf(request);
      const skip = (request.query as { _HLS_skip?: string })._HLS_skip !== undefined;
      return (
        headOnly(request, reply, PLAYLIST_TYPE) ?? playlist(reply, await session.playlist(variantOf(request), skip))
      );
    },
  );
  app.get(
    '/devices/:source/channels/:number/hls/s/:session/:variant/:segment',
    {
      schema: {
        summary: "One MPEG-TS segment of the channel's live buffer (transcoded for a transcoding rendition)",
        tags,
        params: Type.Object({ ...ChannelParams.properties, ...SessionPart, ...SegmentPart }),
        response: Errors,
      },
    },
    async (request, reply) => {
      const session = liveSessionOf(request);
      const index = indexOf(request);
      return (
        headOnly(request, reply, 'video/mp2t') ?? liveSegment(reply, await session.segment(variantOf(request), index))
      );
    },
  );

  app.get(
    '/api/v1/sessions',
    {
      schema: {
        summary: 'The streaming sessions running now (HLS of files and channels)',
        tags,
        response: { 200: Type.Array(SessionSchema) },
      },
    },
    (_request, reply) => reply.headers({ ...CORS_HEADERS, 'cache-control': 'no-store' }).send(hls.list()),
  );
}

/** Ending a session is a change: it goes in the management context, behind its write rules. */
export function registerSessionWrites(app: FastifyInstance, hls: HlsService): void {
  app.delete(
    '/api/v1/sessions/:id',
    {
      schema: {
        summary: 'End a streaming session: its ffmpeg stops, its segments go, its tuner is let go',
        tags: [TAGS.media],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 204: Type.Null(), 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (request, reply) => {
      await hls.endSession((request.params as { id: string }).id);
      return reply.headers(CORS_HEADERS).code(204).send();
    },
  );
}
