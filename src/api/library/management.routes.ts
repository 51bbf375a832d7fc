/**
 * The management interface under /dvr: what players and users change, on the paths
 * existing DVR clients call (`/dvr/files/:id/watch` and friends), and the media
 * itself (`/dvr/files/:id/stream`). Writes pass the access rule of write-access.ts.
 * Handlers only check parameters and call the services.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ImportRoot } from '../../model/import-root.js';
import { MAX_PLAYBACK_SECONDS, type MediaFilesService } from '../../management/media-files.service.js';
import { CORS_HEADERS } from '../../http/cors.js';
import { ErrorSchema, StorageErrors, sendError } from '../../http/error-reply.js';
import { sendKnownFile } from '../file-sender.js';
import { TAGS } from '../openapi-tags.js';
import { FileItem } from '../../model/library/file-item.schemas.js';
import { DvrInfoSchema, ScansQueuedSchema } from '../../model/dvr/dvr.schemas.js';
import { VERSION } from '../../version.js';

export interface ManagementDeps {
  files: MediaFilesService;
  baseUrl: (request: FastifyRequest) => string;
  /** Queues a scan of the configured roots (all, or the one at `path`); the roots queued. */
  requestScan?: ((path?: string) => ImportRoot[] | undefined) | undefined;
  roots: () => readonly ImportRoot[];
}

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 2048 }) });
const Item = Type.Object(
  { id: Type.String() },
  { additionalProperties: true, description: 'The item in its interface-A shape.' },
);
const ErrorReplies = { 400: ErrorSchema, 401: ErrorSchema, 404: ErrorSchema, ...StorageErrors };

function sendJson(reply: FastifyReply, bytes: Buffer): FastifyReply {
  return reply
    .headers({ ...CORS_HEADERS, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' })
    .send(bytes);
}

export function registerManagement(app: FastifyInstance, deps: ManagementDeps): void {
  const { files } = deps;
  const itemAnswer = (request: FastifyRequest, reply: FastifyReply, id: string) =>
    sendJson(reply, files.item(id, deps.baseUrl(request)));

  app.get(
    '/dvr',
    {
      schema: {
        summary:
          'The DVR: where it records (clients map file paths with it), its version, the free space there, and the import folders',
        tags: [TAGS.management],
        response: { 200: DvrInfoSchema },
      },
    },
    (_request, reply) =>
      reply
        .headers({ ...CORS_HEADERS, 'cache-control': 'no-cache' })
        .send({ ...files.describe(VERSION), roots: deps.roots().map(({ kind, path }) => ({ kind, path })) }),
  );

  app.get(
    '/dvr/files/:id',
    {
      schema: {
        summary: 'A playable item with its file facts',
        tags: [TAGS.management],
        params: IdParams,
        response: { 200: FileItem, 404: ErrorSchema },
      },
    },
    (request, reply) => {
      const { id } = request.params as { id: string };
      const base = deps.baseUrl(request);
      const item = files.item(id, base);
      const client = files.clientFields(
        id,
        JSON.parse(item.toString('utf8')) as Parameters<MediaFilesService['clientFields']>[1],
      );
      const facts = Buffer.from(`,"file":${JSON.stringify(files.facts(id, base))},${JSON.stringify(client).slice(1)}`);
      // The item's JSON ends with its closing brace: the facts go in just before it.
      return sendJson(reply, Buffer.concat([item.subarray(0, item.length - 1), facts]));
    },
  );

  const watchState = [
    {
      url: '/dvr/files/:id/watch',
      summary: 'Mark an item watched (resume position back to 0)',
      change: (id: string) => files.watch(id),
    },
    { url: '/dvr/files/:id/unwatch', summary: 'Mark an item unwatched', change: (id: string) => files.unwatch(id) },
  ];
  for (const route of watchState) {
    app.put(
      route.url,
      {
        schema: {
          summary: route.summary,
          tags: [TAGS.management],
          params: IdParams,
          response: { 200: Item, ...ErrorReplies },
        },
      },
      (request, reply) => {
        const { id } = request.params as { id: string };
        route.change(id);
        return itemAnswer(request, reply, id);
      },
    );
  }

  app.put(
    '/dvr/files/:id/playback_time/:seconds',
    {
      schema: {
        summary: 'Set where playback resumes, in seconds',
        tags: [TAGS.management],
        params: Type.Object({
          id: Type.String({ minLength: 1, maxLength: 2048 }),
          // A decimal number: no sign, no exponent, so NaN, Infinity and "-1" are refused.
          seconds: Type.String({
            pattern: '^[0-9]{1,9}(\\.[0-9]{1,6})?$',
            description: `a number of seconds from 0 to ${MAX_PLAYBACK_SECONDS}, such as 754.2`,
          }),
        }),
        response: { 200: Item, ...ErrorReplies },
      },
    },
    (request, reply) => {
      const { id, seconds } = request.params as { id: string; seconds: string };
      const value = Number(seconds);
      if (value > MAX_PLAYBACK_SECONDS) {
        return sendError(reply, {
          status: 400,
          code: 'invalid_parameter',
          parameter: 'seconds',
          message: `The playback time must be from 0 to ${MAX_PLAYBACK_SECONDS} seconds.`,
        });
      }
      files.setPlaybackTime(id, value);
      return itemAnswer(request, reply, id);
    },
  );

  app.delete(
    '/dvr/files/:id',
    {
      schema: {
        summary: 'Delete a recording the DVR made (file and entry); imported files are never deleted (409)',
        tags: [TAGS.management],
        params: IdParams,
        response: { 204: Type.Null(), 409: ErrorSchema, ...ErrorReplies },
      },
    },
    async (request, reply) => {
      await files.delete((request.params as { id: string }).id);
      return reply.headers(CORS_HEADERS).code(204).send();
    },
  );

  for (const url of ['/dvr/files/:id/stream', '/dvr/files/:id/stream.:ext']) {
    app.get(
      url,
      {
        schema: {
          summary:
            "The item's media file: byte ranges, If-Range, conditional GET, HEAD; only media inside the library (403, 409)",
          description:
            'The extension form (stream.mkv) is for players that choose a demuxer by URL; any extension serves the same file.',
          tags: [TAGS.media],
          params: Type.Object({
            id: Type.String({ minLength: 1, maxLength: 2048 }),
            ext: Type.Optional(Type.String({ maxLength: 16 })),
          }),
          response: { 403: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema, 416: ErrorSchema },
        },
      },
      (request, reply) => {
        const { id } = request.params as { id: string };
        const file = files.streamFile(id);
        return sendKnownFile(
          request,
          reply,
          file.path,
          'no-cache',
          `The file of '${id}' is not on disk now; check the import folder or rescan.`,
          file.knownAs,
          file.identity,
        );
      },
    );
  }

  app.post(
    '/dvr/scans',
    {
      schema: {
        summary: 'Rescan the import roots, or the one named',
        tags: [TAGS.management],
        body: Type.Optional(
          Type.Object(
            { root: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })) },
            { additionalProperties: false },
          ),
        ),
        response: { 202: ScansQueuedSchema, ...ErrorReplies },
      },
    },
    (request, reply) => {
      const root = (request.body as { root?: string } | undefined)?.root;
      const queued = deps.requestScan?.(root);
      if (!queued) {
        const known = deps.roots().map((r) => r.path);
        return sendError(reply, {
          status: 400,
          code: 'invalid_parameter',
          parameter: 'root',
          message:
            known.length === 0
              ? 'No import roots are configured.'
              : `'${root}' is not an import root; the roots are: ${known.join(', ')}.`,
          ...(known.length > 0 ? { allowed: known } : {}),
        });
      }
      return reply.headers(CORS_HEADERS).code(202).send({ roots: queued });
    },
  );
}
