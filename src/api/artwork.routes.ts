/**
 * `GET /artwork/:id`: the poster or thumbnail image the importer found beside an
 * item's or show's media. The file's path comes from the database, never from the
 * request; an id with no artwork, or artwork since removed from disk, is a 404.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { createReadStream, statSync } from 'node:fs';
import { extname } from 'node:path';
import type { LibraryService } from '../library/library.service.js';
import { ErrorSchema, sendError } from './error-reply.js';

const CONTENT_TYPES: Record<string, string> = { '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.png': 'image/png' };

export function registerArtwork(app: FastifyInstance, library: LibraryService): void {
  app.get(
    '/artwork/:id',
    {
      schema: {
        summary: 'Artwork of an imported item or show (image_url points here)',
        tags: ['media'],
        params: Type.Object({ id: Type.String({ maxLength: 512 }) }),
        response: { 404: ErrorSchema },
      },
    },
    (request, reply) => {
      const { id } = request.params as { id: string };
      const path = library.artworkPath(id);
      const size = path === undefined ? undefined : fileSize(path);
      if (path === undefined || size === undefined) {
        return sendError(reply, { status: 404, code: 'not_found', message: `No artwork for '${id}'. Artwork comes from image files beside imported media; rescan after adding one.` });
      }
      return reply
        .header('content-type', CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream')
        .header('content-length', String(size))
        .header('cache-control', 'no-cache')
        .send(createReadStream(path));
    },
  );
}

function fileSize(path: string): number | undefined {
  try {
    const stats = statSync(path);
    return stats.isFile() ? stats.size : undefined;
  } catch {
    return undefined;
  }
}
