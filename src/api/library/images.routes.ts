/**
 * Images the importer knows of: `GET /artwork/:id`, the poster or thumbnail image found
 * beside an item's or show's media, and `GET /thumbnails/:id`, the frame Antenna took
 * from an item (stored under the data directory). The file's path comes from the
 * database, never from the request; an id with no image, or one since removed from
 * disk, is a 404. Artwork is served only from inside the library and only when its
 * bytes are an image (LibraryService.artworkFile).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ServedFile } from '../../common/path-boundary.js';
import type { LibraryService } from '../../library/library.service.js';
import { ErrorSchema, sendError } from '../../http/error-reply.js';
import { sendKnownFile } from '../file-sender.js';
import { TAGS } from '../openapi-tags.js';

interface ImageRoute {
  url: string;
  summary: string;
  lookup: (id: string) => ServedFile | undefined;
  missing: string;
}

export function registerImages(app: FastifyInstance, library: LibraryService): void {
  const routes: ImageRoute[] = [
    {
      url: '/artwork/:id',
      summary: 'Artwork of an imported item or show (image_url points here)',
      lookup: (id) => library.artworkFile(id),
      missing: 'Artwork comes from image files beside imported media; rescan after adding one.',
    },
    ...['/thumbnails/:id', '/dvr/files/:id/preview.jpg'].map((url) => ({
      url,
      summary: url.startsWith('/dvr')
        ? "The item's thumbnail, at the path desktop clients ask"
        : 'A frame taken from an imported item (thumbnail_url points here)',
      lookup: (id: string) => {
        // Antenna's own files, under the data directory.
        const path = library.thumbnailPath(id);
        return path === undefined ? undefined : { path, knownAs: path };
      },
      missing: 'Thumbnails are made in the background after a scan has probed the item.',
    })),
  ];
  for (const route of routes) {
    app.get(
      route.url,
      {
        schema: {
          summary: route.summary,
          tags: [TAGS.media],
          params: Type.Object({ id: Type.String({ maxLength: 512 }) }),
          response: { 403: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema },
        },
      },
      (request, reply) => {
        const { id } = request.params as { id: string };
        const file = route.lookup(id);
        const missing = `No image for '${id}'. ${route.missing}`;
        if (file === undefined) return sendError(reply, { status: 404, code: 'not_found', message: missing });
        // ETag and Last-Modified with no-cache: a replaced poster shows at once, an unchanged one costs a 304.
        return sendKnownFile(request, reply, file.path, 'no-cache', missing, file.knownAs, file.identity);
      },
    );
  }
}
